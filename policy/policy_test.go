package policy

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/strict"
)

var update = flag.Bool("update", false, "update golden files in testdata")

// wantErr describes one expected error: its code, where it is
// ("file:line:col", "file:line" or "" for no position), its path and a
// part of its message.
type wantErr struct {
	code vouch.ErrorCode
	at   string
	path string
	msg  string
}

func (w wantErr) String() string {
	return fmt.Sprintf("[%s] %s %s: …%s…", w.code, w.at, w.path, w.msg)
}

func at(e *vouch.Error) string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
		if e.Column > 0 {
			s += fmt.Sprintf(":%d", e.Column)
		}
	}
	return s
}

// checkErrors compares the errors in err with want, in order.
func checkErrors(t *testing.T, err error, want []wantErr) {
	t.Helper()
	got := vouch.ErrorList(err)
	if len(got) != len(want) {
		t.Errorf("got %d errors, want %d:\n%s", len(got), len(want), listErrors(got, want))
		return
	}
	for i, g := range got {
		w := want[i]
		if g.Code != w.code || at(g) != w.at || g.Path != w.path || !strings.Contains(g.Message, w.msg) {
			t.Errorf("error %d:\n got [%s] %s %s: %s\nwant %v", i, g.Code, at(g), g.Path, g.Message, w)
		}
	}
}

