package engine

import (
	"os"

	"golang.org/x/sys/unix"
)

// pseudoFS says which pseudo-filesystem of the kernel the open directory d
// is on (proc or sysfs, wherever mounted), or "".
func pseudoFS(d *os.File) string {
	var st unix.Statfs_t
	if unix.Fstatfs(int(d.Fd()), &st) != nil {
		return ""
	}
	switch st.Type {
	case unix.PROC_SUPER_MAGIC:
		return "a proc filesystem"
	case unix.SYSFS_MAGIC:
		return "a sysfs filesystem"
	case unix.DEVPTS_SUPER_MAGIC:
		return "a devpts filesystem"
	}
	return ""
}
