package git

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vouchgate/vouch/internal/jail"
)

// ResolveCommit returns the hash of the commit that rev names in the
// repository at dir: a hash, a branch, a tag, HEAD~2, origin/main. The
// revision reaches git on its standard input, never its command line, so
// a rev such as "--output=x" is a name to look up and nothing else. A rev
// that names no commit (or is empty, starts with "-", holds a control
// character or is over 1 KiB) gives a *vouch.Error with code
// vouch.ErrInvalid and path "base"; callers that resolve another revision
// may rename the path.
func ResolveCommit(ctx context.Context, dir, rev string) (string, error) {
	return defaultRunner.resolve(ctx, dir, rev)
}

func (r *runner) resolve(ctx context.Context, dir, rev string) (string, error) {
	if rev == "" {
		return "", badBase(rev)
	}
	if err := checkBase(rev); err != nil {
		return "", err
	}
	if err := checkDir(dir); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, defaultTimeout)
	defer cancel()
	out, err := r.output(ctx, invocation{dir: dir, stdin: rev + "^{commit}\n",
		args: []string{"cat-file", "--batch-check=%(objectname)"}})
	if err != nil {
		return "", err
	}
	h := commitHash(strings.TrimSuffix(string(out), "\n"))
	if h == "" {
		return "", badBase(rev)
	}
	return h, nil
}

// MergeBase returns the best common ancestor of the commits a and b (full
// hashes, as [ResolveCommit] returns them) in the repository at dir: the
// commit a pull request of b into a is compared with. It is an error when
// they have none, or when the history that joins them is not in the
// repository (a shallow clone).
func MergeBase(ctx context.Context, dir, a, b string) (string, error) {
	if !isHash(a) || !isHash(b) {
		return "", fmt.Errorf("git: merge-base: %q and %q must be commit hashes", a, b)
	}
	if err := checkDir(dir); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, defaultTimeout)
	defer cancel()
	out, err := defaultRunner.output(ctx, invocation{dir: dir, args: []string{"merge-base", a, b}})
	if exitCode(err) == 1 {
		return "", fmt.Errorf("git: %s and %s have no common ancestor in this repository (unrelated histories, or a shallow clone without it)", short(a), short(b))
	}
	if err != nil {
		return "", err
	}
	h := commitHash(strings.TrimSpace(string(out)))
	if h == "" {
		return "", fmt.Errorf("git: merge-base: unexpected output %q", out)
	}
	return h, nil
}

// short abbreviates a hash for messages.
func short(h string) string { return h[:min(len(h), 12)] }

// isHash reports whether s is a full SHA-1 or SHA-256 commit hash in
// lower-case hex.
func isHash(s string) bool {
	return (len(s) == 40 || len(s) == 64) && commitHash(s) == s
}

// Tree is one commit of a repository checked out in a directory of its
// own: a new repository whose HEAD is the commit, detached, with the
// commit's files in its working tree and nothing else. It borrows the
// objects of the repository it was made from (git's alternates) and writes
// nothing into that repository. Close removes it.
type Tree struct {
	// Dir is the working tree of the checkout.
	Dir string
	// Commit is the hash of the commit checked out.
	Commit string
}

// Close removes the checkout. It is safe to call more than once.
func (t *Tree) Close() error {
	if t == nil || t.Dir == "" {
		return nil
	}
	err := os.RemoveAll(t.Dir)
	t.Dir = ""
	return err
}

// maxShallowBytes bounds the shallow file copied into a checkout.
const maxShallowBytes = 16 << 20

// Checkout checks the commit (a full hash, as [ResolveCommit] returns it)
// of the repository at dir out into a new directory under the system's
// temporary directory, and returns it; the caller must Close it.
//
// The checkout is a repository of its own: git runs there under a
// configuration vouch wrote (none of dir's configuration, hooks or filter
// drivers apply), with the hardening of every git process of this package
// (see the package documentation). Only dir's objects are read, through
// git's alternates, and its shallow file is copied, so that the commits a
// shallow clone lacks are known missing. Files under a filter attribute are
// checked out as the repository stores them. Nothing is written into dir.
// Every git process is bounded by ctx; on any error the directory is
// removed before Checkout returns.
func Checkout(ctx context.Context, dir, commit string) (*Tree, error) {
	return defaultRunner.checkout(ctx, dir, commit)
}

