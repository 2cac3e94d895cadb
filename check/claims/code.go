package claims

import (
	"context"
	"fmt"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/check/internal/codecheck"
	"github.com/vouchgate/vouch/code"
	_ "github.com/vouchgate/vouch/code/treesitter" // TypeScript, JavaScript, Python (cgo builds)
	"github.com/vouchgate/vouch/git"
	"github.com/vouchgate/vouch/text/claimtext"
)

func init() {
	check.RegisterAnalyzer(check.AnalyzerInfo{
		Name:  "claims.code",
		Level: vouch.LevelClaims,
		Kinds: check.EveryKind(),
		New:   func() vouch.Analyzer { return codeAnalyzer{} },
	})
}

// codeAnalyzer infers criteria from the task and holds count claims against
// the code, with no criterion written: a task asking for doc comments
// implies a doc_comments criterion on the symbols it names (or those in the
// claimed regions), and "Added JSDoc to all 4 methods" is compared with the
// doc comments really found (COUNT_MISMATCH, naming what is missing).
// "Created 3 files" is compared with the created files that exist.
type codeAnalyzer struct{}

// InferredDocID is the id of the inferred doc-comment criterion.
const InferredDocID = "inferred.docComments"

// docTarget is one file whose symbols a doc-comment inference checks: the
// symbols in regions, or, for a file the task names without naming
// symbols, every exported symbol (of the kind the task speaks of).
type docTarget struct {
	file     string
	regions  []vouch.LineRange
	exported bool
}

// Analyze implements vouch.Analyzer.
func (codeAnalyzer) Analyze(ctx context.Context, s *vouch.Subject, f *vouch.Findings) error {
	if s.Workspace == nil {
		// Nothing here can be checked without the code: skip the text
		// analysis too, which costs more than the rest of a text-only
		// verification.
		return nil
	}
	req := s.Request
	pol := s.Policy
	intent := claimtext.TaskIntents(req.Task.Goal)
	var counts []claimtext.CountClaim
	if pol.Infer.Counts {
		for _, c := range claimtext.Counts(req.Output.Summary) {
			if !c.Negated {
				counts = append(counts, c)
			}
		}
	}
	wantDocs := pol.Infer.DocComments && intent.DocComments && !hasDocCriterion(req)
	var docs *docEval
	if wantDocs || hasDocCount(counts) {
		docs = evalDocs(ctx, s, intent)
	}
	if wantDocs && docs != nil {
		f.MarkApplicable(vouch.CriteriaDimension(req.EffectiveKind()))
		addInferred(s, f, docs)
	}
	for _, c := range counts {
		switch {
		case c.Action == "document":
			if docs != nil {
				f.Checks = append(f.Checks, docCount(c, docs))
				f.MarkApplicable(vouch.DimClaims)
			}
		case c.Action == "create" && c.Noun == "file":
			f.Checks = append(f.Checks, createdCount(s, c))
			f.MarkApplicable(vouch.DimClaims)
		}
	}
	return nil
}

// docEval is what the doc-comment evaluation found across files.
type docEval struct {
	files  []string
	result codecheck.DocResult
	// undecided is set when no file could be parsed; why says why.
	undecided *vouch.Outcome
}

// evalDocs checks doc comments on the symbols the task names (in the files
// it names, else the claimed files), or on the symbols inside the claimed
// edited regions (else the changed hunks) when it names none.
func evalDocs(ctx context.Context, s *vouch.Subject, intent claimtext.TaskIntent) *docEval {
	targets := docTargets(ctx, s, intent)
	if len(targets) == 0 {
		return nil
	}
	ev := &docEval{result: codecheck.DocResult{Lines: map[string]string{}}}
	parsed := map[string]*code.File{}
	var lastErr *vouch.Outcome
	for _, t := range targets {
		pf, err := code.FileFor(ctx, s, t.file)
		if err != nil {
			o := codecheck.ParseError(t.file, err)
			lastErr = &o
			continue
		}
		parsed[t.file] = pf
		ev.files = append(ev.files, t.file)
		switch {
		case len(intent.Symbols) > 0:
		case t.exported:
			merge(&ev.result, codecheck.Docs(pf, t.file, exportedNames(pf, intent.Noun), nil))
		default:
			merge(&ev.result, codecheck.Docs(pf, t.file, nil, t.regions))
		}
	}
	if len(intent.Symbols) > 0 {
		// Each named symbol is looked up in the files in order; the first
		// file defining it decides.
		for _, name := range intent.Symbols {
			found := false
			for _, file := range ev.files {
				if len(parsed[file].Lookup(name)) == 0 {
					continue
				}
				merge(&ev.result, codecheck.Docs(parsed[file], file, []string{name}, nil))
				found = true
				break
			}
			if !found && len(ev.files) > 0 {
				ev.result.Missing = append(ev.result.Missing, name)
			}
		}
	}
	if len(ev.files) == 0 {
		if lastErr == nil {
			return nil
		}
		ev.undecided = lastErr
	}
	return ev
}

