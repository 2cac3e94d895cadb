package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/jail"
)

// A workspace is opened once, as an *os.Root, and everything that reads it
// or runs in it is handed that open directory, never its path: the agent
// under verification can rename directories and swap symlinks while vouch
// runs, and a path checked and then looked up again may lead elsewhere the
// second time. The opens are package jail's: without blocking (a FIFO put
// where the workspace was is refused, not waited on), the open directory
// checked.

// OpenDir opens the directory dir as a workspace (see [Options.Workspace]);
// "" gives no workspace. The caller owns the root. A directory that cannot
// be opened is an input error on the path "workspace".
func OpenDir(dir string) (*os.Root, error) {
	if dir == "" {
		return nil, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, cannotOpen(dir, err)
	}
	root, err := jail.OpenRoot(abs)
	if err != nil {
		return nil, cannotOpen(dir, err)
	}
	return root, nil
}

// WorkspaceAt returns a workspace resolver (see [Options.Workspace]) that
// opens dir for every request, whatever the request names: a workspace the
// operator gave. An empty dir gives no workspace.
func WorkspaceAt(dir string) func(*vouch.Request) (*os.Root, error) {
	return func(*vouch.Request) (*os.Root, error) { return OpenDir(dir) }
}

func cannotOpen(dir string, err error) error {
	return &vouch.Error{Code: vouch.ErrInvalid, Path: "workspace",
		Message: fmt.Sprintf("cannot open workspace %s: %v", dir, unwrapPathErr(err)), Err: err}
}

// checkWorkspace refuses a workspace whose open directory is the
// filesystem root or in a kernel pseudo-filesystem (see SpecialDir): what
// is checked is the directory that was opened, named as the kernel names
// it, not a path.
func checkWorkspace(root *os.Root) error {
	d, err := jail.OpenDir(root)
	if err != nil {
		return cannotOpen(root.Name(), err)
	}
	defer d.Close()
	where := dirName(d, root.Name())
	if why := SpecialDir(where); why != "" {
		return &vouch.Error{Code: vouch.ErrInvalid, Path: "workspace",
			Message: fmt.Sprintf("%s is %s, never a workspace", where, why)}
	}
	if why := pseudoFS(d); why != "" {
		return &vouch.Error{Code: vouch.ErrInvalid, Path: "workspace",
			Message: fmt.Sprintf("%s is on %s, never a workspace", where, why)}
	}
	return nil
}

// dirName returns the absolute path of the open directory d: as the kernel
// names it where it can tell (on Linux, the target of /proc/self/fd/N),
// else name, made absolute with its symlinks resolved.
func dirName(d *os.File, name string) string {
	if p, ok := jail.FDPath(d); ok {
		if t, err := os.Readlink(p); err == nil && filepath.IsAbs(t) {
			return t
		}
	}
	if real, err := resolveDir(name); err == nil {
		return real
	}
	return name
}

// Roots are the directories a request's own workspace may lie in: a
// request's workspace field is honoured only inside the roots its caller
// allows, for the request is written by the agent under verification.
// Each root is opened once, by [OpenRoots], and a workspace is opened
// inside one of the open roots, never by its path: whatever symlink or
// rename it meets, it cannot lead out of the root. A Roots is safe for
// concurrent use.
type Roots struct {
	roots []allowedRoot
}

// allowedRoot is one open root and the absolute names it goes by: as given
// and with its symlinks resolved.
type allowedRoot struct {
	root  *os.Root
	names []string
}

// OpenRoots opens the directories dirs as workspace roots. A directory
// that cannot be opened, or that is the filesystem root or in a kernel
// pseudo-filesystem (see SpecialDir), allows nothing: it would allow /etc
// or /proc. Close the Roots when done.
func OpenRoots(dirs []string) *Roots {
	rs := &Roots{}
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil || SpecialDir(real) != "" {
			continue
		}
		root, err := jail.OpenRoot(real)
		if err != nil {
			continue
		}
		if checkWorkspace(root) != nil {
			root.Close()
			continue
		}
		names := []string{filepath.Clean(abs)}
		if real != names[0] {
			names = append(names, real)
		}
		rs.roots = append(rs.roots, allowedRoot{root: root, names: names})
	}
	return rs
}

// Close closes the roots.
func (rs *Roots) Close() error {
	var errs []error
	for _, r := range rs.roots {
		errs = append(errs, r.root.Close())
	}
	rs.roots = nil
	return errors.Join(errs...)
}

// Open opens the directory dir as a workspace (see [Options.Workspace]),
// provided it lies inside one of the roots: dir is taken relative to a root
// it lies under, as written or with its symlinks resolved, and opened
// inside that open root, where no path or symlink can lead out of it.
// Anything else is an input error on the path "workspace". The caller owns
// the root returned.
func (rs *Roots) Open(dir string) (*os.Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, cannotOpen(dir, err)
	}
	// The path as written, then as it resolves now: only a hint of where
	// to look, for the open inside the root decides.
	cands := []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		cands = append(cands, real)
	}
	var failed error
	for _, c := range cands {
		for _, r := range rs.roots {
			for _, n := range r.names {
				rel, ok := under(n, c)
				if !ok {
					continue
				}
				root, err := jail.OpenRootIn(r.root, rel)
				if err == nil {
					return root, nil
				}
				if failed == nil && !escapes(err) {
					failed = err
				}
			}
		}
	}
	if failed != nil {
		return nil, cannotOpen(dir, failed)
	}
	var names []string
	for _, r := range rs.roots {
		names = append(names, r.names[len(r.names)-1])
	}
	allowed := strings.Join(names, ", ")
	if allowed == "" {
		allowed = "none"
	}
	return nil, &vouch.Error{Code: vouch.ErrInvalid, Path: "workspace",
		Message: fmt.Sprintf("the request's workspace %s is outside the allowed workspace roots (%s): give the workspace with --workspace, or allow a root with --workspace-root",
			dir, allowed)}
}

// under returns p relative to root when p lies inside root (both absolute
// and clean).
func under(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// escapes reports whether err is an open inside a root refused for leading
// out of it.
func escapes(err error) bool {
	return err != nil && strings.Contains(err.Error(), "escapes")
}

// resolveDir returns dir absolute, with its symlinks resolved.
func resolveDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// SpecialDir says why dir (absolute, symlinks resolved) can never be a
// workspace, or "": the filesystem root, or a directory of the kernel's
// pseudo-filesystems (/proc, /sys, /dev), where a file's contents are the
// state of processes and devices, vouch's own environment among them.
func SpecialDir(dir string) string {
	dir = filepath.Clean(dir)
	if dir == filepath.VolumeName(dir)+string(filepath.Separator) {
		return "the filesystem root"
	}
	for _, p := range []string{"/proc", "/sys", "/dev"} {
		if dir == p || strings.HasPrefix(dir, p+"/") {
			return "under " + p
		}
	}
	return ""
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
