package content

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

// spec builds a CheckSpec from its JSON object, as the request decoder
// would; the factory, not this helper, judges the parameters.
func spec(t testing.TB, raw string) vouch.CheckSpec {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("bad spec %s: %v", raw, err)
	}
	typ, _ := m["type"].(string)
	not, _ := m["not"].(bool)
	return vouch.CheckSpec{Type: typ, Not: not, Raw: json.RawMessage(raw)}
}

// compile compiles a spec with the registered factory of its type.
func compile(t testing.TB, raw string, env check.Env) (vouch.Checker, error) {
	t.Helper()
	s := spec(t, raw)
	k, err := check.Lookup(s.Type)
	if err != nil {
		t.Fatal(err)
	}
	return k.New(s, env)
}

// mustCompile compiles a spec that must compile.
func mustCompile(t testing.TB, raw string, env check.Env) vouch.Checker {
	t.Helper()
	c, err := compile(t, raw, env)
	if err != nil {
		t.Fatalf("compile %s: %v", raw, err)
	}
	return c
}

// workspace writes files into a fresh directory and opens it as a root.
func workspace(t testing.TB, files map[string]string) *os.Root {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root
}

// tc is one case of a kind's outcome table.
type tc struct {
	name    string
	spec    string
	summary string
	// files, when not nil, become the workspace.
	files map[string]string
	// req, when not nil, is the request (summary is ignored).
	req *vouch.Request
	// maxBytes sets Subject.MaxFileBytes.
	maxBytes int64

	status   vouch.Status
	code     string
	score    *float64 // checked when set, else 1 for pass and 0 for fail
	reason   string   // a substring of the reason, when set
	evidence map[string]any
	fix      []string
	strength vouch.Strength
}

func score(f float64) *float64 { return &f }

// runCases compiles and runs each case against a fresh Subject.
func runCases(t *testing.T, cases []tc) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch := mustCompile(t, c.spec, check.Env{})
			req := c.req
			if req == nil {
				req = &vouch.Request{Output: vouch.Output{Summary: c.summary}}
			}
			s := &vouch.Subject{Request: req, MaxFileBytes: c.maxBytes}
			if c.files != nil {
				s.Workspace = workspace(t, c.files)
			}
			got := ch.Check(context.Background(), s)
			checkOutcome(t, got, c)
			// A second run on the same Subject uses the memo and agrees.
			if again := ch.Check(context.Background(), s); !cmp.Equal(got, again) {
				t.Errorf("second Check differs:\n%s", cmp.Diff(got, again))
			}
		})
	}
}

func checkOutcome(t *testing.T, got vouch.Outcome, c tc) {
	t.Helper()
	if got.Status != c.status || got.Code != c.code {
		t.Fatalf("got %s %q (%s), want %s %q", got.Status, got.Code, got.Reason, c.status, c.code)
	}
	if got.Reason == "" {
		t.Errorf("empty reason")
	}
	if strings.Contains(got.Reason, "\n") {
		t.Errorf("reason has several lines: %q", got.Reason)
	}
	if c.reason != "" && !strings.Contains(got.Reason, c.reason) {
		t.Errorf("reason %q does not contain %q", got.Reason, c.reason)
	}
	if got.Status != vouch.StatusUndecided {
		want := 0.0
		if got.Status == vouch.StatusPass {
			want = 1
		}
		if c.score != nil {
			want = *c.score
		}
		if got.Score != want {
			t.Errorf("score = %v, want %v", got.Score, want)
		}
	}
	if got.Evidence == nil {
		t.Errorf("no evidence")
	}
	for k, v := range c.evidence {
		if d := cmp.Diff(v, got.Evidence[k]); d != "" {
			t.Errorf("evidence[%q] (-want +got):\n%s", k, d)
		}
	}
	if c.fix != nil {
		if d := cmp.Diff(c.fix, got.Fix); d != "" {
			t.Errorf("fix (-want +got):\n%s", d)
		}
	}
	if got.Strength != c.strength {
		t.Errorf("strength = %q, want %q", got.Strength, c.strength)
	}
}