// exportedNames returns the qualified names of a file's exported symbols,
// only functions and methods when the task speaks of functions or methods,
// only classes when it speaks of classes.
func exportedNames(f *code.File, noun string) []string {
	var out []string
	for _, sym := range f.Symbols {
		if !sym.Exported {
			continue
		}
		switch noun {
		case "function", "method":
			if sym.Kind != code.KindFunction && sym.Kind != code.KindMethod && sym.Kind != code.KindConst {
				continue
			}
		case "class":
			if sym.Kind != code.KindClass {
				continue
			}
		}
		out = append(out, sym.QualifiedName())
	}
	return out
}

func merge(dst *codecheck.DocResult, r codecheck.DocResult) {
	dst.Documented = append(dst.Documented, r.Documented...)
	dst.Undocumented = append(dst.Undocumented, r.Undocumented...)
	dst.Missing = append(dst.Missing, r.Missing...)
	for k, v := range r.Lines {
		dst.Lines[k] = v
	}
}

// docTargets returns the files to check: those the task names, else the
// claimed files with a parser, each with its claimed regions (or, without
// any, its changed hunks).
func docTargets(ctx context.Context, s *vouch.Subject, intent claimtext.TaskIntent) []docTarget {
	var files []string
	for _, p := range intent.Files {
		if rel := s.Rel(p); rel != "" {
			files = append(files, rel)
		}
	}
	named := len(files) > 0
	if !named {
		for _, c := range gather(s) {
			if c.rel != "" && (c.created || c.edited) {
				if _, _, ok := code.ForPath(c.rel); ok {
					files = append(files, c.rel)
				}
			}
		}
	}
	var out []docTarget
	for _, file := range files {
		t := docTarget{file: file, regions: s.Request.Output.ClaimedRegions(file), exported: named}
		if !named && len(t.regions) == 0 && len(intent.Symbols) == 0 {
			if ch, err := git.ChangesFor(ctx, s); err == nil && ch != nil && ch.Repo {
				if fc := ch.File(file); fc != nil {
					for _, h := range fc.Hunks {
						if !h.Empty() {
							t.regions = append(t.regions, vouch.LineRange{Start: h.Start, End: h.End})
						}
					}
				}
			}
		}
		out = append(out, t)
	}
	return out
}

// addInferred adds the inferred doc-comment criterion and its check.
func addInferred(s *vouch.Subject, f *vouch.Findings, d *docEval) {
	dim := vouch.CriteriaDimension(s.Request.EffectiveKind())
	var out vouch.Outcome
	var what string
	if d.undecided != nil {
		out = *d.undecided
		what = "doc comments"
	} else {
		out = d.result.Outcome(strings.Join(d.files, ", "))
		names := append(append(append([]string(nil), d.result.Documented...), d.result.Undocumented...), d.result.Missing...)
		what = fmt.Sprintf("doc comments on %s in %s", check.List(names, 20), strings.Join(d.files, ", "))
	}
	cr := vouch.CheckResult{
		Name: "doc_comments:" + InferredDocID, Level: vouch.LevelCriteria, Strength: vouch.StrengthStrict,
		Status: out.Status, Reason: out.Reason, Evidence: out.Evidence, Dimension: dim, Score: out.Score,
		Weight: 1, Code: out.Code, Fix: out.Fix,
	}
	if cr.Evidence == nil {
		cr.Evidence = map[string]any{}
	}
	cr.Evidence["criterion"] = InferredDocID
	res := vouch.CriterionResult{ID: InferredDocID, Text: what, Inferred: true, Status: vouch.CriterionUndecided, Reason: out.Reason}
	if out.Status != vouch.StatusUndecided {
		cr.Confidence = 1
		score := out.Score
		res.Score, res.DecidedBy = &score, vouch.DecidedByRule
		res.Status = vouch.CriterionMet
		if out.Status == vouch.StatusFail {
			res.Status = vouch.CriterionUnmet
		}
	}
	f.Checks = append(f.Checks, cr)
	f.Criteria = append(f.Criteria, res)
}

