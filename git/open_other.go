//go:build !unix

package git

// openFlags are added to the read-only open of a file Read counts: none
// are needed where a file in the workspace cannot be a FIFO or a terminal.
const openFlags = 0
