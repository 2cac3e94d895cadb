package grounding

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/vouchgate/vouch/text/lex"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/code"
	_ "github.com/vouchgate/vouch/code/treesitter" // TypeScript, JavaScript, Python (cgo builds)
	"github.com/vouchgate/vouch/git"
	"github.com/vouchgate/vouch/text/mention"
	"github.com/vouchgate/vouch/text/plural"
	"github.com/vouchgate/vouch/text/support"
	"github.com/vouchgate/vouch/trace"
)

func init() {
	check.RegisterAnalyzer(check.AnalyzerInfo{
		Name:  "grounding.mentions",
		Level: vouch.LevelGrounding,
		Kinds: profileKinds(),
		New:   func() vouch.Analyzer { return analyzer{} },
	})
}

type analyzer struct{}

// maxWarnings caps the UNVERIFIED_* warnings of one report; the mentions
// list holds them all.
const maxWarnings = 20

// Analyze implements vouch.Analyzer.
func (analyzer) Analyze(ctx context.Context, s *vouch.Subject, f *vouch.Findings) error {
	req := s.Request
	prof, ok := profiles[req.EffectiveKind()]
	if !ok {
		return nil // a kind grounding does not serve: the engine never asks
	}
	ev := newEvidence(ctx, s, &prof)
	if !ev.any() {
		return nil // nothing to ground in: not applicable
	}
	dim := prof.dim
	f.MarkApplicable(dim)

	docs := prof.texts(req)
	for _, doc := range docs {
		for _, m := range doc.Mentions {
			if m.Kind == vouch.MentionFile {
				ev.mentioned = append(ev.mentioned, m.Norm)
			}
		}
	}
	var out result
	for _, doc := range docs {
		for i := range doc.Mentions {
			m := &doc.Mentions[i]
			switch m.Kind {
			case vouch.MentionFile, vouch.MentionPackage, vouch.MentionSymbol, vouch.MentionURL:
			default:
				continue
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if prof.skipMade && m.Kind != vouch.MentionURL && creates(doc, m) {
				continue // a plan may name what it will create
			}
			if !out.first(m.Kind, m.Norm) {
				continue
			}
			v := ev.verify(m)
			if !v.found && !v.refuted && len(ev.agents) > 0 {
				v = ev.agentSaid(m, prof.madeOf)
			}
			if !prof.refutes {
				// A plan speaks of the future: what it names may not exist
				// yet, so nothing it names is refuted.
				v.refuted = false
			}
			if v.refuted && m.Kind == vouch.MentionFile && deletes(doc, m) {
				// "Removed the old legacy.go": a file said to be gone is
				// missing as said (claims.files and claims.git hold what
				// the output claims of it); unverified, not refuted.
				v.refuted = false
			}
			out.add(m, doc, v)
		}
	}
	if prof.claims && len(ev.sources) > 0 {
		out.claims = ev.index().Claims(docs[0])
		for _, c := range out.claims {
			contradicted := map[string]bool{}
			for _, x := range c.Contradicted {
				contradicted[x.Atom.Norm] = true
				if out.first(vouch.MentionKind(x.Atom.Kind), x.Atom.Norm) {
					out.refuted = append(out.refuted, vouch.RefutedMention{Text: x.Atom.Text, Kind: atomKind(x.Atom.Kind),
						Sentence: strings.TrimSpace(c.Sentence.Text), Evidence: fmt.Sprintf("%s says %q", x.Source, x.Found)})
				}
			}
			for _, a := range c.Unsupported {
				if !contradicted[a.Norm] && out.first(vouch.MentionKind(a.Kind), a.Norm) {
					out.unverified = append(out.unverified, vouch.UnverifiedMention{Text: a.Text, Kind: atomKind(a.Kind), Sentence: c.Sentence.Text})
				}
			}
		}
	}
	out.report(f, dim)
	return nil
}

// creationWords announce something a plan will make rather than use.
var creationWords = lex.Named("creation-words").Words()

// creates reports whether m's sentence says it will be made ("add fixtures
// to db/users.sql", "implement SeedUsers()").
func creates(doc *mention.Doc, m *mention.Mention) bool {
	if m.Sentence < 0 || m.Sentence >= len(doc.Sentences) {
		return false
	}
	sentence := strings.ToLower(doc.Sentences[m.Sentence].Text)
	for _, w := range creationWords {
		if support.ContainsWord(sentence, w) {
			return true
		}
	}
	return false
}

// deleteVerbs say a statement's object was removed.
var deleteVerbs = lex.Named("delete-verbs").Words()

// deletes reports whether m's sentence says something was removed ("removed
// the old legacy.go", "dropped config.yaml").
func deletes(doc *mention.Doc, m *mention.Mention) bool {
	if m.Sentence < 0 || m.Sentence >= len(doc.Sentences) {
		return false
	}
	sentence := strings.ToLower(doc.Sentences[m.Sentence].Text)
	for _, w := range deleteVerbs {
		if support.ContainsWord(sentence, w) {
			return true
		}
	}
	return false
}

// atomKind maps a support atom's kind to a mention kind; a quoted phrase
// is reported as an entity.
func atomKind(k string) vouch.MentionKind {
	if k == "quote" {
		return vouch.MentionEntity
	}
	return vouch.MentionKind(k)
}

// verdict is what the evidence says of one mention.
type verdict struct {
	found bool
	// refuted is set when the place that would hold the mention was
	// examined and does not: a path missing from the workspace, a package
	// missing from a dependency manifest the agent or vouch read.
	refuted bool
	where   string
}

// result gathers the mentions of one verification.
type result struct {
	seen       map[string]bool
	verified   []vouch.VerifiedMention
	unverified []vouch.UnverifiedMention
	refuted    []vouch.RefutedMention
	total      int
	claims     []support.Claim
}

// first reports whether a mention of this kind and norm is new.
func (r *result) first(kind vouch.MentionKind, norm string) bool {
	key := string(kind) + "\x00" + strings.ToLower(norm)
	if r.seen[key] {
		return false
	}
	if r.seen == nil {
		r.seen = make(map[string]bool)
	}
	r.seen[key] = true
	return true
}

func (r *result) add(m *mention.Mention, doc *mention.Doc, v verdict) {
	r.total++
	if v.found {
		r.verified = append(r.verified, vouch.VerifiedMention{Text: m.Text, Kind: m.Kind, Evidence: map[string]any{"source": v.where}})
		return
	}
	sentence := ""
	if m.Sentence >= 0 && m.Sentence < len(doc.Sentences) {
		sentence = strings.TrimSpace(doc.Sentences[m.Sentence].Text)
	}
	if v.refuted {
		r.refuted = append(r.refuted, vouch.RefutedMention{Text: m.Text, Kind: m.Kind, Sentence: sentence, Evidence: v.where})
		return
	}
	r.unverified = append(r.unverified, vouch.UnverifiedMention{Text: m.Text, Kind: m.Kind, Sentence: sentence})
}

var warningCodes = map[vouch.MentionKind]string{
	vouch.MentionFile:    vouch.CodeUnverifiedFile,
	vouch.MentionPackage: vouch.CodeUnverifiedPackage,
	vouch.MentionSymbol:  vouch.CodeUnverifiedSymbol,
	vouch.MentionURL:     vouch.CodeUnverifiedURL,
}

// report adds the mentions, warnings and checks to f. A mention counts
// against the output only when the evidence contradicts it (refuted); one
// nothing shows is unverified, listed and warned of, and never lowers the
// score. An answer's statements are its claims: each is verified when the
// sources hold it, refuted when one contradicts it, unverified otherwise.
func (r *result) report(f *vouch.Findings, dim string) {
	f.Mentions.Verified = append(f.Mentions.Verified, r.verified...)
	f.Mentions.Unverified = append(f.Mentions.Unverified, r.unverified...)
	f.Mentions.Refuted = append(f.Mentions.Refuted, r.refuted...)
	nWarn := 0
	for _, u := range r.unverified {
		code, ok := warningCodes[u.Kind]
		if !ok {
			continue
		}
		if nWarn < maxWarnings {
			nWarn++
			f.Warnings = append(f.Warnings, vouch.Warning{Code: code,
				Message: string(u.Kind) + " " + strconv.Quote(u.Text) + " is in nothing the agent read, listed or wrote, nor in the workspace: unverified",
				Details: map[string]any{"mention": u.Text, "sentence": u.Sentence}})
		}
	}
	var refuted []vouch.RefutedMention
	for _, m := range r.refuted {
		if _, ok := warningCodes[m.Kind]; ok {
			refuted = append(refuted, m)
		}
	}
	if decided := len(r.verified) + len(refuted); decided > 0 {
		good := len(r.verified)
		c := vouch.CheckResult{
			Name: "grounding.mentions", Level: vouch.LevelGrounding, Strength: vouch.StrengthStrict,
			Status: vouch.StatusPass, Confidence: 1, Dimension: dim, Weight: 1,
			Score:    float64(good) / float64(decided),
			Reason:   fmt.Sprintf("%s of files, packages, symbols and URLs %s found in the evidence", plural.Count(good, "mention"), plural.Pick(good, "is", "are")),
			Evidence: map[string]any{"verified": good, "refuted": len(refuted), "unverified": len(r.unverified)},
		}
		if len(refuted) > 0 {
			// The place that would hold these was examined and does not:
			// not a gap in the evidence but a mention of something that is
			// not there.
			var fix []string
			for _, m := range refuted {
				fix = append(fix, fmt.Sprintf("%s %q (%s)", m.Kind, m.Text, m.Evidence))
			}
			c.Status, c.Code, c.Fix = vouch.StatusFail, vouch.CodeMentionsRefuted, fix
			c.Reason = fmt.Sprintf("%d of the %s the evidence decides %s contradicted by it: %s", len(refuted), plural.Count(decided, "mention"), plural.Pick(len(refuted), "is", "are"), check.List(fix, 5))
			c.Evidence["refutedMentions"] = fix
		}
		if len(r.unverified) > 0 {
			c.Reason += fmt.Sprintf("; %d more %s in nothing the evidence holds (unverified, not counted)", len(r.unverified), plural.Pick(len(r.unverified), "is", "are"))
		}
		f.Checks = append(f.Checks, c)
	}
	r.statements(f, dim)
}

// held reports whether the sources hold a statement, as rules can tell:
// none contradicts it, every figure, date, name and quote of it is found,
// none is left for a judge, and its key words are found said together,
// every neighbouring pair of them in one sentence of a source (see
// support.Claim.Ordered). Rules read words, not meaning: a statement
// that rewords its source, or moves a name or a figure of it into another
// place ("emergency loan buying" where the source says "emergency bond
// buying", "touched 0.5%" where it says 0.505%), is not held, and stays
// unverified for a judge to read.
func held(c *support.Claim) bool {
	return c.Supported() && len(c.Undecided) == 0 && c.Ordered >= 1
}

// statements adds the checks that decide an answer's statements against
// its sources, each citing the statements it decides.
func (r *result) statements(f *vouch.Findings, dim string) {
	if len(r.claims) == 0 {
		return
	}
	var found, contra, open []*support.Claim
	for i := range r.claims {
		c := &r.claims[i]
		switch {
		case len(c.Contradicted) > 0:
			contra = append(contra, c)
		case held(c):
			found = append(found, c)
		default:
			open = append(open, c)
		}
	}
	refs := func(cs []*support.Claim) []vouch.ClaimRef {
		out := make([]vouch.ClaimRef, len(cs))
		for i, c := range cs {
			t := strings.TrimSpace(c.Sentence.Text)
			out[i] = vouch.SummaryRef(vouch.ClaimStatement, t, t)
		}
		return out
	}
	n := len(r.claims)
	if len(found) > 0 {
		f.Checks = append(f.Checks, vouch.CheckResult{
			Name: "grounding.claims", Level: vouch.LevelGrounding, Strength: vouch.StrengthStrict,
			Status: vouch.StatusPass, Confidence: 1, Dimension: dim, Weight: float64(len(found)), Score: 1,
			Reason:   fmt.Sprintf("%d of %s %s found in the sources: %s figures, dates, names and words", len(found), plural.Count(n, "statement"), plural.Pick(len(found), "is", "are"), plural.Pick(len(found), "its", "their")),
			Evidence: map[string]any{"statements": n, "found": len(found)},
			Claims:   refs(found),
		})
	}
	explain := func(cs []*support.Claim) []string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = support.Explain(c, "source")
		}
		return out
	}
	if len(contra) > 0 {
		sentences := explain(contra)
		f.Checks = append(f.Checks, vouch.CheckResult{
			Name: "grounding.claims", Level: vouch.LevelGrounding, Strength: vouch.StrengthStrict,
			Status: vouch.StatusFail, Confidence: 1, Dimension: dim, Weight: float64(len(contra)), Score: 0,
			Code:     vouch.CodeSourceContradicted,
			Reason:   fmt.Sprintf("%d of %s %s contradicted by the sources: %s", len(contra), plural.Count(n, "statement"), plural.Pick(len(contra), "is", "are"), check.List(sentences, 3)),
			Evidence: map[string]any{"statements": n, "contradicted": sentences},
			Fix:      sentences,
			// A source that says otherwise is not missing evidence: the
			// answer contradicts what it was given.
			Must:   true,
			Claims: refs(contra),
		})
	}
	if len(open) > 0 {
		sentences := explain(open)
		f.Checks = append(f.Checks, vouch.CheckResult{
			Name: "grounding.claims", Level: vouch.LevelGrounding, Strength: vouch.StrengthStrict,
			Status: vouch.StatusUndecided, Dimension: dim, Weight: float64(len(open)),
			Code:     vouch.CodeStatementsUnfound,
			Reason:   fmt.Sprintf("%d of %s %s not found in the sources, and none contradicts %s: unverified", len(open), plural.Count(n, "statement"), plural.Pick(len(open), "is", "are"), plural.Pick(len(open), "it", "them")),
			Evidence: map[string]any{"statements": n, "unfound": check.Cap(sentences, 20)},
			Claims:   refs(open),
		})
	}
}

