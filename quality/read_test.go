package quality

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/policy"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/wire"
)

func reportsJSONL(t *testing.T, reps ...*vouch.Report) string {
	t.Helper()
	var b bytes.Buffer
	for _, r := range reps {
		if err := wire.EncodeReport(&b, r, false); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func testReports() []*vouch.Report {
	score, dim, undecided := 0.82, 0.9, 0.0
	return []*vouch.Report{
		{ID: "a", Kind: vouch.KindAnswer, Attempt: 1, Verdict: vouch.VerdictRetry, VerdictRow: 4, Score: &score, Confidence: 0.7,
			Dimensions: map[string]vouch.Dimension{
				vouch.DimGroundedness: {Score: &dim, State: vouch.StateDecided, Weight: 0.5},
				vouch.DimCompleteness: {Score: &undecided, State: vouch.StateUndecided, Weight: 0.3},
			}},
		{ID: "a", Kind: vouch.KindAnswer, Attempt: 2, Verdict: vouch.VerdictFail, VerdictRow: 5, Score: &score,
			Warnings: []vouch.Warning{{Code: vouch.CodeMustUndecided}, {Code: vouch.CodePromptInjection}}},
		{ID: "b", Kind: vouch.KindSubtask, Attempt: 1, Verdict: vouch.VerdictFail, VerdictRow: 1},
	}
}

func TestReadSamples(t *testing.T) {
	reports := reportsJSONL(t, testReports()...) + "\n"
	labels := `{"id":"a","good":true}

{"id":"a","attempt":1,"verdict":"fail"}
{"id":"b","verdict":"pass","good":true}
{"id":"b","good":false}
`
	samples, err := ReadSamples(strings.NewReader(reports), strings.NewReader(labels))
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 3 {
		t.Fatalf("%d samples, want 3", len(samples))
	}
	a1, a2, b := samples[0], samples[1], samples[2]
	if a1.Attempt != 1 || a1.Row != 4 || a1.Verdict != "retry" || *a1.Score != 0.82 || a1.Confidence != 0.7 || len(a1.Dims) != 1 || a1.Dims[vouch.DimGroundedness] != 0.9 {
		t.Errorf("a attempt 1: %+v", a1)
	}
	if a1.Label == nil || *a1.Label != (Label{Good: false, Verdict: "fail"}) {
		t.Errorf("a attempt 1 label %+v, want the reviewer's fail", a1.Label)
	}
	// attempt absent: the latest, 2.
	if a2.Label == nil || !a2.Label.Good || a2.Label.Verdict != "" || !a2.MustUndecided || !a2.Injection {
		t.Errorf("a attempt 2: %+v label %+v", a2, a2.Label)
	}
	// The later label wins.
	if b.Label == nil || b.Label.Good || b.Row != 1 || b.Score != nil {
		t.Errorf("b: %+v label %+v", b, b.Label)
	}

	if samples, err := ReadSamples(strings.NewReader(reports), nil); err != nil || samples[0].Label != nil {
		t.Errorf("no labels: %v, %+v", err, samples)
	}
	// Reports as written today have a ledger, if of no claim.
	if a1.Ledger == nil || a1.Ledger.Claims != 0 {
		t.Errorf("a attempt 1's ledger %+v, want one of no claim", a1.Ledger)
	}

	// A report made before the claim ledger (no "claims"): its row of the
	// six-row table is renumbered; a report left unverified is read, and
	// a reviewer labels it pass.
	old := `{"id":"old","kind":"answer","attempt":1,"verdict":"pass","verdictRow":6,"score":0.9,"confidence":0.8}
{"id":"u","kind":"answer","attempt":1,"verdict":"unverified","verdictRow":6,"score":0.9,"claims":[{"id":"c1","state":"unverified"},{"id":"c2","state":"verified"}]}
`
	samples, err = ReadSamples(strings.NewReader(old), strings.NewReader(`{"id":"u","verdict":"pass"}`))
	if err != nil || len(samples) != 2 {
		t.Fatalf("old and unverified reports: %v, %+v", err, samples)
	}
	if o := samples[0]; o.Row != 7 || o.Ledger != nil || o.Verdict != "pass" {
		t.Errorf("the old report's sample: %+v, want row 7 (a pass), no ledger", o)
	}
	if u := samples[1]; u.Row != 6 || u.Verdict != "unverified" || u.Ledger == nil ||
		*u.Ledger != (store.Ledger{Claims: 2, Unverified: 1, LeftUnverified: true}) || u.Label == nil || !u.Label.Good {
		t.Errorf("the unverified report's sample: %+v, ledger %+v, label %+v", u, u.Ledger, u.Label)
	}

	// A request verified again: the label labels both.
	again := reports + reportsJSONL(t, testReports()[2])
	samples, err = ReadSamples(strings.NewReader(again), strings.NewReader(`{"id":"b","verdict":"retry"}`))
	if err != nil || len(samples) != 4 || samples[2].Label == nil || samples[3].Label == nil || samples[3].Label.Verdict != "retry" {
		t.Errorf("repeated report: %v, %+v", err, samples)
	}
}

func TestReadSamplesErrors(t *testing.T) {
	reports := reportsJSONL(t, testReports()...)
	tests := []struct {
		name, reports, labels, want string
	}{
		{"unknown id", reports, `{"id":"a","good":true}` + "\n" + `{"id":"zz","good":true}`, `labels line 2: no report has id "zz"`},
		{"unknown attempt", reports, `{"id":"a","attempt":3,"good":true}`, `labels line 1: report "a" has no attempt 3 (attempts 1, 2)`},
		{"no label", reports, `{"id":"a"}`, `labels line 1: a label needs "good" or "verdict"`},
		{"no id", reports, `{"good":true}`, `labels line 1: a label needs the "id"`},
		{"bad verdict", reports, `{"id":"a","verdict":"maybe"}`, `labels line 1: verdict "maybe"`},
		{"unverified label", reports, `{"id":"a","verdict":"unverified"}`, `labels line 1: verdict "unverified": a label is a person's verdict, pass, retry or fail`},
		{"bad report verdict", `{"id":"x","verdict":"maybe"}`, "", `reports line 1: verdict "maybe" is not pass, retry, fail or unverified`},
		{"disagreeing", reports, `{"id":"a","verdict":"fail","good":true}`, `labels line 1: good true disagrees`},
		{"unknown field", reports, `{"id":"a","good":true,"why":"x"}`, `labels line 1: json: unknown field "why"`},
		{"not JSON", reports, `{"id":`, `labels line 1:`},
		{"two on a line", reports, `{"id":"a","good":true} {"id":"a","good":true}`, `labels line 1: more than one label`},
		{"bad report", reports + "{\n", "", "reports line 4:"},
	}
	for _, tt := range tests {
		_, err := ReadSamples(strings.NewReader(tt.reports), strings.NewReader(tt.labels))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestReadSamplesGolden reads the engine's golden reports of the verdict
// table's cases: each sample has its report's row and score, and decided
// again under the policy its case was verified with, keeps its verdict.
func TestReadSamplesGolden(t *testing.T) {
	files, err := filepath.Glob("../engine/testdata/cases/row*.report.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("golden reports: %v, %d files", err, len(files))
	}
	var jsonl bytes.Buffer
	type rowScore struct {
		Row   int      `json:"verdictRow"`
		Score *float64 `json:"score"`
	}
	var want []rowScore
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Compact(&jsonl, data); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		jsonl.WriteByte('\n')
		var w rowScore
		if err := json.Unmarshal(data, &w); err != nil {
			t.Fatal(err)
		}
		want = append(want, w)
	}
	samples, err := ReadSamples(&jsonl, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		s := &samples[i]
		name := filepath.Base(f)
		if w := want[i]; s.Row != w.Row || s.Row == 0 || (s.Score == nil) != (w.Score == nil) || s.Score != nil && *s.Score != *w.Score {
			t.Errorf("%s: row %d score %v, want %d %v", name, s.Row, s.Score, w.Row, w.Score)
		}
		p := casePolicy(t, strings.TrimSuffix(f, ".report.json")+".yaml")
		if v := newCandidate(&p, nil).decide(s); v != s.Verdict {
			t.Errorf("%s: decided again %s, stored %s", name, v, s.Verdict)
		}
	}
}

// casePolicy is the policy an engine case file sets, over the defaults.
func casePolicy(t *testing.T, file string) vouch.Policy {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Policy yaml.Node `yaml:"policy"`
	}
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	p := vouch.DefaultPolicy()
	if c.Policy.Kind == 0 {
		return p
	}
	doc, err := yaml.Marshal(&c.Policy)
	if err != nil {
		t.Fatal(err)
	}
	l, err := policy.Parse(file, doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Apply(&p); err != nil {
		t.Fatal(err)
	}
	return p
}
