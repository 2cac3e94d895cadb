package claims

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/vouchgate/vouch"
)

func TestErrorWords(t *testing.T) {
	words := vouch.DefaultPolicy().ErrorWords
	alarms := []string{
		"Failed to connect to the index.",
		"The query failed with a timeout.",
		"Error: index not found",
		"Got an exception while parsing the response.",
		"Connection refused by rag-service.",
		"Permission denied when writing the cache.",
		"The search timed out after 30s.",
		"I was unable to reach the API.",
		"It could not find any documents.",
		"Traceback (most recent call last): ...",
		"The request errored and returned nothing; there were 2 errors.",
		"fatal: not a git repository",
		"The upload failed.",
	}
	quiet := []string{
		"Added error handling to the client.",
		"Returned 12 documents with no errors.",
		"Fixed the failing test in the parser.",
		"Improved the error messages shown to users.",
		"The retriever now surfaces errors to the caller.",
		"Documented the failure modes of the cache.",
		"All 40 queries completed; 0 errors.",
		"Found 3 relevant passages about error codes.",
		"Retrieved 5 passages on exception safety in C++.",
		"Wrapped errors with context.",
		"Searched the knowledge base and summarised the top 5 hits.",
		"The handler logs errors and retries.",
	}
	for _, s := range alarms {
		if hits := ErrorWords(s, words); len(hits) == 0 {
			t.Errorf("missed failure: %q", s)
		}
	}
	for _, s := range quiet {
		if hits := ErrorWords(s, words); len(hits) > 0 {
			t.Errorf("false alarm on %q: %q", s, hits)
		}
	}
}

func plugins(t *testing.T, req *vouch.Request, pol *vouch.Policy) []vouch.CheckResult {
	t.Helper()
	if pol == nil {
		p := vouch.DefaultPolicy()
		pol = &p
	}
	var f vouch.Findings
	if err := (&pluginsAnalyzer{}).Analyze(context.Background(), &vouch.Subject{Request: req, Policy: pol}, &f); err != nil {
		t.Fatal(err)
	}
	return f.Checks
}

func byName(checks []vouch.CheckResult, name string) *vouch.CheckResult {
	for i := range checks {
		if checks[i].Name == name {
			return &checks[i]
		}
	}
	return nil
}

func TestPluginClaims(t *testing.T) {
	items := func(n int) *int { return &n }
	rag := func(status vouch.PluginStatus, data string, n *int, errText string) *vouch.Artifacts {
		return &vouch.Artifacts{PluginResults: []vouch.PluginResult{{Tool: "mind:rag-query", Status: status, Data: json.RawMessage(data), ItemsReturned: n, Error: errText}}}
	}
	// An honest call: every light check passes.
	honest := &vouch.Request{Output: vouch.Output{Summary: "Found 2 passages on retries.", ToolCalls: []string{"mind:rag-query"},
		Artifacts: rag(vouch.PluginSuccess, `[{"id":1},{"id":2}]`, items(2), "")}}
	got := plugins(t, honest, nil)
	for _, c := range got {
		if c.Status != vouch.StatusPass || c.Strength != vouch.StrengthLight || c.Confidence != 0.7 {
			t.Errorf("honest: %s %s %s %v (%s)", c.Name, c.Status, c.Strength, c.Confidence, c.Reason)
		}
	}
	if len(got) != 2 {
		t.Errorf("honest: %d checks, want called and summary: %+v", len(got), got)
	}

	for _, tt := range []struct {
		name  string
		req   *vouch.Request
		check string
		code  string
	}{
		{"not in toolCalls", &vouch.Request{Output: vouch.Output{Summary: "ok", Artifacts: rag(vouch.PluginSuccess, `[]`, nil, "")}}, "plugin.called", vouch.CodeToolNotCalled},
		{"not in the trace", &vouch.Request{Output: vouch.Output{Summary: "ok", ToolCalls: []string{"mind:rag-query"}, Artifacts: rag(vouch.PluginSuccess, `[]`, nil, "")},
			Trace: []vouch.TraceEntry{{Tool: "Read"}}}, "plugin.called", vouch.CodeToolNotCalled},
		{"error status", &vouch.Request{Output: vouch.Output{Summary: "ok", ToolCalls: []string{"mind:rag-query"}, Artifacts: rag(vouch.PluginError, ``, nil, "index offline")}}, "plugin.status", vouch.CodePluginError},
		{"items mismatch", &vouch.Request{Output: vouch.Output{Summary: "ok", ToolCalls: []string{"mind:rag-query"}, Artifacts: rag(vouch.PluginSuccess, `[1]`, items(5), "")}}, "plugin.items", vouch.CodeItemsMismatch},
		{"empty summary", &vouch.Request{Output: vouch.Output{Summary: "  ", ToolCalls: []string{"mind:rag-query"}}}, "plugin.summary", vouch.CodeEmptySummary},
		{"error words", &vouch.Request{Output: vouch.Output{Summary: "The query failed to connect.", ToolCalls: []string{"mind:rag-query"}}}, "plugin.summary", vouch.CodeErrorWords},
	} {
		c := byName(plugins(t, tt.req, nil), tt.check)
		if c == nil || c.Status != vouch.StatusFail || c.Code != tt.code {
			t.Errorf("%s: %s = %+v, want fail %s", tt.name, tt.check, c, tt.code)
		}
	}

	// Built-in tools are not plugins.
	if got := plugins(t, &vouch.Request{Output: vouch.Output{Summary: "x", ToolCalls: []string{"fs:read", "Bash", "shell:exec", "Read"}}}, nil); len(got) != 0 {
		t.Errorf("built-in tools checked as plugins: %+v", got)
	}
}

