package git

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hostileCase is a workspace whose repository names a program: the
// configuration, attributes or hooks an agent under verification could have
// written.
type hostileCase struct {
	name string
	// setup builds the repository in r and makes it name prog, a program
	// that writes a marker file outside the workspace. It returns the
	// workspace, relative to r.dir ("" for r.dir), and the base for Read.
	setup func(t *testing.T, r *repo, prog string) (dir, base string)
	// control is the plain git command, run in the workspace with an
	// ordinary environment, that runs prog: the proof that the mechanism
	// is live in the repository setup built.
	control []string
	// noRead is set when Read cannot succeed (an object is missing); only
	// that no program ran is checked then.
	noRead bool
	// transport is set when the mechanism is reached through a lazy
	// fetch: the transport ban alone, with lazy fetching allowed again, is
	// checked too.
	transport bool
}

// TestReadRunsNoWorkspaceProgram checks, for each way a repository can name
// a program that git would run while Read or Snapshot looks at it, that
// neither runs it, and that plain git, run in the same repository, does.
func TestReadRunsNoWorkspaceProgram(t *testing.T) {
	needGit(t)
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to write the hostile programs in")
	}
	diffHEAD := []string{"diff", "HEAD"}
	status := []string{"status"}
	cases := []hostileCase{
		{
			name:    "filter clean in the repository's config",
			setup:   filterRepo("config", "filter.evil.clean"),
			control: diffHEAD,
		},
		{
			name:    "filter process in the repository's config",
			setup:   filterRepo("config", "filter.evil.process"),
			control: diffHEAD,
		},
		{
			name:    "filter in an included file",
			setup:   filterRepo("include.path", "filter.evil.clean"),
			control: diffHEAD,
		},
		{
			name:    "filter in a file included on gitdir",
			setup:   filterRepo("includeIf.gitdir", "filter.evil.clean"),
			control: diffHEAD,
		},
		{
			name:    "filter in a file included on branch",
			setup:   filterRepo("includeIf.onbranch", "filter.evil.clean"),
			control: diffHEAD,
		},
		{
			name:    "filter in a file included on a remote's url",
			setup:   filterRepo("includeIf.hasconfig", "filter.evil.process"),
			control: diffHEAD,
		},
		{
			name:    "filter in the worktree's config.worktree",
			setup:   filterRepo("config.worktree", "filter.evil.clean"),
			control: diffHEAD,
		},
		{
			name: "filter in a linked worktree's config.worktree",
			setup: func(t *testing.T, r *repo, prog string) (string, string) {
				r.write(".gitattributes", "* filter=evil\n")
				r.write("f.txt", lines("l", 5))
				base := r.commit("base")
				r.git("worktree", "add", "-q", "wt")
				r.git("config", "extensions.worktreeConfig", "true")
				r.gitIn("wt", "config", "--worktree", "filter.evil.clean", prog)
				r.write("wt/f.txt", lines("l", 6))
				return "wt", base
			},
			control: diffHEAD,
		},
		{
			name:    "diff driver textconv",
			setup:   diffDriver("diff.evil.textconv"),
			control: diffHEAD,
		},
		{
			name:    "diff driver command",
			setup:   diffDriver("diff.evil.command"),
			control: diffHEAD,
		},
		{
			name:    "diff.external",
			setup:   diffDriver("diff.external"),
			control: diffHEAD,
		},
		{
			name: "core.fsmonitor",
			setup: func(t *testing.T, r *repo, prog string) (string, string) {
				base := plainRepo(r)
				r.git("config", "core.fsmonitor", prog)
				return "", base
			},
			control: diffHEAD,
		},
		{
			name: "post-index-change hook",
			setup: func(t *testing.T, r *repo, prog string) (string, string) {
				base := plainRepo(r)
				copyProg(t, prog, filepath.Join(r.dir, ".git", "hooks", "post-index-change"))
				return "", base
			},
			control: diffHEAD, // the diff refreshes the index and writes it
		},
		{
			name: "core.hooksPath",
			setup: func(t *testing.T, r *repo, prog string) (string, string) {
				base := plainRepo(r)
				copyProg(t, prog, filepath.Join(r.dir, "hooks", "post-index-change"))
				r.git("config", "core.hooksPath", filepath.Join(r.dir, "hooks"))
				return "", base
			},
			control: diffHEAD,
		},
		{
			name: "filter clean in a submodule's config",
			setup: func(t *testing.T, r *repo, prog string) (string, string) {
				base := submoduleRepo(t, r)
				r.gitIn("sub", "config", "filter.evil.clean", prog)
				r.write("sub/.gitattributes", "* filter=evil\n")
				return "", base
			},
			control: status,
		},
		{
			name: "filter process in a submodule's config",
			setup: func(t *testing.T, r *repo, prog string) (string, string) {
				base := submoduleRepo(t, r)
				r.gitIn("sub", "config", "filter.evil.process", prog)
				r.write("sub/.gitattributes", "* filter=evil\n")
				return "", base
			},
			control: status,
		},
		{
			name: "core.fsmonitor in a submodule's config",
			setup: func(t *testing.T, r *repo, prog string) (string, string) {
				base := submoduleRepo(t, r)
				r.gitIn("sub", "config", "core.fsmonitor", prog)
				return "", base
			},
			control: status,
		},
		{
			name: "post-index-change hook of a submodule",
			setup: func(t *testing.T, r *repo, prog string) (string, string) {
				base := submoduleRepo(t, r)
				gitDir := r.gitIn("sub", "rev-parse", "--absolute-git-dir")
				copyProg(t, prog, filepath.Join(gitDir, "hooks", "post-index-change"))
				return "", base
			},
			control: status,
		},
		{
			name: "lazy fetch over ssh: core.sshCommand",
			setup: func(t *testing.T, r *repo, prog string) (string, string) {
				base := partialClone(t, r, "ssh://example.invalid/x.git")
				r.git("config", "core.sshCommand", prog)
				return "", base
			},
			control: diffHEAD, noRead: true, transport: true,
		},
		{
			name: "lazy fetch through ext::",
			setup: func(t *testing.T, r *repo, prog string) (string, string) {
				base := partialClone(t, r, "ext::"+prog)
				r.git("config", "protocol.ext.allow", "always")
				return "", base
			},
			control: diffHEAD, noRead: true, transport: true,
		},
		{
			name: "lazy fetch through a remote helper in the workspace",
			setup: func(t *testing.T, r *repo, prog string) (string, string) {
				base := partialClone(t, r, "https://example.invalid/x.git")
				// Git runs "git-remote-" + vcs, a path relative to the
				// work tree when it holds a slash.
				copyProg(t, prog, filepath.Join(r.dir, "helper"))
				if err := os.Mkdir(filepath.Join(r.dir, "git-remote-x"), 0o755); err != nil {
					t.Fatal(err)
				}
				r.git("config", "remote.origin.vcs", "x/../helper")
				return "", base
			},
			control: diffHEAD, noRead: true, transport: true,
		},
		{
			name: "lazy fetch over http: credential.helper",
			setup: func(t *testing.T, r *repo, prog string) (string, string) {
				base := partialClone(t, r, unauthorized(t)+"/x.git")
				r.git("config", "credential.helper", prog)
				return "", base
			},
			control: diffHEAD, noRead: true, transport: true,
		},
		{
			name: "lazy fetch over http: core.askPass",
			setup: func(t *testing.T, r *repo, prog string) (string, string) {
				base := partialClone(t, r, unauthorized(t)+"/x.git")
				r.git("config", "core.askPass", prog)
				return "", base
			},
			control: diffHEAD, noRead: true, transport: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t)
			prog, marker := markerProg(t)
			sub, base := tc.setup(t, r, prog)
			dir := filepath.Join(r.dir, filepath.FromSlash(sub))
			ran := func(what string) {
				t.Helper()
				if b, err := os.ReadFile(marker); err == nil {
					t.Fatalf("%s ran a program the workspace names: %s", what, b)
				}
			}
			ran("setting up")
			ctx := context.Background()
			for _, b := range []string{base, ""} {
				stir(t, r.dir)
				_, err := Read(ctx, dir, b)
				ran("Read(base " + b + ")")
				if err != nil && !tc.noRead {
					t.Errorf("Read(base %q): %v", b, err)
				}
			}
			stir(t, r.dir)
			_, err := Snapshot(ctx, dir)
			ran("Snapshot")
			if err != nil && !tc.noRead {
				t.Errorf("Snapshot: %v", err)
			}
			if tc.transport {
				// Gits before 2.39.4 fetch lazily whatever
				// GIT_NO_LAZY_FETCH says: no transport may start.
				cmd := exec.Command("git", diffArgs(base)...)
				cmd.Dir = dir
				cmd.Env = append(env(nil), "GIT_NO_LAZY_FETCH=0")
				out, _ := cmd.CombinedOutput()
				ran("a lazy fetch")
				if !strings.Contains(string(out), "not allowed") {
					t.Errorf("a lazy fetch under vouch's environment did not meet the transport ban:\n%s", out)
				}
			}

			stir(t, r.dir)
			out := plainGit(t, dir, tc.control...)
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("control: plain git %s did not run the program, so the case proves nothing:\n%s",
					strings.Join(tc.control, " "), out)
			}
		})
	}
}

