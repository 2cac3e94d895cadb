// Package claimcorpus reads the plain-claim corpus of testdata/plainclaims:
// pairs of agent outputs that make the same claims in plain words, one a
// lie (the work does not hold what it says) and one its honest twin (the
// work holds it), each over a git workspace built from a base commit and
// the agent's work. The benchmark (go run ./bench -claims) and the
// end-to-end tests verify both sides and count the lies that pass and the
// twins sent back.
//
// A case is one txtar archive. Its comment holds "key: value" lines
// (family and lang are required); its files are:
//
//	base/PATH            a file of the base commit
//	request.yaml         the request both sides send (no workspace, no base)
//	lie/PATH, honest/PATH
//	                     a file as the side's work leaves it (written over
//	                     the base)
//	lie/.delete          paths the side's work removes, one a line
//	lie/.rename          "OLD NEW" lines: files the side's work moves
//	lie/.commit          present: the side's work is committed (else it is
//	                     left in the working tree)
//	lie/request.yaml     the side's own request, in place of the shared one
//
// and the same under honest/. A side with no files of its own leaves the
// base as it is.
package claimcorpus

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// The sides of a case.
const (
	Lie    = "lie"
	Honest = "honest"
)

// Case is one pair of a lie and its honest twin.
type Case struct {
	// Name is the archive's name without its extension.
	Name string
	// Family is the kind of claim the case is about (change, tests, fix,
	// removal, rename...), Lang the language of its code.
	Family, Lang string
	// Meta holds every key of the archive's comment.
	Meta map[string]string

	base  map[string]string
	sides map[string]*side
	req   []byte
}

type side struct {
	files   map[string]string
	deletes []string
	renames [][2]string
	commit  bool
	req     []byte
}

// Side is one side of a case, built: its request and its workspace.
type Side struct {
	// Label is Lie or Honest.
	Label string
	// Request is the request as written in the archive (YAML or JSON),
	// without workspace or base.
	Request []byte
	// Dir is the workspace: a git repository whose first commit is the base.
	Dir string
	// Base is the base commit.
	Base string
}

// Load reads every *.txtar archive of dir, sorted by name.
func Load(dir string) ([]*Case, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("claimcorpus: no *.txtar case in %s", dir)
	}
	sort.Strings(names)
	cases := make([]*Case, 0, len(names))
	for _, n := range names {
		c, err := parse(n)
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	return cases, nil
}

func parse(file string) (*Case, error) {
	a, err := txtar.ParseFile(file)
	if err != nil {
		return nil, err
	}
	c := &Case{
		Name:  strings.TrimSuffix(filepath.Base(file), ".txtar"),
		Meta:  map[string]string{},
		base:  map[string]string{},
		sides: map[string]*side{Lie: {files: map[string]string{}}, Honest: {files: map[string]string{}}},
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("claimcorpus: %s: %s", file, fmt.Sprintf(format, args...))
	}
	sc := bufio.NewScanner(strings.NewReader(string(a.Comment)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return nil, bad("comment line %q is not key: value", line)
		}
		c.Meta[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	c.Family, c.Lang = c.Meta["family"], c.Meta["lang"]
	if c.Family == "" || c.Lang == "" {
		return nil, bad("family and lang are required")
	}
	for _, f := range a.Files {
		name := f.Name
		if name == "request.yaml" {
			c.req = f.Data
			continue
		}
		top, rest, ok := strings.Cut(name, "/")
		if !ok || rest == "" || path.Clean(rest) != rest || strings.HasPrefix(rest, "../") || path.IsAbs(rest) {
			return nil, bad("file %q: want base/PATH, lie/PATH or honest/PATH", name)
		}
		if top == "base" {
			c.base[rest] = string(f.Data)
			continue
		}
		s := c.sides[top]
		if s == nil {
			return nil, bad("file %q: unknown side %q", name, top)
		}
		switch rest {
		case ".delete":
			s.deletes = append(s.deletes, strings.Fields(string(f.Data))...)
		case ".rename":
			for _, l := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
				old, new, ok := strings.Cut(strings.TrimSpace(l), " ")
				if !ok {
					return nil, bad("%s: line %q is not OLD NEW", name, l)
				}
				s.renames = append(s.renames, [2]string{old, strings.TrimSpace(new)})
			}
		case ".commit":
			s.commit = true
		case "request.yaml":
			s.req = f.Data
		default:
			s.files[rest] = string(f.Data)
		}
	}
	for _, l := range []string{Lie, Honest} {
		if c.req == nil && c.sides[l].req == nil {
			return nil, bad("no request.yaml for the %s side", l)
		}
	}
	return c, nil
}

// Build writes both sides' workspaces under dir (which must exist) and
// returns them, the lie first. It needs git.
func (c *Case) Build(dir string) ([]Side, error) {
	var out []Side
	for _, l := range []string{Lie, Honest} {
		s := c.sides[l]
		ws := filepath.Join(dir, c.Name+"-"+l)
		if err := os.MkdirAll(ws, 0o755); err != nil {
			return nil, err
		}
		if err := gitRun(ws, "init", "-q", "-b", "main"); err != nil {
			return nil, err
		}
		if err := write(ws, c.base); err != nil {
			return nil, err
		}
		if err := gitRun(ws, "add", "-A"); err != nil {
			return nil, err
		}
		if err := gitRun(ws, "commit", "-q", "--allow-empty", "-m", "base"); err != nil {
			return nil, err
		}
		base, err := gitOut(ws, "rev-parse", "HEAD")
		if err != nil {
			return nil, err
		}
		for _, r := range s.renames {
			if err := gitRun(ws, "mv", r[0], r[1]); err != nil {
				return nil, err
			}
		}
		for _, p := range s.deletes {
			if err := os.Remove(filepath.Join(ws, filepath.FromSlash(p))); err != nil {
				return nil, fmt.Errorf("claimcorpus: %s (%s): %w", c.Name, l, err)
			}
		}
		if err := write(ws, s.files); err != nil {
			return nil, err
		}
		if s.commit {
			if err := gitRun(ws, "add", "-A"); err != nil {
				return nil, err
			}
			if err := gitRun(ws, "commit", "-q", "--allow-empty", "-m", "work"); err != nil {
				return nil, err
			}
		}
		req := s.req
		if req == nil {
			req = c.req
		}
		out = append(out, Side{Label: l, Request: req, Dir: ws, Base: base})
	}
	return out, nil
}

func write(dir string, files map[string]string) error {
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// gitCmd runs git in dir with a configuration of its own: no system or
// user files, a fixed author.
func gitCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", append([]string{"-c", "user.name=corpus", "-c", "user.email=corpus@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1"}
	return cmd
}

func gitRun(dir string, args ...string) error {
	out, err := gitCmd(dir, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("claimcorpus: git %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

func gitOut(dir string, args ...string) (string, error) {
	out, err := gitCmd(dir, args...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("claimcorpus: git %s: %w\n%s", strings.Join(args, " "), err, ee.Stderr)
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
