// Package git reads what changed in a workspace that is a git repository,
// for holding an agent's claims against it.
//
// [Read] asks the git binary (not a Go reimplementation: the binary
// understands every repository layout, worktree, config and attribute a user
// has) what changed under a workspace directory since a base commit: the
// commits after it and the working tree, staged or not, plus the untracked
// files. The answer is a [Changes]: for each changed file its status and the
// line ranges of the current file that the change touched, so that a claim
// such as "modified src/parser.ts lines 10-40" can be held against it with
// [Changes.Touches]. [Snapshot] records the state to hold later work against
// before an agent is given a task, a [Cache] reads each workspace once per
// verification batch, and [ChangesFor] reads the workspace of one
// verification once for all its checks.
//
// # Lines and hunks
//
// Lines are 1-based and ranges inclusive, as in the request contract. Lines
// are counted as git counts them: a line ends at a newline ("\n"; a CRLF file
// has the same lines, each ending in "\r\n"), and a last line without a
// newline counts as a line. Adding text after such a line changes that line
// too (it gains its newline), so git reports it changed, and so does this
// package. A [Hunk] is what git reports with --unified=0 and the myers
// algorithm: the smallest runs of lines of the current file that were added
// or replaced, and, for lines only deleted, an empty hunk at the place where
// they were (see [Hunk.Touches] for the rule that matches a claimed region
// against it). Binary files, deleted files and renames without edits have no
// hunks.
//
// # Running git
//
// Git runs with the workspace directory as its working directory, the
// pathspec "." and --relative, so only files under the workspace are seen
// (the workspace may be a subdirectory of a larger repository) and paths come
// back relative to it, slash-separated. Output is read in git's -z forms, so
// any byte a file name can hold is kept exactly.
//
// The environment git sees is built from nothing but PATH: no system or
// global configuration and a HOME where nothing is (so no user's diff
// drivers, excludes or attributes), a C locale, no pager, no prompts, no
// optional locks, no replace objects, no lazy fetch and no network
// transport. Git refuses a repository owned by another user; the workspace
// must belong to the user running vouch. Git 2.32 or later is needed: an
// older git would ignore the overrides below, so it is refused.
//
// # The workspace's configuration
//
// The workspace is written by the agent under verification: its repository
// configuration (with the files it includes, conditionally or not, and a
// worktree's config.worktree), its attributes and its hooks are not
// trusted, and git must run no program they name. Configuration given on
// git's command line wins over all of them and is handed on to the git
// processes git starts, so every git process gets: core.fsmonitor off,
// core.hooksPath where no hook can be (so no hook runs, post-index-change
// included, which a diff that refreshes the index fires), no credential
// helper and no askpass program, and, for every filter driver the
// configuration defines (git is asked for every filter.* key it reads, just
// before the diffs), empty clean, smudge and process commands. Diffs run
// with --no-ext-diff and --no-textconv (no diff.external, no diff driver's
// command or textconv). A partial clone cannot fetch a missing object: no
// transport is allowed, so ssh (core.sshCommand), http (credential helpers)
// and remote helpers are refused before anything is started. A pager runs
// only on a terminal, and git's output is a pipe.
//
// Files under a filter (git-lfs pointers, for instance) are therefore
// compared as they are on disk. Everything else in the repository's
// configuration and attributes is honoured.
//
// Submodules are compared by the commit they have checked out and nothing
// else (--ignore-submodules=dirty): a submodule moved to another commit is a
// change, one with modified or untracked files inside is not. Looking inside
// would make git run "git status" in the submodule, under the submodule's
// own configuration, where filter drivers the superproject does not define
// are not overridden. Git still reads the submodule's HEAD and, to check the
// repository's format, its config file, but starts nothing there.
//
// The overrides hold for the configuration as git reads it while Read
// runs: a filter driver added between the question and the diffs, by a
// process the agent left running, would escape them, so the workspace must
// not be in use while it is read.
//
// New files (untracked, or in a repository without commits) are read by
// vouch itself, through the open file: one that is not a regular file or a
// symlink (a FIFO, a device) is left out, and one over 16 MiB is not read
// and is reported [FileChange.TooLarge].
//
// Every read is bounded by its context and by a timeout of 30 seconds; an
// error, a timeout or output that cannot be parsed is returned as an error,
// never as an empty set of changes.
package git

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
)