func listErrors(got []*vouch.Error, want []wantErr) string {
	var b strings.Builder
	b.WriteString(" got:\n")
	for _, g := range got {
		fmt.Fprintf(&b, "  [%s] %v\n", g.Code, g)
	}
	b.WriteString(" want:\n")
	for _, w := range want {
		fmt.Fprintf(&b, "  %v\n", w)
	}
	return b.String()
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		doc  string
		want []wantErr
	}{{
		name: "unknown key at top level",
		file: "p.yaml",
		doc:  "passAt: 0.8\npassat: 0.9\n",
		want: []wantErr{{vouch.ErrUnknownField, "p.yaml:2:1", "passat", `did you mean "passAt"`}},
	}, {
		name: "unknown key nested",
		file: "p.yaml",
		doc:  "claims:\n  strictIsMustPass: true\n  sizeTolerence: 0.2\n",
		want: []wantErr{{vouch.ErrUnknownField, "p.yaml:3:3", "claims.sizeTolerence", `did you mean "sizeTolerance"`}},
	}, {
		name: "unknown key far from any",
		file: "p.yaml",
		doc:  "infer:\n  everything: true\n",
		want: []wantErr{{vouch.ErrUnknownField, "p.yaml:2:3", "infer.everything", "want one of docComments, counts, created"}},
	}, {
		name: "command rule: a word after a flag",
		file: "p.yaml",
		doc:  "commands:\n  allow:\n    - [go, -v, test]\n",
		want: []wantErr{{vouch.ErrInvalid, "p.yaml:3:16", "commands.allow[0][2]", `"test" follows a flag`}},
	}, {
		name: "command rule: unknown key",
		file: "p.yaml",
		doc:  "commands:\n  allow:\n    - {run: [go, test], flagz: [-v]}\n",
		want: []wantErr{{vouch.ErrUnknownField, "p.yaml:3:25", "commands.allow[0].flagz", `did you mean "flags"`}},
	}, {
		name: "string for a number",
		file: "p.yaml",
		doc:  "passAt: high\n",
		want: []wantErr{{vouch.ErrType, "p.yaml:1:9", "passAt", `got string "high", want number`}},
	}, {
		name: "quoted number for a number",
		file: "p.yaml",
		doc:  "passAt: '0.8'\n",
		want: []wantErr{{vouch.ErrType, "p.yaml:1:9", "passAt", `got string "0.8", want number`}},
	}, {
		name: "mapping where a list is expected",
		file: "p.yaml",
		doc:  "commands:\n  allow:\n    go: test\n",
		want: []wantErr{{vouch.ErrType, "p.yaml:3:5", "commands.allow", "got mapping, want list"}},
	}, {
		name: "scalar where a mapping is expected",
		file: "p.yaml",
		doc:  "claims: strict\n",
		want: []wantErr{{vouch.ErrType, "p.yaml:1:9", "claims", `got string "strict", want mapping`}},
	}, {
		name: "list where a mapping is expected",
		file: "p.yaml",
		doc:  "weights: [subtask]\n",
		want: []wantErr{{vouch.ErrType, "p.yaml:1:10", "weights", "got list, want mapping"}},
	}, {
		name: "number in an argv list",
		file: "p.yaml",
		doc:  "commands:\n  allow:\n    - [go, test]\n    - [make, 1]\n",
		want: []wantErr{{vouch.ErrType, "p.yaml:4:14", "commands.allow[1][1]", `got number 1, want string (quote it: "1")`}},
	}, {
		name: "yes is not a boolean",
		file: "p.yaml",
		doc:  "commands:\n  shell: yes\n",
		want: []wantErr{{vouch.ErrType, "p.yaml:2:10", "commands.shell", `got string "yes", want boolean`}},
	}, {
		name: "fraction for an integer",
		file: "p.yaml",
		doc:  "maxRetries: 2.5\n",
		want: []wantErr{{vouch.ErrType, "p.yaml:1:13", "maxRetries", "got number 2.5, want integer"}},
	}, {
		name: "integer out of range",
		file: "p.yaml",
		doc:  "maxRetries: 99999999999999999999\n",
		want: []wantErr{{vouch.ErrInvalid, "p.yaml:1:13", "maxRetries", "out of range"}},
	}, {
		name: "bad duration",
		file: "p.yaml",
		doc:  "commands:\n  timeout: 5 minutes\n",
		want: []wantErr{{vouch.ErrInvalid, "p.yaml:2:12", "commands.timeout", `invalid duration "5 minutes"`}},
	}, {
		name: "duration of the wrong type",
		file: "p.yaml",
		doc:  "judge:\n  timeout: [30s]\n",
		want: []wantErr{{vouch.ErrType, "p.yaml:2:12", "judge.timeout", "want duration"}},
	}, {
		name: "duration out of range",
		file: "p.yaml",
		doc:  "judge:\n  timeout: 1e300\n",
		want: []wantErr{{vouch.ErrInvalid, "p.yaml:2:12", "judge.timeout", "invalid duration"}},
	}, {
		name: "null",
		file: "p.yaml",
		doc:  "passAt: ~\nerrorWords:\n",
		want: []wantErr{
			{vouch.ErrType, "p.yaml:1:9", "passAt", "got null, want number (leave the key out"},
			{vouch.ErrType, "p.yaml:2:12", "errorWords", "got null, want list"},
		},
	}, {
		name: "not a float",
		file: "p.yaml",
		doc:  "passAt: .nan\n",
		want: []wantErr{{vouch.ErrInvalid, "p.yaml:1:9", "passAt", "not a finite number"}},
	}, {
		name: "plugin schema that is not a schema",
		file: "p.yaml",
		doc:  "pluginSchemas:\n  search: 3\n  fetch: true\n",
		want: []wantErr{{vouch.ErrType, "p.yaml:2:11", "pluginSchemas.search", "want a JSON Schema"}},
	}, {
		name: "duplicate key",
		file: "p.yaml",
		doc:  "passAt: 0.8\nfailBelow: 0.5\npassAt: 0.9\n",
		want: []wantErr{{vouch.ErrInvalid, "p.yaml:3:1", "passAt", "duplicate key"}},
	}, {
		name: "duplicate key in a schema",
		file: "p.yaml",
		doc:  "pluginSchemas:\n  s: {type: object, type: array}\n",
		want: []wantErr{{vouch.ErrInvalid, "p.yaml:2:21", "pluginSchemas.s.type", "duplicate key"}},
	}, {
		name: "unsupported tag",
		file: "p.yaml",
		doc:  "errorWords: [!vault aGk=]\n",
		want: []wantErr{{vouch.ErrType, "p.yaml:1:14", "errorWords[0]", "unsupported YAML tag !vault"}},
	}, {
		name: "a list as a key",
		file: "p.yaml",
		doc:  "weights:\n  ? [a]\n  : 1\n",
		want: []wantErr{{vouch.ErrType, "p.yaml:2:5", "weights", "got list as a key"}},
	}, {
		name: "several problems, all reported in document order",
		file: "p.yaml",
		doc:  "passAt: high\ncolour: blue\nclaims:\n  sizeTolerence: 0.2\n  strictIsMustPass: 1\ncommands:\n  timeout: soon\n",
		want: []wantErr{
			{vouch.ErrType, "p.yaml:1:9", "passAt", "want number"},
			{vouch.ErrUnknownField, "p.yaml:2:1", "colour", "unknown field"},
			{vouch.ErrUnknownField, "p.yaml:4:3", "claims.sizeTolerence", "unknown field"},
			{vouch.ErrType, "p.yaml:5:21", "claims.strictIsMustPass", "want boolean"},
			{vouch.ErrInvalid, "p.yaml:7:12", "commands.timeout", "invalid duration"},
		},
	}, {
		name: "several problems in JSON, with suggestions",
		file: "p.json",
		doc:  "{\n  \"pasAt\": 0.8,\n  \"claims\": {\"sizeTolerance\": \"wide\"},\n  \"commands\": {\"allow\": [[\"go\", \"-v\", \"test\"]], \"timeout\": \"soon\"},\n  \"errorWords\": [1], \"judge\": {\"modles\": []}\n}",
		want: []wantErr{
			{vouch.ErrUnknownField, "p.json:2:3", "pasAt", `unknown field (did you mean "passAt"?)`},
			{vouch.ErrType, "p.json:3:31", "claims.sizeTolerance", `got string "wide", want number`},
			{vouch.ErrInvalid, "p.json:4:39", "commands.allow[0][2]", `"test" follows a flag`},
			{vouch.ErrInvalid, "p.json:4:60", "commands.timeout", `invalid duration "soon"`},
			{vouch.ErrType, "p.json:5:18", "errorWords[0]", `got number 1, want string (quote it: "1")`},
			{vouch.ErrUnknownField, "p.json:5:32", "judge.modles", `unknown field (did you mean "models"?)`},
		},
	}, {
		name: "YAML syntax error",
		file: "p.yaml",
		doc:  "passAt: 0.8\ncommands:\n  allow: [[go, test]\n  shell: false\n",
		want: []wantErr{{vouch.ErrSyntax, "p.yaml:3", "", "malformed YAML: did not find expected ',' or ']'"}},
	}, {
		name: "YAML bad indentation",
		file: "p.yaml",
		doc:  "passAt: 0.8\n failBelow: 0.5\n",
		want: []wantErr{{vouch.ErrSyntax, "p.yaml:2", "", "mapping values are not allowed"}},
	}, {
		name: "JSON syntax error in a JSON file",
		file: "p.json",
		doc:  "{\n  \"passAt\": 0.8,\n  \"failBelow\" 0.5\n}\n",
		want: []wantErr{{vouch.ErrSyntax, "p.json:3:15", "failBelow", "malformed JSON"}},
	}, {
		name: "JSON duplicate key",
		file: "p.json",
		doc:  "{\"passAt\": 0.8,\n \"passAt\": 0.9}",
		want: []wantErr{{vouch.ErrInvalid, "p.json:2:2", "passAt", "duplicate key"}},
	}, {
		name: "JSON unknown key",
		file: "p.json",
		doc:  "{\"passAt\": 0.8,\n \"claims\": {\"tolerance\": 0.1}}",
		want: []wantErr{{vouch.ErrUnknownField, "p.json:2:13", "claims.tolerance", "unknown field"}},
	}, {
		name: "a list at the root",
		file: "p.yaml",
		doc:  "- passAt: 0.8\n",
		want: []wantErr{{vouch.ErrType, "p.yaml:1:1", "", "got list, want a mapping of policy keys"}},
	}, {
		name: "a string at the root",
		file: "p.yaml",
		doc:  "strict\n",
		want: []wantErr{{vouch.ErrType, "p.yaml:1:1", "", "want a mapping"}},
	}, {
		name: "two documents",
		file: "p.yaml",
		doc:  "passAt: 0.8\n---\npassAt: 0.9\n",
		want: []wantErr{{vouch.ErrSyntax, "p.yaml:2:1", "", "one YAML document"}},
	}, {
		name: "unknown anchor",
		file: "p.yaml",
		doc:  "errorWords: *words\n",
		want: []wantErr{{vouch.ErrSyntax, "p.yaml", "", "unknown anchor"}},
	}, {
		name: "alias that contains itself",
		file: "p.yaml",
		doc:  "pluginSchemas:\n  s: &s {items: [*s]}\n",
		want: []wantErr{{vouch.ErrInvalid, "p.yaml:2:18", "pluginSchemas.s.items[0].items[0]", "contains it"}},
	}, {
		name: "merge of a scalar",
		file: "p.yaml",
		doc:  "claims:\n  <<: 3\n",
		want: []wantErr{{vouch.ErrType, "p.yaml:2:7", "claims", "merge"}},
	}, {
		name: "input too large",
		file: "p.yaml",
		doc:  "errorWords: [" + strings.Repeat("x, ", maxInputBytes/3) + "x]\n",
		want: []wantErr{{vouch.ErrTooLarge, "p.yaml", "", "over the limit"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse(tt.file, []byte(tt.doc))
			if err == nil {
				t.Fatalf("Parse = %v, want errors", l)
			}
			if l != nil {
				t.Errorf("Parse returned a layer with its errors")
			}
			for _, e := range vouch.ErrorList(err) {
				if e.File != tt.file {
					t.Errorf("error %v: File = %q, want %q", e, e.File, tt.file)
				}
			}
			if tt.want != nil {
				checkErrors(t, err, tt.want)
			}
		})
	}
}