// evidence is everything a mention can be found in, built lazily.
type evidence struct {
	// ctx bounds the parsing of workspace files.
	ctx     context.Context
	s       *vouch.Subject
	sum     *trace.Summary
	table   *trace.Table
	byBase  map[string][]string // trace paths by base name
	texts   []evText            // tool outputs, written contents, task text
	joined  string              // the texts joined by NUL bytes, once needed
	starts  []int               // where each text starts in joined
	sources []support.Source
	deleted map[string]bool
	// mentioned are the files the answer mentions; their symbols count.
	mentioned []string

	// agents are the texts a synthesis or a summary is made from: the
	// agent outputs, the discussion (see profile.madeFrom). They are all
	// such a text rests on, so what the ground truth does not show must be
	// in one of them.
	agents []evText

	pkgs      packageSet
	manifests []string // manifests read, by where
	ws        map[string][]string
	ix        *support.Index
}

// evText is one text that can show a symbol, package or URL.
type evText struct {
	label string // where the text is, for a text not from the trace
	entry int    // the trace entry the text is from, or -1
	tool  string // that entry's tool
	text  string
	code  bool // a file's contents (a read or a write), where imports count
	// failed marks the output of a call that failed: what the agent saw,
	// but no evidence that a file it names exists.
	failed bool
}

