// Package atomicfile replaces a file whole: a crash, a kill or a full
// disk leaves the old file or the new one, never part of either.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, with permissions perm: it writes a
// temporary file beside path, syncs it, renames it over path and syncs the
// directory (where the system allows), so the rename is durable too. The
// temporary file is removed when anything fails.
func Write(path string, data []byte, perm fs.FileMode) error {
	return place(path, data, perm, os.Rename)
}

// Create makes path with data and permissions perm, whole, only if it does
// not exist: the data is written and synced under a temporary name, then
// linked to path, which fails with an error matching fs.ErrExist when
// another writer got there first. A reader never sees path part-written.
func Create(path string, data []byte, perm fs.FileMode) error {
	return place(path, data, perm, os.Link)
}

// place writes data to a synced temporary file beside path, puts it at
// path with put (a rename, or a link that never replaces), removes the
// temporary name, and syncs the directory.
func place(path string, data []byte, perm fs.FileMode, put func(tmp, path string) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // gone after a rename; the second name after a link
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = put(tmp, path)
	}
	if err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: not every system syncs a directory
		d.Close()
	}
	return nil
}