// Status says how a file changed.
type Status string

// The statuses of a changed file.
const (
	// Added is a file that is new in the commits after the base or in the
	// index.
	Added Status = "added"
	// Modified is a file whose content, mode or type changed.
	Modified Status = "modified"
	// Deleted is a file that is gone; it has no hunks.
	Deleted Status = "deleted"
	// Renamed is a file moved from OldPath, possibly with edits (git's
	// rename detection, 50% similarity). A plain mv that was never staged
	// shows as a deleted file and an untracked one.
	Renamed Status = "renamed"
	// Untracked is a file that is new and not known to git (ignored files
	// are not listed at all).
	Untracked Status = "untracked"
)

// Changes is what changed in a workspace. It is read-only once returned:
// a [Cache] hands the same value to every caller.
type Changes struct {
	// Repo is false when the workspace is not inside a git work tree; the
	// other fields are then empty.
	Repo bool `json:"repo"`
	// Base is the commit hash the base resolved to; empty when Read was
	// given no base.
	Base string `json:"base,omitempty"`
	// Head is the commit hash of HEAD; empty in a repository without
	// commits.
	Head string `json:"head,omitempty"`
	// Files maps each changed file's path, slash-separated and relative to
	// the workspace, to its change. A renamed file is listed under its new
	// path only.
	Files map[string]*FileChange `json:"files,omitempty"`
}

// FileChange is the change of one file.
type FileChange struct {
	// Path is the file's path relative to the workspace, slash-separated.
	Path   string `json:"path"`
	Status Status `json:"status"`
	// OldPath is the path the file was renamed from.
	OldPath string `json:"oldPath,omitempty"`
	// Hunks are the line ranges of the current file that the change
	// touched, in file order. Untracked files and files of a repository
	// without commits have one hunk covering the whole file (none when
	// empty or TooLarge).
	Hunks []Hunk `json:"hunks,omitempty"`
	// Binary is true for a file git takes as binary (for untracked files:
	// a NUL byte in the first 8000 bytes, git's rule); it has no hunks.
	Binary bool `json:"binary,omitempty"`
	// TooLarge is true for an untracked file, or a file of a repository
	// without commits, larger than 16 MiB: it was not read, so its lines
	// were not counted, it has no hunks and Binary is not known. A claim
	// about which of its lines changed cannot be decided from it.
	TooLarge bool `json:"tooLarge,omitempty"`
	// Committed is true when commits after the base changed the file.
	Committed bool `json:"committed,omitempty"`
	// Uncommitted is true when the file differs between HEAD and the
	// working tree or index, or is untracked.
	Uncommitted bool `json:"uncommitted,omitempty"`
}

// Hunk is a range of lines of the current file that a change touched:
// Start to End, 1-based and inclusive.
//
// Lines that were only deleted leave no line behind. Git places such a
// deletion after a line N of the current file (0 when at the top); it is
// recorded as the empty hunk Start = N+1, End = N, sitting between lines N
// and N+1.
type Hunk struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Empty reports whether h is a pure deletion (End < Start).
func (h Hunk) Empty() bool { return h.End < h.Start }

// Touches reports whether the claimed region start..end (1-based, inclusive)
// meets h. A region meets a hunk when they share a line; it meets an empty
// hunk (a deletion between lines N and N+1) when it holds line N or line
// N+1, so a claim of an edit at the lines around a deletion counts. A region
// with start < 1 or end < start meets nothing.
func (h Hunk) Touches(start, end int) bool {
	if start < 1 || end < start {
		return false
	}
	if h.Empty() {
		return start <= h.Start && end >= h.End
	}
	return start <= h.End && end >= h.Start
}

// Touches reports whether any hunk of f meets the region start..end (see
// [Hunk.Touches]). It is false for a nil f and for files without hunks
// (binary, deleted, renamed without edits, too large to count).
func (f *FileChange) Touches(start, end int) bool {
	if f == nil {
		return false
	}
	for _, h := range f.Hunks {
		if h.Touches(start, end) {
			return true
		}
	}
	return false
}

// File returns the change of the file at p, a path relative to the
// workspace, or nil when that file did not change. The path is cleaned and
// its separators made slashes first ("./src//a.go" finds "src/a.go"); paths
// that leave the workspace find nothing. File is safe on a nil c.
func (c *Changes) File(p string) *FileChange {
	if c == nil || len(c.Files) == 0 {
		return nil
	}
	p = path.Clean(filepath.ToSlash(p))
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return nil
	}
	return c.Files[p]
}

