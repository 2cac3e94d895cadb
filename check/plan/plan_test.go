package plan

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

// analyze runs the analyzer on a decomposition request with the given plan,
// agents and required topics.
func analyze(t testing.TB, p *vouch.Plan, agents []vouch.Agent, topics ...string) *vouch.Findings {
	t.Helper()
	pol := vouch.DefaultPolicy()
	pol.RequiredTopics = topics
	req := &vouch.Request{Kind: vouch.KindDecomposition, Task: vouch.Task{Goal: "Add OAuth login"},
		Context: &vouch.Context{Plan: p, Agents: agents}}
	var f vouch.Findings
	if err := (analyzer{}).Analyze(context.Background(), &vouch.Subject{Request: req, Policy: &pol}, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

// fault is a failed check as the tests compare it.
type fault struct {
	name, code string
	must       bool
}

func faults(f *vouch.Findings, dim string) []fault {
	var out []fault
	for _, c := range f.Checks {
		if c.Status == vouch.StatusFail && c.Dimension == dim {
			out = append(out, fault{c.Name, c.Code, c.Must})
		}
	}
	return out
}

func reasons(f *vouch.Findings, dim string) []string {
	var out []string
	for _, c := range f.Checks {
		if c.Status == vouch.StatusFail && c.Dimension == dim {
			out = append(out, c.Reason)
		}
	}
	return out
}

// score computes a dimension's score the way the engine does: the weighted
// mean of the checks that feed it. ok is false when no check feeds it.
func score(f *vouch.Findings, dim string) (s float64, ok bool) {
	var w, sum float64
	for _, c := range f.Checks {
		if c.Dimension != dim {
			continue
		}
		cw := c.Weight
		if cw == 0 {
			cw = 1
		}
		w += cw
		sum += cw * c.Score
	}
	return sum / w, w > 0
}

// seq and par build phases.
func seq(ids ...string) vouch.Phase { return vouch.Phase{Mode: vouch.PhaseSequential, Subgoals: ids} }
func par(ids ...string) vouch.Phase { return vouch.Phase{Mode: vouch.PhaseParallel, Subgoals: ids} }

func withPhases(p *vouch.Plan, phases ...vouch.Phase) *vouch.Plan {
	p.Phases = phases
	return p
}

var (
	subgoalUnknown = vouch.CodeSubgoalUnknown
	cycle          = vouch.CodeDependencyCycle
	parallel       = vouch.CodeParallelDependency
)

func TestConsistency(t *testing.T) {
	for _, tt := range []struct {
		name   string
		plan   *vouch.Plan
		want   []fault
		reason string // a substring of the first fault's reason
	}{
		{"sound chain", deps("a", "b:a", "c:b"), nil, ""},
		{"sound diamond in phases", withPhases(deps("a", "b:a", "c:a", "d:b,c"), seq("a"), par("b", "c"), seq("d")), nil, ""},
		{"sound sequential phase in order", withPhases(deps("a", "b:a", "c:b"), seq("a", "b", "c")), nil, ""},
		{"sound parallel phase of independent subgoals", withPhases(deps("a", "b", "c", "d:a,b,c"), par("a", "b", "c"), seq("d")), nil, ""},

		{"unknown dependency", deps("a", "b:a,s9"), []fault{{"plan.reference", subgoalUnknown, true}}, "b depends on s9, which no subgoal has"},
		{"unknown dependency near an id", deps("write-tests", "deploy:write-test"), []fault{{"plan.reference", subgoalUnknown, true}}, "did you mean write-tests?"},
		{"unknown dependency listed twice is one fault", deps("a", "b:x,x"), []fault{{"plan.reference", subgoalUnknown, true}}, ""},
		{"unknown id in a phase", withPhases(deps("a", "b:a"), seq("a", "b", "c")), []fault{{"plan.reference", subgoalUnknown, true}}, "phase 1 names c"},
		{"empty id", &vouch.Plan{Subgoals: []vouch.Subgoal{{ID: "a"}, {ID: " "}}}, []fault{{"plan.id", subgoalUnknown, true}}, "context.plan.subgoals[1] has no id"},
		{"duplicate id", deps("a", "b:a", "a"), []fault{{"plan.id", subgoalUnknown, true}}, "2 subgoals share the id a"},

		{"cycle", deps("s1", "s2:s1,s3", "s3:s2"), []fault{{"plan.cycle", cycle, true}}, "s2 → s3 → s2"},
		{"self dependency", deps("s1:s1"), []fault{{"plan.cycle", cycle, true}}, "s1 depends on itself"},
		{"two cycles", deps("a:b", "b:a", "c:d", "d:c"), []fault{{"plan.cycle", cycle, true}, {"plan.cycle", cycle, true}}, "a → b → a"},

		{"parallel, direct", withPhases(deps("a", "b:a"), par("a", "b")),
			[]fault{{"plan.parallel", parallel, true}}, "phase 1 runs b and a in parallel, but b depends on a"},
		{"parallel, through a subgoal outside the phase", withPhases(deps("a", "x:a", "b:x"), seq("x"), par("a", "b")),
			[]fault{{"plan.parallel", parallel, true}, {"plan.order", parallel, true}}, "(b → x → a)"},
		{"parallel chain gives its links only", withPhases(deps("a", "b:a", "c:b"), par("a", "b", "c")),
			[]fault{{"plan.parallel", parallel, true}, {"plan.parallel", parallel, true}}, "b depends on a"},
		{"a cycle inside a parallel phase is the cycle's fault", withPhases(deps("a:b", "b:a"), par("a", "b")),
			[]fault{{"plan.cycle", cycle, true}}, "a → b → a"},

		{"phase order", withPhases(deps("a:c", "b", "c"), seq("a"), seq("b"), seq("c")),
			[]fault{{"plan.order", parallel, true}}, "phase 1 runs a, but a depends on c, which runs later, in phase 3"},
		{"order inside a sequential phase", withPhases(deps("a:b", "b"), seq("a", "b")),
			[]fault{{"plan.order", parallel, true}}, "phase 1 runs a before b"},
		{"order of a parallel phase before its dependency", withPhases(deps("a", "b:c", "c"), par("a", "b"), seq("c")),
			[]fault{{"plan.order", parallel, true}}, "which runs later, in phase 2"},

		{"unscheduled leaf lowers the score only", withPhases(deps("a", "b:a", "docs:b"), seq("a", "b")),
			[]fault{{"plan.schedule", subgoalUnknown, false}}, "docs is in no phase"},
		{"unscheduled dependency of a scheduled subgoal", withPhases(deps("a", "b:a", "c:b"), seq("a", "c")),
			[]fault{{"plan.order", parallel, true}}, "b is in no phase, but c (phase 1) depends on it"},
		{"unscheduled through unscheduled", withPhases(deps("a", "b:a", "c:b", "d:c"), seq("a", "d")),
			[]fault{{"plan.order", parallel, true}, {"plan.order", parallel, true}}, "b is in no phase, but d (phase 1) depends on it"},
		{"scheduled twice", withPhases(deps("a", "b:a"), seq("a"), seq("b"), seq("b")),
			[]fault{{"plan.schedule", subgoalUnknown, false}}, "b is scheduled 2 times (phases 2 and 3)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := analyze(t, tt.plan, nil)
			got := faults(f, vouch.DimConsistency)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("faults = %+v, want %+v\nreasons: %q", got, tt.want, reasons(f, vouch.DimConsistency))
			}
			if tt.reason != "" && !strings.Contains(reasons(f, vouch.DimConsistency)[0], tt.reason) {
				t.Errorf("reason %q lacks %q", reasons(f, vouch.DimConsistency)[0], tt.reason)
			}
			for _, c := range f.Checks {
				if c.Status == vouch.StatusFail && (len(c.Fix) == 0 || c.Evidence["code"] != c.Code || c.Confidence != 1 ||
					c.Level != vouch.LevelCriteria || c.Strength != vouch.StrengthStrict || c.Weight != 1) {
					t.Errorf("fault %s: fix %q, evidence %v, confidence %v, level %s, strength %s, weight %v",
						c.Name, c.Fix, c.Evidence, c.Confidence, c.Level, c.Strength, c.Weight)
				}
			}
			if len(f.Issues) != len(got) {
				t.Errorf("%d issues for %d faults: %q", len(f.Issues), len(got), f.Issues)
			}
			s, ok := score(f, vouch.DimConsistency)
			if !ok || (len(got) == 0) != (s == 1) {
				t.Errorf("consistency score %v (decided %v) with %d faults", s, ok, len(got))
			}
		})
	}
}

