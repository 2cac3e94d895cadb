package git

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// repo is a git repository built in a test's temporary directory.
type repo struct {
	t   testing.TB
	dir string
}

// needGit skips the test when the git binary is missing.
func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git binary not found")
	}
}

// newRepo initialises an empty repository with branch main.
func newRepo(t testing.TB) *repo {
	t.Helper()
	needGit(t)
	r := &repo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

// git runs git in the repository with a fixed identity and no user
// configuration, and returns its trimmed output.
func (r *repo) git(args ...string) string {
	r.t.Helper()
	return r.gitIn(".", args...)
}

func (r *repo) gitIn(sub string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{
		"-c", "commit.gpgsign=false", "-c", "core.autocrlf=false",
		"-c", "user.name=vouch", "-c", "user.email=vouch@example.com",
	}, args...)...)
	cmd.Dir = filepath.Join(r.dir, filepath.FromSlash(sub))
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + r.dir,
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

// write writes content to the slash-separated path p, making directories.
func (r *repo) write(p, content string) {
	r.t.Helper()
	full := filepath.Join(r.dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) remove(p string) {
	r.t.Helper()
	if err := os.Remove(filepath.Join(r.dir, filepath.FromSlash(p))); err != nil {
		r.t.Fatal(err)
	}
}

// commit stages everything and commits it, returning the new HEAD.
func (r *repo) commit(msg string) string {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.head()
}

func (r *repo) head() string {
	r.t.Helper()
	return r.git("rev-parse", "HEAD")
}

// lines returns "<prefix>1\n<prefix>2\n...<prefix>n\n".
func lines(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(prefix)
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\n')
	}
	return b.String()
}

// replaceLine returns content with its 1-based line n replaced by s.
func replaceLine(content string, n int, s string) string {
	ls := strings.SplitAfter(content, "\n")
	ls[n-1] = s + "\n"
	return strings.Join(ls, "")
}
