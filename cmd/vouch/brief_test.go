package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/testws"
)

// exampleWorkspace builds an example's git workspace as examples/run.sh
// does: its base committed, then the variant's files on top, uncommitted;
// it returns the workspace and the base commit.
func exampleWorkspace(t *testing.T, dir, variant string) (ws, base string) {
	t.Helper()
	r := testws.NewRepo(t)
	copyOver(t, filepath.Join(dir, "base"), r.Dir)
	base = r.Commit("base")
	copyOver(t, filepath.Join(dir, variant), r.Dir)
	return r.Dir, base
}

// copyOver copies the files under src (if it exists) into dst, over the
// files there, as cp -R does.
func copyOver(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
}

// TestBriefOfEveryExample verifies every bundled example with --brief:
// one line of JSON, under 500 bytes, with the verdict and exit code of
// the full report.
func TestBriefOfEveryExample(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	requests, err := filepath.Glob("../../examples/*/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, req := range requests {
		if filepath.Base(req) == "policy.yaml" {
			continue
		}
		n++
		dir := filepath.Dir(req)
		variant := strings.TrimSuffix(filepath.Base(req), ".yaml")
		t.Run(filepath.Base(dir)+"/"+variant, func(t *testing.T) {
			ws, base := exampleWorkspace(t, dir, variant)
			args := []string{"verify", "--workspace", ws, "--base", base}
			if _, err := os.Stat(filepath.Join(dir, "policy.yaml")); err == nil {
				args = append(args, "--policy", filepath.Join(dir, "policy.yaml"))
			}
			var full, brief bytes.Buffer
			fullCode := Main(context.Background(), append(append(args, "--json"), req), Streams{Out: &full, Err: &bytes.Buffer{}})
			briefCode := Main(context.Background(), append(append(args, "--brief"), req), Streams{Out: &brief, Err: &bytes.Buffer{}})
			if fullCode != briefCode {
				t.Errorf("exit %d with --brief, %d with --json", briefCode, fullCode)
			}
			line := bytes.TrimSuffix(brief.Bytes(), []byte("\n"))
			if len(line) >= vouch.BriefMaxBytes || bytes.Contains(line, []byte("\n")) {
				t.Errorf("the brief is %d bytes (want one line under %d): %s", len(line), vouch.BriefMaxBytes, line)
			}
			var b vouch.Brief
			var r vouch.Report
			if err := json.Unmarshal(line, &b); err != nil {
				t.Fatalf("the brief is not JSON: %v: %s", err, line)
			}
			if err := json.Unmarshal(full.Bytes(), &r); err != nil {
				t.Fatal(err)
			}
			if b.Verdict != r.Verdict || b.Action != r.Action || b.ID != r.ID {
				t.Errorf("brief %s/%s of %s, report %s/%s of %s", b.Verdict, b.Action, b.ID, r.Verdict, r.Action, r.ID)
			}
			if r.Verdict == vouch.VerdictRetry && (len(b.Findings) == 0 || b.Feedback == "") {
				t.Errorf("a sent-back report's brief lacks findings or feedback: %s", line)
			}
		})
	}
	if n < 8 {
		t.Errorf("%d example requests, want every one of the bundled examples (8 or more)", n)
	}
}
