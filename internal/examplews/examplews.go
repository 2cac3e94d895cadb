// Package examplews builds the git workspace of one of the repository's
// examples (examples/CASE): the base commit from CASE/base, then a
// variant's changes on top, uncommitted, as examples/run.sh does; and
// reads the variant's request. Tests and benchmarks use it to verify the
// examples through every way in (CLI, HTTP, MCP).
package examplews

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Example is a built example.
type Example struct {
	// Dir is the workspace: the example's base, committed, and the
	// variant's files on top.
	Dir string
	// Base is the base commit's hash.
	Base string
	// Request is the variant's request as a JSON-ready value (the YAML
	// file decoded), without workspace or base.
	Request map[string]any
}

// Build builds the workspace of example name (a directory of examples)
// with variant's changes in dir, which must be empty, and reads
// name/variant.yaml.
func Build(examples, name, variant, dir string) (*Example, error) {
	src := filepath.Join(examples, name)
	if err := copyTree(filepath.Join(src, "base"), dir); err != nil {
		return nil, err
	}
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=example", "-c", "user.email=example@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, errb.String())
		}
		return strings.TrimSpace(out.String()), nil
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "--allow-empty", "-m", "base"}} {
		if _, err := git(args...); err != nil {
			return nil, err
		}
	}
	base, err := git("rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	if err := copyTree(filepath.Join(src, variant), dir); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(src, variant+".yaml"))
	if err != nil {
		return nil, err
	}
	var req map[string]any
	if err := yaml.Unmarshal(data, &req); err != nil {
		return nil, fmt.Errorf("%s/%s.yaml: %w", name, variant, err)
	}
	return &Example{Dir: dir, Base: base, Request: req}, nil
}

// copyTree copies the regular files under src into dst; a missing src
// copies nothing.
func copyTree(src, dst string) error {
	if _, err := os.Stat(src); os.IsNotExist(err) {
		return nil
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
}
