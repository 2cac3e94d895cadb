// Package fs holds the check kinds about workspace files: file_exists, and
// file_changed (the file changed since the task's base commit). Paths are
// held in the workspace jail of [vouch.Subject].
package fs

import (
	"context"
	"fmt"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

func init() {
	check.Register(check.Type{
		Name:     "file_exists",
		Strength: vouch.StrengthStrict,
		New:      newFileExists,
		Params:   "{path}",
		Doc:      "The file exists in the workspace.",
	})
}

type pathParams struct {
	check.Common `json:",inline"`
	Path         string `json:"path"`
}

type fileExists struct{ path string }

func newFileExists(spec vouch.CheckSpec, _ check.Env) (vouch.Checker, error) {
	var p pathParams
	if err := check.DecodeParams(spec, &p); err != nil {
		return nil, err
	}
	if p.Path == "" {
		return nil, check.Errorf("path", "is required")
	}
	return fileExists{p.Path}, nil
}

// Check implements vouch.Checker.
func (c fileExists) Check(_ context.Context, s *vouch.Subject) vouch.Outcome {
	ev := map[string]any{"path": c.path}
	fi, err := s.Stat(c.path)
	if err != nil {
		return check.FileError(c.path, err)
	}
	ev["sizeBytes"], ev["dir"] = fi.Size(), fi.IsDir()
	return vouch.Pass(fmt.Sprintf("%s exists", c.path), ev)
}