func TestParseAliasBomb(t *testing.T) {
	// Each level multiplies by ten: 10^6 strings if expanded.
	doc := `errorWords: &a [x, x, x, x, x, x, x, x, x, x]
requiredTopics: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
pluginSchemas:
  c: &c {items: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]}
  d: &d {items: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]}
  e: &e {items: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]}
  f: {items: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]}
`
	start := time.Now()
	_, err := Parse("bomb.yaml", []byte(doc))
	if time.Since(start) > 2*time.Second {
		t.Errorf("Parse took %v", time.Since(start))
	}
	var tooLarge bool
	for _, e := range vouch.ErrorList(err) {
		tooLarge = tooLarge || e.Code == vouch.ErrTooLarge
	}
	if !tooLarge {
		t.Errorf("Parse(alias bomb) = %v, want a %s error", err, vouch.ErrTooLarge)
	}

	// Merge keys can blow up too.
	var b strings.Builder
	b.WriteString("pluginSchemas:\n  m0: &m0 {a: 1, b: 2, c: 3}\n")
	for i := 1; i < 30; i++ {
		fmt.Fprintf(&b, "  m%d: &m%d {<<: [*m%d, *m%d, *m%d, *m%d]}\n", i, i, i-1, i-1, i-1, i-1)
	}
	start = time.Now()
	_, err = Parse("merge.yaml", []byte(b.String()))
	if time.Since(start) > 2*time.Second {
		t.Errorf("Parse took %v", time.Since(start))
	}
	if vouch.Code(err) != vouch.ErrTooLarge {
		t.Errorf("Parse(merge bomb) = %v, want a %s error", err, vouch.ErrTooLarge)
	}
}