// markerProg writes, outside any workspace, a shell script that appends its
// arguments to a marker file, and returns the paths of both.
func markerProg(t *testing.T) (prog, marker string) {
	t.Helper()
	dir := t.TempDir()
	marker = filepath.Join(dir, "marker")
	prog = filepath.Join(dir, "prog")
	script := "#!/bin/sh\necho \"$0 $*\" >> '" + marker + "'\n"
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return prog, marker
}

// copyProg copies the program at prog to dst, executable, making
// directories.
func copyProg(t *testing.T, prog, dst string) {
	t.Helper()
	b, err := os.ReadFile(prog)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(dst), 0o755)
	}
	if err == nil {
		err = os.WriteFile(dst, b, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// plainGit runs git in dir as a user would, with the repository's own
// configuration in force, and returns its output; a failure is not an error
// (the control cases run a program that then fails). The timeout is only a
// safety net.
func plainGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_TERMINAL_PROMPT=0",
	}
	out, _ := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("plain git %s timed out", strings.Join(args, " "))
	}
	return string(out)
}

// stirred makes every stir's times different from all earlier ones.
var stirred atomic.Int64

// stir gives every file of the work tree at dir (submodules included) new
// times, all in the past, so that git must read each file again to learn
// whether it changed (through the clean filter, the fsmonitor, a refresh of
// the index that is then written) rather than trusting the index.
func stir(t *testing.T, dir string) {
	t.Helper()
	when := time.Unix(1_000_000_000+stirred.Add(1)*100, 0)
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			return os.Chtimes(p, when, when)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// plainRepo commits two files and then changes one; it returns the commit.
// The other, once stirred, is one a diff refreshes in the index.
func plainRepo(r *repo) string {
	r.write("same.txt", "same\n")
	r.write("f.txt", lines("l", 5))
	base := r.commit("base")
	r.write("f.txt", replaceLine(lines("l", 5), 2, "two"))
	return base
}

// filterRepo sets up a repository whose files all go through the filter
// driver "evil", defined with key = prog in the place where.
func filterRepo(where, key string) func(*testing.T, *repo, string) (string, string) {
	return func(t *testing.T, r *repo, prog string) (string, string) {
		r.write(".gitattributes", "* filter=evil\n")
		base := plainRepo(r)
		inc := filepath.Join(r.dir, ".git", "evil.inc")
		if where != "config" && where != "config.worktree" {
			if err := os.WriteFile(inc, []byte("[filter \"evil\"]\n\t"+strings.TrimPrefix(key, "filter.evil.")+" = "+prog+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		switch where {
		case "config":
			r.git("config", key, prog)
		case "config.worktree":
			r.git("config", "extensions.worktreeConfig", "true")
			r.git("config", "--worktree", key, prog)
		case "include.path":
			r.git("config", "include.path", "evil.inc")
		case "includeIf.gitdir":
			r.git("config", "includeIf.gitdir:"+r.dir+"/.path", "evil.inc")
		case "includeIf.onbranch":
			r.git("config", "includeIf.onbranch:main.path", "evil.inc")
		case "includeIf.hasconfig":
			r.git("config", "remote.origin.url", "https://example.invalid/x.git")
			r.git("config", "includeIf.hasconfig:remote.*.url:https://example.invalid/**.path", "evil.inc")
		default:
			t.Fatalf("unknown place %q", where)
		}
		return "", base
	}
}

// diffDriver sets up a repository whose files all have the diff driver
// "evil", and sets key to prog.
func diffDriver(key string) func(*testing.T, *repo, string) (string, string) {
	return func(t *testing.T, r *repo, prog string) (string, string) {
		r.write(".gitattributes", "* diff=evil\n")
		base := plainRepo(r)
		r.git("config", key, prog)
		return "", base
	}
}

// submoduleRepo sets up a superproject with the submodule "sub" and a
// configuration that asks for submodules to be looked into; it returns the
// commit that added the submodule.
func submoduleRepo(t *testing.T, r *repo) string {
	t.Helper()
	src := newRepo(t)
	src.write("a.txt", lines("a", 3))
	src.commit("sub")
	r.write("top.txt", "t\n")
	r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", src.dir, "sub")
	base := r.commit("base")
	for _, kv := range [][2]string{
		{"submodule.recurse", "true"},
		{"diff.ignoreSubmodules", "none"},
		{"submodule.sub.ignore", "none"},
		{"status.submoduleSummary", "true"},
		{"diff.submodule", "diff"},
	} {
		r.git("config", kv[0], kv[1])
	}
	r.write("top.txt", "T\n")
	return base
}

// partialClone makes r a partial clone of the promisor remote at url that
// lacks the base's version of f.txt, which a diff against the base needs.
func partialClone(t *testing.T, r *repo, url string) string {
	t.Helper()
	r.write("f.txt", lines("l", 5))
	base := r.commit("base")
	blob := r.git("rev-parse", "HEAD:f.txt")
	if err := os.Remove(filepath.Join(r.dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{
		{"core.repositoryFormatVersion", "1"},
		{"extensions.partialClone", "origin"},
		{"remote.origin.url", url},
		{"remote.origin.promisor", "true"},
	} {
		r.git("config", kv[0], kv[1])
	}
	r.write("f.txt", lines("l", 6))
	return base
}

// unauthorized serves HTTP that asks for credentials on every request, and
// returns its URL.
func unauthorized(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(strings.TrimSpace(string(out)), "git-remote-http")); err != nil {
		t.Skip("this git cannot speak http:", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="vouch"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestReadSubmodule checks how submodules are reported: by the commit they
// have checked out, never by what is modified inside them.
func TestReadSubmodule(t *testing.T) {
	r := newRepo(t)
	base := submoduleRepo(t, r)
	r.write("sub/a.txt", "changed inside\n")
	r.write("sub/new.txt", "untracked inside\n")
	got, err := Read(context.Background(), r.dir, base)
	if err != nil {
		t.Fatal(err)
	}
	if fc := got.File("sub"); fc != nil {
		t.Errorf("a submodule with only changes inside is reported: %+v", fc)
	}
	snap, err := Snapshot(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(snap.Dirty, ",") != "top.txt" {
		t.Errorf("Dirty = %q, want only top.txt", snap.Dirty)
	}

	// Moved to another commit: a change of the superproject, as soon as
	// the submodule's HEAD moves.
	r.gitIn("sub", "commit", "-q", "-a", "-m", "moved")
	got, err = Read(context.Background(), r.dir, base)
	if err != nil {
		t.Fatal(err)
	}
	if fc := got.File("sub"); fc == nil || fc.Status != Modified || !fc.Uncommitted || fc.Committed {
		t.Errorf("sub after a commit inside = %+v, want an uncommitted modification", fc)
	}
	if snap, err = Snapshot(context.Background(), r.dir); err != nil {
		t.Fatal(err)
	}
	if strings.Join(snap.Dirty, ",") != "sub,top.txt" {
		t.Errorf("Dirty = %q, want sub and top.txt", snap.Dirty)
	}
	r.commit("record sub")
	got, err = Read(context.Background(), r.dir, base)
	if err != nil {
		t.Fatal(err)
	}
	if fc := got.File("sub"); fc == nil || fc.Status != Modified || !fc.Committed {
		t.Errorf("sub after recording its commit = %+v, want a committed modification", fc)
	}
}

// TestReadSpecialFiles checks that new files that are not regular files
// cannot make Read block, and that a new file too large to count is marked.
func TestReadSpecialFiles(t *testing.T) {
	mkfifo := func(t *testing.T, p string) {
		t.Helper()
		if _, err := exec.LookPath("mkfifo"); err != nil {
			t.Skip("no mkfifo")
		}
		if out, err := exec.Command("mkfifo", p).CombinedOutput(); err != nil {
			t.Skipf("mkfifo: %v: %s", err, out)
		}
	}
	// read reads the workspace, in time (see unblocked).
	read := func(t *testing.T, dir, base, fifo string) *Changes {
		t.Helper()
		var (
			got *Changes
			err error
		)
		unblocked(t, fifo, func(ctx context.Context) { got, err = Read(ctx, dir, base) })
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		return got
	}

	t.Run("staged file replaced by a FIFO", func(t *testing.T) {
		t.Parallel()
		r := newRepo(t) // no commits: everything in the index is read
		r.write("f.txt", "f\n")
		r.write("g.txt", "g\n")
		r.git("add", ".")
		r.remove("f.txt")
		mkfifo(t, filepath.Join(r.dir, "f.txt"))
		got := read(t, r.dir, "", filepath.Join(r.dir, "f.txt"))
		if fc := got.File("f.txt"); fc != nil {
			t.Errorf("f.txt, a FIFO, = %+v, want it left out", fc)
		}
		if !got.Touches("g.txt", 1, 1) {
			t.Errorf("g.txt missing: %v", got.Paths())
		}
	})
	t.Run("untracked FIFO and a symlink to it", func(t *testing.T) {
		t.Parallel()
		r := newRepo(t)
		base := plainRepo(r)
		mkfifo(t, filepath.Join(r.dir, "pipe"))
		if err := os.Symlink("pipe", filepath.Join(r.dir, "link")); err != nil {
			t.Skip("no symlinks:", err)
		}
		// Git lists the symlink, not the FIFO; the workspace root follows
		// the symlink when it opens it, to the FIFO.
		got := read(t, r.dir, base, filepath.Join(r.dir, "pipe"))
		if fc := got.File("pipe"); fc != nil {
			t.Errorf("pipe = %+v, want it left out", fc)
		}
		if fc := got.File("link"); fc == nil || fc.Status != Untracked || !fc.Touches(1, 1) {
			t.Errorf("link = %+v, want an untracked one-line file (its target)", fc)
		}
	})
	t.Run("countFile on a FIFO", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		mkfifo(t, filepath.Join(dir, "pipe"))
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer root.Close()
		var ok bool
		unblocked(t, filepath.Join(dir, "pipe"), func(context.Context) { _, ok, err = countFile(root, "pipe") })
		if ok || err != nil {
			t.Errorf("countFile(pipe) = %v, %v; want left out", ok, err)
		}
	})
	t.Run("untracked file over the limit", func(t *testing.T) {
		t.Parallel()
		r := newRepo(t)
		base := plainRepo(r)
		r.write("big.txt", "")
		r.write("edge.txt", "")
		// Sparse: cheap to make, NUL bytes to read.
		if err := os.Truncate(filepath.Join(r.dir, "big.txt"), maxCountSize+1); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(filepath.Join(r.dir, "edge.txt"), maxCountSize); err != nil {
			t.Fatal(err)
		}
		got := read(t, r.dir, base, "")
		fc := got.File("big.txt")
		if fc == nil || !fc.TooLarge || fc.Binary || len(fc.Hunks) != 0 || fc.Status != Untracked {
			t.Errorf("big.txt = %+v, want untracked, TooLarge, no hunks", fc)
		}
		if fc.Touches(1, 1) {
			t.Error("a file too large to count touches line 1")
		}
		if fc := got.File("edge.txt"); fc == nil || fc.TooLarge || !fc.Binary {
			t.Errorf("edge.txt (at the limit) = %+v, want read, binary", fc)
		}
	})
}

// unblocked runs f with a deadline that only guards the test: f must be
// done well before it. The open of a FIFO blocks out of a context's reach,
// so if f is still running at the deadline, the FIFO at fifo (if any) is
// opened for writing, which releases it, and the test fails.
func unblocked(t *testing.T, fifo string, f func(context.Context)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(ctx)
	}()
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	if fifo != "" {
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
	}
	<-done
	t.Fatal("blocked until the deadline")
}

// TestCountFile checks that a symlink is counted as its target wherever it
// points, and that what is gone or is a directory is left out.
func TestCountFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("a\nb"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"f", "in"}, {"/etc/passwd", "out"}, {"nothing", "dangling"}, {"loop", "loop"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Skip("no symlinks:", err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	cases := []struct {
		name  string
		lines int
		ok    bool
	}{
		{"f", 2, true},
		{"in", 1, true}, // "f"
		{"out", 1, true},
		{"dangling", 1, true},
		{"loop", 1, true},
		{"gone", 0, false},
	}
	for _, tc := range cases {
		lc, ok, err := countFile(root, tc.name)
		if err != nil || ok != tc.ok || lc.lines() != tc.lines {
			t.Errorf("countFile(%s) = %d lines, %v, %v; want %d, %v", tc.name, lc.lines(), ok, err, tc.lines, tc.ok)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := countFile(root, "d"); ok || err != nil {
		t.Errorf("countFile(a directory) = %v, %v; want left out", ok, err)
	}
}
