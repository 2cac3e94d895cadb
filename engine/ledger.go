package engine

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

// The claim ledger (DESIGN.md, "The claim ledger"): every claim the output
// makes, read from its summary clause by clause (package claimtext's
// Statements) and from its structured fields, each ending verified,
// refuted or unverified by the checks that cite it (vouch.CheckResult's
// Claims). A check that cites a claim the reader did not list adds it: an
// analyzer reads its own kind of claim more closely than the reader does.

// entry is one claim of the ledger under construction.
type entry struct {
	claim    vouch.Claim
	sentence string // for a clause of the summary: its sentence
	start    int    // and where the clause lies in it
	end      int
	action   string // the clause's action class (claimtext.Statement.Action)
	links    []link
	squeezed string // the sentence's letters and digits, lowered (see sameSentence); set on first use
}

// aboutRun reports an entry whose clause speaks of a run and what it
// showed ("I ran the tests", "they all pass"), not of work done to the
// code ("Added tests").
func (e *entry) aboutRun() bool {
	switch e.action {
	case "", "run", "test", "verify", "pass", "fail", "skip":
		return true
	}
	return false
}

// link is a check's decision on a claim.
type link struct {
	check   int // index in the report's checks; -1 for none
	status  vouch.Status
	kind    vouch.ClaimKind
	partial bool
	reason  string
	// must: failing, the link sends the work back (verdict table row 1):
	// a must-pass check, a mention the evidence contradicts, a criterion
	// unmet under a claim that the work is done. A check the policy made
	// advisory (claims.strictIsMustPass off) refutes the claim and only
	// lowers the score.
	must bool
}

// readsWork reports whether a checkpoint kind's summary is read as a
// report of work, clause by clause: a subtask's. The statements of an answer, a synthesis or
// a moderator's summary are the claims their analyzers hold against the
// sources, and a plan makes no claim of work done.
func readsWork(k vouch.Kind) bool { return k == vouch.KindSubtask }

// ledger builds the claim ledger from the output, the checks (which
// become the report's checks in this order), the mentions and the
// criteria.
//
// refutedMust reports a claim refuted by a link that sends the work back
// (see link.must).
func (r *run) ledger(checks []vouch.CheckResult, mentions *vouch.Mentions, crits []vouch.CriterionResult) (claims []vouch.Claim, refutedMust bool) {
	es := r.entries(checks, mentions, crits)
	out := make([]vouch.Claim, 0, len(es))
	for i, e := range es {
		if decide(e, r.subj.Workspace != nil) {
			refutedMust = true
		}
		c := e.claim
		c.ID = claimID(i)
		for _, l := range e.links {
			if l.check >= 0 && !slices.Contains(c.Checks, l.check) {
				c.Checks = append(c.Checks, l.check)
			}
		}
		slices.Sort(c.Checks)
		if c.Checks == nil {
			c.Checks = []int{}
		}
		out = append(out, c)
	}
	return out, refutedMust
}

// claimID is the id of the i-th claim of a ledger.
func claimID(i int) string { return fmt.Sprintf("c%d", i+1) }

// ref is the ClaimRef by which a check cites the entry.
func (e *entry) ref() vouch.ClaimRef {
	return vouch.ClaimRef{Source: e.claim.Source, Text: e.claim.Text, Sentence: e.sentence, Kind: e.claim.Kind}
}

// unverifiedClaims returns the claims the checks so far leave unverified,
// as the judge is asked them, with the refs by which a judged claim's
// check cites each.
func (r *run) unverifiedClaims() ([]vouch.JudgeClaim, map[string]vouch.ClaimRef) {
	es := r.entries(r.f.Checks, &r.f.Mentions, append(slices.Clone(r.crits), r.f.Criteria...))
	var out []vouch.JudgeClaim
	refs := map[string]vouch.ClaimRef{}
	for i, e := range es {
		decide(e, r.subj.Workspace != nil)
		if e.claim.State != vouch.ClaimUnverified {
			continue
		}
		id := claimID(i)
		out = append(out, vouch.JudgeClaim{ID: id, Text: e.claim.Text, Kind: e.claim.Kind, Why: e.claim.Reason})
		refs[id] = e.ref()
	}
	return out, refs
}