// where names the text in evidence ("trace[3] Read", "sources[0]"); it is
// built only for the texts that end up as evidence.
func (t *evText) where() string {
	if t.entry < 0 {
		return t.label
	}
	return "trace[" + strconv.Itoa(t.entry) + "] " + t.tool
}

// labelled returns a text that is not from the trace.
func labelled(label, text string) evText { return evText{label: label, entry: -1, text: text} }

func newEvidence(ctx context.Context, s *vouch.Subject, prof *profile) *evidence {
	req := s.Request
	ev := &evidence{ctx: ctx, s: s, table: trace.TableFor(s)}
	if len(req.Trace) > 0 {
		ev.sum = trace.SummaryFor(s)
		ev.byBase = make(map[string][]string)
		for _, p := range ev.sum.Paths() {
			b := path.Base(p)
			ev.byBase[b] = append(ev.byBase[b], p)
		}
		// The calls that wrote files, as the summary read them (a shell
		// command's writes are parsed once, there).
		wrote := make(map[int]bool, len(ev.sum.Writes))
		for _, w := range ev.sum.Writes {
			if !w.IsError {
				wrote[w.Index] = true
			}
		}
		for i := range req.Trace {
			e := &req.Trace[i]
			op := ev.table.CallOp(e.Tool, e.Input)
			at := evText{entry: i, tool: e.Tool}
			if op == trace.OpWrite {
				for v := range trace.Written(e.Input) {
					at.text, at.code = v, true
					ev.texts = append(ev.texts, at)
				}
			}
			if op == trace.OpFetch {
				if u := trace.URL(e.Input); u != "" {
					at.text, at.code = u, false
					ev.texts = append(ev.texts, at)
				}
			}
			if op == trace.OpControl {
				continue
			}
			if op == trace.OpExec && !e.IsError && wrote[i] {
				// A shell command that wrote files holds what it wrote (a
				// here-doc, a sed expression): the agent's own code, as
				// the content of a Write is.
				at.text, at.code = trace.Command(e.Input), true
				ev.texts = append(ev.texts, at)
			}
			if out := e.OutputText(); out != "" {
				// The output of a failed call is still what the agent saw
				// (a traceback's exception, a failing test's names); it
				// grounds names, never that a file exists.
				at.text, at.code, at.failed = out, op == trace.OpRead && !e.IsError, e.IsError
				ev.texts = append(ev.texts, at)
				if e.IsError {
					continue
				}
				if prof.claims {
					// Tool outputs are sources of an answer's claims.
					ev.sources = append(ev.sources, support.Source{ID: "trace[" + strconv.Itoa(i) + "]", Text: out})
				}
			}
		}
	}
	if c := req.Context; c != nil {
		for i, raw := range c.Sources {
			src := support.FromJSON(fmt.Sprintf("sources[%d]", i), raw)
			ev.sources = append(ev.sources, src)
			ev.texts = append(ev.texts, labelled(src.ID, src.Text))
		}
		if prof.madeFrom != nil {
			ev.agents = prof.madeFrom(c)
		}
		if c.Plan != nil && c.Plan.Goal != "" {
			ev.texts = append(ev.texts, labelled("plan.goal", c.Plan.Goal))
		}
	}
	if req.Task.Goal != "" {
		ev.texts = append(ev.texts, labelled("task.goal", req.Task.Goal))
	}
	for _, d := range req.Output.Deleted {
		if ev.deleted == nil {
			ev.deleted = make(map[string]bool)
		}
		ev.deleted[cleanPath(d)] = true
	}
	return ev
}

