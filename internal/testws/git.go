package testws

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Repo is a git repository built in a test's temporary directory, with
// branch main and no commits yet.
type Repo struct {
	t testing.TB
	// Dir is the repository's work tree.
	Dir string
}

// NewRepo initialises an empty repository with branch main. It skips the
// test when the git binary is missing.
func NewRepo(t testing.TB) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git binary not found")
	}
	r := &Repo{t: t, Dir: t.TempDir()}
	r.Git("init", "-q", "-b", "main")
	return r
}

// Git runs git in the repository with a fixed identity and no user or
// system configuration, and returns its trimmed output; it fails the test
// when git fails.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{
		"-c", "commit.gpgsign=false", "-c", "core.autocrlf=false",
		"-c", "user.name=vouch", "-c", "user.email=vouch@example.com",
	}, args...)...)
	cmd.Dir = r.Dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + r.Dir,
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull,
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Write writes files (slash-separated paths and their contents) into the
// work tree, making directories.
func (r *Repo) Write(files map[string]string) {
	r.t.Helper()
	for name, body := range files {
		p := filepath.Join(r.Dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Remove removes files from the work tree.
func (r *Repo) Remove(names ...string) {
	r.t.Helper()
	for _, name := range names {
		if err := os.Remove(filepath.Join(r.Dir, filepath.FromSlash(name))); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Commit stages everything and commits it, returning the new HEAD's hash.
func (r *Repo) Commit(msg string) string {
	r.t.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}
