package claims

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/check/internal/codecheck"
	"github.com/vouchgate/vouch/code"
	_ "github.com/vouchgate/vouch/code/treesitter" // TypeScript, JavaScript, Python (cgo builds)
	"github.com/vouchgate/vouch/git"
	"github.com/vouchgate/vouch/text/claimtext"
	"github.com/vouchgate/vouch/text/plural"
	"github.com/vouchgate/vouch/trace"
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
// "Created 3 files" is compared with the created files that exist. With a
// base, the symbols the summary says it added or changed and the number of
// tests it says it added are held against the changes (see diffClaims).
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
		for _, c := range summaryCounts(s) {
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
				r := docCount(c, docs)
				r.Claims = []vouch.ClaimRef{countRef(c)}
				f.Checks = append(f.Checks, r)
				f.MarkApplicable(vouch.DimClaims)
			}
		case c.Action == "create" && c.Noun == "file":
			r := createdCount(ctx, s, c)
			r.Claims = []vouch.ClaimRef{countRef(c)}
			f.Checks = append(f.Checks, r)
			f.MarkApplicable(vouch.DimClaims)
		}
	}
	if held := diffClaims(ctx, s, counts); len(held) > 0 {
		f.Checks = append(f.Checks, held...)
		f.MarkApplicable(vouch.DimClaims)
	}
	return nil
}

// countRef is the claim of the summary a count claim is read from, of the
// kind its noun names.
func countRef(c claimtext.CountClaim) vouch.ClaimRef {
	kind := vouch.ClaimStatement
	switch {
	case c.Noun == "test" || c.Action == "pass" || c.Action == "fail" || c.Action == "skip":
		kind = vouch.ClaimTests
	case c.Noun == "file":
		kind = vouch.ClaimFile
	case c.Action == "document" || symbolNouns[c.Noun] || c.Noun == "field" || c.Noun == "parameter" || c.Noun == "endpoint":
		kind = vouch.ClaimSymbol
	case c.Noun == "commit":
		kind = vouch.ClaimGit
	}
	return vouch.SummaryRef(kind, c.Text, c.Sentence)
}

// docEval is what the doc-comment evaluation found across files. Each
// symbol is counted once: an overloaded function, or a method with
// overload signatures, is one symbol, documented when one of its
// declarations has a doc comment.
type docEval struct {
	files  []string
	result codecheck.DocResult
	// unresolved are names the task gives as symbols that no parsed file
	// defines: what they stand for cannot be checked (result.Missing is
	// unused).
	unresolved []string
	// unmatched are words the goal puts in a name's place that match no
	// symbol (TaskIntent.Names): most likely plain English. They decide
	// nothing, and are named when a count cannot be attributed.
	unmatched []string
	// undecided is set when no file could be parsed; why says why.
	undecided *vouch.Outcome
}

// evalDocs checks doc comments on the symbols the task names (in the files
// it names, else the claimed files), or on the symbols inside the claimed
// edited regions (else the changed hunks) when it names none. A word of
// the goal in a name's place that the lexicon reads as English ("Close",
// "config") is a name when a parsed file defines a symbol by it.
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
	}
	if len(ev.files) == 0 {
		if lastErr == nil {
			return nil
		}
		ev.undecided = lastErr
		return ev
	}
	// lookup finds the first file defining name, and its symbols there.
	lookup := func(name string) (string, []code.Symbol) {
		for _, file := range ev.files {
			if syms := parsed[file].Lookup(name); len(syms) > 0 {
				return file, syms
			}
		}
		return "", nil
	}
	names := append([]string(nil), intent.Symbols...)
	for _, n := range intent.Names {
		if file, _ := lookup(n); file != "" {
			names = append(names, n)
		} else {
			ev.unmatched = append(ev.unmatched, n)
		}
	}
	if len(names) > 0 {
		evalNamed(ev, names, lookup, intent.Noun)
		return ev
	}
	seen := map[string]bool{}
	for _, t := range targets {
		pf := parsed[t.file]
		if pf == nil {
			continue
		}
		var syms []code.Symbol
		if t.exported {
			for _, sym := range pf.Symbols {
				if sym.Exported && kindFits(sym, intent.Noun) {
					syms = append(syms, sym)
				}
			}
		} else {
			for _, reg := range t.regions {
				syms = append(syms, pf.InRegion(reg.Start, reg.End)...)
			}
		}
		for _, g := range groups(syms) {
			key := t.file + "\x00" + g.name
			if seen[key] {
				continue
			}
			seen[key] = true
			ev.add(g.name, t.file, g.documented, g.line)
		}
	}
	return ev
}