// textWith returns the index of the first text that holds w as a whole
// word and passes also (when not nil), or -1. The texts are searched as one
// string, joined by NUL bytes, so a lookup is one scan however many texts
// there are.
func (ev *evidence) textWith(w string, also func(*evText) bool) int {
	if w == "" {
		return -1
	}
	if ev.starts == nil {
		var b strings.Builder
		ev.starts = make([]int, len(ev.texts))
		for i := range ev.texts {
			ev.starts[i] = b.Len()
			b.WriteString(ev.texts[i].text)
			b.WriteByte(0)
		}
		ev.joined = b.String()
	}
	text := ev.joined
	for from := 0; from < len(text); {
		j := strings.Index(text[from:], w)
		if j < 0 {
			return -1
		}
		start, end := from+j, from+j+len(w)
		if (start == 0 || !support.IsWordByte(text[start-1])) && (end == len(text) || !support.IsWordByte(text[end])) {
			// The text holding the match: the last that starts at or before it.
			i, found := slices.BinarySearch(ev.starts, start)
			if !found {
				i--
			}
			if also == nil || also(&ev.texts[i]) {
				return i
			}
			if i+1 < len(ev.starts) {
				from = ev.starts[i+1] // one look at each text
				continue
			}
			return -1
		}
		from = start + 1
	}
	return -1
}

