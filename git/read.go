package git

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vouchgate/vouch/internal/jail"
)

// repoState is what Read learns before it looks at changes.
type repoState struct {
	repo bool
	head string // HEAD's commit hash; "" when there are no commits
	base string // the base's commit hash; "" when none was asked or it does not resolve
	cfg  []kv   // overrides that neutralise the repository's filter drivers
}

// setup finds out, in three concurrent git processes, whether dir is in a
// work tree, which commits HEAD and base name, and which filter drivers the
// repository configures.
func (r *runner) setup(ctx context.Context, dir, base string) (*repoState, error) {
	var (
		inside, resolved, filters []byte
		errInside, errResolve     error
		errFilters                error
	)
	// cat-file reads the revisions on its standard input, so a base never
	// reaches git's command line.
	revs := "HEAD^{commit}\n"
	if base != "" {
		revs += base + "^{commit}\n"
	}
	_ = parallel(ctx,
		func(ctx context.Context) error {
			inside, errInside = r.output(ctx, invocation{dir: dir, args: []string{"rev-parse", "--is-inside-work-tree"}})
			return nil
		},
		func(ctx context.Context) error {
			resolved, errResolve = r.output(ctx, invocation{dir: dir, stdin: revs,
				args: []string{"cat-file", "--batch-check=%(objectname)"}})
			return nil
		},
		func(ctx context.Context) error {
			filters, errFilters = r.output(ctx, invocation{dir: dir,
				args: []string{"config", "-z", "--get-regexp", `^filter\.`}})
			return nil
		},
	)
	if errInside != nil {
		var ge *gitError
		if errors.As(errInside, &ge) && ge.code == 128 {
			if strings.Contains(ge.stderr, "not a git repository") {
				return &repoState{}, nil
			}
			if strings.Contains(ge.stderr, "dubious ownership") {
				return nil, fmt.Errorf("git: the workspace's repository belongs to another user than the one running vouch, and git refuses to read it: %w", errInside)
			}
		}
		return nil, errInside
	}
	if strings.TrimSpace(string(inside)) != "true" {
		return &repoState{}, nil // inside .git, or a bare repository
	}
	st := &repoState{repo: true}
	if errResolve != nil {
		return nil, errResolve
	}
	lines := strings.Split(strings.TrimSuffix(string(resolved), "\n"), "\n")
	if len(lines) != strings.Count(revs, "\n") {
		return nil, fmt.Errorf("git: git cat-file: unexpected output %q", resolved)
	}
	st.head = commitHash(lines[0])
	if base != "" {
		st.base = commitHash(lines[1])
	}
	if errFilters != nil && exitCode(errFilters) != 1 { // 1: no filter configured
		return nil, errFilters
	}
	st.cfg = filterOverrides(filters)
	return st, nil
}