// TestConsistencyScore: the score is the share of subgoals named in no
// fault, each fault weighing 1.
func TestConsistencyScore(t *testing.T) {
	f := analyze(t, withPhases(deps("a", "b:a", "c:b", "d:c", "e"), seq("a", "b", "c", "d")), nil)
	if s, _ := score(f, vouch.DimConsistency); s != 0.8 {
		t.Errorf("one unscheduled of five: consistency %v, want 0.8", s)
	}
}

func TestCyclesListedOnce(t *testing.T) {
	f := analyze(t, deps("s1", "s2:s1,s3", "s3:s2", "s4:s3"), nil)
	n := 0
	for _, c := range f.Checks {
		if c.Code == vouch.CodeDependencyCycle {
			n++
			if got := c.Evidence["cycle"].([]string); !slices.Equal(got, []string{"s2", "s3", "s2"}) {
				t.Errorf("cycle evidence %q", got)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d cycle faults, want 1", n)
	}
}

var registry6 = []vouch.Agent{
	{Name: "db-agent", Capabilities: []string{"sql", "migrations"}},
	{Name: "backend-dev", Capabilities: []string{"go", "http", "sql"}},
	{Name: "frontend-dev", Capabilities: []string{"react", "css"}},
	{Name: "qa-agent", Capabilities: []string{"testing"}},
	{Name: "generic-executor", Capabilities: []string{"shell"}},
	{Name: "ops", Capabilities: []string{"shell"}},
}

func TestRouting(t *testing.T) {
	for _, tt := range []struct {
		name       string
		sg         vouch.Subgoal
		agents     []vouch.Agent
		code       string // "" for a sound route
		must       bool
		suggestion string
	}{
		{"sound", vouch.Subgoal{ID: "s1", Agent: "db-agent", Requires: []string{"sql"}}, registry6, "", false, ""},
		{"capabilities ignore case and separators", vouch.Subgoal{ID: "s1", Agent: "qa", Requires: []string{"Unit Testing"}},
			[]vouch.Agent{{Name: "qa", Capabilities: []string{"unit_testing"}}}, "", false, ""},
		{"no requirements", vouch.Subgoal{ID: "s1", Agent: "ops"}, registry6, "", false, ""},

		{"unknown agent: the generic one among equals", vouch.Subgoal{ID: "s3", Agent: "database-agent", Requires: []string{"shell"}}, registry6,
			vouch.CodeAgentUnknown, true, "route s3 to generic-executor: database-agent is not registered"},
		{"unknown agent: the fewest extra capabilities", vouch.Subgoal{ID: "s3", Agent: "database-agent", Requires: []string{"sql"}}, registry6,
			vouch.CodeAgentUnknown, true, "route s3 to db-agent: database-agent is not registered"},
		{"unknown agent: a typo", vouch.Subgoal{ID: "s3", Agent: "db-agnet", Requires: []string{"sql"}}, registry6,
			vouch.CodeAgentUnknown, true, "route s3 to db-agent: db-agnet is not registered (did you mean db-agent?)"},
		{"unknown agent: case differs", vouch.Subgoal{ID: "s3", Agent: "QA-Agent", Requires: []string{"testing"}}, registry6,
			vouch.CodeAgentUnknown, true, "route s3 to qa-agent: QA-Agent is not registered (did you mean qa-agent?)"},
		{"unknown agent: the near name lacks a capability", vouch.Subgoal{ID: "s3", Agent: "db-agnet", Requires: []string{"go"}}, registry6,
			vouch.CodeAgentUnknown, true, "route s3 to backend-dev: db-agnet is not registered, and db-agent, the nearest name, lacks go"},
		{"unknown agent: nobody can", vouch.Subgoal{ID: "s3", Agent: "ml-agent", Requires: []string{"pytorch"}}, registry6,
			vouch.CodeAgentUnknown, true, "ml-agent is not registered, and no registered agent offers pytorch, which s3 requires"},

		{"incapable", vouch.Subgoal{ID: "s2", Agent: "frontend-dev", Requires: []string{"sql", "migrations"}}, registry6,
			vouch.CodeAgentIncapable, true, "route s2 to db-agent: frontend-dev lacks sql and migrations"},
		{"incapable: ties go by name", vouch.Subgoal{ID: "s2", Agent: "ops", Requires: []string{"x"}},
			[]vouch.Agent{{Name: "ops"}, {Name: "zed", Capabilities: []string{"x"}}, {Name: "bee", Capabilities: []string{"x"}}},
			vouch.CodeAgentIncapable, true, "route s2 to bee: ops lacks x"},
		{"incapable: no single agent", vouch.Subgoal{ID: "s2", Agent: "ops", Requires: []string{"react", "sql"}}, registry6,
			vouch.CodeAgentIncapable, true, "ops lacks react and sql, and no single registered agent has all of react and sql: split s2"},

		{"no agent lowers the score only", vouch.Subgoal{ID: "s4", Requires: []string{"testing"}}, registry6,
			vouch.CodeAgentUnknown, false, "route s4 to qa-agent: it has no agent"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := analyze(t, &vouch.Plan{Subgoals: []vouch.Subgoal{tt.sg}}, tt.agents)
			got := faults(f, vouch.DimRoutability)
			if tt.code == "" {
				if len(got) != 0 {
					t.Fatalf("faults %+v, want none: %q", got, reasons(f, vouch.DimRoutability))
				}
				if s, ok := score(f, vouch.DimRoutability); !ok || s != 1 {
					t.Errorf("routability %v (decided %v), want 1", s, ok)
				}
				return
			}
			if len(got) != 1 || got[0].code != tt.code || got[0].must != tt.must {
				t.Fatalf("faults %+v, want one %s must=%v", got, tt.code, tt.must)
			}
			if len(f.Suggestions) != 1 || !strings.HasPrefix(f.Suggestions[0], tt.suggestion) {
				t.Errorf("suggestions %q, want %q", f.Suggestions, tt.suggestion)
			}
		})
	}
}

func TestRoutingScore(t *testing.T) {
	p := &vouch.Plan{Subgoals: []vouch.Subgoal{
		{ID: "a", Agent: "db-agent"}, {ID: "b", Agent: "ops"}, {ID: "c", Agent: "qa-agent"}, {ID: "d"},
	}}
	f := analyze(t, p, registry6)
	if s, _ := score(f, vouch.DimRoutability); s != 0.75 {
		t.Errorf("3 of 4 routed: routability %v, want 0.75", s)
	}
}

func TestMatchTopic(t *testing.T) {
	for _, tt := range []struct {
		topic, text string
		want        bool
	}{
		{"testing", "Write integration tests for the login flow", true},
		{"testing", "Add unit-tests", true},
		{"testing", "Run the e2e suite against staging", true},
		{"testing", "Verify the migrated rows match", true},
		{"testing", "QA sign-off", true},
		{"testing", "Raise coverage of the parser", true},
		{"testing", "Add the attestation step to the build", false},
		{"testing", "Contest the charge", false},
		{"testing", "Implement the login page", false},
		{"tests", "Test the importer", true},
		{"error handling", "Retry failed uploads with exponential backoff", true},
		{"error handling", "Handle edge cases in the parser", true},
		{"error handling", "Return clear errors on malformed rows", true},
		{"error handling", "Add a fallback when the provider is down", true},
		{"error handling", "Handle token expiry and recovery", true},
		{"error handling", "Stop the rollout if a pod fails its readiness check", true},
		{"error handling", "Fix the failing lint step", false},
		{"error handling", "Handle denied consent and expired codes", true},
		{"error handling", "Show a banner when the API is unavailable", true},
		{"error handling", "Build the terror report", false},
		{"security", "Add CSRF protection to the callback", true},
		{"security", "Wire the service with dependency injection", false},
		{"documentation", "Update the README with setup steps", true},
		{"docs", "Write the runbook", true},
		{"rollout", "Ship behind a feature flag, with a canary", true},
		{"monitoring", "Add metrics and alerts for failed logins", true},
		{"monitoring", "Let users log in with Google", false},
		{"performance", "Benchmark the queries; add caches", true},
		{"performance", "Scale the avatar image", false},
		{"data retention", "Define the retention period of user data", true},
		{"data retention", "Define the retention period", false},
		{"Error Handling", "handle ERRORS", true},
		{"  ", "anything", false},
	} {
		if _, got := MatchTopic(tt.topic, tt.text); got != tt.want {
			t.Errorf("MatchTopic(%q, %q) = %v, want %v", tt.topic, tt.text, got, tt.want)
		}
	}
}

func TestFold(t *testing.T) {
	for _, pair := range [][2]string{
		{"tests", "test"}, {"retries", "retry"}, {"caches", "cache"}, {"matches", "match"},
		{"errors", "error"}, {"failures", "failure"}, {"Edge", "edges"}, {"metrics", "metric"},
	} {
		if fold(pair[0]) != fold(pair[1]) {
			t.Errorf("fold(%q) = %q, fold(%q) = %q", pair[0], fold(pair[0]), pair[1], fold(pair[1]))
		}
	}
	if fold("attestation") == fold("test") || fold("class") != "class" || fold("status") != "status" {
		t.Error("fold folds too much")
	}
}

func TestTopics(t *testing.T) {
	p := &vouch.Plan{Subgoals: []vouch.Subgoal{
		{ID: "register-app", Description: "Register the app with the OAuth provider"},
		{ID: "callback", Description: "Implement the callback and handle provider errors", DependsOn: []string{"register-app"}},
		{ID: "qa", Requires: []string{"testing"}},
	}}
	f := analyze(t, p, nil, "testing", "error handling", "security", "Testing")
	got := faults(f, vouch.DimCompleteness)
	if !slices.Equal(got, []fault{{"plan.topic", vouch.CodeTopicUncovered, true}}) {
		t.Fatalf("faults %+v, want security uncovered", got)
	}
	if s, _ := score(f, vouch.DimCompleteness); s < 0.66 || s > 0.67 {
		t.Errorf("2 of 3 topics: completeness %v", s)
	}
	if len(f.Gaps) != 1 || !strings.Contains(f.Gaps[0], "security") {
		t.Errorf("gaps %q", f.Gaps)
	}
	want := `add a subgoal for security: e.g. review "Add OAuth login" for security`
	if len(f.Suggestions) != 1 || !strings.HasPrefix(f.Suggestions[0], want) {
		t.Errorf("suggestions %q, want %q...", f.Suggestions, want)
	}
	for _, c := range f.Checks {
		if c.Name == "plan.topics" {
			cov := c.Evidence["covered"].([]string)
			if len(cov) != 2 || cov[0] != `testing: qa ("testing")` || !strings.HasPrefix(cov[1], "error handling: callback") {
				t.Errorf("covered %q", cov)
			}
		}
	}
}

func TestApplicability(t *testing.T) {
	p := deps("a", "b:a")
	// No agents: routability is not applicable and nothing feeds it.
	f := analyze(t, p, nil)
	if f.Applicable[vouch.DimRoutability] || f.Applicable[vouch.DimCompleteness] || !f.Applicable[vouch.DimConsistency] {
		t.Errorf("applicable %v, want consistency only", f.Applicable)
	}
	if _, ok := score(f, vouch.DimRoutability); ok {
		t.Error("routability checks without agents")
	}
	f = analyze(t, p, registry6, "testing")
	if !f.Applicable[vouch.DimRoutability] || !f.Applicable[vouch.DimCompleteness] {
		t.Errorf("applicable %v, want routability and completeness too", f.Applicable)
	}

	// No plan: nothing at all (the engine runs the analyzer for
	// decompositions alone, see TestRegistered).
	pol := vouch.DefaultPolicy()
	pol.RequiredTopics = []string{"testing"}
	for _, req := range []*vouch.Request{
		{Kind: vouch.KindDecomposition},
		{Kind: vouch.KindDecomposition, Context: &vouch.Context{Agents: registry6}},
	} {
		var f vouch.Findings
		if err := (analyzer{}).Analyze(context.Background(), &vouch.Subject{Request: req, Policy: &pol}, &f); err != nil {
			t.Fatal(err)
		}
		if len(f.Checks) != 0 || len(f.Applicable) != 0 || len(f.Issues) != 0 {
			t.Errorf("kind %q: findings %+v, want none", req.Kind, f)
		}
	}

	// A cancelled verification does not run.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := &vouch.Request{Kind: vouch.KindDecomposition, Context: &vouch.Context{Plan: p}}
	if err := (analyzer{}).Analyze(ctx, &vouch.Subject{Request: req, Policy: &pol}, &vouch.Findings{}); err == nil {
		t.Error("cancelled: no error")
	}
}

// soundPlan is a plan with every fault the analyzer knows avoided: a
// diamond of dependencies, a parallel phase of independent subgoals,
// capabilities satisfied, topics covered by synonyms.
func soundPlan() (*vouch.Plan, []vouch.Agent) {
	p := &vouch.Plan{
		Goal: "Add OAuth login",
		Subgoals: []vouch.Subgoal{
			{ID: "schema", Description: "Add the identities table", Agent: "db-agent", Requires: []string{"SQL"}},
			{ID: "provider", Description: "Register the app with the provider", Agent: "generic-executor"},
			{ID: "callback", Description: "Implement the callback; retry token exchange with backoff", Agent: "backend-dev",
				Requires: []string{"go", "http"}, DependsOn: []string{"schema", "provider"}},
			{ID: "button", Description: "Add the sign-in button", Agent: "frontend-dev", Requires: []string{"react"}, DependsOn: []string{"provider"}},
			{ID: "e2e", Description: "Write end-to-end specs of the login flow", Agent: "qa-agent", Requires: []string{"testing"},
				DependsOn: []string{"callback", "button"}},
		},
		Phases: []vouch.Phase{par("schema", "provider"), par("callback", "button"), seq("e2e")},
	}
	return p, registry6
}

func TestSoundPlan(t *testing.T) {
	p, agents := soundPlan()
	f := analyze(t, p, agents, "testing", "error handling")
	for _, c := range f.Checks {
		if c.Status != vouch.StatusPass {
			t.Errorf("%s failed: %s", c.Name, c.Reason)
		}
	}
	for _, d := range []string{vouch.DimConsistency, vouch.DimRoutability, vouch.DimCompleteness} {
		if s, ok := score(f, d); !ok || s != 1 {
			t.Errorf("%s: %v (decided %v), want 1", d, s, ok)
		}
	}
	if len(f.Issues)+len(f.Gaps)+len(f.Suggestions) != 0 {
		t.Errorf("issues %q gaps %q suggestions %q", f.Issues, f.Gaps, f.Suggestions)
	}
}

func TestRegistered(t *testing.T) {
	for _, a := range check.Analyzers() {
		if a.Name == "plan.structure" {
			if a.Level != vouch.LevelCriteria {
				t.Errorf("level %s", a.Level)
			}
			if !slices.Equal(a.Kinds, []vouch.Kind{vouch.KindDecomposition}) {
				t.Errorf("kinds %v, want [decomposition]", a.Kinds)
			}
			return
		}
	}
	t.Error("plan.structure is not registered")
}

func TestEdgePlans(t *testing.T) {
	// An empty plan covers no topic and has nothing else to check.
	f := analyze(t, &vouch.Plan{}, registry6, "testing", "error handling")
	if got := faults(f, vouch.DimCompleteness); len(got) != 2 {
		t.Errorf("empty plan: completeness faults %+v, want 2", got)
	}
	if f.Applicable[vouch.DimConsistency] || f.Applicable[vouch.DimRoutability] {
		t.Errorf("empty plan: applicable %v", f.Applicable)
	}

	// Phases and no subgoals: every phase entry is unknown.
	f = analyze(t, withPhases(&vouch.Plan{}, seq("a", "b")), nil)
	if got := faults(f, vouch.DimConsistency); len(got) != 2 || got[0].code != vouch.CodeSubgoalUnknown {
		t.Errorf("phases only: %+v", got)
	}

	// An empty id in dependsOn and a phase mode left empty (sequential).
	p := deps("a", "b:a")
	p.Subgoals[1].DependsOn = append(p.Subgoals[1].DependsOn, "")
	p.Phases = []vouch.Phase{{Subgoals: []string{"b", "a"}}}
	f = analyze(t, p, nil)
	want := []fault{{"plan.reference", subgoalUnknown, true}, {"plan.order", parallel, true}}
	if got := faults(f, vouch.DimConsistency); !slices.Equal(got, want) {
		t.Errorf("empty dependency and mode: %+v, want %+v (%q)", got, want, reasons(f, vouch.DimConsistency))
	}
	if r := reasons(f, vouch.DimConsistency)[0]; !strings.Contains(r, `b depends on "", which no subgoal has`) {
		t.Errorf("reason %q", r)
	}

	// Policy topics that are blank are not topics.
	f = analyze(t, deps("a"), nil, " ", "")
	if f.Applicable[vouch.DimCompleteness] {
		t.Error("blank topics made completeness applicable")
	}
}

func TestSuggestionsDeterministic(t *testing.T) {
	p := &vouch.Plan{Subgoals: []vouch.Subgoal{{ID: "s1", Agent: "nobody", Requires: []string{"shell"}}}}
	first := analyze(t, p, registry6).Suggestions
	for range 20 {
		reversed := slices.Clone(registry6)
		slices.Reverse(reversed)
		if got := analyze(t, p, reversed).Suggestions; !slices.Equal(got, first) {
			t.Fatalf("suggestions depend on registry order: %q vs %q", got, first)
		}
	}
	if want := "route s1 to generic-executor: nobody is not registered"; len(first) != 1 || first[0] != want {
		t.Errorf("suggestions %q, want %q", first, want)
	}
}
