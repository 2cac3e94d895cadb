package engine_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	_ "github.com/vouchgate/vouch/check/all"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/policy"
	"github.com/vouchgate/vouch/wire"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata/cases")

// fixedClock returns a clock that advances 250µs per call, so durations in
// golden reports are stable.
func fixedClock() func() time.Time {
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time {
		t = t.Add(250 * time.Microsecond)
		return t
	}
}

// fixtureAnalyzer stands in for the claims and grounding analyzers in
// engine tests: it copies findings written in the request's
// output.metadata.testFindings into the run.
type fixtureAnalyzer struct{}

type fixtureFindings struct {
	Checks []struct {
		Name      string         `json:"name"`
		Level     vouch.Level    `json:"level"`
		Strength  vouch.Strength `json:"strength"`
		Status    vouch.Status   `json:"status"`
		Score     float64        `json:"score"`
		Dimension string         `json:"dimension"`
		Code      string         `json:"code"`
		Reason    string         `json:"reason"`
		Fix       []string       `json:"fix"`
		// Claims are the claims the check cites: source (default
		// output.summary), text, sentence, kind, partial.
		Claims []struct {
			Source   string          `json:"source"`
			Text     string          `json:"text"`
			Sentence string          `json:"sentence"`
			Kind     vouch.ClaimKind `json:"kind"`
			Partial  bool            `json:"partial"`
		} `json:"claims"`
	} `json:"checks"`
	Unverified []vouch.UnverifiedMention `json:"unverified"`
	Refuted    []vouch.RefutedMention    `json:"refuted"`
	Warnings   []vouch.Warning           `json:"warnings"`
	Gaps       []string                  `json:"gaps"`
	Issues     []string                  `json:"issues"`
	Suggest    []string                  `json:"suggestions"`
	Fail       string                    `json:"fail"`
	Panic      bool                      `json:"panic"`
	// OnFail are warnings the fixture concludes when the verdict is fail
	// (see vouch.Concluder).
	OnFail []vouch.Warning `json:"onFail"`
}

// findings reads the request's testFindings; nil when there are none.
func findings(s *vouch.Subject) (*fixtureFindings, error) {
	raw, ok := s.Request.Output.Metadata["testFindings"]
	if !ok {
		return nil, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var ff fixtureFindings
	if err := json.Unmarshal(b, &ff, json.RejectUnknownMembers(true)); err != nil {
		return nil, err
	}
	return &ff, nil
}

// Conclude implements vouch.Concluder.
func (fixtureAnalyzer) Conclude(s *vouch.Subject, rep *vouch.Report) []vouch.Warning {
	ff, err := findings(s)
	if err != nil || ff == nil || rep.Verdict != vouch.VerdictFail {
		return nil
	}
	return ff.OnFail
}

func (fixtureAnalyzer) Analyze(_ context.Context, s *vouch.Subject, f *vouch.Findings) error {
	ff, err := findings(s)
	if ff == nil || err != nil {
		return err
	}
	if ff.Panic {
		panic("fixture analyzer panics")
	}
	if ff.Fail != "" {
		return errors.New(ff.Fail)
	}
	for _, c := range ff.Checks {
		cr := vouch.CheckResult{Name: c.Name, Level: c.Level, Strength: c.Strength, Status: c.Status,
			Score: c.Score, Dimension: c.Dimension, Code: c.Code, Reason: c.Reason, Fix: c.Fix,
			Evidence: map[string]any{}}
		if c.Status != vouch.StatusUndecided {
			cr.Confidence = c.Strength.Weight()
		}
		for _, r := range c.Claims {
			ref := vouch.ClaimRef{Source: r.Source, Text: r.Text, Sentence: r.Sentence, Kind: r.Kind, Partial: r.Partial}
			if ref.Source == "" {
				ref.Source = vouch.SourceSummary
			}
			cr.Claims = append(cr.Claims, ref)
		}
		f.Checks = append(f.Checks, cr)
	}
	f.Mentions.Unverified = append(f.Mentions.Unverified, ff.Unverified...)
	f.Mentions.Refuted = append(f.Mentions.Refuted, ff.Refuted...)
	f.Warnings = append(f.Warnings, ff.Warnings...)
	f.Gaps = append(f.Gaps, ff.Gaps...)
	f.Issues = append(f.Issues, ff.Issues...)
	f.Suggestions = append(f.Suggestions, ff.Suggest...)
	return nil
}

func init() {
	check.RegisterAnalyzer(check.AnalyzerInfo{Name: "test.fixture", Level: vouch.LevelClaims, Kinds: check.EveryKind(),
		New: func() vouch.Analyzer { return fixtureAnalyzer{} }})
}

// fakeJudge answers from a case file.
type fakeJudge struct {
	spec  *judgeSpec
	calls int
}

type judgeSpec struct {
	Fail     string                       `yaml:"fail"`
	Criteria []vouch.JudgedCriterion      `yaml:"criteria"`
	Dims     map[string]vouch.JudgedScore `yaml:"dimensions"`
	Agree    *float64                     `yaml:"agreement"`
	Warnings []vouch.Warning              `yaml:"warnings"`
}

func (j *fakeJudge) Evaluate(ctx context.Context, q *vouch.JudgeQuery) (*vouch.JudgeVerdict, error) {
	j.calls++
	if j.spec.Fail != "" {
		return nil, errors.New(j.spec.Fail)
	}
	v := &vouch.JudgeVerdict{Criteria: j.spec.Criteria, Dimensions: j.spec.Dims, Warnings: j.spec.Warnings,
		Info: vouch.JudgeInfo{Models: []string{"fake/judge"}, Mode: "single", Samples: 1, Agreement: j.spec.Agree},
		Cost: vouch.Cost{JudgeCalls: 1, CacheMisses: 1, InputTokens: 1000, OutputTokens: 100, USD: 0.002}}
	return v, nil
}

// caseFile is one case under testdata/cases.
type caseFile struct {
	Description string     `yaml:"description"`
	Policy      yaml.Node  `yaml:"policy"`
	Judge       *judgeSpec `yaml:"judge"`
	Want        struct {
		Verdict     vouch.Verdict `yaml:"verdict"`
		Action      vouch.Action  `yaml:"action"`
		NeedsReview *bool         `yaml:"needsReview"`
		Score       *float64      `yaml:"score"`
		ScoreNull   bool          `yaml:"scoreNull"`
		Confidence  *float64      `yaml:"confidence"`
		Warnings    []string      `yaml:"warnings"`
		// Claims are the ledger's claims in order, each as "state kind".
		Claims   []string `yaml:"claims"`
		Feedback []string `yaml:"feedback"`
		Error    string   `yaml:"error"`
	} `yaml:"want"`
	Request yaml.Node `yaml:"request"`
}

func TestCases(t *testing.T) {
	files, err := filepath.Glob("testdata/cases/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var c caseFile
			if err := yaml.Unmarshal(data, &c); err != nil {
				t.Fatalf("case file: %v", err)
			}
			pol := vouch.DefaultPolicy()
			if c.Policy.Kind != 0 {
				b, err := yaml.Marshal(&c.Policy)
				if err != nil {
					t.Fatal(err)
				}
				layer, err := policy.Parse(file+"#policy", b)
				if err != nil {
					t.Fatalf("case policy: %v", err)
				}
				if err := layer.Apply(&pol); err != nil {
					t.Fatalf("case policy: %v", err)
				}
			}
			reqYAML, err := yaml.Marshal(&c.Request)
			if err != nil {
				t.Fatal(err)
			}
			opts := engine.Options{Policy: &pol, Now: fixedClock(), Analyzers: []string{"test.fixture"}}
			var judge *fakeJudge
			if c.Judge != nil {
				judge = &fakeJudge{spec: c.Judge}
				opts.Judge = judge
			}
			eng, err := engine.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := eng.VerifyBytes(context.Background(), reqYAML)
			if c.Want.Error != "" {
				if err == nil {
					t.Fatalf("want error containing %q, got a %s report", c.Want.Error, rep.Verdict)
				}
				if !strings.Contains(err.Error(), c.Want.Error) {
					t.Fatalf("error = %v, want it to contain %q", err, c.Want.Error)
				}
				return
			}
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			checkWant(t, &c, rep)
			got, err := wire.MarshalReport(rep)
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(file, ".yaml") + ".report.json"
			if *update {
				if err := os.WriteFile(golden, indentJSON(t, got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./engine -update to create it)", err)
			}
			if d := cmp.Diff(string(want), string(indentJSON(t, got))); d != "" {
				t.Errorf("report differs from %s (-want +got):\n%s", golden, d)
			}
		})
	}
}