// entries reads the claims of the output and links to each the checks
// that cite it, the mentions it names and, for a claim that the work is
// done, the criteria.
func (r *run) entries(checks []vouch.CheckResult, mentions *vouch.Mentions, crits []vouch.CriterionResult) []*entry {
	var es []*entry
	if readsWork(r.kind) {
		for _, st := range check.Statements(r.subj) {
			es = append(es, &entry{
				claim:    vouch.Claim{Text: st.Text, Kind: vouch.ClaimKind(st.Kind), Source: vouch.SourceSummary},
				sentence: st.Sentence, start: st.Start, end: st.End, action: st.Action,
			})
		}
	}
	es = append(es, structuredClaims(&r.req.Output)...)
	for i := range checks {
		c := &checks[i]
		for _, ref := range c.Claims {
			l := link{check: i, status: c.Status, kind: ref.Kind, partial: ref.Partial, reason: c.Reason, must: r.isMust(c)}
			if ref.Status != "" {
				l.status = ref.Status
			}
			es = linkRef(es, ref, l)
		}
	}
	es = mentionLinks(es, checks, mentions, !readsWork(r.kind))
	if readsWork(r.kind) {
		r.completionLinks(es, crits)
	}
	return es
}

// structuredClaims lists the claims of the output's structured fields:
// the files it says it created, modified and deleted, its edits, its
// test result when it says the tests passed, and its plugin results.
// Commands, tool calls and command results say how the work was done; they
// are evidence for these claims (light, without a trace), not claims.
func structuredClaims(o *vouch.Output) []*entry {
	var es []*entry
	add := func(source, text string, kind vouch.ClaimKind) {
		for _, e := range es {
			if e.claim.Source == source && e.claim.Text == text {
				return
			}
		}
		es = append(es, &entry{claim: vouch.Claim{Text: text, Kind: kind, Source: source}})
	}
	for _, p := range o.Created {
		add("output.created", p, vouch.ClaimFile)
	}
	for _, p := range o.Modified {
		add("output.modified", p, vouch.ClaimFile)
	}
	for _, p := range o.Deleted {
		add("output.deleted", p, vouch.ClaimFile)
	}
	if o.TestResult == vouch.TestPassed {
		add("output.testResult", string(vouch.TestPassed), vouch.ClaimTests)
	}
	if a := o.Artifacts; a != nil {
		for _, fc := range a.FilesCreated {
			add("output.artifacts.filesCreated", fc.File, vouch.ClaimFile)
		}
		for _, fe := range a.FileEdits {
			add("output.artifacts.fileEdits", fe.ClaimText(), vouch.ClaimFile)
		}
		for _, pr := range a.PluginResults {
			add("output.artifacts.pluginResults", pr.Tool, vouch.ClaimPlugin)
		}
	}
	return es
}

// linkRef adds the decision l on the claim ref to the entries it names,
// adding an entry when none does, and returns the entries.
func linkRef(es []*entry, ref vouch.ClaimRef, l link) []*entry {
	if ref.Source != vouch.SourceSummary {
		for _, e := range es {
			if e.claim.Source == ref.Source && e.claim.Text == ref.Text {
				e.links = append(e.links, l)
				return es
			}
		}
		return append(es, &entry{claim: vouch.Claim{Text: ref.Text, Kind: ref.Kind, Source: ref.Source}, links: []link{l}})
	}
	// The clauses of the sentence the phrase is in, and of them those the
	// phrase lies in.
	var same []*entry
	refKey := ""
	for _, e := range es {
		if e.claim.Source != vouch.SourceSummary || e.sentence == "" {
			continue
		}
		if e.sentence != ref.Sentence {
			if refKey == "" {
				refKey = squeeze(ref.Sentence)
			}
			if e.squeezed == "" {
				e.squeezed = squeeze(e.sentence)
			}
			if !sameSentence(e.squeezed, refKey) {
				continue
			}
		}
		same = append(same, e)
	}
	at := -1
	if len(same) > 0 && ref.Text != "" {
		at = strings.Index(same[0].sentence, ref.Text)
	}
	var hit []*entry
	for _, e := range same {
		if at >= 0 && at < e.end && at+len(ref.Text) > e.start {
			hit = append(hit, e)
		}
	}
	if len(hit) == 0 {
		for _, e := range same {
			if e.claim.Kind == ref.Kind || e.claim.Kind == vouch.ClaimStatement {
				hit = append(hit, e)
				break
			}
		}
	}
	if len(hit) == 0 {
		// A claim the reader did not list: the analyzer read it.
		text := ref.Text
		if text == "" {
			text = ref.Sentence
		}
		return append(es, &entry{claim: vouch.Claim{Text: text, Kind: ref.Kind, Source: vouch.SourceSummary},
			sentence: ref.Sentence, start: max(at, 0), end: max(at, 0) + len(text), links: []link{l}})
	}
	for _, e := range hit {
		e.links = append(e.links, l)
	}
	// A clause about the same run in the sentence, that no check cites,
	// says the same thing again ("I ran the tests and they all pass").
	if (ref.Kind == vouch.ClaimTests || ref.Kind == vouch.ClaimCommand) && !slices.ContainsFunc(hit, func(e *entry) bool { return !e.aboutRun() }) {
		for _, e := range same {
			if !slices.Contains(hit, e) && len(e.links) == 0 && e.claim.Kind == ref.Kind && e.aboutRun() {
				e.links = append(e.links, l)
			}
		}
	}
	return es
}