// commitHash returns line when it is an object name, "" when cat-file
// reported the revision missing or ambiguous ("<rev> missing").
func commitHash(line string) string {
	if len(line) < 40 {
		return ""
	}
	for i := 0; i < len(line); i++ {
		if c := line[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	return line
}

// filterOverrides returns configuration that empties the clean, smudge and
// process commands of every filter driver named in the output of "git config
// -z --get-regexp ^filter\." (records "key\nvalue\0"), so that reading a diff
// runs none of them. That command reads the configuration the diffs read:
// the repository's, the files it includes (include.path and the
// includeIf.<condition>.path that hold) and, with extensions.worktreeConfig,
// the worktree's config.worktree. A submodule's configuration is not in it,
// and the diffs never act on one (see submoduleArg).
func filterOverrides(out []byte) []kv {
	var cfg []kv
	seen := map[string]bool{}
	for _, rec := range splitNUL(out) {
		key, _, _ := strings.Cut(rec, "\n")
		rest, ok := strings.CutPrefix(key, "filter.")
		i := strings.LastIndexByte(rest, '.')
		if !ok || i <= 0 {
			continue // "filter.x" has no driver name
		}
		name := rest[:i]
		if seen[name] {
			continue
		}
		seen[name] = true
		pre := "filter." + name + "."
		cfg = append(cfg,
			kv{pre + "clean", ""}, kv{pre + "smudge", ""}, kv{pre + "process", ""},
			kv{pre + "required", "false"})
	}
	return cfg
}

// read implements Read. Git runs in dir; the new files it lists are read
// from root, which is dir opened (nil: read opens dir itself).
func (r *runner) read(ctx context.Context, dir string, root *os.Root, base string) (*Changes, error) {
	if err := checkBase(base); err != nil {
		return nil, err
	}
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, defaultTimeout)
	defer cancel()
	st, err := r.setup(ctx, dir, base)
	if err != nil {
		return nil, err
	}
	if !st.repo {
		return &Changes{}, nil
	}
	if base != "" && st.base == "" {
		return nil, badBase(base)
	}

	var (
		entries                []*entry
		untracked, cached      []string
		committed, uncommitted []string
		splitFlags             = st.base != "" && st.head != "" && st.base != st.head
	)
	from := st.base
	if from == "" {
		from = st.head
	}
	jobs := []func(context.Context) error{
		func(ctx context.Context) (err error) {
			untracked, err = r.names(ctx, dir, st.cfg, "ls-files", "-z", "--others", "--exclude-standard", "--", ".")
			return err
		},
	}
	if from != "" {
		jobs = append(jobs, func(ctx context.Context) error {
			return r.stream(ctx, invocation{dir: dir, cfg: st.cfg, args: diffArgs(from)}, func(rd io.Reader) (err error) {
				entries, err = parseDiff(rd)
				return err
			})
		})
	} else {
		// No commits and no base: everything in the index is new.
		jobs = append(jobs, func(ctx context.Context) (err error) {
			cached, err = r.names(ctx, dir, st.cfg, "ls-files", "-z", "--cached", "--deduplicate", "--", ".")
			return err
		})
	}
	if splitFlags {
		jobs = append(jobs,
			func(ctx context.Context) (err error) {
				committed, err = r.names(ctx, dir, st.cfg, nameDiffArgs(st.base, st.head)...)
				return err
			},
			func(ctx context.Context) (err error) {
				uncommitted, err = r.names(ctx, dir, st.cfg, nameDiffArgs(st.head)...)
				return err
			})
	}
	if err := parallel(ctx, jobs...); err != nil {
		return nil, err
	}

	ch := &Changes{Repo: true, Base: st.base, Head: st.head, Files: make(map[string]*FileChange)}
	for _, e := range entries {
		fc := &FileChange{Path: e.dst, Hunks: e.hunks, Binary: e.binary}
		switch e.status {
		case 'A', 'C':
			fc.Status = Added
		case 'D':
			fc.Status, fc.Hunks = Deleted, nil
		case 'R':
			fc.Status, fc.OldPath = Renamed, e.src
		default: // M, T, U
			fc.Status = Modified
		}
		ch.Files[fc.Path] = fc
	}
	if len(untracked)+len(cached) > 0 && root == nil {
		if root, err = jail.OpenRoot(dir); err != nil {
			return nil, fmt.Errorf("git: open workspace: %w", err)
		}
		defer root.Close()
	}
	if err := addWhole(ctx, ch, root, cached, Added); err != nil {
		return nil, err
	}
	if err := addWhole(ctx, ch, root, untracked, Untracked); err != nil {
		return nil, err
	}

	if !splitFlags {
		// No base, no commits, or base = HEAD: every change is in the
		// working tree or index.
		for _, fc := range ch.Files {
			fc.Uncommitted = true
		}
		return ch, nil
	}
	inC, inU := set(committed), set(uncommitted)
	for _, p := range untracked {
		inU[p] = true
	}
	for _, fc := range ch.Files {
		fc.Committed = inC[fc.Path] || fc.OldPath != "" && inC[fc.OldPath]
		fc.Uncommitted = inU[fc.Path] || fc.OldPath != "" && inU[fc.OldPath]
	}
	return ch, nil
}

// submoduleArg is how every diff treats submodules: a submodule counts as
// changed when the commit it has checked out differs from the recorded one,
// never for what is modified or untracked inside it. Finding that out would
// make git start "git status" in the submodule, where the submodule's own
// configuration (its filter drivers, fsmonitor and hooks) applies and the
// overrides of filterOverrides, which name the superproject's drivers, do
// not. With "dirty" git only reads the submodule's HEAD (and, to check the
// repository's format, its config file) and starts nothing; "all" reads the
// same files and would also hide a submodule moved to another commit.
const submoduleArg = "--ignore-submodules=dirty"

// nameDiffArgs lists the paths a diff touches, both sides of a rename.
func nameDiffArgs(revs ...string) []string {
	args := []string{"diff", "--name-only", "-z", "--no-renames", "--relative",
		"--no-color", "--no-ext-diff", "--no-textconv", submoduleArg}
	args = append(args, revs...)
	return append(args, "--", ".")
}

// names runs git for a NUL-separated list of paths.
func (r *runner) names(ctx context.Context, dir string, cfg []kv, args ...string) ([]string, error) {
	out, err := r.output(ctx, invocation{dir: dir, cfg: cfg, args: args})
	if err != nil {
		return nil, err
	}
	return splitNUL(out), nil
}

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, p := range list {
		m[p] = true
	}
	return m
}