func indentJSON(t *testing.T, b []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(v, json.Deterministic(true), jsontext.WithIndent("  "))
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

func checkWant(t *testing.T, c *caseFile, rep *vouch.Report) {
	t.Helper()
	w := c.Want
	if rep.Verdict != w.Verdict || rep.Action != w.Action {
		t.Errorf("verdict/action = %s/%s, want %s/%s", rep.Verdict, rep.Action, w.Verdict, w.Action)
	}
	if w.NeedsReview != nil && rep.NeedsReview != *w.NeedsReview {
		t.Errorf("needsReview = %v, want %v", rep.NeedsReview, *w.NeedsReview)
	}
	if w.ScoreNull && rep.Score != nil {
		t.Errorf("score = %v, want null", *rep.Score)
	}
	if w.Score != nil && (rep.Score == nil || !near(*rep.Score, *w.Score)) {
		t.Errorf("score = %v, want %v", fmtPtr(rep.Score), *w.Score)
	}
	if w.Confidence != nil && !near(rep.Confidence, *w.Confidence) {
		t.Errorf("confidence = %v, want %v", rep.Confidence, *w.Confidence)
	}
	if w.Claims != nil {
		var got []string
		for _, c := range rep.Claims {
			got = append(got, string(c.State)+" "+string(c.Kind))
		}
		if strings.Join(got, "; ") != strings.Join(w.Claims, "; ") {
			t.Errorf("claims = %q, want %q", got, w.Claims)
		}
	}
	for _, code := range w.Warnings {
		found := false
		for _, wn := range rep.Warnings {
			found = found || wn.Code == code
		}
		if !found {
			t.Errorf("no warning %s in %+v", code, rep.Warnings)
		}
	}
	for _, s := range w.Feedback {
		if !strings.Contains(rep.Feedback, s) {
			t.Errorf("feedback lacks %q:\n%s", s, rep.Feedback)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-3 && b-a < 1e-3 }

func fmtPtr(p *float64) any {
	if p == nil {
		return "null"
	}
	return *p
}