func TestParseEmpty(t *testing.T) {
	for _, doc := range []string{"", "\n\n", "# just a comment\n", "---\n", "~\n", "null", "---\n...\n"} {
		l, err := Parse("empty.yaml", []byte(doc))
		if err != nil {
			t.Errorf("Parse(%q) = %v", doc, err)
			continue
		}
		p := vouch.DefaultPolicy()
		if err := l.Apply(&p); err != nil {
			t.Errorf("Apply(%q) = %v", doc, err)
		}
		if diff := cmp.Diff(vouch.DefaultPolicy(), p); diff != "" {
			t.Errorf("Apply(%q) changed the policy (-want +got):\n%s", doc, diff)
		}
	}
	p, err := Load("testdata/empty.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(vouch.DefaultPolicy(), p); diff != "" {
		t.Errorf("Load(empty.yaml) (-want +got):\n%s", diff)
	}
}

func TestParseJSONFile(t *testing.T) {
	p, err := Load("testdata/policy.json")
	if err != nil {
		t.Fatal(err)
	}
	want := vouch.DefaultPolicy()
	want.PassAt = 0.75
	want.Commands.Allow = []vouch.CommandRule{vouch.NewCommandRule("make", "check")}
	want.Commands.Timeout = vouch.Duration(45 * time.Second)
	want.ErrorWords = []string{"échec", "café 😀", "a/b"}
	want.Judge.Timeout = vouch.Duration(90 * time.Second)
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("Load(policy.json) (-want +got):\n%s", diff)
	}
}

func TestParseFlowYAMLThatIsNotJSON(t *testing.T) {
	l, err := Parse("p.yaml", []byte("{passAt: 0.9, errorWords: [oops]}"))
	if err != nil {
		t.Fatal(err)
	}
	p := vouch.DefaultPolicy()
	if err := l.Apply(&p); err != nil {
		t.Fatal(err)
	}
	if p.PassAt != 0.9 || !reflect.DeepEqual(p.ErrorWords, []string{"oops"}) {
		t.Errorf("got passAt %v, errorWords %q", p.PassAt, p.ErrorWords)
	}
}

func TestAnchorsAndMergeKeys(t *testing.T) {
	p, err := Load("testdata/anchors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := vouch.DefaultPolicy()
	want.PluginSchemas = map[string]json.RawMessage{
		"search": json.RawMessage(`{"type":"object","required":["items"]}`),
		"fetch":  json.RawMessage(`{"required":["url"],"type":"object"}`),
	}
	want.Commands.Allow = []vouch.CommandRule{vouch.NewCommandRule("go", "test"), vouch.NewCommandRule("go", "test")}
	want.ErrorWords = []string{"error", "failed"}
	want.RequiredTopics = []string{"error", "failed"}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("Load(anchors.yaml) (-want +got):\n%s", diff)
	}
}

// TestApplyMergeSemantics pins the layering semantics that json.Unmarshal
// gives when it decodes into an existing policy.
func TestApplyMergeSemantics(t *testing.T) {
	base := vouch.DefaultPolicy()
	base.Commands.Allow = []vouch.CommandRule{vouch.NewCommandRule("go", "test"), vouch.NewCommandRule("go", "vet"), vouch.NewCommandRule("npm", "test")}
	base.Commands.Shell = true
	base.PluginSchemas = map[string]json.RawMessage{"search": json.RawMessage(`{"type":"object"}`)}
	base.Judge.Models = []string{"a/b"}
	before := clonePolicy(base)

	l, err := Parse("layer.yaml", []byte(`
passAt: 0.9
weights:
  subtask: {claims: 0.8}
commands:
  allow: [[make]]
errorWords: []
pluginSchemas:
  search: {type: array}
  fetch: true
`))
	if err != nil {
		t.Fatal(err)
	}
	got := base
	if err := l.Apply(&got); err != nil {
		t.Fatal(err)
	}

	want := clonePolicy(before)
	want.PassAt = 0.9                                                       // set: replaced
	want.Weights[vouch.KindSubtask]["claims"] = 0.8                         // maps merge per key: the other weights stay
	want.Commands.Allow = []vouch.CommandRule{vouch.NewCommandRule("make")} // lists are replaced, not merged
	want.ErrorWords = nil                                                   // [] empties a list (empty lists are nil)
	want.PluginSchemas = map[string]json.RawMessage{
		"search": json.RawMessage(`{"type":"array"}`), // a map entry is replaced by the layer's
		"fetch":  json.RawMessage(`true`),             // and new entries added
	}
	// Fields the layer does not name keep their values: commands.shell,
	// commands.timeout, judge.models, claims...
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Apply (-want +got):\n%s", diff)
	}
	// The policy applied to shares nothing with the result: base, which
	// got was a shallow copy of, is unchanged.
	if diff := cmp.Diff(before, base); diff != "" {
		t.Errorf("Apply modified memory of the policy it was given (-before +after):\n%s", diff)
	}
}

