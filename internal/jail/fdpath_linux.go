package jail

import (
	"os"
	"strconv"
)

// FDPath returns a name of the open file f that leads to f itself and to
// nothing else: /proc/self/fd/N. It holds in this process, and in a child
// process it starts until the child executes its program: Go's fork
// changes the child's working directory before the exec, while the child
// still has every descriptor of its parent, so a child given the name as
// its working directory starts in the very directory f is, whatever was
// renamed or swapped on the path f was opened by. The name is good only
// while f is open. ok is false where /proc does not show f (not mounted).
func FDPath(f *os.File) (name string, ok bool) {
	sc, err := f.SyscallConn()
	if err != nil {
		return "", false
	}
	var fd uintptr
	if sc.Control(func(d uintptr) { fd = d }) != nil {
		return "", false
	}
	p := "/proc/self/fd/" + strconv.FormatUint(uint64(fd), 10)
	fi, err := f.Stat()
	if err != nil {
		return "", false
	}
	pi, err := os.Stat(p)
	if err != nil || !os.SameFile(fi, pi) {
		return "", false
	}
	return p, true
}