// any reports whether there is evidence to ground in: a trace, sources or
// a workspace (the task text alone is context, not evidence).
func (ev *evidence) any() bool {
	return ev.sum != nil || len(ev.sources) > 0 || ev.s.Workspace != nil || len(ev.agents) > 0
}

// agentSaid looks a mention the ground truth does not show up in the texts
// the answer was made from, which madeOf names. Found there, it is traced;
// found in none of them, it was made up: refuted.
func (ev *evidence) agentSaid(m *mention.Mention, madeOf string) verdict {
	for _, t := range ev.agents {
		var ok bool
		switch m.Kind {
		case vouch.MentionFile:
			ok = support.ContainsWord(t.text, cleanPath(m.Norm))
		case vouch.MentionSymbol:
			ok = true
			for _, p := range symbolParts(m.Norm) {
				if !support.ContainsWord(t.text, p) {
					ok = false
					break
				}
			}
		case vouch.MentionURL:
			ok = containsURL(t.text, m.Text) || m.Norm != m.Text && containsURL(t.text, m.Norm)
		default:
			ok = support.ContainsWord(t.text, m.Norm)
		}
		if ok {
			return verdict{found: true, where: t.where()}
		}
	}
	return verdict{refuted: true, where: "in no " + madeOf}
}

func (ev *evidence) index() *support.Index {
	if ev.ix == nil {
		srcs := ev.sources
		if g := ev.s.Request.Task.Goal; g != "" {
			srcs = append(srcs[:len(srcs):len(srcs)], support.Source{ID: "task.goal", Text: g})
		}
		ev.ix = support.NewIndex(srcs)
	}
	return ev.ix
}