func TestApplyNil(t *testing.T) {
	l, err := Parse("p.yaml", []byte("passAt: 0.9"))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Apply(nil); vouch.Code(err) != vouch.ErrInternal {
		t.Errorf("Apply(nil) = %v, want an internal error", err)
	}
	var empty *Layer
	p := vouch.DefaultPolicy()
	if err := empty.Apply(&p); err != nil {
		t.Errorf("nil Layer: Apply = %v", err)
	}
}

func TestLayering(t *testing.T) {
	p, err := Load("testdata/team.yaml", "testdata/mission.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := vouch.DefaultPolicy()
	want.PassAt = 0.85                              // team 0.8, mission 0.85: later wins
	want.FailBelow = 0.55                           // team only
	want.MaxRetries = 3                             // team only
	want.Weights[vouch.KindSubtask]["claims"] = 0.6 // team 0.5, mission 0.6
	want.Weights[vouch.KindSubtask]["criteria"] = 0.3
	want.Weights[vouch.KindAnswer]["groundedness"] = 0.6
	want.Claims.SizeTolerance = 0.05
	want.Commands.Allow = []vouch.CommandRule{vouch.NewCommandRule("go", "test", "./...")} // mission's list replaces team's
	want.Commands.Timeout = vouch.Duration(2 * time.Minute)                                // team: the mission's commands mapping merges
	want.ErrorWords = []string{"error", "failed", "panic"}
	want.PluginSchemas = map[string]json.RawMessage{ // merged per tool
		"search": json.RawMessage(`{"type":"object","required":["items"],"properties":{"items":{"type":"array"}}}`),
		"fetch":  json.RawMessage(`{"type":"object"}`),
	}
	want.Infer.Counts = false
	want.RequiredTopics = []string{"security", "rollout"}
	want.Tools = map[string]string{"mcp__fs__read_text": "read", "run_tests": "exec"}
	want.Judge.Models = []string{"anthropic:claude-opus"}
	want.Judge.Samples = 3
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("Load(team, mission) (-want +got):\n%s", diff)
	}

	// The other order: the team file wins.
	p, err = Load("testdata/mission.yaml", "testdata/team.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if p.PassAt != 0.8 || p.Weights[vouch.KindSubtask]["claims"] != 0.5 || len(p.Commands.Allow) != 3 {
		t.Errorf("Load(mission, team): passAt %v, subtask claims %v, allow %q; want the team's values",
			p.PassAt, p.Weights[vouch.KindSubtask]["claims"], p.Commands.Allow)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  []wantErr
	}{{
		name:  "out of range",
		files: []string{"testdata/bad_range.yaml"},
		want:  []wantErr{{vouch.ErrInvalid, "testdata/bad_range.yaml:1:1", "passAt", "between 0 and 1, got 1.5"}},
	}, {
		name:  "failBelow above passAt, failBelow from the defaults",
		files: []string{"testdata/bad_order.yaml"},
		// No file sets failBelow: the passAt that made it too high is named.
		want: []wantErr{{vouch.ErrInvalid, "testdata/bad_order.yaml:1:1", "failBelow", "must not exceed passAt (0.4)"}},
	}, {
		name:  "unknown tool operation",
		files: []string{"testdata/bad_tools.yaml"},
		want:  []wantErr{{vouch.ErrInvalid, "testdata/bad_tools.yaml:4:3", "tools.Frob", `must be one of read, list, write, exec, search, fetch, agent, control, plugin, got "frobnicate"`}},
	}, {
		name:  "failBelow above passAt, both set",
		files: []string{"testdata/bad_order_explicit.yaml"},
		want:  []wantErr{{vouch.ErrInvalid, "testdata/bad_order_explicit.yaml:2:1", "failBelow", "must not exceed passAt"}},
	}, {
		name:  "failBelow above passAt across files",
		files: []string{"testdata/team.yaml", "testdata/bad_order.yaml"},
		want:  []wantErr{{vouch.ErrInvalid, "testdata/team.yaml:3:1", "failBelow", "must not exceed passAt (0.4), got 0.55"}},
	}, {
		name:  "unknown kind and dimension",
		files: []string{"testdata/bad_weights.yaml"},
		want: []wantErr{
			{vouch.ErrInvalid, "testdata/bad_weights.yaml:5:3", "weights.essay", `unknown kind "essay"`},
			{vouch.ErrInvalid, "testdata/bad_weights.yaml:4:5", "weights.subtask.vibes", `no dimension "vibes"`},
		},
	}, {
		name:  "unknown keys",
		files: []string{"testdata/bad_keys.yaml"},
		want: []wantErr{
			{vouch.ErrUnknownField, "testdata/bad_keys.yaml:2:1", "passat", `did you mean "passAt"`},
			{vouch.ErrUnknownField, "testdata/bad_keys.yaml:4:3", "claims.sizeTolerence", `did you mean "sizeTolerance"`},
			{vouch.ErrUnknownField, "testdata/bad_keys.yaml:6:3", "judge.model", `did you mean "models"`},
			{vouch.ErrUnknownField, "testdata/bad_keys.yaml:8:1", "colour", "unknown field"},
		},
	}, {
		name:  "wrong types",
		files: []string{"testdata/bad_types.yaml"},
		want: []wantErr{
			{vouch.ErrType, "testdata/bad_types.yaml:1:9", "passAt", "want number"},
			{vouch.ErrType, "testdata/bad_types.yaml:2:9", "claims", "want mapping"},
			{vouch.ErrType, "testdata/bad_types.yaml:5:5", "commands.allow", "got mapping, want list"},
			{vouch.ErrInvalid, "testdata/bad_types.yaml:6:12", "commands.timeout", "invalid duration"},
			{vouch.ErrType, "testdata/bad_types.yaml:7:13", "errorWords", "want list"},
		},
	}, {
		name:  "syntax",
		files: []string{"testdata/bad_syntax.yaml"},
		want:  []wantErr{{vouch.ErrSyntax, "testdata/bad_syntax.yaml:3", "", "malformed YAML"}},
	}, {
		name:  "JSON syntax",
		files: []string{"testdata/bad_syntax.json"},
		want:  []wantErr{{vouch.ErrSyntax, "testdata/bad_syntax.json:5:1", "", "malformed JSON: unexpected EOF"}},
	}, {
		name:  "every file's problems",
		files: []string{"testdata/bad_range.yaml", "testdata/bad_syntax.yaml", "testdata/team.yaml", "testdata/bad_keys.yaml"},
		want: []wantErr{
			{vouch.ErrSyntax, "testdata/bad_syntax.yaml:3", "", "malformed YAML"},
			{vouch.ErrUnknownField, "testdata/bad_keys.yaml:2:1", "passat", "unknown field"},
			{vouch.ErrUnknownField, "testdata/bad_keys.yaml:4:3", "claims.sizeTolerence", "unknown field"},
			{vouch.ErrUnknownField, "testdata/bad_keys.yaml:6:3", "judge.model", "unknown field"},
			{vouch.ErrUnknownField, "testdata/bad_keys.yaml:8:1", "colour", "unknown field"},
		},
	}, {
		name:  "missing file",
		files: []string{"testdata/team.yaml", "testdata/nope.yaml"},
		want:  []wantErr{{vouch.ErrUsage, "testdata/nope.yaml", "", "cannot read the policy file: no such file"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Load(tt.files...)
			if err == nil {
				t.Fatalf("Load succeeded: %+v", p)
			}
			if !reflect.ValueOf(p).IsZero() {
				t.Errorf("Load returned a policy with its errors")
			}
			checkErrors(t, err, tt.want)
		})
	}
}

func TestLoadMissingFileUnwraps(t *testing.T) {
	_, err := Load("testdata/nope.yaml")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(missing) = %v, want an error matching fs.ErrNotExist", err)
	}
}