// addWhole records each of paths as a new file with status st and one hunk
// covering it, reading it from the workspace (see countFile). Paths that are
// not there (a staged file deleted since) or that are not a regular file or
// a symlink (an untracked nested repository, a staged file replaced by a
// FIFO) are left out; a file over maxCountSize has no hunk and is marked
// TooLarge.
func addWhole(ctx context.Context, ch *Changes, root *os.Root, paths []string, st Status) error {
	for _, p := range paths {
		if strings.HasSuffix(p, "/") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		lc, ok, err := countFile(root, p)
		if err != nil {
			return fmt.Errorf("git: read %s: %w", p, err)
		}
		if !ok {
			continue
		}
		fc := &FileChange{Path: p, Status: st, Binary: lc.binary, TooLarge: lc.tooLarge}
		if n := lc.lines(); n > 0 && !lc.binary && !lc.tooLarge {
			fc.Hunks = []Hunk{{Start: 1, End: n}}
		}
		ch.Files[p] = fc
	}
	return nil
}

// maxCountSize is the size of the largest new file whose lines Read counts.
// A larger one is not read: it is reported [FileChange.TooLarge].
const maxCountSize = 16 << 20

// errChanged is a file replaced while it was being read.
var errChanged = errors.New("the file changed while it was read")

// countFile counts the lines of the file at p without following a symlink
// (git stores a symlink as its target, and so is it counted). ok is false
// when p is gone or is neither a regular file nor a symlink (a FIFO, a
// socket, a device, a directory). A file over maxCountSize is not counted:
// lc.tooLarge is set instead.
//
// The file is opened first (by jail.Open) and everything else is learned
// from the open file, so that it cannot be swapped between a check and its
// use: the open is non-blocking (opening a FIFO does not wait for a writer,
// and a FIFO is never read), the open file must be a regular file, and the
// read stops at the limit whatever size the file had when it was
// examined. The workspace root resolves a symlink itself, following it
// only when it stays inside the workspace (it does not honour O_NOFOLLOW),
// so whether p is a symlink is asked of p after the open; when p is not
// one, the open file must be the file at p, else p changed in between and
// the read is an error.
func countFile(root *os.Root, p string) (lc lineCounter, ok bool, err error) {
	name := filepath.FromSlash(p)
	f, fi, oerr := jail.Open(root, name)
	if oerr == nil {
		defer f.Close()
	}
	li, lerr := root.Lstat(name)
	if lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
		target, err := root.Readlink(name)
		if errors.Is(err, fs.ErrNotExist) {
			return lc, false, nil
		}
		if err != nil {
			return lc, false, err
		}
		_, _ = lc.Write([]byte(target))
		return lc, true, nil
	}
	if errors.Is(oerr, fs.ErrNotExist) || errors.Is(oerr, jail.ErrNotRegular) {
		return lc, false, nil
	}
	if oerr != nil {
		return lc, false, oerr
	}
	if errors.Is(lerr, fs.ErrNotExist) || lerr == nil && !os.SameFile(li, fi) {
		return lc, false, errChanged
	}
	if lerr != nil {
		return lc, false, lerr
	}
	if fi.Size() > maxCountSize {
		return lineCounter{tooLarge: true}, true, nil
	}
	rd := &io.LimitedReader{R: f, N: maxCountSize + 1}
	buf := make([]byte, 64<<10)
	for {
		n, err := rd.Read(buf)
		_, _ = lc.Write(buf[:n])
		switch {
		case lc.binary:
			return lc, true, nil
		case lc.size > maxCountSize: // grew after it was examined
			return lineCounter{tooLarge: true}, true, nil
		case err == io.EOF:
			return lc, true, nil
		case err != nil:
			return lc, false, err
		}
	}
}

// snapshot implements Snapshot.
func (r *runner) snapshot(ctx context.Context, dir string) (*SnapshotInfo, error) {
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, defaultTimeout)
	defer cancel()
	st, err := r.setup(ctx, dir, "")
	if err != nil {
		return nil, err
	}
	info := &SnapshotInfo{Dirty: []string{}, Repo: st.repo, Base: st.head}
	if !st.repo {
		return info, nil
	}
	var untracked, changed []string
	err = parallel(ctx,
		func(ctx context.Context) (err error) {
			untracked, err = r.names(ctx, dir, st.cfg, "ls-files", "-z", "--others", "--exclude-standard", "--", ".")
			return err
		},
		func(ctx context.Context) (err error) {
			if st.head == "" {
				changed, err = r.names(ctx, dir, st.cfg, "ls-files", "-z", "--cached", "--deduplicate", "--", ".")
			} else {
				changed, err = r.names(ctx, dir, st.cfg, nameDiffArgs(st.head)...)
			}
			return err
		})
	if err != nil {
		return nil, err
	}
	all := append(changed, untracked...)
	slices.Sort(all)
	info.Dirty = append(info.Dirty, slices.Compact(all)...)
	return info, nil
}
