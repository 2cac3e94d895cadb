// Package claims holds the analyzers that re-check what an agent claims it
// did against the workspace: that claimed files exist (or are gone), that
// their sizes and line counts hold, that claimed edited regions lie inside
// their files. Every check is strict (confidence 1.0): the workspace is
// ground truth. Paths are held in the workspace jail of [vouch.Subject].
package claims

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/text/plural"
)

func init() {
	check.RegisterAnalyzer(check.AnalyzerInfo{
		Name:  "claims.files",
		Level: vouch.LevelClaims,
		Kinds: check.EveryKind(),
		New:   func() vouch.Analyzer { return filesAnalyzer{} },
	})
}

// filesAnalyzer checks the file claims of an output.
type filesAnalyzer struct{}

// claimedFile gathers what the output says about one file.
type claimedFile struct {
	path    string // as the agent wrote it
	rel     string // relative to the workspace, cleaned; "" when outside
	created bool
	deleted bool
	edited  bool
	size    *int64
	lines   *int
	regions []vouch.FileEdit
	// refs are the claims of the output's fields that name the file.
	refs []vouch.ClaimRef
}

// cite adds a claim of the field source naming the file.
func (c *claimedFile) cite(source, text string) {
	c.refs = append(c.refs, vouch.ClaimRef{Source: source, Text: text, Kind: vouch.ClaimFile})
}

// editRef is the claim of the output's fileEdits that names fe.
func editRef(fe vouch.FileEdit) []vouch.ClaimRef {
	return []vouch.ClaimRef{{Source: "output.artifacts.fileEdits", Text: fe.ClaimText(), Kind: vouch.ClaimFile}}
}

// gather collects the files the output claims, in the order first claimed.
func gather(s *vouch.Subject) []*claimedFile {
	req := s.Request
	var order []*claimedFile
	byPath := map[string]*claimedFile{}
	get := func(p string) *claimedFile {
		if c, ok := byPath[p]; ok {
			return c
		}
		c := &claimedFile{path: p, rel: s.Rel(p)}
		byPath[p] = c
		order = append(order, c)
		return c
	}
	o := &req.Output
	for _, p := range o.Created {
		c := get(p)
		c.created = true
		c.cite("output.created", p)
	}
	for _, p := range o.Modified {
		c := get(p)
		c.edited = true
		c.cite("output.modified", p)
	}
	for _, p := range o.Deleted {
		c := get(p)
		c.deleted = true
		c.cite("output.deleted", p)
	}
	if a := o.Artifacts; a != nil {
		for _, fc := range a.FilesCreated {
			c := get(fc.File)
			c.created = true
			c.size, c.lines = fc.SizeBytes, fc.LinesCount
			c.cite("output.artifacts.filesCreated", fc.File)
		}
		for _, fe := range a.FileEdits {
			c := get(fe.File)
			c.cite("output.artifacts.fileEdits", fe.ClaimText())
			if fe.ChangeType == vouch.ChangeDelete && fe.EditedRegion == nil {
				c.deleted = true
				continue
			}
			c.edited = true
			c.regions = append(c.regions, fe)
		}
	}
	return order
}

// Analyze implements vouch.Analyzer.
func (filesAnalyzer) Analyze(ctx context.Context, s *vouch.Subject, f *vouch.Findings) error {
	files := gather(s)
	if len(files) == 0 {
		return nil
	}
	f.MarkApplicable(vouch.DimClaims)
	if s.Workspace == nil {
		r := result("claims.files", vouch.Undecided(vouch.CodeNoWorkspace,
			fmt.Sprintf("the output claims changes to %s, but the request names no workspace to check %s in", plural.Count(len(files), "file"), plural.Pick(len(files), "it", "them"))))
		for _, c := range files {
			r.Claims = append(r.Claims, c.refs...)
		}
		f.Checks = append(f.Checks, r)
		return nil
	}
	tol := s.Policy.Claims.SizeTolerance
	for _, c := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		from := len(f.Checks)
		c.checkFile(s, f, tol)
		for i := from; i < len(f.Checks); i++ {
			if f.Checks[i].Claims == nil {
				f.Checks[i].Claims = c.refs
			}
		}
	}
	return nil
}

