//go:build !linux

package engine

import "os"

// pseudoFS reports nothing on systems other than Linux.
func pseudoFS(*os.File) string { return "" }
