package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vouchgate/vouch/internal/testws"
)

// prWorkspace builds a repository whose branch feature adds a function
// and a test of it, and a go test -json report of a run on it (failing
// when fail is set). It returns the repository and the report's path.
func prWorkspace(t *testing.T, fail bool) (*testws.Repo, string) {
	t.Helper()
	r := testws.NewRepo(t)
	r.Write(map[string]string{
		"go.mod":  "module example.com/calc\n\ngo 1.22\n",
		"calc.go": "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
	})
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "feature")
	r.Write(map[string]string{
		"calc.go":      "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n\n// Sub subtracts.\nfunc Sub(a, b int) int { return a - b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestSub(t *testing.T) {\n\tif Sub(2, 1) != 1 {\n\t\tt.Fatal(\"Sub\")\n\t}\n}\n",
	})
	r.Commit("Add Sub")
	outcome := "pass"
	if fail {
		outcome = "fail"
	}
	report := filepath.Join(t.TempDir(), "test.json")
	stream := `{"Action":"run","Package":"example.com/calc","Test":"TestSub"}
{"Action":"` + outcome + `","Package":"example.com/calc","Test":"TestSub"}
{"Action":"` + outcome + `","Package":"example.com/calc"}
`
	if err := os.WriteFile(report, []byte(stream), 0o644); err != nil {
		t.Fatal(err)
	}
	return r, report
}

func runVouch(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, Streams{In: strings.NewReader(stdin), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

const honestPR = "## Summary\n- Added `Sub` to `calc.go`\n\n## Tests\n- Added `TestSub` in `calc_test.go`; all tests pass\n"

func TestPRCommand(t *testing.T) {
	r, passing := prWorkspace(t, false)
	_, failing := prWorkspace(t, true)
	desc := filepath.Join(t.TempDir(), "pr.md")
	if err := os.WriteFile(desc, []byte(honestPR), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("honest, text", func(t *testing.T) {
		code, out, errs := runVouch(t, "", "pr", "--repo", r.Dir, "--base", "main", "--head", "feature", "--description", desc, "--tests", passing)
		if code != exitPass || !strings.Contains(out, "PASS") || !strings.Contains(out, "pull request main..feature") {
			t.Errorf("exit %d\n%s\n%s", code, out, errs)
		}
	})
	t.Run("honest, from standard input, json", func(t *testing.T) {
		code, out, errs := runVouch(t, honestPR, "pr", "--repo", r.Dir, "--base", "main", "--head", "feature", "--description", "-", "--tests", passing, "--format", "json")
		var rep struct {
			Verdict string `json:"verdict"`
			Checks  []struct {
				Name   string `json:"name"`
				Status string `json:"status"`
			} `json:"checks"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("not a JSON report: %v\n%s\n%s", err, out, errs)
		}
		if code != exitPass || rep.Verdict != "pass" {
			t.Errorf("exit %d, verdict %s\n%s", code, rep.Verdict, out)
		}
		held := map[string]string{}
		for _, c := range rep.Checks {
			held[c.Name] = c.Status
		}
		if held["claims.tests"] != "pass" || held["claims.symbol"] != "pass" {
			t.Errorf("checks %v", held)
		}
	})
	t.Run("tests said to pass fail, markdown", func(t *testing.T) {
		code, out, errs := runVouch(t, honestPR, "pr", "--repo", r.Dir, "--base", "main", "--head", "feature", "--description", "-", "--tests", failing, "--format", "markdown")
		if code != exitNotOK || !strings.HasPrefix(out, "<!-- vouch pr -->") || !strings.Contains(out, "TEST_CLAIM_CONTRADICTED") {
			t.Errorf("exit %d\n%s\n%s", code, out, errs)
		}
	})
	t.Run("a description that claims more than its diff", func(t *testing.T) {
		code, out, _ := runVouch(t, "Added `Sub` and `Mul` to calc.go, updated `go.mod`. Added 3 tests.", "pr", "--repo", r.Dir, "--base", "main", "--head", "feature", "--description", "-")
		if code != exitNotOK {
			t.Errorf("exit %d, want %d\n%s", code, exitNotOK, out)
		}
		for _, want := range []string{"NO_CHANGE", "COUNT_MISMATCH"} {
			if !strings.Contains(out, want) {
				t.Errorf("the report lacks %s:\n%s", want, out)
			}
		}
	})
}

func TestPRCommandUsage(t *testing.T) {
	r, _ := prWorkspace(t, false)
	bad := filepath.Join(t.TempDir(), "bad.xml")
	if err := os.WriteFile(bad, []byte("<html>no report</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no description", []string{"--base", "main"}, "--description"},
		{"bad format", []string{"--base", "main", "--description", "-", "--format", "html"}, "--format"},
		{"an option as a ref", []string{"--base", "--output=/tmp/x", "--description", "-"}, "base"},
		{"an unknown head", []string{"--base", "main", "--head", "nosuch", "--description", "-"}, "--head \"nosuch\""},
		{"no base and no origin/HEAD", []string{"--head", "feature", "--description", "-"}, "no --base given"},
		{"a report that is none", []string{"--base", "main", "--head", "feature", "--description", "-", "--tests", bad}, "bad.xml"},
		{"a missing report", []string{"--base", "main", "--head", "feature", "--description", "-", "--tests", bad + ".none"}, "cannot read"},
		{"not a repository", []string{"--repo", t.TempDir(), "--base", "main", "--description", "-"}, "not a git repository"},
		{"arguments", []string{"--base", "main", "--description", "-", "extra"}, "unknown command"},
	} {
		code, out, errs := runVouch(t, "Added Sub.", append([]string{"pr", "--repo", r.Dir}, tt.args...)...)
		if code != exitInput || !strings.Contains(errs, tt.want) {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want exit 2 naming %q", tt.name, code, errs, out, tt.want)
		}
	}
}
