// Package jail opens what the agent under verification controls: the
// files of its workspace, a result file it leaves, a session log, the
// workspace directory itself. The agent can put anything there: a symlink
// out, a FIFO, a device, a socket, a directory renamed while vouch runs.
//
// Every open here is one non-blocking open (O_NONBLOCK|O_NOCTTY on Unix:
// opening a FIFO does not wait for a writer, a terminal does not become
// vouch's controlling one) followed by a check of the open file, never of
// its path: a file must be a regular file, a directory a directory;
// anything else is refused with an error matching [ErrNotRegular] or
// [ErrNotDir]. What was checked is what is read. Opens inside an
// [os.Root] never leave it, whatever path or symlink they meet.
//
// Vouch opens an agent's file through this package and nothing else; a
// test of the package scans the module for opens made elsewhere.
package jail

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
)

// Errors of the opens.
var (
	// ErrNotRegular is a file that is not a regular file: a FIFO, a
	// device, a socket, a directory.
	ErrNotRegular = errors.New("not a regular file")
	// ErrNotDir is a directory that is not one.
	ErrNotDir = errors.New("not a directory")
	// ErrTooLarge is a file over the size limit of [ReadFile].
	ErrTooLarge = errors.New("over the size limit")
	// ErrChanged is a directory replaced while it was being opened.
	ErrChanged = errors.New("the directory changed while it was opened")
)

// open is the one open of the package: opener opens with the flags it is
// given (O_RDONLY and the non-blocking flags, plus extra), and the open
// file is then checked to be what want asks for.
func open(name string, extra int, want kind, opener func(flag int) (*os.File, error)) (*os.File, fs.FileInfo, error) {
	f, err := opener(os.O_RDONLY | openFlags | extra)
	if want == wantDir && errors.Is(err, syscall.ENOTDIR) {
		// O_DIRECTORY refused it before it was opened.
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: ErrNotDir}
	}
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	var bad error
	switch m := fi.Mode(); {
	case want == wantRegular && !m.IsRegular():
		bad = ErrNotRegular
	case want == wantDir && !m.IsDir():
		bad = ErrNotDir
	case want == wantEither && !m.IsRegular() && !m.IsDir():
		bad = ErrNotRegular
	}
	if bad != nil {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: bad}
	}
	return f, fi, nil
}

// kind is what an open wants the file to be.
type kind int

const (
	wantRegular kind = iota
	wantDir
	wantEither // a regular file or a directory
)

// Open opens the regular file name inside root for reading. The caller
// closes the file. A FIFO, a device, a socket or a directory is refused
// (ErrNotRegular); a path or a symlink that leaves root is an error.
func Open(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	return open(name, 0, wantRegular, func(flag int) (*os.File, error) { return root.OpenFile(name, flag, 0) })
}

// OpenPath opens the regular file at the path name for reading, as [Open]
// does inside a root: for a file the agent's side names by a path with no
// root to hold it to (a session log named by the hook's input, a
// repository's shallow file named by its configuration).
func OpenPath(name string) (*os.File, fs.FileInfo, error) {
	return open(name, 0, wantRegular, func(flag int) (*os.File, error) { return os.OpenFile(name, flag, 0) })
}

// ReadFile reads the regular file name inside root (see [Open]), refusing
// one over max bytes with an error matching ErrTooLarge. Only max+1 bytes
// are ever read, whatever the file's size.
func ReadFile(root *os.Root, name string, max int64) ([]byte, error) {
	f, _, err := Open(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w of %d bytes", ErrTooLarge, max)}
	}
	return data, nil
}

// OpenDir opens the directory of root itself, for reading it or for
// handing it to a child process (see [FDPath]). The caller closes it.
func OpenDir(root *os.Root) (*os.File, error) {
	f, _, err := open(".", dirFlags, wantDir, func(flag int) (*os.File, error) { return root.OpenFile(".", flag, 0) })
	return f, err
}

// OpenRoot opens the directory dir as a root. The directory is opened
// once, without blocking (a FIFO put in its place is refused, not waited
// on), and the root is that open directory: on Linux it is reopened
// through the open descriptor, never through dir again, and the root's
// Name is then that descriptor's name, good for nothing but messages.
// Elsewhere dir is opened a second time and must be the same directory
// (else ErrChanged), and a FIFO swapped in between the two opens would
// block.
func OpenRoot(dir string) (*os.Root, error) {
	f, fi, err := open(dir, dirFlags, wantDir, func(flag int) (*os.File, error) { return os.OpenFile(dir, flag, 0) })
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return rootOf(f, fi, func() (*os.Root, error) { return os.OpenRoot(dir) })
}

// OpenRootIn opens the directory name inside parent as a root, as
// [OpenRoot] does: the path and its symlinks never lead out of parent, and
// what was opened and checked is the root.
func OpenRootIn(parent *os.Root, name string) (*os.Root, error) {
	f, fi, err := open(name, dirFlags, wantDir, func(flag int) (*os.File, error) { return parent.OpenFile(name, flag, 0) })
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return rootOf(f, fi, func() (*os.Root, error) { return parent.OpenRoot(name) })
}

// rootOf returns a root of the open directory f: through its descriptor
// where the system names it (see FDPath), else by reopen, which must give
// the same directory.
func rootOf(f *os.File, fi fs.FileInfo, reopen func() (*os.Root, error)) (*os.Root, error) {
	if p, ok := FDPath(f); ok {
		if r, err := os.OpenRoot(p); err == nil {
			if same(r, fi) {
				return r, nil
			}
			r.Close()
		}
	}
	r, err := reopen()
	if err != nil {
		return nil, err
	}
	if !same(r, fi) {
		r.Close()
		return nil, &fs.PathError{Op: "open", Path: f.Name(), Err: ErrChanged}
	}
	return r, nil
}

// same reports whether the directory of r is the one fi describes.
func same(r *os.Root, fi fs.FileInfo) bool {
	ri, err := r.Stat(".")
	return err == nil && os.SameFile(ri, fi)
}

// FS returns a file system of the files under root whose opens are those
// of this package: a file opened through it is a regular file or a
// directory, opened without blocking; a FIFO, a device or a socket is
// refused. For fs.WalkDir over a workspace, and for files a request names.
func FS(root *os.Root) fs.FS { return fsys{root} }

type fsys struct{ root *os.Root }

// Open implements fs.FS.
func (s fsys) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, _, err := open(name, 0, wantEither, func(flag int) (*os.File, error) { return s.root.OpenFile(name, flag, 0) })
	if err != nil {
		return nil, err
	}
	return f, nil
}

// ReadDir implements fs.ReadDirFS: the directory's entries sorted by name.
func (s fsys) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	f, _, err := open(name, dirFlags, wantDir, func(flag int) (*os.File, error) { return s.root.OpenFile(name, flag, 0) })
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}

// Stat implements fs.StatFS. A stat opens nothing.
func (s fsys) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	return s.root.Stat(name)
}