func (ev *evidence) verify(m *mention.Mention) verdict {
	switch m.Kind {
	case vouch.MentionFile:
		return ev.file(m.Norm)
	case vouch.MentionPackage:
		return ev.pkg(m.Norm)
	case vouch.MentionSymbol:
		return ev.symbol(m.Norm)
	case vouch.MentionURL:
		return ev.url(m)
	}
	return verdict{}
}

// cleanPath cleans a mentioned path: slashes, no "./", no trailing slash.
func cleanPath(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	p = path.Clean(p)
	return strings.TrimPrefix(p, "./")
}

// samePath reports whether a mentioned path and a path in the evidence name
// one file: equal, or one ends with the other at a directory boundary
// ("parser.ts" and "/repo/src/parser.ts"; "src/parser.ts" and
// "/home/u/repo/src/parser.ts").
func samePath(m, e string) bool {
	e = cleanPath(e)
	if m == e {
		return true
	}
	if strings.HasSuffix(e, "/"+m) {
		return true
	}
	return strings.Contains(e, "/") && strings.HasSuffix(m, "/"+e)
}

func (ev *evidence) file(norm string) verdict {
	m := cleanPath(norm)
	if m == "." || m == "" {
		return verdict{found: true, where: "the workspace root"}
	}
	for _, p := range ev.byBase[path.Base(m)] {
		if samePath(m, p) {
			return verdict{found: true, where: "trace: " + p}
		}
	}
	if ev.sum != nil {
		// A directory the agent listed or wrote into.
		for _, l := range ev.sum.Listings {
			if !l.IsError && l.Dir != "" && samePath(m, l.Dir) {
				return verdict{found: true, where: "trace: listed " + l.Dir}
			}
		}
		for _, w := range ev.sum.Writes {
			if !w.IsError && strings.HasPrefix(cleanPath(w.Path)+"/", m+"/") || strings.Contains(cleanPath(w.Path), "/"+m+"/") {
				return verdict{found: true, where: "trace: wrote " + w.Path}
			}
		}
	}
	if ev.deleted[m] {
		// Claimed deleted: the claims checks decide whether it is gone.
		return verdict{found: true, where: "output.deleted"}
	}
	local := ev.s.Workspace != nil && !path.IsAbs(m) && !strings.HasPrefix(m, "../")
	if local {
		if _, err := ev.s.Stat(m); err == nil {
			return verdict{found: true, where: "workspace: " + m}
		}
	}
	// Named in the task, a source or a tool's output (git status, ls).
	if i := ev.textWith(m, func(t *evText) bool { return !t.failed }); i >= 0 {
		return verdict{found: true, where: ev.texts[i].where()}
	}
	if !local {
		return verdict{}
	}
	if !strings.Contains(m, "/") {
		if ps := ev.workspaceFiles()[m]; len(ps) > 0 {
			return verdict{found: true, where: "workspace: " + ps[0]}
		}
	}
	return verdict{refuted: true, where: "not in the workspace"}
}

// skipDirs are directories a workspace walk does not enter.
var skipDirs = map[string]bool{
	".git": true, "node_modules": true, "vendor": true, "_build": true, "deps": true, ".venv": true,
	"venv": true, "__pycache__": true, "target": true, "dist": true, "build": true, ".next": true,
}

// maxWalk caps the entries of a workspace walk.
const maxWalk = 50000

type wsKey struct{}

// workspaceFiles indexes the workspace's files by base name, and its
// directories by base name and a slash, once per verification.
func (ev *evidence) workspaceFiles() map[string][]string {
	if ev.ws != nil {
		return ev.ws
	}
	ev.ws = ev.s.Memo(wsKey{}, func() any {
		out := map[string][]string{}
		n := 0
		_ = fs.WalkDir(ev.s.FS(), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if n++; n > maxWalk {
				return fs.SkipAll
			}
			if d.IsDir() {
				if p != "." && skipDirs[d.Name()] {
					return fs.SkipDir
				}
				if p != "." {
					out[d.Name()+"/"] = append(out[d.Name()+"/"], p)
				}
				return nil
			}
			out[d.Name()] = append(out[d.Name()], p)
			return nil
		})
		return out
	}).(map[string][]string)
	return ev.ws
}