// errCase is a spec that must not compile.
type errCase struct {
	name string
	spec string
	env  check.Env
	path string
	code vouch.ErrorCode
	msg  string // a substring of the message, when set
}

func runErrCases(t *testing.T, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch, err := compile(t, c.spec, c.env)
			if err == nil {
				t.Fatalf("compiled to %T, want an error", ch)
			}
			var ve *vouch.Error
			if !errors.As(err, &ve) {
				t.Fatalf("error %v (%T) is not a *vouch.Error", err, err)
			}
			list := vouch.ErrorList(err)
			if len(list) != 1 {
				t.Fatalf("got %d errors, want 1: %v", len(list), err)
			}
			e := list[0]
			if e.Path != c.path || e.Code != c.code {
				t.Errorf("got path %q code %q (%v), want path %q code %q", e.Path, e.Code, e, c.path, c.code)
			}
			if c.msg != "" && !strings.Contains(e.Message, c.msg) {
				t.Errorf("message %q does not contain %q", e.Message, c.msg)
			}
		})
	}
}

// targetCases are the cases every text kind shares: a target without a
// workspace, a missing file, a file outside the root, a directory, a file
// over the size limit. spec must have a "target" of %s.
func targetCases(kind, params string) []tc {
	mk := func(target string) string {
		return `{"type":"` + kind + `"` + params + `,"target":"` + target + `"}`
	}
	ws := map[string]string{"dir/x.md": "x", "big.md": strings.Repeat("x", 100)}
	return []tc{
		{name: "no workspace", spec: mk("notes.md"), status: vouch.StatusUndecided, code: vouch.CodeNoWorkspace,
			evidence: map[string]any{"target": "notes.md"}},
		{name: "missing file", spec: mk("notes.md"), files: ws, status: vouch.StatusFail, code: vouch.CodeTargetMissing,
			reason: `"notes.md" does not exist`, evidence: map[string]any{"target": "notes.md"}},
		{name: "outside root", spec: mk("../etc/passwd"), files: ws, status: vouch.StatusUndecided, code: vouch.CodeTargetUnreadable},
		{name: "absolute", spec: mk("/etc/passwd"), files: ws, status: vouch.StatusUndecided, code: vouch.CodeTargetUnreadable},
		{name: "directory", spec: mk("dir"), files: ws, status: vouch.StatusUndecided, code: vouch.CodeTargetUnreadable,
			reason: "not a regular file"},
		{name: "too large", spec: mk("big.md"), files: ws, maxBytes: 10, status: vouch.StatusUndecided, code: vouch.CodeTargetUnreadable,
			reason: "over the size limit"},
	}
}

// commonErrCases are the compile errors every kind shares.
func commonErrCases(kind, valid string) []errCase {
	return []errCase{
		{name: "unknown parameter", spec: `{"type":"` + kind + `"` + valid + `,"bogus":1}`, path: "bogus", code: vouch.ErrUnknownField},
		{name: "target wrong type", spec: `{"type":"` + kind + `"` + valid + `,"target":7}`, path: "target", code: vouch.ErrType},
		{name: "not wrong type", spec: `{"type":"` + kind + `"` + valid + `,"not":"yes"}`, path: "not", code: vouch.ErrType},
	}
}

// testFS is a schema file system for json_schema tests.
var testFS = fstest.MapFS{
	"person.json":       {Data: []byte(`{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"address":{"$ref":"defs/address.json"}}}`)},
	"defs/address.json": {Data: []byte(`{"type":"object","required":["city"],"properties":{"city":{"type":"string"}}}`)},
	"broken.json":       {Data: []byte("{\n  \"type\": \"object\",\n}")},
	"badschema.json":    {Data: []byte(`{"type":"nonsense"}`)},
	"escape.json":       {Data: []byte(`{"$ref":"file:///etc/passwd"}`)},
	"http.json":         {Data: []byte(`{"$ref":"https://example.com/s.json"}`)},
	"up.json":           {Data: []byte(`{"$ref":"../../x.json"}`)},
}