// sameSentence reports whether two renderings of a sentence, reduced to
// their letters and digits (see squeeze), are the same sentence: equal, or
// one holding the other (a reader that split it further, or kept a
// bullet).
func sameSentence(na, nb string) bool {
	if na == "" || nb == "" {
		return false
	}
	return na == nb || len(nb) >= 12 && strings.Contains(na, nb) || len(na) >= 12 && strings.Contains(nb, na)
}

// squeeze keeps the letters and digits of s, lowered.
func squeeze(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, c := range s {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			b.WriteRune(unicode.ToLower(c))
		}
	}
	return b.String()
}

// mentionLinks ties the mentions of the summary to its claims: a claim
// that names something the evidence contradicts is refuted by it; one
// that names something nothing shows cannot be verified. With statements
// (a text made from sources, whose every sentence states something), the
// sentence of a refuted mention that no claim of the ledger holds becomes
// a claim of its own, refuted.
func mentionLinks(es []*entry, checks []vouch.CheckResult, m *vouch.Mentions, statements bool) []*entry {
	grounding := -1
	for i := range checks {
		if checks[i].Name == "grounding.mentions" {
			grounding = i
		}
	}
	for _, rm := range m.Refuted {
		l := link{check: grounding, status: vouch.StatusFail, must: true,
			reason: fmt.Sprintf("it names %s %s, but that is %s", rm.Kind, rm.Text, rm.Evidence)}
		named := false
		for _, e := range es {
			if e.claim.Source == vouch.SourceSummary && strings.Contains(e.claim.Text, rm.Text) {
				l.kind = e.claim.Kind
				e.links = append(e.links, l)
				named = true
			}
		}
		if !named && statements && strings.TrimSpace(rm.Sentence) != "" {
			l.kind = vouch.ClaimStatement
			s := strings.TrimSpace(rm.Sentence)
			es = append(es, &entry{claim: vouch.Claim{Text: s, Kind: vouch.ClaimStatement, Source: vouch.SourceSummary},
				sentence: s, end: len(s), links: []link{l}})
		}
	}
	for _, um := range m.Unverified {
		switch um.Kind {
		case vouch.MentionFile, vouch.MentionSymbol, vouch.MentionPackage, vouch.MentionURL:
		default:
			continue
		}
		for _, e := range es {
			if e.claim.Source == vouch.SourceSummary && strings.Contains(e.claim.Text, um.Text) && !examined(e, checks, um.Text) {
				e.links = append(e.links, link{check: grounding, status: vouch.StatusUndecided, kind: e.claim.Kind,
					reason: fmt.Sprintf("it names %s %s, which nothing in the evidence shows", um.Kind, um.Text)})
			}
		}
	}
	return es
}

// examined reports whether a check that decides the claim in full names
// the mention: the check looked for it (a removed function, a file moved
// away), so that nothing else shows it is no gap in the evidence.
func examined(e *entry, checks []vouch.CheckResult, mention string) bool {
	for _, l := range e.links {
		if l.check >= 0 && !l.partial && l.status == vouch.StatusPass && strings.Contains(checks[l.check].Reason, mention) {
			return true
		}
	}
	return false
}

