//go:build unix

package jail

import "syscall"

// openFlags open without blocking (a FIFO opens at once, and is then
// refused) and without making a terminal the controlling one.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY

// dirFlags make an open that wants a directory fail on anything else
// before it is opened.
const dirFlags = syscall.O_DIRECTORY
