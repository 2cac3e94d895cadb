package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// evictPages writes the file at path to disk and drops its pages from the
// page cache, so that the next process to run it reads it back from disk,
// as an installed binary is. A binary the linker has just written stays in
// the page cache in the large pieces it was written in, and a process
// running it maps more of them: 44 MB of a 67 MB binary, against about 28
// MB read back from disk.
func evictPages(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return err
	}
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}
