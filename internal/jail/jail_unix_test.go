//go:build unix

package jail_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/vouchgate/vouch/internal/jail"
)

// workspace returns a directory with a regular file, a FIFO, a
// subdirectory and a symlink out, opened as a root.
func workspace(t *testing.T) (string, *os.Root) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return dir, root
}

// TestOpenRefusesWhatIsNotARegularFile: a FIFO (no writer: a blocking
// open would wait for ever), a directory and a device are refused, at
// once, with ErrNotRegular; a regular file is opened and described.
func TestOpenRefusesWhatIsNotARegularFile(t *testing.T) {
	_, root := workspace(t)
	f, fi, err := jail.Open(root, "a.txt")
	if err != nil || fi.Size() != 6 {
		t.Fatalf("Open(a.txt) = %v, %v", fi, err)
	}
	f.Close()
	for _, name := range []string{"fifo", "sub", "."} {
		if f, _, err := jail.Open(root, name); !errors.Is(err, jail.ErrNotRegular) {
			if f != nil {
				f.Close()
			}
			t.Errorf("Open(%s) = %v, want ErrNotRegular", name, err)
		}
	}
	if _, _, err := jail.Open(root, "out/x"); err == nil || errors.Is(err, jail.ErrNotRegular) {
		t.Errorf("Open through a symlink out = %v, want the root's refusal", err)
	}
	if _, _, err := jail.OpenPath(os.DevNull); !errors.Is(err, jail.ErrNotRegular) {
		t.Errorf("OpenPath(%s) = %v, want ErrNotRegular", os.DevNull, err)
	}
}

func TestReadFile(t *testing.T) {
	_, root := workspace(t)
	if data, err := jail.ReadFile(root, "a.txt", 6); err != nil || string(data) != "hello\n" {
		t.Errorf("ReadFile at the limit = %q, %v", data, err)
	}
	if _, err := jail.ReadFile(root, "a.txt", 5); !errors.Is(err, jail.ErrTooLarge) {
		t.Errorf("ReadFile over the limit = %v, want ErrTooLarge", err)
	}
	if _, err := jail.ReadFile(root, "fifo", 5); !errors.Is(err, jail.ErrNotRegular) {
		t.Errorf("ReadFile(fifo) = %v, want ErrNotRegular", err)
	}
}

// TestOpenRootOfAFIFO: a FIFO where a directory was named is refused
// without waiting for a writer, by path and inside a root.
func TestOpenRootOfAFIFO(t *testing.T) {
	dir, root := workspace(t)
	if r, err := jail.OpenRoot(filepath.Join(dir, "fifo")); !errors.Is(err, jail.ErrNotDir) {
		if r != nil {
			r.Close()
		}
		t.Errorf("OpenRoot(fifo) = %v, want not a directory", err)
	}
	if r, err := jail.OpenRootIn(root, "fifo"); !errors.Is(err, jail.ErrNotDir) {
		if r != nil {
			r.Close()
		}
		t.Errorf("OpenRootIn(fifo) = %v, want ErrNotDir", err)
	}
	if r, err := jail.OpenRootIn(root, "out"); err == nil {
		r.Close()
		t.Error("OpenRootIn followed a symlink out of the root")
	}
}

// TestOpenRootIsWhatWasOpened: once opened, the root is that directory:
// renaming it and putting a symlink to another directory in its place
// changes nothing read through the root.
func TestOpenRootIsWhatWasOpened(t *testing.T) {
	dir, parent := workspace(t)
	if err := os.WriteFile(filepath.Join(dir, "sub", "who"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "who"), []byte("other"), 0o644); err != nil {
		t.Fatal(err)
	}
	byPath, err := jail.OpenRoot(filepath.Join(dir, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	defer byPath.Close()
	inRoot, err := jail.OpenRootIn(parent, "sub")
	if err != nil {
		t.Fatal(err)
	}
	defer inRoot.Close()
	if err := os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*os.Root{"OpenRoot": byPath, "OpenRootIn": inRoot} {
		if data, err := jail.ReadFile(r, "who", 100); err != nil || string(data) != "inside" {
			t.Errorf("%s: read %q, %v; want the directory that was opened", name, data, err)
		}
	}
}

// TestFDPath: on Linux the descriptor's name leads to the open directory
// itself, even after the directory was renamed.
func TestFDPath(t *testing.T) {
	dir, root := workspace(t)
	d, err := jail.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p, ok := jail.FDPath(d)
	if runtime.GOOS != "linux" {
		if ok {
			t.Errorf("FDPath = %q on %s, want none", p, runtime.GOOS)
		}
		return
	}
	if !ok {
		t.Fatal("FDPath gave no name on Linux")
	}
	moved := dir + ".moved"
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	defer os.Rename(moved, dir)
	data, err := os.ReadFile(filepath.Join(p, "a.txt"))
	if err != nil || string(data) != "hello\n" {
		t.Errorf("reading through %s: %q, %v", p, data, err)
	}
}

// TestFS: walking a workspace through FS opens directories and regular
// files, and refuses a FIFO at once.
func TestFS(t *testing.T) {
	_, root := workspace(t)
	fsys := jail.FS(root)
	var names []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		names = append(names, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".", "a.txt", "fifo", "out", "sub"}
	if len(names) != len(want) {
		t.Fatalf("walked %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("walked %v, want %v", names, want)
		}
	}
	if data, err := fs.ReadFile(fsys, "a.txt"); err != nil || string(data) != "hello\n" {
		t.Errorf("ReadFile(a.txt) = %q, %v", data, err)
	}
	if _, err := fsys.Open("fifo"); !errors.Is(err, jail.ErrNotRegular) {
		t.Errorf("Open(fifo) = %v, want ErrNotRegular", err)
	}
	if _, err := fsys.Open("../x"); err == nil {
		t.Error("Open(../x) = nil error")
	}
}