// symbolParts splits a symbol's norm into the identifiers that must all be
// shown: "Parser.parse" → Parser, parse; "Foo::bar" → Foo, bar.
func symbolParts(norm string) []string {
	return strings.FieldsFunc(norm, func(r rune) bool { return r == '.' || r == ':' || r == '#' || r == '/' })
}

func (ev *evidence) symbol(norm string) verdict {
	parts := symbolParts(norm)
	if len(parts) == 0 {
		return verdict{}
	}
	if i := ev.textWith(parts[0], func(t *evText) bool {
		for _, p := range parts[1:] {
			if !support.ContainsWord(t.text, p) {
				return false
			}
		}
		return true
	}); i >= 0 {
		return verdict{found: true, where: ev.texts[i].where()}
	}
	if v, ok := ev.dottedPath(parts); ok {
		return v
	}
	if len(parts) == 1 {
		// A key of a JSON record given as a source ("WiFi",
		// "OutdoorSeating") is in its flattened text in words.
		if w := support.KeyWords(parts[0]); strings.Contains(w, " ") {
			if i := ev.textWith(w, func(t *evText) bool { return t.entry < 0 && strings.HasPrefix(t.label, "sources[") }); i >= 0 {
				return verdict{found: true, where: ev.texts[i].where()}
			}
		}
	}
	if ev.s.Workspace == nil {
		return verdict{}
	}
	for _, p := range ev.codeFiles() {
		// A file with syntax errors still gives the symbols it parsed.
		f, _ := code.FileFor(ev.ctx, ev.s, p)
		if f == nil {
			continue
		}
		if len(f.Lookup(norm)) > 0 {
			return verdict{found: true, where: "defined in " + p}
		}
	}
	return verdict{}
}

// dottedPath grounds a Python-style dotted name whose leading parts (two
// or more) are a module ("django.db.models.sql.query.Query.set_group_by",
// "xarray.core.merge"): a text shows the module's file or directory path
// (django/db/models/sql/query.py) and one text shows the rest of the name
// (Query, set_group_by), if any.
func (ev *evidence) dottedPath(parts []string) (verdict, bool) {
	if len(parts) < 2 {
		return verdict{}, false
	}
	for k := len(parts); k >= 2; k-- {
		mod := strings.Join(parts[:k], "/")
		i := ev.textWith(mod+".py", nil)
		if i < 0 {
			i = ev.textWith(mod+"/", nil)
		}
		if i < 0 {
			continue
		}
		rest := parts[k:]
		if len(rest) == 0 {
			return verdict{found: true, where: ev.texts[i].where()}, true
		}
		if i := ev.textWith(rest[0], func(t *evText) bool {
			for _, p := range rest[1:] {
				if !support.ContainsWord(t.text, p) {
					return false
				}
			}
			return true
		}); i >= 0 {
			return verdict{found: true, where: ev.texts[i].where()}, true
		}
	}
	return verdict{}, false
}

// maxParsed caps the workspace files parsed to find symbols.
const maxParsed = 50

// codeFiles lists the workspace files whose symbols count: the files the
// trace touched, the files the answer mentions and, with a base, the
// source files the work changed since it, that exist.
func (ev *evidence) codeFiles() []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		p = cleanPath(p)
		if seen[p] || len(out) >= maxParsed || path.IsAbs(p) || strings.HasPrefix(p, "../") {
			return
		}
		seen[p] = true
		if fi, err := ev.s.Stat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	if ev.sum != nil {
		for _, p := range ev.sum.Paths() {
			add(p)
		}
	}
	for _, p := range ev.mentioned {
		add(p)
	}
	req := ev.s.Request
	if req.Base != "" {
		// The files the work changed since its base: what it worked on,
		// as much as the files its trace touched.
		if ch, err := git.ChangesFor(ev.ctx, ev.s); err == nil && ch != nil {
			for _, p := range ch.Paths() {
				if ch.Files[p].Status != git.Deleted {
					if _, _, ok := code.ForPath(p); ok {
						add(p)
					}
				}
			}
		}
	}
	for _, p := range req.Output.Modified {
		add(p)
	}
	for _, p := range req.Output.Created {
		add(p)
	}
	if a := req.Output.Artifacts; a != nil {
		for _, fe := range a.FileEdits {
			add(fe.File)
		}
	}
	return out
}

