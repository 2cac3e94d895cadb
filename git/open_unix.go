//go:build unix

package git

import "syscall"

// openFlags are added to the read-only open of a file Read counts: opening
// a FIFO must not wait for a writer, nor a terminal become the controlling
// one.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
