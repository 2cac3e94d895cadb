//go:build !unix

package jail

// openFlags are none where a file cannot be a FIFO or a terminal that an
// open would wait on or take.
const openFlags = 0

// dirFlags are none: the open file is checked to be a directory.
const dirFlags = 0
