//go:build unix

package vouch

import "syscall"

// openFlags open a workspace file without blocking (a FIFO opens at once,
// and is then refused as not a regular file) and without making a terminal
// the controlling one.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