func TestPluginSchemas(t *testing.T) {
	pol := vouch.DefaultPolicy()
	pol.PluginSchemas = map[string]json.RawMessage{"mind:rag-query": json.RawMessage(`{"type":"object","required":["hits"],"properties":{"hits":{"type":"array","items":{"type":"object","required":["score"],"properties":{"score":{"type":"number"}}}}}}`)}
	req := func(data string) *vouch.Request {
		return &vouch.Request{Output: vouch.Output{Summary: "ok", ToolCalls: []string{"mind:rag-query"},
			Artifacts: &vouch.Artifacts{PluginResults: []vouch.PluginResult{{Tool: "other"}, {Tool: "mind:rag-query", Data: json.RawMessage(data)}}}}}
	}
	ok := byName(plugins(t, req(`{"hits":[{"score":0.5}]}`), &pol), "plugin_schema.mind:rag-query")
	if ok == nil || ok.Status != vouch.StatusPass || ok.Level != vouch.LevelPluginSchema || ok.Strength != vouch.StrengthStrict {
		t.Fatalf("valid data: %+v", ok)
	}
	bad := byName(plugins(t, req(`{"hits":[{"score":"high"}]}`), &pol), "plugin_schema.mind:rag-query")
	if bad == nil || bad.Status != vouch.StatusFail || bad.Code != vouch.CodeSchemaViolation || len(bad.Fix) != 1 || bad.Fix[0] != "pluginResults[1].data.hits[0].score: got string, want number" {
		t.Fatalf("invalid data: %+v", bad)
	}
	none := byName(plugins(t, req(``), &pol), "plugin_schema.mind:rag-query")
	if none == nil || none.Status != vouch.StatusFail {
		t.Fatalf("no data: %+v", none)
	}
	pol.PluginSchemas["mind:rag-query"] = json.RawMessage(`{"type":"nonsense"}`)
	broken := byName(plugins(t, req(`{}`), &pol), "plugin_schema.mind:rag-query")
	if broken == nil || broken.Status != vouch.StatusUndecided {
		t.Fatalf("broken schema: %+v", broken)
	}
}