// Touches reports whether a hunk of the file at p meets the region
// start..end (see [Changes.File] and [Hunk.Touches]).
func (c *Changes) Touches(p string, start, end int) bool {
	return c.File(p).Touches(start, end)
}

// Paths returns the paths of the changed files, sorted.
func (c *Changes) Paths() []string {
	if c == nil {
		return nil
	}
	out := make([]string, 0, len(c.Files))
	for p := range c.Files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// ErrNoGit is returned when the git binary cannot be found on PATH.
var ErrNoGit = errors.New("git: the git binary was not found")

// Read returns what changed in the workspace dir.
//
// With a base (any revision git understands: a commit hash, a tag, a branch,
// HEAD~2), the changes are those between the base commit and the working
// tree: the commits after the base and the working tree, staged or not,
// together, as "git diff <base>" sees them, plus the untracked files. Each
// file says whether commits, the working tree, or both changed it. A base
// that does not name a commit gives a *vouch.Error with code
// [vouch.ErrInvalid] and path "base".
//
// Without a base, the changes are the uncommitted ones: the working tree and
// index against HEAD, plus the untracked files. In a repository without
// commits, every file is new: Added if in the index, else Untracked.
//
// Ignored files are not listed, nor are untracked directories that hold a
// repository of their own.
//
// When dir is not inside a git work tree, Read returns a Changes with Repo
// false and no error. A dir that does not exist or is not a directory gives
// a *vouch.Error with path "workspace"; a git binary missing from PATH, an
// error wrapping [ErrNoGit]. Any other failure (a corrupt repository, a
// timeout) is an error too. See the package documentation for how git is
// run.
func Read(ctx context.Context, dir, base string) (*Changes, error) {
	return defaultRunner.read(ctx, dir, nil, base)
}

// SnapshotInfo is the state of a workspace recorded before an agent is given
// a task, so that the agent's work can later be told apart from what was
// there before: the base to pass to [Read], and the files that were already
// dirty.
type SnapshotInfo struct {
	// Base is the HEAD commit hash; empty when the workspace is not a
	// repository or has no commits.
	Base string `json:"base"`
	// Dirty lists the files, relative to the workspace, that already
	// differed from HEAD (modified, staged, deleted, both sides of a
	// rename) or were untracked; sorted, never null. An untracked
	// directory holding a repository of its own is listed with a trailing
	// slash.
	Dirty []string `json:"dirty"`
	// Repo is false when the workspace is not inside a git work tree.
	Repo bool `json:"repo"`
}

// Snapshot records the state of the workspace dir for "vouch snapshot": the
// HEAD commit to use as the base of a later [Read] and the files already
// dirty. A dir outside any git work tree gives Repo false and no error.
func Snapshot(ctx context.Context, dir string) (*SnapshotInfo, error) {
	return defaultRunner.snapshot(ctx, dir)
}

// checkDir verifies that dir is a directory, as an input error naming the
// workspace when it is not.
func checkDir(dir string) error {
	if dir == "" {
		return &vouch.Error{Code: vouch.ErrMissing, Path: "workspace", Message: "no workspace directory"}
	}
	fi, err := os.Stat(dir)
	if err != nil {
		msg := "cannot open the workspace directory"
		if errors.Is(err, fs.ErrNotExist) {
			msg = "the workspace directory does not exist"
		}
		return &vouch.Error{Code: vouch.ErrInvalid, Path: "workspace", Message: msg, Err: err}
	}
	if !fi.IsDir() {
		return &vouch.Error{Code: vouch.ErrInvalid, Path: "workspace", Message: "the workspace is not a directory"}
	}
	return nil
}

// checkBase rejects bases that cannot be a revision: they would otherwise
// reach git as something else (an option, two lines of input).
func checkBase(base string) error {
	if base == "" {
		return nil
	}
	if strings.HasPrefix(base, "-") || strings.ContainsAny(base, "\x00\n\r") || len(base) > 1024 {
		return badBase(base)
	}
	return nil
}

func badBase(base string) error {
	return &vouch.Error{
		Code:    vouch.ErrInvalid,
		Path:    "base",
		Message: fmt.Sprintf("%q does not name a commit of the workspace's repository", base),
	}
}
