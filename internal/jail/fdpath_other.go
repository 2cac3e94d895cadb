//go:build !linux

package jail

import "os"

// FDPath returns a name of the open file f that leads to f itself; there
// is none on systems other than Linux, where ok is false and a child
// process is given the directory's path instead.
func FDPath(f *os.File) (name string, ok bool) { return "", false }