func (ev *evidence) pkg(norm string) verdict {
	if isStdlib(norm) {
		return verdict{found: true, where: "standard library"}
	}
	ps := ev.packages()
	if where, ok := ps.has(norm); ok {
		return verdict{found: true, where: where}
	}
	if where := ev.localPackage(norm); where != "" {
		return verdict{found: true, where: where}
	}
	// A module of the project the trace showed by its path
	// (xarray.core.merge: xarray/core/merge.py) is in no manifest.
	if v, ok := ev.dottedPath(strings.Split(norm, ".")); ok {
		return v
	}
	if len(ev.manifests) > 0 {
		return verdict{refuted: true, where: "not in " + strings.Join(ev.manifests, ", ")}
	}
	return verdict{}
}

// localPackage returns where the workspace holds a package of its own by
// the name norm (a Go package's directory, a Python package's directory or
// module file, by the last element of the name), or "": such a package is
// in no dependency manifest.
func (ev *evidence) localPackage(norm string) string {
	if ev.s.Workspace == nil {
		return ""
	}
	last := norm[strings.LastIndexAny(norm, "/.")+1:]
	if last == "" {
		return ""
	}
	files := ev.workspaceFiles()
	if ps := files[last+"/"]; len(ps) > 0 {
		return "workspace: " + ps[0]
	}
	if ps := files[last+".py"]; len(ps) > 0 {
		return "workspace: " + ps[0]
	}
	return ""
}

// packages builds the set of packages the evidence shows: the workspace's
// root manifests, manifests and imports in what the agent read or wrote,
// packages named in sources, the task and successful commands.
func (ev *evidence) packages() packageSet {
	if ev.pkgs != nil {
		return ev.pkgs
	}
	ps := packageSet{}
	if ev.s.Workspace != nil {
		for name := range manifests {
			if data, err := ev.s.ReadFile(name); err == nil {
				ps.addManifest(name, string(data), "workspace: "+name)
				ev.manifests = append(ev.manifests, name)
			}
		}
	}
	req := ev.s.Request
	for i := range req.Trace {
		e := &req.Trace[i]
		if e.IsError {
			continue
		}
		op := ev.table.CallOp(e.Tool, e.Input)
		where := fmt.Sprintf("trace[%d] %s", i, e.Tool)
		if op == trace.OpRead {
			if p := trace.FilePath(e.Input); isManifest(p) {
				ps.addManifest(p, stripLineNumbers(e.OutputText()), where)
				ev.manifests = append(ev.manifests, where)
			}
		}
		if op == trace.OpExec {
			for _, m := range mention.Parse("`" + trace.Command(e.Input) + "`").Mentions {
				if m.Kind == vouch.MentionPackage {
					ps.add(m.Norm, where)
				}
			}
		}
	}
	for _, t := range ev.texts {
		if t.code {
			ps.addImports(stripLineNumbers(t.text), t.where())
			continue
		}
		if t.entry < 0 && (strings.HasPrefix(t.label, "sources[") || strings.HasPrefix(t.label, "task.") || t.label == "plan.goal") {
			for _, m := range mention.Parse(t.text).Mentions {
				if m.Kind == vouch.MentionPackage {
					ps.add(m.Norm, t.label)
				}
			}
		}
	}
	ev.pkgs = ps
	return ps
}

func (ev *evidence) url(m *mention.Mention) verdict {
	for _, t := range ev.texts {
		if containsURL(t.text, m.Text) || m.Norm != m.Text && containsURL(t.text, m.Norm) {
			return verdict{found: true, where: t.where()}
		}
	}
	return verdict{}
}

// containsURL reports whether text holds u followed by nothing that would
// continue a different URL's host or name.
func containsURL(text, u string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], u)
		if j < 0 {
			return false
		}
		end := i + j + len(u)
		if end == len(text) || strings.ContainsRune("/?#)]>\"' \t\r\n,;", rune(text[end])) || text[end] == '.' && (end+1 == len(text) || text[end+1] == ' ' || text[end+1] == '\n') {
			return true
		}
		i = end
	}
}