// docCount holds a doc count claim against the doc comments found.
func docCount(c claimtext.CountClaim, d *docEval) vouch.CheckResult {
	if d.undecided != nil {
		o := *d.undecided
		o.Code = vouch.CodeCountUndecided
		o.Reason = fmt.Sprintf("the claim %q cannot be checked: %s", c.Text, d.undecided.Reason)
		return result("claims.count", o)
	}
	r := d.result
	found := len(r.Documented)
	total := found + len(r.Undocumented) + len(r.Missing)
	claimed := c.Number
	if claimed == 0 && c.All {
		claimed = total
	}
	if len(c.Items) > 0 && claimed < len(c.Items) {
		claimed = len(c.Items)
	}
	ev := map[string]any{"claim": c.Text, "claimed": claimed, "found": found, "documented": nonNil(check.Cap(r.Documented, 50))}
	missing := append(append([]string(nil), r.Undocumented...), r.Missing...)
	if len(missing) > 0 {
		ev["undocumented"] = check.Cap(missing, 50)
	}
	if claimed == 0 || found >= claimed && (!c.All || len(missing) == 0) {
		return result("claims.count", vouch.Pass(fmt.Sprintf("the claim %q holds: %d documented", c.Text, found), ev))
	}
	var fix []string
	for _, n := range r.Undocumented {
		fix = append(fix, n+" ("+r.Lines[n]+")")
	}
	fix = check.Cap(append(fix, r.Missing...), 50)
	o := vouch.Outcome{Status: vouch.StatusFail, Score: min(1, float64(found)/float64(claimed)), Code: vouch.CodeCountMismatch,
		Reason:   fmt.Sprintf("the summary claims %q, but %d of %d have doc comments; missing on %s", c.Text, found, claimed, check.List(missing, 20)),
		Evidence: ev, Fix: fix}
	return result("claims.count", o)
}

// createdCount holds "created N files" against the claimed created files
// that exist.
func createdCount(s *vouch.Subject, c claimtext.CountClaim) vouch.CheckResult {
	var exist, missing []string
	for _, cf := range gather(s) {
		if !cf.created || cf.rel == "" {
			continue
		}
		if fi, err := s.Stat(cf.rel); err == nil && fi.Mode().IsRegular() {
			exist = append(exist, cf.path)
		} else {
			missing = append(missing, cf.path)
		}
	}
	claimed := max(c.Number, len(c.Items))
	ev := map[string]any{"claim": c.Text, "claimed": claimed, "found": len(exist), "files": nonNil(exist)}
	if claimed == 0 || len(exist) >= claimed {
		return result("claims.count", vouch.Pass(fmt.Sprintf("the claim %q holds: %d created files exist", c.Text, len(exist)), ev))
	}
	o := vouch.Outcome{Status: vouch.StatusFail, Score: float64(len(exist)) / float64(claimed), Code: vouch.CodeCountMismatch,
		Reason: fmt.Sprintf("the summary claims %q, but %d created files exist", c.Text, len(exist)), Evidence: ev, Fix: missing}
	return result("claims.count", o)
}

func hasDocCriterion(req *vouch.Request) bool {
	for _, c := range req.Task.Criteria {
		if c.Check != nil && c.Check.Type == "doc_comments" {
			return true
		}
	}
	return false
}

func hasDocCount(cs []claimtext.CountClaim) bool {
	for _, c := range cs {
		if c.Action == "document" {
			return true
		}
	}
	return false
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