// evalNamed checks the named symbols: each name is looked up in the files
// in order, the first file defining it decides. A class or type named as
// the owner of named methods ("the Store methods Open and Close", "the
// methods on and off of the Emitter class") is not itself a target when
// the task speaks of methods or functions; it narrows the lookup of the
// other names to its members.
func evalNamed(ev *docEval, names []string, lookup func(string) (string, []code.Symbol), noun string) {
	type hit struct {
		name string
		file string
		syms []code.Symbol
	}
	var hits []hit
	for _, n := range names {
		file, syms := lookup(n)
		if file == "" {
			ev.unresolved = append(ev.unresolved, n)
			continue
		}
		hits = append(hits, hit{n, file, syms})
	}
	owners := map[string]bool{}
	if noun == "method" || noun == "function" {
		for _, h := range hits {
			if ownerOnly(h.syms) {
				owners[h.syms[0].Name] = true
			}
		}
		// An owner is one only if some other named symbol is its member.
		for o := range owners {
			member := false
			for _, h := range hits {
				for _, sym := range h.syms {
					member = member || sym.Receiver == o
				}
			}
			if !member {
				delete(owners, o)
			}
		}
	}
	seen := map[string]bool{}
	for _, h := range hits {
		if ownerOnly(h.syms) && owners[h.syms[0].Name] {
			continue
		}
		syms := h.syms
		if len(owners) > 0 {
			var in []code.Symbol
			for _, sym := range syms {
				if owners[sym.Receiver] {
					in = append(in, sym)
				}
			}
			if len(in) > 0 {
				syms = in
			}
		}
		gs := groups(syms)
		// Two names for the same symbols ("Close" and "Store.Close") count
		// once.
		var keys []string
		for _, g := range gs {
			keys = append(keys, h.file+"\x00"+g.name)
		}
		key := strings.Join(keys, "\x01")
		if seen[key] {
			continue
		}
		seen[key] = true
		documented, line := true, 0
		for _, g := range gs {
			if !g.documented {
				documented = false
				if line == 0 {
					line = g.line
				}
			}
		}
		ev.add(h.name, h.file, documented, line)
	}
}

// ownerOnly reports symbols that are all classes, interfaces or types:
// what methods belong to.
func ownerOnly(syms []code.Symbol) bool {
	for _, sym := range syms {
		switch sym.Kind {
		case code.KindClass, code.KindInterface, code.KindType:
		default:
			return false
		}
	}
	return len(syms) > 0
}

// add records one checked symbol.
func (ev *docEval) add(name, file string, documented bool, line int) {
	if documented {
		ev.result.Documented = append(ev.result.Documented, name)
		return
	}
	ev.result.Undocumented = append(ev.result.Undocumented, name)
	ev.result.Lines[name] = fmt.Sprintf("%s:%d", file, line)
}

// symGroup is one symbol counted once: the declarations sharing a
// qualified name (an overloaded function's signatures and body).
type symGroup struct {
	name       string
	documented bool
	line       int // the first declaration's line
}

// groups folds symbols by qualified name, in order of first appearance;
// a group is documented when one of its declarations has a doc comment
// (TypeScript overloads are often documented on their first signature).
func groups(syms []code.Symbol) []symGroup {
	var out []symGroup
	at := map[string]int{}
	for _, sym := range syms {
		q := sym.QualifiedName()
		i, ok := at[q]
		if !ok {
			i = len(out)
			at[q] = i
			out = append(out, symGroup{name: q, line: sym.Start})
		}
		out[i].documented = out[i].documented || sym.HasDoc
	}
	return out
}