func (r *runner) checkout(ctx context.Context, dir, commit string) (_ *Tree, err error) {
	if !isHash(commit) {
		return nil, fmt.Errorf("git: checkout: %q is not a commit hash", commit)
	}
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	out, err := r.output(ctx, invocation{dir: dir, args: []string{"rev-parse", "--path-format=absolute",
		"--show-object-format", "--git-path", "objects", "--git-path", "shallow"}})
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 3 {
		return nil, fmt.Errorf("git: rev-parse: unexpected output %q", out)
	}
	format, objects, shallow := lines[0], lines[1], lines[2]
	if format != "sha1" && format != "sha256" {
		return nil, fmt.Errorf("git: unknown object format %q", format)
	}
	if !filepath.IsAbs(objects) || strings.ContainsAny(objects, "\x00\r") {
		return nil, fmt.Errorf("git: the repository's object directory %q cannot be borrowed", objects)
	}
	tmp, err := os.MkdirTemp("", "vouch-tree-*")
	if err != nil {
		return nil, fmt.Errorf("git: checkout: %w", err)
	}
	t := &Tree{Dir: tmp, Commit: commit}
	defer func() {
		if err != nil {
			_ = t.Close()
		}
	}()
	// An empty template directory: no sample hooks, no info/exclude.
	if _, err := r.output(ctx, invocation{dir: tmp, cfg: []kv{{"init.defaultBranch", "vouch"}},
		args: []string{"init", "-q", "--template=", "--object-format=" + format}}); err != nil {
		return nil, err
	}
	info := filepath.Join(tmp, ".git", "objects", "info")
	if err := os.MkdirAll(info, 0o755); err != nil {
		return nil, fmt.Errorf("git: checkout: %w", err)
	}
	if err := os.WriteFile(filepath.Join(info, "alternates"), []byte(objects+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("git: checkout: %w", err)
	}
	if err := copyShallow(shallow, filepath.Join(tmp, ".git", "shallow")); err != nil {
		return nil, err
	}
	if _, err := r.output(ctx, invocation{dir: tmp, args: []string{"update-ref", "--no-deref", "HEAD", commit}}); err != nil {
		return nil, err
	}
	if _, err := r.output(ctx, invocation{dir: tmp, args: []string{"read-tree", "--reset", "-u", commit}}); err != nil {
		return nil, err
	}
	return t, nil
}

// copyShallow copies a repository's shallow file, when it has one. The
// path comes from the repository's layout, which its owner (the agent, for
// a workspace) controls: it is opened as jail.OpenPath opens, so a FIFO
// there is refused, not waited on.
func copyShallow(from, to string) error {
	f, _, err := jail.OpenPath(from)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("git: checkout: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxShallowBytes+1))
	if err != nil {
		return fmt.Errorf("git: checkout: %w", err)
	}
	if len(data) > maxShallowBytes {
		return fmt.Errorf("git: checkout: the repository's shallow file is over %d bytes", maxShallowBytes)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		return fmt.Errorf("git: checkout: %w", err)
	}
	return nil
}

// Patch returns the patch of the changes in the workspace dir since base
// (a revision, as for [Read]): what "git diff base" shows, with three
// lines of context, paths relative to dir, no external diff and no
// textconv, binary files named and not shown. It keeps at most max bytes
// (cut at a line's end) and reports whether it cut. Untracked files are
// not in it.
func Patch(ctx context.Context, dir, base string, max int) (patch string, cut bool, err error) {
	if err := checkBase(base); err != nil {
		return "", false, err
	}
	if base == "" {
		return "", false, badBase(base)
	}
	if err := checkDir(dir); err != nil {
		return "", false, err
	}
	ctx, cancel := context.WithTimeout(ctx, defaultTimeout)
	defer cancel()
	st, err := defaultRunner.setup(ctx, dir, base)
	if err != nil {
		return "", false, err
	}
	if !st.repo || st.base == "" {
		return "", false, badBase(base)
	}
	var b strings.Builder
	errCut := errors.New("cut")
	err = defaultRunner.stream(ctx, invocation{dir: dir, cfg: st.cfg, args: []string{
		"diff", "--patch", "--no-color", "--no-ext-diff", "--no-textconv",
		"--src-prefix=a/", "--dst-prefix=b/", "--submodule=short", submoduleArg,
		"--find-renames", "--relative", st.base, "--", ".",
	}}, func(rd io.Reader) error {
		br := bufio.NewReaderSize(rd, 64<<10)
		for {
			line, err := br.ReadString('\n')
			if b.Len()+len(line) > max {
				cut = true
				return errCut
			}
			b.WriteString(line)
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	})
	if err != nil && !errors.Is(err, errCut) {
		return "", false, err
	}
	return b.String(), cut, nil
}

// maxBlobBytes bounds one file read by [ReadAt].
const maxBlobBytes = 8 << 20

// ErrBlobTooLarge is the error [ReadAt] records for a file over 8 MiB.
var ErrBlobTooLarge = errors.New("git: the file is over 8 MiB")

// ReadAt returns the contents of files as they are at the commit rev of
// the repository of the workspace dir: for each path (relative to dir,
// slash-separated) its contents, or nil when the commit has no such
// file (or it is not a file). A path git cannot be asked about (one with
// a newline) and a file over 8 MiB are left out and reported in skipped
// with why. The paths reach git on its standard input.
func ReadAt(ctx context.Context, dir, rev string, paths []string) (files map[string][]byte, skipped map[string]error, err error) {
	if err := checkBase(rev); err != nil {
		return nil, nil, err
	}
	if rev == "" {
		return nil, nil, badBase(rev)
	}
	if err := checkDir(dir); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, defaultTimeout)
	defer cancel()
	h, err := defaultRunner.resolve(ctx, dir, rev)
	if err != nil {
		return nil, nil, err
	}
	// Paths are relative to dir, which may be below the repository's top.
	prefix, err := defaultRunner.output(ctx, invocation{dir: dir, args: []string{"rev-parse", "--show-prefix"}})
	if err != nil {
		return nil, nil, err
	}
	pre := strings.TrimSuffix(string(prefix), "\n")
	files, skipped = map[string][]byte{}, map[string]error{}
	var ask []string
	var in strings.Builder
	for _, p := range paths {
		if strings.ContainsAny(p, "\n\r\x00") || p == "" {
			skipped[p] = errors.New("git: a path git cannot be asked about")
			continue
		}
		ask = append(ask, p)
		in.WriteString(h + ":" + pre + p + "\n")
	}
	if len(ask) == 0 {
		return files, skipped, nil
	}
	err = defaultRunner.stream(ctx, invocation{dir: dir, stdin: in.String(), args: []string{"cat-file", "--batch"}},
		func(rd io.Reader) error {
			br := bufio.NewReaderSize(rd, 64<<10)
			for _, p := range ask {
				head, err := br.ReadString('\n')
				if err != nil {
					return malformed("cat-file: %v", err)
				}
				if strings.HasSuffix(head, " missing\n") || strings.HasSuffix(head, " ambiguous\n") {
					files[p] = nil
					continue
				}
				f := strings.Fields(head)
				if len(f) != 3 {
					return malformed("cat-file header %q", head)
				}
				size, err := strconv.ParseInt(f[2], 10, 64)
				if err != nil || size < 0 {
					return malformed("cat-file header %q", head)
				}
				if f[1] != "blob" || size > maxBlobBytes {
					if _, err := io.CopyN(io.Discard, br, size+1); err != nil {
						return malformed("cat-file: %v", err)
					}
					if f[1] == "blob" {
						skipped[p] = ErrBlobTooLarge
					} else {
						files[p] = nil
					}
					continue
				}
				data := make([]byte, size+1)
				if _, err := io.ReadFull(br, data); err != nil {
					return malformed("cat-file: %v", err)
				}
				files[p] = data[:size]
			}
			return nil
		})
	if err != nil {
		return nil, nil, err
	}
	return files, skipped, nil
}
