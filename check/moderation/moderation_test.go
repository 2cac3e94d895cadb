package moderation

import (
	"context"
	"github.com/vouchgate/vouch/text/lex"
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

// talk is a discussion written "Speaker: text" a line.
func talk(lines ...string) []vouch.Utterance {
	var out []vouch.Utterance
	for _, l := range lines {
		sp, text, _ := strings.Cut(l, ": ")
		out = append(out, vouch.Utterance{Speaker: sp, Text: text})
	}
	return out
}

func analyze(t testing.TB, kind vouch.Kind, summary string, disc []vouch.Utterance) *vouch.Findings {
	t.Helper()
	req := &vouch.Request{Kind: kind, Task: vouch.Task{Goal: "Summarise the meeting"},
		Output: vouch.Output{Summary: summary}, Context: &vouch.Context{Discussion: disc}}
	pol := vouch.DefaultPolicy()
	var f vouch.Findings
	if err := (analyzer{}).Analyze(context.Background(), &vouch.Subject{Request: req, Policy: &pol}, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

func checkNamed(f *vouch.Findings, name string) *vouch.CheckResult {
	for i := range f.Checks {
		if f.Checks[i].Name == name {
			return &f.Checks[i]
		}
	}
	return nil
}

// A discussion of a slow database migration, unlike the labelled cases.
var migration = talk(
	"Rosa: The orders migration locks the table for 11 minutes on the production copy.",
	"Ivan: Same here, the lock on the orders table blocks checkout writes the whole time.",
	"Rosa: We should split it into batches of 10,000 rows with a pause between them.",
	"Kai: Agreed.",
	"Ivan: I'll write the batching script by Wednesday.",
	"Kai: Unrelated, but the office wifi is down again on floor two.",
)

func TestCoverage(t *testing.T) {
	good := "The orders migration locks the orders table for 11 minutes and blocks checkout writes. " +
		"The team agreed to split it into batches of 10,000 rows with pauses; Ivan writes the batching script by Wednesday."
	f := analyze(t, vouch.KindModeration, good, migration)
	c := checkNamed(f, "moderation.coverage")
	if c == nil || c.Status != vouch.StatusPass || c.Score != 1 {
		t.Fatalf("coverage %+v, want a pass (the wifi remark is no key point)", c)
	}

	cases := []struct {
		name, summary, dropped string
	}{
		{"decision by agreement", "The orders migration locks the orders table for 11 minutes and blocks checkout writes. Ivan writes the batching script by Wednesday.",
			"a decision: Kai: \u201cWe should split it into batches of 10,000 rows with a pause between them.\u201d"},
		{"action", "The orders migration locks the orders table for 11 minutes and blocks checkout writes. It will be split into batches of 10,000 rows with pauses.",
			"an action: Ivan: \u201cI'll write the batching script by Wednesday.\u201d"},
		{"shared concern", "Migrations will run in batches of 10,000 rows with pauses; Ivan writes the batching script by Wednesday.",
			"a point Rosa and Ivan both raise"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := analyze(t, vouch.KindModeration, tc.summary, migration)
			c := checkNamed(f, "moderation.coverage")
			if c == nil || c.Status != vouch.StatusFail || c.Code != vouch.CodePointDropped || !c.Must {
				t.Fatalf("coverage %+v, want a must-pass POINT_DROPPED", c)
			}
			if !strings.Contains(strings.Join(c.Fix, "\n"), tc.dropped) {
				t.Errorf("dropped %q, want one to hold %q", c.Fix, tc.dropped)
			}
			if c.Score <= 0 || c.Score >= 1 || len(f.Gaps) != len(c.Fix) {
				t.Errorf("score %v gaps %q", c.Score, f.Gaps)
			}
		})
	}
}

func TestKeyPointsMarkers(t *testing.T) {
	turns := readTurns(talk(
		"Ann: Decision: the beta opens on the 14th for the 200 waitlisted teams.",
		"Ben: Action item: Cleo drafts the invite email.",
		"Cleo: Let's go with the short invite template.",
		"Ann: Nice weather today.",
	))
	ps := keyPoints(turns, speakerNames(turns))
	var kinds []string
	for _, p := range ps {
		kinds = append(kinds, p.kind+":"+strings.Join(p.terms, " "))
	}
	want := []string{"decision:beta open 14th 200 waitlist", "action:cleo draft invit email", "decision:short invit templat"}
	if strings.Join(kinds, "|") != strings.Join(want, "|") {
		t.Errorf("points %q, want %q", kinds, want)
	}
}

func TestFaithfulness(t *testing.T) {
	f := analyze(t, vouch.KindModeration, "The orders migration locks the table for 25 minutes; Rosa called it \"a disaster for checkout\".", migration)
	c := checkNamed(f, "moderation.faithfulness")
	if c == nil || c.Code != vouch.CodeUnsupportedClaim || !c.Must {
		t.Fatalf("faithfulness %+v, want a must-pass UNSUPPORTED_CLAIM", c)
	}
	fix := strings.Join(c.Fix, " ")
	if !strings.Contains(fix, `no participant holds "25 minutes"`) || !strings.Contains(fix, "a disaster for checkout") {
		t.Errorf("fix %q", fix)
	}
}

func TestAttribution(t *testing.T) {
	disc := talk(
		"Ada: Our queue loses jobs when a worker crashes, because we ack before processing.",
		"Ada: I propose we replace it with Redis Streams and consumer groups.",
		"Bo: I'm not convinced; Redis Streams means running persistence ourselves. SQS is less work.",
		"Cy: Let's prototype Redis Streams and price SQS before we decide.",
		"Ada: Fine, I'll build the prototype and Cy prices SQS.",
	)
	f := analyze(t, vouch.KindModeration, "Bo proposed replacing the queue with Redis Streams and consumer groups.", disc)
	c := checkNamed(f, "moderation.attribution")
	if c == nil || c.Status != vouch.StatusFail || c.Code != vouch.CodeUnsupportedClaim || !c.Must {
		t.Fatalf("attribution %+v, want a must-pass UNSUPPORTED_CLAIM", c)
	}
	if !strings.Contains(c.Fix[0], "Ada said this, not Bo") {
		t.Errorf("fix %q", c.Fix)
	}
	// Attributions that hold, one assigned by another speaker.
	f = analyze(t, vouch.KindModeration, "Ada proposed Redis Streams with consumer groups; Bo preferred SQS as less work. "+
		"Ada will build the prototype and Cy will price SQS.", disc)
	c = checkNamed(f, "moderation.attribution")
	if c == nil || c.Status != vouch.StatusPass || c.Evidence["attributions"] != 4 {
		t.Errorf("attribution %+v, want a pass over 4 attributions", c)
	}
}

// TestKinds checks that the analyzer serves moderation alone (the engine
// runs it for no other kind) and adds nothing without a discussion.
func TestKinds(t *testing.T) {
	var info *check.AnalyzerInfo
	for _, a := range check.Analyzers() {
		if a.Name == "moderation.summary" {
			info = &a
		}
	}
	if info == nil || !slices.Equal(info.Kinds, []vouch.Kind{vouch.KindModeration}) {
		t.Errorf("registered as %+v, want kinds [moderation]", info)
	}
	if f := analyze(t, vouch.KindModeration, "Nothing was said.", nil); len(f.Checks) != 0 {
		t.Errorf("no discussion: %+v", f.Checks)
	}
}

func TestStem(t *testing.T) {
	for _, group := range [][]string{
		{"flush", "flushes", "flushed", "flushing"},
		{"propose", "proposed", "proposes", "proposing"},
		{"stop", "stopped", "stopping", "stops"},
		{"test", "tests", "tested", "testing"},
		{"cache", "caches", "cached"},
	} {
		want := lex.Stem(group[0])
		for _, w := range group[1:] {
			if got := lex.Stem(w); got != want {
				t.Errorf("lex.Stem(%q) = %q, want %q as for %q", w, got, want, group[0])
			}
		}
	}
	if got := terms("Release 2.4.1 ships 20,000 rows; I'll do it."); strings.Join(got, " ") != "releas 2.4.1 ship 20000 row" {
		t.Errorf("terms = %q", got)
	}
}

func TestAttributionsParse(t *testing.T) {
	turns := readTurns(talk("Leo: a", "Hana: b", "Mateo: c", "Ines: d"))
	cases := map[string][]string{
		"Mateo and Hana both saw a debugging gap in the loop.":                {"Mateo+Hana: saw debug gap loop"},
		"Leo, Hana and Mateo agreed to ship the patch on Monday.":             {"Leo+Hana+Mateo: ship patch monday"},
		"Leo proposed the rollback, Hana objected to the timing.":             {"Leo: propos rollback", "Hana: object tim"},
		"Ines will write the runbook and Mateo will review it by Friday.":     {"Ines: writ runbook", "Mateo: review friday"},
		"The team agreed on Monday; Leo's draft goes out first thing Monday.": {"Leo: draft goe monday"},
	}
	for summary, want := range cases {
		var got []string
		for _, a := range attributions(summary, turns) {
			got = append(got, strings.Join(a.speakers, "+")+": "+strings.Join(a.terms, " "))
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("attributions(%q) = %q, want %q", summary, got, want)
		}
	}
}
