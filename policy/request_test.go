package policy

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/strict"
)

// requestBase is the policy in force that the request tests tighten or try
// to widen.
func requestBase() vouch.Policy {
	p := vouch.DefaultPolicy()
	p.Commands.Allow = []vouch.CommandRule{vouch.NewCommandRule("go", "test", "-v", "-run=*"), vouch.NewCommandRule("npm", "test")}
	p.PluginSchemas = map[string]json.RawMessage{"search": json.RawMessage(`{"type":"object","required":["items"]}`)}
	p.RequiredTopics = []string{"security"}
	p.ErrorWords = []string{"error", "failed"}
	return p
}

func TestApplyRequest(t *testing.T) {
	tests := []struct {
		name string
		// base changes requestBase for the case.
		base func(p *vouch.Policy)
		raw  string
		// want changes the base into the expected result; nil when errors
		// are expected.
		want func(p *vouch.Policy)
		errs []wantErr
	}{
		// commands.allow
		{name: "allow: narrower argv", raw: `{"commands": {"allow": [["go", "test", "./pkg"]]}}`,
			want: func(p *vouch.Policy) {
				p.Commands.Allow = []vouch.CommandRule{vouch.NewCommandRule("go", "test", "./pkg")}
			}},
		{name: "allow: same entries", raw: `{"commands": {"allow": [["npm", "test"], ["go", "test", "-v", "-run=*"]]}}`,
			want: func(p *vouch.Policy) {
				p.Commands.Allow = []vouch.CommandRule{vouch.NewCommandRule("npm", "test"), vouch.NewCommandRule("go", "test", "-v", "-run=*")}
			}},
		{name: "allow: fewer flags, a literal value", raw: `{"commands": {"allow": [["go", "test", "-run=TestA"]]}}`,
			want: func(p *vouch.Policy) {
				p.Commands.Allow = []vouch.CommandRule{vouch.NewCommandRule("go", "test", "-run=TestA")}
			}},
		{name: "allow: no arguments", raw: `{"commands": {"allow": [{"run": ["npm", "test"], "args": "none"}]}}`,
			want: func(p *vouch.Policy) {
				p.Commands.Allow = []vouch.CommandRule{{Run: []string{"npm", "test"}, Args: vouch.ArgsNone}}
			}},
		{name: "allow: none", raw: `{"commands": {"allow": []}}`,
			want: func(p *vouch.Policy) { p.Commands.Allow = nil }},
		{name: "allow: new command", raw: `{"commands": {"allow": [["go", "test"], ["rm", "-rf"]]}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.commands.allow[1]", `not add one: ["rm", "-rf"] is not within any of [["go", "test", "-v", "-run=*"], ["npm", "test"]]`}}},
		{name: "allow: a flag the policy does not list", raw: `{"commands": {"allow": [["go", "test", "-exec=*"]]}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.commands.allow[0]", `["go", "test", "-exec=*"] is not within`}}},
		{name: "allow: any value where one is allowed", raw: `{"commands": {"allow": [["npm", "test", "-v"]]}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.commands.allow[0]", "not add one"}}},
		{name: "allow: any argument", raw: `{"commands": {"allow": [{"run": ["npm", "test"], "args": "any"}]}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.commands.allow[0]", "not add one"}}},
		{name: "allow: shorter prefix is wider", raw: `{"commands": {"allow": [["go"]]}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.commands.allow[0]", `["go"] is not within`}}},
		{name: "allow: token that only starts the same", raw: `{"commands": {"allow": [["go", "testx"]]}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.commands.allow[0]", "not add one"}}},
		{name: "allow: a word that is no path", raw: `{"commands": {"allow": [["go", "test", "../x"]]}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.commands.allow[0]", "not add one"}}},
		{name: "allow: nothing allowed in force", base: func(p *vouch.Policy) { p.Commands.Allow = nil },
			raw:  `{"commands": {"allow": [["go", "test"]]}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.commands.allow[0]", "the policy in force allows no command"}}},

		// commands: env, writable, network and limits are the operator's
		{name: "env: set by a request", raw: `{"commands": {"env": {"GOFLAGS": "-exec=/bin/true"}}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.commands.env", "only the operator's policy"}}},
		{name: "writable: set by a request", raw: `{"commands": {"writable": ["/etc"]}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.commands.writable", "may not change"}}},
		{name: "network: on", raw: `{"commands": {"network": true}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.commands.network", "may not let commands reach the network"}}},
		{name: "limits: lower", raw: `{"commands": {"limits": {"memoryBytes": 1000000}}}`,
			want: func(p *vouch.Policy) { p.Commands.Limits.MemoryBytes = 1000000 }},
		{name: "limits: higher", raw: `{"commands": {"limits": {"processes": 100000}}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.commands.limits.processes", "only lower a limit (in force 4096, requested 100000)"}}},
		{name: "verification timeout: longer", raw: `{"timeout": "1h"}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.timeout", "only lower a limit (in force 2m0s, requested 1h0m0s)"}}},
		{name: "verification timeout: shorter", raw: `{"timeout": "30s"}`,
			want: func(p *vouch.Policy) { p.Timeout = vouch.Duration(30 * time.Second) }},
		{name: "input limits: higher", raw: `{"limits": {"regexBytes": 100000000}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.limits.regexBytes", "only lower a limit"}}},

		// commands.shell
		{name: "shell: off to on", raw: `{"commands": {"shell": true}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.commands.shell", "may not allow a shell"}}},
		{name: "shell: on to off", base: func(p *vouch.Policy) { p.Commands.Shell = true }, raw: `{"commands": {"shell": false}}`,
			want: func(p *vouch.Policy) { p.Commands.Shell = false }},
		{name: "shell: on stays on", base: func(p *vouch.Policy) { p.Commands.Shell = true }, raw: `{"commands": {"shell": true}}`,
			want: func(p *vouch.Policy) {}},

		// commands.timeout
		{name: "timeout: shorter", raw: `{"commands": {"timeout": "30s"}}`,
			want: func(p *vouch.Policy) { p.Commands.Timeout = vouch.Duration(30 * time.Second) }},
		{name: "timeout: longer", raw: `{"commands": {"timeout": 300}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.commands.timeout", "only shorten the command timeout (in force 1m0s, requested 5m0s)"}}},

		// claims
		{name: "strictIsMustPass: off", raw: `{"claims": {"strictIsMustPass": false}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.claims.strictIsMustPass", "may not switch off"}}},
		{name: "strictIsMustPass: on when off", base: func(p *vouch.Policy) { p.Claims.StrictIsMustPass = false },
			raw: `{"claims": {"strictIsMustPass": true}}`, want: func(p *vouch.Policy) { p.Claims.StrictIsMustPass = true }},
		{name: "sizeTolerance: smaller", raw: `{"claims": {"sizeTolerance": 0.05}}`,
			want: func(p *vouch.Policy) { p.Claims.SizeTolerance = 0.05 }},
		{name: "sizeTolerance: larger", raw: `{"claims": {"sizeTolerance": 0.5}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.claims.sizeTolerance", "only shrink"}}},

		// thresholds
		{name: "passAt: raised", raw: `{"passAt": 0.9}`, want: func(p *vouch.Policy) { p.PassAt = 0.9 }},
		{name: "passAt: lowered", raw: `{"passAt": 0.6}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.passAt", "only raise passAt (in force 0.7, requested 0.6)"}}},
		{name: "failBelow: raised", raw: `{"failBelow": 0.6}`, want: func(p *vouch.Policy) { p.FailBelow = 0.6 }},
		{name: "failBelow: lowered", raw: `{"failBelow": 0.2}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.failBelow", "only raise failBelow"}}},
		{name: "reviewBelow: raised", raw: `{"reviewBelow": 0.5}`, want: func(p *vouch.Policy) { p.ReviewBelow = 0.5 }},
		{name: "reviewBelow: lowered", raw: `{"reviewBelow": 0}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.reviewBelow", "only raise reviewBelow"}}},
		{name: "maxRefuted: lowered", raw: `{"maxRefuted": 0}`, want: func(p *vouch.Policy) { p.MaxRefuted = 0 }},
		{name: "maxRefuted: raised", raw: `{"maxRefuted": 10}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.maxRefuted", "only lower maxRefuted (in force 3, requested 10)"}}},
		{name: "maxUnverified: renamed", raw: `{"maxUnverified": 0}`,
			errs: []wantErr{{vouch.ErrUnknownField, "", "task.policy.maxUnverified", `renamed "maxRefuted"`}}},
		{name: "onUnverified: stricter", raw: `{"onUnverified": "escalate"}`, want: func(p *vouch.Policy) { p.OnUnverified = vouch.OnUnverifiedEscalate }},
		{name: "onUnverified: as strict", raw: `{"onUnverified": "accept"}`, want: func(p *vouch.Policy) {}},
		{name: "onUnverified: looser", base: func(p *vouch.Policy) { p.OnUnverified = vouch.OnUnverifiedFail },
			raw:  `{"onUnverified": "follow_up"}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.onUnverified", "only make onUnverified stricter"}}},
		{name: "onUnverified: unknown", raw: `{"onUnverified": "ignore"}`,
			errs: []wantErr{{vouch.ErrInvalid, "", "task.policy.onUnverified", "must be one of accept, follow_up, escalate, fail"}}},
		{name: "maxRetries: lowered", raw: `{"maxRetries": 1}`, want: func(p *vouch.Policy) { p.MaxRetries = 1 }},
		{name: "maxRetries: raised", raw: `{"maxRetries": 5}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.maxRetries", "only lower maxRetries"}}},

		// errorWords
		{name: "errorWords: added", raw: `{"errorWords": ["failed", "error", "oops"]}`,
			want: func(p *vouch.Policy) { p.ErrorWords = []string{"failed", "error", "oops"} }},
		{name: "errorWords: dropped", raw: `{"errorWords": ["oops", "error"]}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.errorWords", `only add error words, not drop "failed"`}}},

		// advisoryPlugins: a request may unmark, never mark
		{name: "advisoryPlugins: dropped", base: func(p *vouch.Policy) { p.AdvisoryPlugins = []string{"search", "web:lookup"} },
			raw: `{"advisoryPlugins": ["web:lookup"]}`, want: func(p *vouch.Policy) { p.AdvisoryPlugins = []string{"web:lookup"} }},
		{name: "advisoryPlugins: emptied", base: func(p *vouch.Policy) { p.AdvisoryPlugins = []string{"search"} },
			raw: `{"advisoryPlugins": []}`, want: func(p *vouch.Policy) { p.AdvisoryPlugins = nil }},
		{name: "advisoryPlugins: added", base: func(p *vouch.Policy) { p.AdvisoryPlugins = []string{"search"} },
			raw:  `{"advisoryPlugins": ["search", "jira:search"]}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.advisoryPlugins", `only remove advisory plugins, not add "jira:search"`}}},
		{name: "advisoryPlugins: set on none", raw: `{"advisoryPlugins": ["search"]}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.advisoryPlugins", `not add "search"`}}},
		{name: "advisoryPlugins: empty name", raw: `{"advisoryPlugins": [""]}`,
			errs: []wantErr{
				{vouch.ErrWiden, "", "task.policy.advisoryPlugins", `not add ""`},
				{vouch.ErrInvalid, "", "task.policy.advisoryPlugins[0]", "must not be empty"},
			}},
		// judge.maxCostShare is the operator's, as the whole judge section.
		{name: "judge.maxCostShare", raw: `{"judge": {"maxCostShare": 5}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.judge", "may not configure the judge"}}},

		// infer
		{name: "infer: off", raw: `{"infer": {"docComments": false, "counts": false, "created": false}}`,
			errs: []wantErr{
				{vouch.ErrWiden, "", "task.policy.infer.docComments", "may not switch off"},
				{vouch.ErrWiden, "", "task.policy.infer.counts", "may not switch off"},
				{vouch.ErrWiden, "", "task.policy.infer.created", "may not switch off"},
			}},
		{name: "infer: on when off", base: func(p *vouch.Policy) { p.Infer.Counts = false }, raw: `{"infer": {"counts": true}}`,
			want: func(p *vouch.Policy) { p.Infer.Counts = true }},

		// pluginSchemas
		{name: "pluginSchemas: new tool", raw: `{"pluginSchemas": {"fetch": {"type": "object"}}}`,
			want: func(p *vouch.Policy) { p.PluginSchemas["fetch"] = json.RawMessage(`{"type":"object"}`) }},
		{name: "pluginSchemas: same schema, other order", raw: `{"pluginSchemas": {"search": {"required": ["items"], "type": "object"}}}`,
			want: func(p *vouch.Policy) {
				p.PluginSchemas["search"] = json.RawMessage(`{"required":["items"],"type":"object"}`)
			}},
		{name: "pluginSchemas: replaced", raw: `{"pluginSchemas": {"search": true}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.pluginSchemas.search", `may not replace the schema the policy registers for "search"`}}},
		{name: "pluginSchemas: removed", raw: `{"pluginSchemas": null}`,
			errs: []wantErr{{vouch.ErrType, "", "task.policy.pluginSchemas", "got null"}}},

		// requiredTopics
		{name: "requiredTopics: added", raw: `{"requiredTopics": ["security", "privacy"]}`,
			want: func(p *vouch.Policy) { p.RequiredTopics = []string{"security", "privacy"} }},
		{name: "requiredTopics: dropped", raw: `{"requiredTopics": []}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.requiredTopics", `not drop "security"`}}},

		// judge
		{name: "judge: samples", raw: `{"judge": {"samples": 5}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.judge", "may not configure the judge"}}},
		{name: "judge: models", raw: `{"judge": {"models": ["openai:gpt-4o"]}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.judge", "cost and credentials"}}},
		{name: "judge: empty", raw: `{"judge": {}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.judge", "may not configure the judge"}}},
		{name: "memory", raw: `{"memory": {"promoteAfter": 5}}`,
			errs: []wantErr{{vouch.ErrWiden, "", "task.policy.memory", "may not tune the memory"}}},

		// weights
		{name: "weights: free", raw: `{"weights": {"subtask": {"claims": 0.9, "completeness": 0}}}`,
			want: func(p *vouch.Policy) {
				p.Weights[vouch.KindSubtask]["claims"] = 0.9
				p.Weights[vouch.KindSubtask]["completeness"] = 0
			}},
		{name: "weights: still validated", raw: `{"weights": {"subtask": {"vibes": 1}, "essay": {"x": 1}}}`,
			errs: []wantErr{
				{vouch.ErrInvalid, "", "task.policy.weights.essay", `unknown kind "essay"`},
				{vouch.ErrInvalid, "", "task.policy.weights.subtask.vibes", `no dimension "vibes"`},
			}},

		// the rest
		{name: "empty", raw: ``, want: func(p *vouch.Policy) {}},
		{name: "null", raw: `null`, want: func(p *vouch.Policy) {}},
		{name: "empty object", raw: `{}`, want: func(p *vouch.Policy) {}},
		{name: "raised out of range", raw: `{"passAt": 1.5}`,
			errs: []wantErr{{vouch.ErrInvalid, "", "task.policy.passAt", "between 0 and 1"}}},
		{name: "unknown keys", raw: `{"passat": 0.9, "claims": {"tolerance": 0}}`,
			errs: []wantErr{
				{vouch.ErrUnknownField, "", "task.policy.passat", `did you mean "passAt"`},
				{vouch.ErrUnknownField, "", "task.policy.claims.tolerance", "unknown field"},
			}},
		{name: "wrong type", raw: `{"passAt": "0.9"}`,
			errs: []wantErr{{vouch.ErrType, "", "task.policy.passAt", "want number"}}},
		{name: "malformed", raw: `{"passAt": 0.9,}`,
			errs: []wantErr{{vouch.ErrSyntax, "", "task.policy", "malformed JSON"}}},
		{name: "not an object", raw: `[1]`,
			errs: []wantErr{{vouch.ErrType, "", "task.policy", "want a mapping"}}},
		{name: "several widenings", raw: `{"passAt": 0.5, "judge": {"samples": 9}, "commands": {"allow": [["curl"]], "shell": true}}`,
			errs: []wantErr{
				{vouch.ErrWiden, "", "task.policy.judge", "may not configure the judge"},
				{vouch.ErrWiden, "", "task.policy.passAt", "only raise passAt"},
				{vouch.ErrWiden, "", "task.policy.commands.allow[0]", `["curl"]`},
				{vouch.ErrWiden, "", "task.policy.commands.shell", "may not allow a shell"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := requestBase()
			if tt.base != nil {
				tt.base(&base)
			}
			before := clonePolicy(base)
			got, err := ApplyRequest(base, []byte(tt.raw))
			if diff := cmp.Diff(before, base); diff != "" {
				t.Errorf("ApplyRequest modified base (-before +after):\n%s", diff)
			}
			if tt.want == nil {
				checkErrors(t, err, tt.errs)
				if diff := cmp.Diff(vouch.Policy{}, got); diff != "" {
					t.Errorf("ApplyRequest returned a policy with errors:\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("ApplyRequest = %v", err)
			}
			want := clonePolicy(base)
			tt.want(&want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ApplyRequest (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRequestKeys makes every key of vouch.Policy a decision: settable by a
// request under a tighten-only rule (requestKeys), or refused.
func TestRequestKeys(t *testing.T) {
	refused := map[string]bool{"judge": true, "tools": true, "memory": true}
	for _, name := range policyKeys() {
		if requestKeys[name] == refused[name] {
			t.Errorf("policy key %q: decide whether a request may set it (requestKeys) and how it may only tighten (widenings)", name)
		}
	}
	// A refused key gives ErrWiden.
	p := vouch.DefaultPolicy()
	doc, err := strict.Parse([]byte(`{"judge": {}}`), readOptions(true))
	if err != nil {
		t.Fatal(err)
	}
	l := &Layer{doc: doc}
	if errs := widenings(&p, &p, l); len(errs) != 1 || errs[0].Path != "judge" {
		t.Errorf("widenings = %v", errs)
	}
}

func BenchmarkApplyRequest(b *testing.B) {
	base := requestBase()
	raw := []byte(`{"passAt": 0.8, "commands": {"allow": [["go", "test", "./pkg"]], "timeout": "30s"}, "errorWords": ["error", "failed", "oops"], "weights": {"subtask": {"claims": 0.5}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ApplyRequest(base, raw); err != nil {
			b.Fatal(err)
		}
	}
}
