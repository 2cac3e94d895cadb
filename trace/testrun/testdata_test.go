package testrun

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected results in testdata/*.txt from what Read returns")

// A testdata case is a txtar file testdata/<runner>-<case>.txt. Its
// comment holds "key: value" lines: the run (source, note, command,
// exit, error) and what Read must return (ok, runner, inner, byoutput,
// status, counts, extra, why); its files are "output" and, for a command
// of several lines, "command".
type tcase struct {
	name             string
	command, output  string
	exit             *int
	isError          bool
	header           []string // the lines of the comment that describe the run
	want             map[string]string
	archive          *txtar.Archive
	path             string
	wantKeysInHeader []string
}

// wantKeys are the keys of what Read must return, in the order they are
// written.
var wantKeys = []string{"ok", "runner", "inner", "byoutput", "status", "counts", "extra", "why"}

func loadCases(t *testing.T) []tcase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	var cases []tcase
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c := tcase{name: strings.TrimSuffix(filepath.Base(p), ".txt"), want: map[string]string{}, archive: a, path: p}
		for _, l := range strings.Split(strings.TrimRight(string(a.Comment), "\n"), "\n") {
			k, v, ok := strings.Cut(l, ": ")
			if !ok {
				k, v = strings.TrimSuffix(l, ":"), ""
			}
			switch k {
			case "source", "note":
				c.header = append(c.header, l)
			case "command":
				c.command = v
				c.header = append(c.header, l)
			case "exit":
				if v != "none" {
					n, err := strconv.Atoi(v)
					if err != nil {
						t.Fatalf("%s: exit %q", p, v)
					}
					c.exit = &n
				}
				c.header = append(c.header, l)
			case "error":
				c.isError = v == "true"
				c.header = append(c.header, l)
			default:
				c.want[k] = v
			}
		}
		for _, f := range a.Files {
			switch f.Name {
			case "output":
				c.output = string(f.Data)
			case "command":
				c.command = strings.TrimSuffix(string(f.Data), "\n")
			}
		}
		if !strings.Contains(string(a.Comment), "source: ") {
			t.Errorf("%s: no source line", p)
		}
		cases = append(cases, c)
	}
	return cases
}

// got returns what Read returned, by the keys of wantKeys.
func got(r Run, ok bool) map[string]string {
	if !ok {
		return map[string]string{"ok": "false"}
	}
	m := map[string]string{"runner": r.Runner, "status": r.Status.String(), "why": r.Why, "counts": "none"}
	if r.Inner != "" {
		m["inner"] = r.Inner
	}
	if r.ByOutput {
		m["byoutput"] = "true"
	}
	if r.Counted {
		m["counts"] = fmt.Sprintf("passed=%d failed=%d errors=%d skipped=%d", r.Passed, r.Failed, r.Errors, r.Skipped)
	}
	if r.Extra > 0 {
		m["extra"] = fmt.Sprintf("%d %s", r.Extra, r.ExtraWhat)
	}
	return m
}

// TestTestdata reads every case of testdata and checks what Read
// returns; with -update it writes what Read returns as the expected
// results instead (to be reviewed, case by case, before it is kept).
func TestTestdata(t *testing.T) {
	for _, c := range loadCases(t) {
		t.Run(c.name, func(t *testing.T) {
			r, ok := Read(c.command, c.exit, c.isError, c.output)
			g := got(r, ok)
			if *update {
				var b bytes.Buffer
				for _, l := range c.header {
					b.WriteString(l + "\n")
				}
				for _, k := range wantKeys {
					if v, ok := g[k]; ok {
						fmt.Fprintf(&b, "%s: %s\n", k, v)
					}
				}
				c.archive.Comment = b.Bytes()
				if err := os.WriteFile(c.path, txtar.Format(c.archive), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if len(c.want) == 0 {
				t.Fatalf("no expected results (run with -update, then review)")
			}
			for _, k := range wantKeys {
				if g[k] != c.want[k] {
					t.Errorf("%s = %q, want %q", k, g[k], c.want[k])
				}
			}
			if len(r.Why) > WhyBytes {
				t.Errorf("Why is %d bytes", len(r.Why))
			}
			runner := strings.SplitN(c.name, "-", 2)[0]
			if ok && r.Runner != runner && r.Inner != runner && !strings.HasPrefix(r.Runner, runner) {
				t.Errorf("case %s is named for runner %q, but Read read %q", c.name, runner, r.Runner)
			}
		})
	}
}

// TestEveryRunnerHasACase holds every registered runner to at least one
// case in testdata.
func TestEveryRunnerHasACase(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range loadCases(t) {
		seen[c.want["runner"]] = true
		seen[c.want["inner"]] = true
	}
	for _, name := range Runners() {
		if !seen[name] {
			t.Errorf("runner %q has no case in testdata", name)
		}
	}
}