// completionLinks decides the claims that the work is done or right by
// the task's criteria: held when every criterion was decided and met,
// refuted by one that is not met.
func (r *run) completionLinks(es []*entry, crits []vouch.CriterionResult) {
	var met, undecided int
	var unmet *vouch.CriterionResult
	for i := range crits {
		switch crits[i].Status {
		case vouch.CriterionMet:
			met++
		case vouch.CriterionUnmet:
			if unmet == nil {
				unmet = &crits[i]
			}
		default:
			undecided++
		}
	}
	for _, e := range es {
		if e.claim.Kind != vouch.ClaimCompletion || len(e.links) > 0 {
			continue
		}
		switch {
		case unmet != nil:
			// An unmet criterion refutes the claim that the work is done;
			// the criterion's own weight says whether that sends it back
			// (a must-pass one) or lowers its score.
			e.links = append(e.links, link{check: -1, status: vouch.StatusFail, kind: vouch.ClaimCompletion, must: unmet.Must,
				reason: fmt.Sprintf("criterion %s is not met: %s", unmet.ID, unmet.Reason)})
		case met > 0 && undecided == 0:
			e.links = append(e.links, link{check: -1, status: vouch.StatusPass, kind: vouch.ClaimCompletion,
				reason: fmt.Sprintf("every criterion of the task (%d) is met", met)})
		case met > 0:
			e.links = append(e.links, link{check: -1, status: vouch.StatusUndecided, kind: vouch.ClaimCompletion,
				reason: fmt.Sprintf("%d of the task's %d criteria could not be decided", undecided, met+undecided)})
		}
	}
}

// decide sets the entry's state and reason from its links: any failing
// check refutes it; any undecided one leaves it unverified; a passing
// check of its kind verifies it. A check that settles only part of it (a
// file changed, for a fix said to be made in it) refutes but never
// verifies. It reports whether a link that sends the work back refuted
// it.
func decide(e *entry, workspace bool) (refutedMust bool) {
	c := &e.claim
	if c.Kind == vouch.ClaimStatement {
		// The reader could not tell what the claim is about; the check that
		// decides it can.
		for _, l := range e.links {
			if !l.partial && l.kind != "" {
				c.Kind = l.kind
				break
			}
		}
	}
	var pass, part *link
	for i := range e.links {
		l := &e.links[i]
		switch {
		case l.status == vouch.StatusFail:
			if c.State != vouch.ClaimRefuted {
				c.State, c.Reason = vouch.ClaimRefuted, l.reason
			}
			refutedMust = refutedMust || l.must
		case l.status == vouch.StatusPass && !l.partial && sameKind(l.kind, c.Kind):
			if pass == nil {
				pass = l
			}
		case l.status == vouch.StatusPass:
			if part == nil {
				part = l
			}
		}
	}
	if c.State == vouch.ClaimRefuted {
		return refutedMust
	}
	for i := range e.links {
		if l := &e.links[i]; l.status == vouch.StatusUndecided {
			c.State, c.Reason = vouch.ClaimUnverified, l.reason
			return false
		}
	}
	switch {
	case pass != nil:
		c.State, c.Reason = vouch.ClaimVerified, pass.reason
	case part != nil:
		c.State, c.Reason = vouch.ClaimUnverified, "only part of it was checked: "+part.reason
	default:
		c.State, c.Reason = vouch.ClaimUnverified, unchecked(c.Kind, workspace)
	}
	return false
}

// sameKind reports whether a check of the kind of claim checked decides a
// claim of kind claim in full: the same kind, or a file and a symbol, which
// the reader of a summary tells apart by the names a clause holds while
// the check that cites it knows what it held.
func sameKind(checked, claim vouch.ClaimKind) bool {
	object := func(k vouch.ClaimKind) bool { return k == vouch.ClaimFile || k == vouch.ClaimSymbol }
	return checked == claim || object(checked) && object(claim)
}

// unchecked says why a claim no check cites stays unverified.
func unchecked(k vouch.ClaimKind, workspace bool) string {
	switch k {
	case vouch.ClaimFile, vouch.ClaimSymbol:
		if !workspace {
			return "the request names no workspace to check it in, and the trace does not show it"
		}
		return "no check could tie it to a file or a definition of the workspace"
	case vouch.ClaimTests:
		return "no test run in the evidence shows it"
	case vouch.ClaimCommand:
		return "no run in the evidence shows it"
	case vouch.ClaimGit:
		return "no git command in the evidence shows it"
	case vouch.ClaimBehaviour:
		return "what the code does is not shown by any rule's evidence (a test that shows it, or a judge, can decide it)"
	case vouch.ClaimCompletion:
		return "the task gives no criterion that says what done means here"
	case vouch.ClaimPlugin:
		return "no check of the plugin's result could run"
	}
	return "no rule reads this kind of statement"
}

// coverage is the share of the claims decided, nil without claims.
func coverage(claims []vouch.Claim) *float64 {
	if len(claims) == 0 {
		return nil
	}
	n := 0
	for _, c := range claims {
		if c.State != vouch.ClaimUnverified {
			n++
		}
	}
	return ptr(round(float64(n) / float64(len(claims))))
}