// TestPluginsFollowPolicyTools checks that the plugin checks use the
// policy's tool table: a tool the policy maps to a built-in op is no
// plugin, one it maps to plugin is, and session-control tools never are.
func TestPluginsFollowPolicyTools(t *testing.T) {
	req := &vouch.Request{Output: vouch.Output{Summary: "ok", ToolCalls: []string{"mind:rag-query", "TodoWrite", "Bash"}}}
	if got := plugins(t, req, nil); byName(got, "plugin.called") == nil {
		t.Fatalf("mind:rag-query not checked as a plugin: %+v", got)
	}
	pol := vouch.DefaultPolicy()
	pol.Tools = map[string]string{"mind:rag-query": "search"}
	if got := plugins(t, req, &pol); len(got) != 0 {
		t.Errorf("a tool the policy maps to search was checked as a plugin: %+v", got)
	}
	pol.Tools = map[string]string{"Bash": "plugin"}
	req = &vouch.Request{Output: vouch.Output{Summary: "ok", ToolCalls: []string{"Bash", "TodoWrite"}}}
	got := plugins(t, req, &pol)
	if c := byName(got, "plugin.called"); c == nil || c.Evidence["tool"] != "Bash" {
		t.Errorf("a tool the policy maps to plugin was not checked: %+v", got)
	}
	if IsPlugin("TodoWrite") || IsPlugin("") || IsPlugin("mcp__fs__read_file") || !IsPlugin("mcp__kb__lookup") {
		t.Error("IsPlugin by the built-in table")
	}
}

// TestPluginChecksMustPass checks that every failed check of a plugin is
// must-pass unless the policy lists the tool in advisoryPlugins, that the
// summary check is must-pass unless every plugin tool is advisory, and
// that a result's confidence shows in the evidence.
func TestPluginChecksMustPass(t *testing.T) {
	conf := 0.4
	req := &vouch.Request{Output: vouch.Output{
		Summary:   "The search crashed.",
		ToolCalls: []string{"mind:rag-query", "jira:search"},
		Artifacts: &vouch.Artifacts{PluginResults: []vouch.PluginResult{
			{Tool: "mind:rag-query", Status: vouch.PluginError, Error: "index unavailable", Confidence: &conf},
			{Tool: "jira:search", Status: vouch.PluginError, Error: "denied"},
		}},
	}}
	mustOf := func(checks []vouch.CheckResult) map[string]bool {
		out := map[string]bool{}
		for _, c := range checks {
			tool, _ := c.Evidence["tool"].(string)
			out[c.Name+" "+tool] = c.Must
		}
		return out
	}
	pol := vouch.DefaultPolicy()
	got := mustOf(plugins(t, req, &pol))
	for _, k := range []string{"plugin.status mind:rag-query", "plugin.status jira:search", "plugin.called mind:rag-query", "plugin.summary "} {
		if !got[k] {
			t.Errorf("default policy: %s is not must-pass (%v)", k, got)
		}
	}
	pol.AdvisoryPlugins = []string{"mind:rag-query"}
	checks := plugins(t, req, &pol)
	got = mustOf(checks)
	if got["plugin.status mind:rag-query"] || !got["plugin.status jira:search"] || !got["plugin.summary "] {
		t.Errorf("mind:rag-query advisory: %v, want only its checks advisory", got)
	}
	for _, c := range checks {
		if c.Name == "plugin.status" && c.Evidence["tool"] == "mind:rag-query" {
			if c.Evidence["advisory"] != true || c.Evidence["confidence"] != 0.4 {
				t.Errorf("advisory plugin.status evidence %v, want advisory and confidence 0.4", c.Evidence)
			}
		}
		if c.Name == "plugin.summary" && (c.Status != vouch.StatusFail || c.Code != vouch.CodeErrorWords) {
			t.Errorf("plugin.summary %s %s, want ERROR_WORDS for %q", c.Status, c.Code, req.Output.Summary)
		}
	}
	pol.AdvisoryPlugins = []string{"mind:rag-query", "jira:search"}
	if got := mustOf(plugins(t, req, &pol)); got["plugin.summary "] || got["plugin.status jira:search"] {
		t.Errorf("every plugin advisory: %v, want nothing must-pass", got)
	}
}

// TestNewErrorWords checks the error words tools print that the default
// list gained, and that their mentions in honest summaries stay quiet.
func TestNewErrorWords(t *testing.T) {
	words := vouch.DefaultPolicy().ErrorWords
	for _, s := range []string{"The indexer crashed on the third page.", "Segfault in the worker.", "The run ended in a crash.", "panic: runtime error"} {
		if len(ErrorWords(s, words)) == 0 {
			t.Errorf("missed failure: %q", s)
		}
	}
	for _, s := range []string{"Fixed the crash in the parser.", "Added crash handling to the uploader.", "Fixed a segfault when the list is empty."} {
		if hits := ErrorWords(s, words); len(hits) > 0 {
			t.Errorf("false alarm on %q: %q", s, hits)
		}
	}
}