func TestCheck(t *testing.T) {
	if errs := Check("testdata/team.yaml", "testdata/mission.yaml"); errs != nil {
		t.Errorf("Check(team, mission) = %v, want nil", vouch.Errors(errs))
	}
	if errs := Check(); errs != nil {
		t.Errorf("Check() = %v, want nil", vouch.Errors(errs))
	}
	errs := Check("testdata/bad_range.yaml", "testdata/bad_keys.yaml", "testdata/team.yaml", "testdata/bad_order.yaml", "testdata/bad_syntax.yaml")
	checkErrors(t, vouch.Errors(errs), []wantErr{
		// Each file alone.
		{vouch.ErrInvalid, "testdata/bad_range.yaml:1:1", "passAt", "got 1.5"},
		{vouch.ErrUnknownField, "testdata/bad_keys.yaml:2:1", "passat", "unknown field"},
		{vouch.ErrUnknownField, "testdata/bad_keys.yaml:4:3", "claims.sizeTolerence", "unknown field"},
		{vouch.ErrUnknownField, "testdata/bad_keys.yaml:6:3", "judge.model", "unknown field"},
		{vouch.ErrUnknownField, "testdata/bad_keys.yaml:8:1", "colour", "unknown field"},
		{vouch.ErrInvalid, "testdata/bad_order.yaml:1:1", "failBelow", "must not exceed passAt (0.4), got 0.5"},
		{vouch.ErrSyntax, "testdata/bad_syntax.yaml:3", "", "malformed YAML"},
		// Layered: bad_range, team, bad_order. bad_order's passAt wins
		// over bad_range's, and team's failBelow is now too high.
		{vouch.ErrInvalid, "testdata/team.yaml:3:1", "failBelow", "must not exceed passAt (0.4), got 0.55"},
	})

	// Two files, each fine alone, that clash when layered.
	dir := t.TempDir()
	a := writeFile(t, dir, "a.yaml", "passAt: 0.6\n")
	b := writeFile(t, dir, "b.yaml", "# raise the floor\nfailBelow: 0.65\n")
	checkErrors(t, vouch.Errors(Check(a, b)), []wantErr{
		{vouch.ErrInvalid, b + ":2:1", "failBelow", "must not exceed passAt (0.6), got 0.65"},
	})
}