// checkFile adds the checks of one claimed file to f.
func (c *claimedFile) checkFile(s *vouch.Subject, f *vouch.Findings, tol float64) {
	if c.created && !c.edited && !c.deleted && !s.Policy.Infer.Created {
		return // the policy switched off checks of claimed created files
	}
	if c.rel == "" {
		f.Checks = append(f.Checks, result("claims.path", vouch.Fail(vouch.CodePathOutsideWorkspace,
			fmt.Sprintf("%s is outside the workspace", c.path), map[string]any{"file": c.path})))
		return
	}
	fi, err := s.Stat(c.rel)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		f.Checks = append(f.Checks, result("claims.file", check.FileError(c.path, err)))
		return
	}
	if c.deleted && !c.created && !c.edited {
		if exists {
			f.Checks = append(f.Checks, result("claims.deleted", vouch.Fail(vouch.CodeFileNotDeleted,
				fmt.Sprintf("%s is claimed deleted but still exists", c.path), map[string]any{"file": c.path})))
		} else {
			f.Checks = append(f.Checks, result("claims.deleted", vouch.Pass(fmt.Sprintf("%s is gone, as claimed", c.path), map[string]any{"file": c.path})))
		}
		return
	}
	verb := "modified"
	if c.created {
		verb = "created"
	}
	if !exists {
		out := vouch.Fail(vouch.CodeFileMissing, fmt.Sprintf("%s is claimed %s but does not exist", c.path, verb), map[string]any{"file": c.path})
		out.Fix = []string{c.path}
		f.Checks = append(f.Checks, result("claims."+verb, out))
		return
	}
	if !fi.Mode().IsRegular() {
		f.Checks = append(f.Checks, result("claims."+verb, check.FileError(c.path, vouch.ErrNotRegularFile)))
		return
	}
	f.Checks = append(f.Checks, result("claims."+verb, vouch.Pass(fmt.Sprintf("%s exists", c.path), map[string]any{"file": c.path, "sizeBytes": fi.Size()})))
	if c.size != nil {
		f.Checks = append(f.Checks, result("claims.size", compare(c.path, "size", "bytes", float64(*c.size), float64(fi.Size()), tol, 0, vouch.CodeSizeMismatch)))
	}
	if c.lines != nil {
		data, err := s.ReadFile(c.rel)
		if err != nil {
			f.Checks = append(f.Checks, result("claims.lines", check.FileError(c.path, err)))
		} else {
			// One line of slack: agents disagree on whether a final
			// newline starts a line.
			f.Checks = append(f.Checks, result("claims.lines", compare(c.path, "line count", "lines", float64(*c.lines), float64(vouch.CountLines(data)), tol, 1, vouch.CodeLinesMismatch)))
		}
	}
	for _, fe := range c.regions {
		if fe.EditedRegion == nil {
			continue
		}
		r := result("claims.region", region(s, c, fe.EditedRegion))
		r.Claims = editRef(fe)
		f.Checks = append(f.Checks, r)
	}
}

// region checks that a claimed edited region lies inside its file, reading
// only the lines up to the region's end.
func region(s *vouch.Subject, c *claimedFile, r *vouch.LineRange) vouch.Outcome {
	ev := map[string]any{"file": c.path, "start": r.Start, "end": r.End}
	_, n, err := s.ReadLines(c.rel, r.Start, r.End)
	if err != nil {
		return check.FileError(c.path, err)
	}
	if n < r.End {
		ev["lines"] = n
		out := vouch.Fail(vouch.CodeRegionOutsideFile,
			fmt.Sprintf("the claimed edit of %s at lines %d-%d lies outside the file, which has %s", c.path, r.Start, r.End, plural.Count(n, "line")), ev)
		out.Fix = []string{fmt.Sprintf("%s:%d-%d", c.path, r.Start, r.End)}
		return out
	}
	return vouch.Pass(fmt.Sprintf("lines %d-%d of %s exist", r.Start, r.End, c.path), ev)
}

// compare checks a claimed figure against the real one within a relative
// tolerance plus an absolute slack.
func compare(file, what, unit string, claimed, real, tol, slack float64, code string) vouch.Outcome {
	ev := map[string]any{"file": file, "claimed": claimed, "actual": real}
	allowed := math.Max(math.Ceil(tol*claimed), slack)
	if math.Abs(claimed-real) <= allowed {
		return vouch.Pass(fmt.Sprintf("%s of %s is %g %s, as claimed (%g)", what, file, real, unit, claimed), ev)
	}
	return vouch.Fail(code, fmt.Sprintf("%s of %s is %g %s, not the claimed %g", what, file, real, unit, claimed), ev)
}

// result makes a strict claims check from an outcome.
func result(name string, o vouch.Outcome) vouch.CheckResult {
	r := vouch.CheckResult{
		Name: name, Level: vouch.LevelClaims, Strength: vouch.StrengthStrict, Status: o.Status,
		Reason: o.Reason, Evidence: o.Evidence, Dimension: vouch.DimClaims, Score: o.Score,
		Code: o.Code, Fix: o.Fix,
	}
	if o.Status != vouch.StatusUndecided {
		r.Confidence = 1
	}
	return r
}
