package engine

import (
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

// TestDecideClaim holds the rule that ends each claim of the ledger: a
// failing link refutes; any undecided link leaves it unverified with that
// link's reason; a full pass of its own kind verifies; a partial pass, or
// a pass of another kind, leaves it unverified, said to be part checked.
func TestDecideClaim(t *testing.T) {
	pass := link{check: 0, status: vouch.StatusPass, kind: vouch.ClaimFile, reason: "git shows a.go changed"}
	part := pass
	part.partial = true
	fail := link{check: 1, status: vouch.StatusFail, kind: vouch.ClaimFile, reason: "a.go still exists", must: true}
	und := link{check: 2, status: vouch.StatusUndecided, kind: vouch.ClaimFile, reason: "no base given"}
	tests := []struct {
		name   string
		kind   vouch.ClaimKind
		links  []link
		state  vouch.ClaimState
		reason string
		must   bool
	}{
		{"no link", vouch.ClaimTests, nil, vouch.ClaimUnverified, "no test run in the evidence shows it", false},
		{"a full pass", vouch.ClaimFile, []link{pass}, vouch.ClaimVerified, "git shows a.go changed", false},
		{"a file check holds a symbol claim", vouch.ClaimSymbol, []link{pass}, vouch.ClaimVerified, "git shows", false},
		{"a partial pass", vouch.ClaimBehaviour, []link{part}, vouch.ClaimUnverified, "only part of it was checked: git shows", false},
		{"a pass of another kind", vouch.ClaimTests, []link{pass}, vouch.ClaimUnverified, "only part of it was checked", false},
		{"a pass and an undecided", vouch.ClaimFile, []link{pass, und}, vouch.ClaimUnverified, "no base given", false},
		{"a failure outweighs a pass", vouch.ClaimFile, []link{pass, fail}, vouch.ClaimRefuted, "a.go still exists", true},
		{"a statement takes its check's kind", vouch.ClaimStatement, []link{pass}, vouch.ClaimVerified, "git shows", false},
	}
	for _, tt := range tests {
		e := &entry{claim: vouch.Claim{Text: "x", Kind: tt.kind}, links: tt.links}
		must := decide(e, true)
		if e.claim.State != tt.state || !strings.Contains(e.claim.Reason, tt.reason) || must != tt.must {
			t.Errorf("%s: %s %q (must %v), want %s %q (must %v)", tt.name, e.claim.State, e.claim.Reason, must, tt.state, tt.reason, tt.must)
		}
	}
}

// TestLinkRef ties a check's claim to the clause of the summary it was
// read from, adds a claim the reader did not list, and lends a run's
// decision to a clause of the same sentence that says the run again, but
// never a decision on work done to the code.
func TestLinkRef(t *testing.T) {
	sentence := "I ran the tests and they all pass."
	clause := func(text, action string, kind vouch.ClaimKind) *entry {
		i := strings.Index(sentence, text)
		return &entry{claim: vouch.Claim{Text: text, Kind: kind, Source: vouch.SourceSummary}, sentence: sentence, start: i, end: i + len(text), action: action}
	}
	ran, pass := clause("I ran the tests", "run", vouch.ClaimTests), clause("they all pass", "pass", vouch.ClaimTests)
	es := []*entry{ran, pass}
	l := link{check: 0, status: vouch.StatusPass, kind: vouch.ClaimTests, reason: "the last run passed"}
	es = linkRef(es, vouch.SummaryRef(vouch.ClaimTests, "they all pass", sentence), l)
	if len(es) != 2 || len(pass.links) != 1 || len(ran.links) != 1 {
		t.Fatalf("the run's decision: %d entries, links %d and %d", len(es), len(ran.links), len(pass.links))
	}

	// A count of tests added does not speak for "all tests pass".
	sentence = "Added `parse` with tests; all tests pass."
	added := clause("Added `parse` with tests", "add", vouch.ClaimTests)
	all := clause("all tests pass", "pass", vouch.ClaimTests)
	es = linkRef([]*entry{added, all}, vouch.SummaryRef(vouch.ClaimTests, "Added `parse` with tests", sentence), l)
	if len(added.links) != 1 || len(all.links) != 0 {
		t.Errorf("added tests lent to a pass claim: links %d and %d", len(added.links), len(all.links))
	}

	// A phrase no clause holds becomes a claim of its own.
	es = linkRef(es, vouch.SummaryRef(vouch.ClaimFile, "Updated README.md", "Updated README.md."), l)
	if len(es) != 3 || es[2].claim.Text != "Updated README.md" || len(es[2].links) != 1 {
		t.Errorf("an unlisted claim: %+v", es[len(es)-1])
	}
	// A structured field's claim is found by its source and text.
	es = append(es, &entry{claim: vouch.Claim{Text: "a.go", Kind: vouch.ClaimFile, Source: "output.created"}})
	es = linkRef(es, vouch.ClaimRef{Source: "output.created", Text: "a.go", Kind: vouch.ClaimFile}, l)
	if len(es) != 4 || len(es[3].links) != 1 {
		t.Errorf("a structured claim: %d entries, %d links", len(es), len(es[3].links))
	}
}