func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestShowRoundTrip(t *testing.T) {
	sets := [][]string{
		nil,
		{"testdata/team.yaml"},
		{"testdata/team.yaml", "testdata/mission.yaml"},
		{"testdata/policy.json"},
		{"testdata/anchors.yaml"},
		{"testdata/commands.yaml"},
	}
	for _, files := range sets {
		t.Run(strings.Join(files, "+"), func(t *testing.T) {
			p, err := Load(files...)
			if err != nil {
				t.Fatal(err)
			}
			out, err := Show(p)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Show(p)
			if err != nil || string(again) != string(out) {
				t.Errorf("Show is not deterministic:\n%s\n---\n%s", out, again)
			}
			path := writeFile(t, t.TempDir(), "shown.yaml", string(out))
			q, err := Load(path)
			if err != nil {
				t.Fatalf("Load(Show(p)) = %v\n%s", err, out)
			}
			if diff := cmp.Diff(p, q); diff != "" {
				t.Errorf("Load(Show(p)) differs from p (-p +loaded):\n%s\n%s", diff, out)
			}
		})
	}
}

func TestShowGolden(t *testing.T) {
	p, err := Load("testdata/team.yaml", "testdata/mission.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Show(p)
	if err != nil {
		t.Fatal(err)
	}
	golden := "testdata/show.golden"
	if *update {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(out)); diff != "" {
		t.Errorf("Show (-want +got):\n%s", diff)
	}
}

func TestShowDurations(t *testing.T) {
	for d, want := range map[time.Duration]string{
		60 * time.Second:        "60s",
		0:                       "0s",
		1500 * time.Millisecond: "1.5s",
		250 * time.Millisecond:  "250ms",
		2 * time.Hour:           "7200s",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
	p := vouch.DefaultPolicy()
	p.Commands.Timeout = vouch.Duration(1500 * time.Millisecond)
	out, err := Show(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "  timeout: 1.5s\n") {
		t.Errorf("Show: want timeout: 1.5s in\n%s", out)
	}
}

func TestShowRefusesNaN(t *testing.T) {
	p := vouch.DefaultPolicy()
	p.PassAt = nan()
	if _, err := Show(p); err == nil {
		t.Error("Show(NaN) succeeded")
	}
}

func nan() float64 {
	zero := 0.0
	return zero / zero
}

// TestCloneIsDeep guards clonePolicy and normalize against fields added to
// vouch.Policy later: every field that holds a reference must be handled.
func TestCloneIsDeep(t *testing.T) {
	handled := map[string]bool{
		"Weights": true, "Commands.Allow": true, "Commands.Env": true, "Commands.Writable": true, "ErrorWords": true,
		"PluginSchemas": true, "AdvisoryPlugins": true, "RequiredTopics": true, "Tools": true, "Judge.Models": true,
		"Judge.Tiers": true, "Judge.Cascade": true, "Judge.Prices": true, "Judge.Examples": true,
	}
	var walk func(t reflect.Type, prefix string)
	walk = func(typ reflect.Type, prefix string) {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name := prefix + f.Name
			switch f.Type.Kind() {
			case reflect.Struct:
				walk(f.Type, name+".")
			case reflect.Map, reflect.Slice, reflect.Pointer, reflect.Interface:
				if !handled[name] {
					t.Errorf("vouch.Policy.%s holds a reference: teach clonePolicy and normalize about it", name)
				}
			}
		}
	}
	walk(reflect.TypeFor[vouch.Policy](), "")

	p, err := Load("testdata/team.yaml", "testdata/mission.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := clonePolicy(p)
	if diff := cmp.Diff(p, c); diff != "" {
		t.Fatalf("clonePolicy (-p +clone):\n%s", diff)
	}
	c.Weights[vouch.KindSubtask]["claims"] = 0
	c.Commands.Allow[0].Run[0] = "x"
	c.ErrorWords[0] = "x"
	c.PluginSchemas["search"][0] = 'x'
	c.RequiredTopics[0] = "x"
	c.Judge.Models[0] = "x"
	if p.Weights[vouch.KindSubtask]["claims"] == 0 || p.Commands.Allow[0].Run[0] == "x" || p.ErrorWords[0] == "x" ||
		p.PluginSchemas["search"][0] == 'x' || p.RequiredTopics[0] == "x" || p.Judge.Models[0] == "x" {
		t.Error("clonePolicy shares memory with the original")
	}
}

func TestParentPath(t *testing.T) {
	for path, want := range map[string]string{
		"commands.allow[0][1]": "commands.allow[0]",
		"commands.allow[0]":    "commands.allow",
		"commands.allow":       "commands",
		"commands":             "",
		"":                     "",
	} {
		if got := parentPath(path); got != want {
			t.Errorf("parentPath(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestLayerName(t *testing.T) {
	l, err := Parse("team.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.Name() != "team.yaml" {
		t.Errorf("Name() = %q", l.Name())
	}
}

func TestParseTooManyProblems(t *testing.T) {
	doc := strings.Repeat("colour: blue\n", 500)
	_, err := Parse("p.yaml", []byte(doc))
	list := vouch.ErrorList(err)
	if len(list) != strict.MaxProblems+1 {
		t.Fatalf("got %d errors, want %d", len(list), strict.MaxProblems+1)
	}
	last := list[len(list)-1]
	if last.Code != vouch.ErrTooLarge || last.Message != "400 more problems not listed" {
		t.Errorf("last error = %v, want the limit", last)
	}
}

func TestShowRoundTripStrings(t *testing.T) {
	words := []string{
		"", " ", "true", "null", "~", "1", "0x1F", "1e3", ".inf", "2001-12-14", "<<", "-", "- x", "? x", ": x",
		"a: b", "#c", "a #c", "'q'", `"dq"`, "\\", "\t", "\n", "x\n", "\nx", "a\r\nb", "\x00", "\x7f", "\u0085",
		"\u2028", "\u2029", "\ufeff", "é", "😀", "&a", "*a", "!tag", "%YAML", "@", "`", "{a}", "[a]", "a,b",
		"--- x", "...", strings.Repeat("long ", 300), "trailing ", " leading",
	}
	p := vouch.DefaultPolicy()
	p.ErrorWords = words
	p.RequiredTopics = words[:10]
	p.PluginSchemas = map[string]json.RawMessage{}
	for i, w := range words {
		b, err := json.Marshal(map[string]any{"k": w})
		if err != nil {
			t.Fatal(err)
		}
		p.PluginSchemas[w+strconv.Itoa(i)] = b
	}
	// Bring the schemas to the form Parse gives them.
	for tool, s := range p.PluginSchemas {
		l, err := Parse("s.json", []byte(`{"pluginSchemas": {"x": `+string(s)+`}}`))
		if err != nil {
			t.Fatal(err)
		}
		var q vouch.Policy
		if err := l.Apply(&q); err != nil {
			t.Fatal(err)
		}
		p.PluginSchemas[tool] = q.PluginSchemas["x"]
	}
	out, err := Show(p)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Parse("shown.yaml", out)
	if err != nil {
		t.Fatalf("Parse(Show(p)) = %v\n%s", err, out)
	}
	q := vouch.DefaultPolicy()
	if err := l.Apply(&q); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, q); diff != "" {
		t.Errorf("round trip (-p +q):\n%s\n%s", diff, out)
	}
}

// TestDecodeErrorPosition covers errors the JSON decoder finds that the
// walk did not: they get the file and the position of the value.
func TestDecodeErrorPosition(t *testing.T) {
	doc, err := strict.Parse([]byte("passAt: 0.8\n# tolerance\nclaims:\n  sizeTolerance: 0.1\n"), readOptions(false))
	if err != nil {
		t.Fatal(err)
	}
	l := &Layer{name: "p.yaml", data: []byte(`{"claims":{"sizeTolerance":"wide"}}`), doc: doc}
	p := vouch.DefaultPolicy()
	err = l.Apply(&p)
	checkErrors(t, err, []wantErr{{vouch.ErrType, "p.yaml:4:18", "claims.sizeTolerance", "got string, want number"}})
	if diff := cmp.Diff(vouch.DefaultPolicy(), p); diff != "" {
		t.Errorf("a failed Apply changed the policy:\n%s", diff)
	}
}

func TestParseByteOrderMark(t *testing.T) {
	for _, doc := range []string{"\ufeff{\"passAt\": 0.9}", "\ufeffpassAt: 0.9\n"} {
		l, err := Parse("p.json", []byte(doc))
		if err != nil {
			t.Fatalf("Parse(%q) = %v", doc, err)
		}
		p := vouch.DefaultPolicy()
		if err := l.Apply(&p); err != nil || p.PassAt != 0.9 {
			t.Errorf("Parse(%q): passAt %v, %v", doc, p.PassAt, err)
		}
	}
}