// kindFits reports whether a symbol is of the class the task speaks of:
// functions (not the members of classes) for "function", functions and
// methods for "method", classes for "class", and top-level symbols when
// it names no class: members count only when the task speaks of methods.
func kindFits(sym code.Symbol, noun string) bool {
	switch noun {
	case "function":
		return sym.Kind == code.KindFunction || sym.Kind == code.KindConst
	case "method":
		return sym.Kind == code.KindFunction || sym.Kind == code.KindMethod || sym.Kind == code.KindConst
	case "class":
		return sym.Kind == code.KindClass
	}
	return sym.Receiver == ""
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
		out = d.outcome()
		names := append(append(append([]string(nil), d.result.Documented...), d.result.Undocumented...), d.unresolved...)
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
	// The criterion holds the summary's claims that the doc comments were
	// written ("Added docstrings to load and save"): it checked them.
	for _, st := range check.Statements(s) {
		if st.Action == "document" {
			cr.Claims = append(cr.Claims, vouch.SummaryRef(vouch.ClaimSymbol, st.Text, st.Sentence))
		}
	}
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

// outcome decides the inferred criterion: it fails only on a symbol found
// without a doc comment, naming it; names the task gives that match no
// symbol leave it undecided (what they stand for is unknown), and so does
// finding nothing to check.
func (d *docEval) outcome() vouch.Outcome {
	files := strings.Join(d.files, ", ")
	r := d.result
	if len(r.Undocumented) > 0 {
		o := r.Outcome(files)
		if len(d.unresolved) > 0 {
			o.Reason += fmt.Sprintf("; no symbol named %s was found", check.List(d.unresolved, 20))
			o.Evidence["unresolved"] = check.Cap(d.unresolved, 50)
		}
		return o
	}
	if len(d.unresolved) > 0 {
		o := vouch.Undecided(vouch.CodeSymbolUnresolved, fmt.Sprintf("the task names %s, but %s defines no symbol by that name, so its doc comments cannot be checked (%s found, %s)",
			check.List(d.unresolved, 20), files, plural.Count(len(r.Documented), "named symbol"), plural.Pick(len(r.Documented), "documented", "all documented")))
		o.Evidence = map[string]any{"file": files, "documented": nonNil(check.Cap(r.Documented, 50)), "unresolved": check.Cap(d.unresolved, 50)}
		return o
	}
	return r.Outcome(files)
}

// docCount holds a doc count claim against the doc comments found. It
// fails only when it can name a symbol found without a doc comment; a
// shortfall it cannot attribute (names that match no symbol, fewer
// symbols found than claimed, all documented) leaves it undecided.
func docCount(c claimtext.CountClaim, d *docEval) vouch.CheckResult {
	if d.undecided != nil {
		o := *d.undecided
		o.Code = vouch.CodeCountUndecided
		o.Reason = fmt.Sprintf("the claim %q cannot be checked: %s", c.Text, d.undecided.Reason)
		return result("claims.count", o)
	}
	r := d.result
	found := len(r.Documented)
	total := found + len(r.Undocumented)
	claimed := c.Number
	if claimed == 0 && c.All {
		claimed = total + len(d.unresolved)
	}
	if len(c.Items) > 0 && claimed < len(c.Items) {
		claimed = len(c.Items)
	}
	ev := map[string]any{"claim": c.Text, "claimed": claimed, "found": found, "documented": nonNil(check.Cap(r.Documented, 50))}
	if len(r.Undocumented) > 0 {
		ev["undocumented"] = check.Cap(r.Undocumented, 50)
	}
	if len(d.unresolved) > 0 {
		ev["unresolved"] = check.Cap(d.unresolved, 50)
	}
	short := found < claimed
	if claimed == 0 || !short && (!c.All || len(r.Undocumented) == 0) {
		return result("claims.count", vouch.Pass(fmt.Sprintf("the claim %q holds: %d documented", c.Text, found), ev))
	}
	if len(r.Undocumented) == 0 {
		// Fewer found than claimed, and none of them lacks a doc comment:
		// what is missing cannot be named, so nothing is shown wrong.
		why := fmt.Sprintf("%s %s found (%s) and none named lacks a doc comment", plural.Count(found, "documented symbol"), plural.Pick(found, "was", "were"), check.List(r.Documented, 20))
		switch {
		case len(d.unresolved) > 0:
			why += fmt.Sprintf("; the task also names %s, which %s does not define", check.List(d.unresolved, 20), strings.Join(d.files, ", "))
		case len(d.unmatched) > 0:
			why += fmt.Sprintf("; %s in the task match no symbol", check.List(d.unmatched, 20))
		}
		o := vouch.Undecided(vouch.CodeCountUndecided, fmt.Sprintf("the claim %q cannot be checked: %s", c.Text, why))
		o.Evidence = ev
		return result("claims.count", o)
	}
	var fix []string
	for _, n := range r.Undocumented {
		fix = append(fix, n+" ("+r.Lines[n]+")")
	}
	fix = check.Cap(fix, 50)
	of := max(claimed, total)
	o := vouch.Outcome{Status: vouch.StatusFail, Score: min(1, float64(found)/float64(of)), Code: vouch.CodeCountMismatch,
		Reason:   fmt.Sprintf("the summary claims %q, but %d of %d %s doc comments; missing on %s", c.Text, found, of, plural.Pick(found, "has", "have"), check.List(r.Undocumented, 20)),
		Evidence: ev, Fix: fix}
	return result("claims.count", o)
}

// createdCount holds "created N files" ("Created `CHANGELOG.md`") against
// the files the work created that exist: those the output lists as
// created, those git shows added or untracked since the base, and, without
// git, those the trace wrote. A file the claim names must exist; a count
// of unnamed files fails only when git with a base shows every file the
// work created, and is undecided when vouch sees only part of them.
func createdCount(ctx context.Context, s *vouch.Subject, c claimtext.CountClaim) vouch.CheckResult {
	var exist, missing []string
	seen := map[string]bool{}
	isFile := func(rel string) bool {
		fi, err := s.Stat(rel)
		return err == nil && fi.Mode().IsRegular()
	}
	add := func(rel string) {
		if rel != "" && !seen[rel] && isFile(rel) {
			seen[rel] = true
			exist = append(exist, rel)
		}
	}
	for _, cf := range gather(s) {
		if !cf.created {
			continue
		}
		if cf.rel != "" && isFile(cf.rel) {
			add(cf.rel)
		} else {
			missing = append(missing, cf.path)
		}
	}
	ch, _ := git.ChangesFor(ctx, s)
	complete := ch != nil && ch.Repo && ch.Base != ""
	if ch != nil && ch.Repo {
		for _, p := range ch.Paths() {
			if st := ch.File(p).Status; st == git.Added || st == git.Untracked {
				add(p)
			}
		}
	} else if len(s.Request.Trace) > 0 {
		for _, w := range trace.SummaryFor(s).Writes {
			if !w.IsError {
				add(s.Rel(w.Path))
			}
		}
	}
	// The files the claim names: each must exist, as written or as the one
	// created file whose path ends so.
	for _, item := range c.Items {
		name := strings.TrimPrefix(path.Clean(strings.TrimSpace(item)), "./")
		if r := s.Rel(name); r != "" && isFile(r) {
			add(r)
			continue
		}
		found := false
		for _, e := range exist {
			if e == name || strings.HasSuffix(e, "/"+name) {
				found = true
				break
			}
		}
		if !found && !slices.Contains(missing, item) {
			missing = append(missing, item)
		}
	}
	claimed := max(c.Number, len(c.Items))
	ev := map[string]any{"claim": c.Text, "claimed": claimed, "found": len(exist), "files": nonNil(check.Cap(exist, 50))}
	if len(missing) == 0 && (claimed == 0 || len(exist) >= claimed) {
		return result("claims.count", vouch.Pass(fmt.Sprintf("the claim %q holds: %s %s", c.Text, plural.Count(len(exist), "created file"), plural.Pick(len(exist), "exists", "exist")), ev))
	}
	if len(missing) == 0 && !complete {
		o := vouch.Undecided(vouch.CodeCountUndecided, fmt.Sprintf("the claim %q cannot be checked: %s %s seen (%s), but without git and a base vouch cannot see every file the work created", c.Text, plural.Count(len(exist), "created file"), plural.Pick(len(exist), "was", "were"), check.List(exist, 20)))
		o.Evidence = ev
		return result("claims.count", o)
	}
	o := vouch.Outcome{Status: vouch.StatusFail, Score: min(1, float64(len(exist))/float64(max(claimed, 1))), Code: vouch.CodeCountMismatch,
		Reason: fmt.Sprintf("the summary claims %q, but %s %s", c.Text, plural.Count(len(exist), "created file"), plural.Pick(len(exist), "exists", "exist")), Evidence: ev, Fix: missing}
	if len(missing) > 0 {
		o.Reason += "; missing: " + check.List(missing, 20)
	}
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
