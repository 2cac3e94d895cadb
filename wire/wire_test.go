package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/strict"
)

const minimal = `{"task": {}, "output": {"summary": ""}}`

// decodeErr decodes in and returns its errors, failing if it decodes.
func decodeErr(t *testing.T, in string, opt Options) []*vouch.Error {
	t.Helper()
	req, err := DecodeRequest([]byte(in), opt)
	if err == nil {
		t.Fatalf("DecodeRequest(%q) = %+v, want an error", in, req)
	}
	if req != nil {
		t.Errorf("request returned with an error")
	}
	return vouch.ErrorList(err)
}

func decodeOK(t *testing.T, in string) *vouch.Request {
	t.Helper()
	req, err := DecodeRequest([]byte(in), Options{})
	if err != nil {
		t.Fatalf("DecodeRequest(%q): %v", in, err)
	}
	return req
}

func TestSizeLimit(t *testing.T) {
	in := minimal
	if _, err := DecodeRequest([]byte(in), Options{MaxBytes: int64(len(in))}); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	errs := decodeErr(t, in, Options{MaxBytes: int64(len(in)) - 1, Name: "big.json"})
	e := errs[0]
	if e.Code != vouch.ErrTooLarge || e.File != "big.json" {
		t.Errorf("over the limit: %+v", e)
	}
	want := fmt.Sprintf("request is %d bytes, over the limit of %d bytes", len(in), len(in)-1)
	if e.Message != want {
		t.Errorf("message %q, want %q", e.Message, want)
	}
	// The limit applies before parsing: garbage over the limit is too
	// large, not malformed.
	big := bytes.Repeat([]byte("x"), DefaultMaxBytes+1)
	if _, err := DecodeRequest(big, Options{}); vouch.Code(err) != vouch.ErrTooLarge {
		t.Errorf("default limit: %v", err)
	}
}

func TestEmptyInput(t *testing.T) {
	for _, in := range []string{"", " \n\t\r\n", "\xef\xbb\xbf", "# only a comment\n"} {
		errs := decodeErr(t, in, Options{})
		if errs[0].Code != vouch.ErrSyntax || !strings.Contains(errs[0].Message, "empty request") {
			t.Errorf("%q: %v", in, errs[0])
		}
	}
}

func TestByteOrderMark(t *testing.T) {
	decodeOK(t, "\xef\xbb\xbf"+minimal)
	decodeOK(t, "\xef\xbb\xbftask: {}\noutput: {summary: x}\n")
}

func TestContentID(t *testing.T) {
	a := decodeOK(t, minimal)
	b := decodeOK(t, minimal)
	c := decodeOK(t, minimal+"\n")
	if !regexp.MustCompile(`^r-[0-9a-f]{16}$`).MatchString(a.ID) {
		t.Errorf("id %q, want r- and 16 hex digits", a.ID)
	}
	if a.ID != b.ID {
		t.Errorf("same bytes, different ids: %s %s", a.ID, b.ID)
	}
	if a.ID == c.ID {
		t.Errorf("different bytes, same id %s", a.ID)
	}
	if a.ID != ContentID([]byte(minimal)) {
		t.Errorf("id %s, ContentID %s", a.ID, ContentID([]byte(minimal)))
	}
	d := decodeOK(t, `{"id": "mine", "task": {}, "output": {"summary": ""}}`)
	if d.ID != "mine" {
		t.Errorf("written id replaced: %s", d.ID)
	}
}

func TestSentinelsCleared(t *testing.T) {
	r := decodeOK(t, minimal)
	if r.APIVersion != "" || r.Task.ID != "" || r.Output.Summary != "" {
		t.Errorf("sentinel left in request: %q %q %q", r.APIVersion, r.Task.ID, r.Output.Summary)
	}
	// Text equal to a sentinel is still text.
	id, _ := json.Marshal(sentinelTaskAbsent)
	summary, _ := json.Marshal(sentinelSummaryAbsent)
	in := fmt.Sprintf(`{"task": {"id": %s}, "output": {"summary": %s}}`, id, summary)
	r = decodeOK(t, in)
	if r.Task.ID != sentinelTaskAbsent || r.Output.Summary != sentinelSummaryAbsent {
		t.Errorf("text that looks like a sentinel was dropped: %q %q", r.Task.ID, r.Output.Summary)
	}
}

func TestAssignedIDs(t *testing.T) {
	r := decodeOK(t, `{"task": {"criteria": [{}, {"id": "c1"}, {}, {"id": "c3-2"}, {"id": "c3"}]}, "output": {"summary": ""}}`)
	var got []string
	for _, c := range r.Task.Criteria {
		got = append(got, c.ID)
	}
	want := []string{"c1-2", "c1", "c3-3", "c3-2", "c3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}

	// Many criteria take the map path.
	var b strings.Builder
	b.WriteString(`{"task": {"criteria": [{"id": "c5"}`)
	for range 40 {
		b.WriteString(`, {}`)
	}
	b.WriteString(`, {"id": "c5"}]}, "output": {"summary": ""}}`)
	errs := decodeErr(t, b.String(), Options{})
	if len(errs) != 1 || errs[0].Path != "task.criteria[41].id" || errs[0].Code != vouch.ErrInvalid {
		t.Fatalf("duplicate in a long list: %v", errs)
	}
	r = decodeOK(t, strings.Replace(b.String(), `{"id": "c5"}]`, `{}]`, 1))
	seen := map[string]bool{}
	for _, c := range r.Task.Criteria {
		if c.ID == "" || seen[c.ID] {
			t.Fatalf("id %q empty or repeated", c.ID)
		}
		seen[c.ID] = true
	}
	if r.Task.Criteria[5].ID != "c6" || r.Task.Criteria[4].ID != "c5-2" {
		t.Errorf("ids %s %s, want c5-2 c6", r.Task.Criteria[4].ID, r.Task.Criteria[5].ID)
	}
}

func TestCheckSpec(t *testing.T) {
	in := []byte(`{"task": {"criteria": [
		{"check": {"type": "contains", "value": "DONE", "ignoreCase": true, "not": true}},
		{"check":{"not":false,"type":"regex","pattern":"[a-z]+","nested":{"type":5,"not":"x"}}},
		{"check": {"\u0074ype": "my_\u0063heck", "extra": [1, {"a": null}]}}
	]}, "output": {"summary": ""}}`)
	buf := bytes.Clone(in)
	r, err := DecodeRequest(buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Raw must be a copy: the caller may reuse its buffer.
	for i := range buf {
		buf[i] = 'X'
	}
	want := []struct {
		typ string
		not bool
		raw string
	}{
		{"contains", true, `{"type": "contains", "value": "DONE", "ignoreCase": true, "not": true}`},
		{"regex", false, `{"not":false,"type":"regex","pattern":"[a-z]+","nested":{"type":5,"not":"x"}}`},
		{"my_check", false, `{"\u0074ype": "my_\u0063heck", "extra": [1, {"a": null}]}`},
	}
	for i, w := range want {
		c := r.Task.Criteria[i].Check
		if c.Type != w.typ || c.Not != w.not || string(c.Raw) != w.raw {
			t.Errorf("check %d = {%q %v %s}, want {%q %v %s}", i, c.Type, c.Not, c.Raw, w.typ, w.not, w.raw)
		}
	}
	// Raw round-trips through the root type's own marshalling.
	b, err := json.Marshal(r.Task.Criteria[0].Check)
	if err != nil || !json.Valid(b) {
		t.Errorf("marshal check: %s %v", b, err)
	}
}

func TestCheckErrors(t *testing.T) {
	for _, tc := range []struct {
		check string
		code  vouch.ErrorCode
		path  string
	}{
		{`{"value": "x"}`, vouch.ErrMissing, "task.criteria[0].check.type"},
		{`{"type": ""}`, vouch.ErrInvalid, "task.criteria[0].check.type"},
		{`{"type": null}`, vouch.ErrType, "task.criteria[0].check.type"},
		{`{"type": ["a"]}`, vouch.ErrType, "task.criteria[0].check.type"},
		{`{"type": "x", "not": 1}`, vouch.ErrType, "task.criteria[0].check.not"},
		{`{"type": "x", "not": null}`, vouch.ErrType, "task.criteria[0].check.not"},
		{`{"type": "x", "type": "y"}`, vouch.ErrInvalid, "task.criteria[0].check.type"},
		{`[]`, vouch.ErrType, "task.criteria[0].check"},
		{`null`, vouch.ErrType, "task.criteria[0].check"},
		{`{"type": "x",}`, vouch.ErrSyntax, "task.criteria[0].check"},
	} {
		in := `{"task": {"criteria": [{"check": ` + tc.check + `}]}, "output": {"summary": ""}}`
		errs := decodeErr(t, in, Options{})
		if errs[0].Code != tc.code || errs[0].Path != tc.path || errs[0].Line == 0 {
			t.Errorf("%s: got %v [%s], want %s at %s with a position", tc.check, errs[0], errs[0].Code, tc.code, tc.path)
		}
	}
}

func TestCollectsAllProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"task": {}, "output": {"summary": "", "artifacts": {"fileEdits": [`)
	for i := range 150 {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(`{"file": "a", "linesChanged": -1}`)
	}
	b.WriteString(`]}}}`)
	errs := decodeErr(t, b.String(), Options{Name: "many.json"})
	if len(errs) != strict.MaxProblems+1 {
		t.Fatalf("%d errors, want %d", len(errs), strict.MaxProblems+1)
	}
	for i, e := range errs[:strict.MaxProblems] {
		if e.Line != i+1 || e.File != "many.json" {
			t.Fatalf("error %d at %s:%d, want many.json:%d", i, e.File, e.Line, i+1)
		}
	}
	if last := errs[strict.MaxProblems]; last.Message != "50 more problems not listed" {
		t.Errorf("last error %v", last)
	}
}

func TestNumbers(t *testing.T) {
	for _, tc := range []struct {
		attempt string
		code    vouch.ErrorCode
	}{
		{`1.5`, vouch.ErrType},
		{`1e2`, vouch.ErrType},
		{`99999999999999999999`, vouch.ErrInvalid},
		{`"1"`, vouch.ErrType},
	} {
		errs := decodeErr(t, `{"attempt": `+tc.attempt+`, "task": {}, "output": {"summary": ""}}`, Options{})
		if errs[0].Code != tc.code || errs[0].Path != "attempt" {
			t.Errorf("attempt %s: %v [%s], want %s", tc.attempt, errs[0], errs[0].Code, tc.code)
		}
	}
	// exitCode may be any integer.
	decodeOK(t, `{"task": {}, "output": {"summary": "", "artifacts": {"commandResults": [{"command": "x", "exitCode": -9}]}}}`)
}

func TestErrorType(t *testing.T) {
	// Decoding failures are a single *vouch.Error; semantic problems come
	// as vouch.Errors even when there is one.
	_, err := DecodeRequest([]byte(`{"task": {}, "output": {"summary": ""}, "x": 1}`), Options{})
	var e *vouch.Error
	if !errors.As(err, &e) {
		t.Errorf("unknown field: %T", err)
	}
	if _, ok := err.(vouch.Errors); ok {
		t.Errorf("unknown field: got vouch.Errors")
	}
	_, err = DecodeRequest([]byte(`{"kind": "x", "task": {}, "output": {"summary": ""}}`), Options{})
	if es, ok := err.(vouch.Errors); !ok || len(es) != 1 {
		t.Errorf("bad kind: %T %v", err, err)
	}
}

func TestYAMLScalars(t *testing.T) {
	r := decodeOK(t, `
task:
  criteria:
    - weight: 0x10
    - weight: 1_000
    - weight: 2.5e-1
    - weight: !!float 3
    - weight: 0o17
output:
  summary: !!str 42
  metadata:
    bool: True
    null1: ~
    null2: null
    date: 2025-01-02
    int: -7
    big: 18446744073709551615
    float: -0.5
    bin: !!binary aGVsbG8=
    quoted: "yes"
    yes: no
    1: one
`)
	var w []float64
	for _, c := range r.Task.Criteria {
		w = append(w, *c.Weight)
	}
	if diff := cmp.Diff([]float64{16, 1000, 0.25, 3, 15}, w); diff != "" {
		t.Errorf("weights (-want +got):\n%s", diff)
	}
	if r.Output.Summary != "42" {
		t.Errorf("summary %q", r.Output.Summary)
	}
	want := map[string]any{
		"bool": true, "null1": nil, "null2": nil, "date": "2025-01-02", "int": -7.0,
		"big": 18446744073709551615.0, "float": -0.5, "bin": "aGVsbG8=", "quoted": "yes",
		"yes": "no", "1": "one",
	}
	if diff := cmp.Diff(want, r.Output.Metadata); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
}

func TestYAMLMerge(t *testing.T) {
	r := decodeOK(t, `
task: {}
output:
  summary: x
  metadata:
    base: &base {a: 1, b: 2}
    more: &more {c: 3}
    one:
      <<: *base
      b: 20
    many:
      <<: [*base, *more]
      a: 10
`)
	m := r.Output.Metadata
	if diff := cmp.Diff(map[string]any{"a": 1.0, "b": 20.0}, m["one"]); diff != "" {
		t.Errorf("one (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"a": 10.0, "b": 2.0, "c": 3.0}, m["many"]); diff != "" {
		t.Errorf("many (-want +got):\n%s", diff)
	}
	// A merged key that is unknown to the contract is reported at the
	// merged mapping's key.
	errs := decodeErr(t, "extra: &x {bogus: 1}\ntask: {}\noutput:\n  <<: *x\n  summary: s\n", Options{})
	if errs[0].Code != vouch.ErrUnknownField || errs[0].Path != "extra" || errs[0].Line != 1 {
		t.Errorf("unknown top-level key: %v", errs[0])
	}
	errs = decodeErr(t, "task: {}\noutput:\n  <<: {bogus: 1}\n  summary: s\n", Options{})
	if errs[0].Path != "output.bogus" || errs[0].Line != 3 || errs[0].Column != 8 {
		t.Errorf("merged unknown key: %v (line %d col %d)", errs[0], errs[0].Line, errs[0].Column)
	}
}

func TestYAMLErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		code     vouch.ErrorCode
		line     int
	}{
		{"two documents", "task: {}\noutput: {summary: x}\n---\ntask: {}\n", vouch.ErrSyntax, 3},
		{"scalar root", "hello\n", vouch.ErrType, 1},
		{"null root", "~\n", vouch.ErrType, 1},
		{"complex key", "? [a]\n: 1\ntask: {}\noutput: {summary: x}\n", vouch.ErrType, 1},
		{"custom tag", "task: {}\noutput: {summary: !secret x}\n", vouch.ErrType, 2},
		{"nan", "task: {criteria: [{weight: .nan}]}\noutput: {summary: x}\n", vouch.ErrInvalid, 1},
		{"bad bool", "task: {criteria: [{must: !!bool maybe}]}\noutput: {summary: x}\n", vouch.ErrType, 1},
		{"unknown anchor", "task: *nope\n", vouch.ErrSyntax, 0},
		{"self alias", "task: {}\noutput:\n  summary: x\n  metadata: {a: &a [1, *a]}\n", vouch.ErrInvalid, 4},
		{"tab indent", "task:\n\tgoal: x\n", vouch.ErrSyntax, 2},
		{"wrong type", "task: {}\noutput:\n  summary: x\n  created: a.go\n", vouch.ErrType, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := decodeErr(t, tc.in, Options{Name: "r.yaml"})
			e := errs[0]
			if e.Code != tc.code || e.Line != tc.line || e.File != "r.yaml" {
				t.Errorf("got %v [%s], want %s at line %d", e, e.Code, tc.code, tc.line)
			}
		})
	}
}

func TestYAMLDeepNesting(t *testing.T) {
	in := "task: {}\noutput: {summary: x}\nx: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n"
	_, err := DecodeRequest([]byte(in), Options{})
	if err == nil || vouch.Code(err) == vouch.ErrInternal {
		t.Errorf("deep nesting: %v", err)
	}
}

func TestJSONPositions(t *testing.T) {
	in := "{\n  \"task\": {},\n  \"output\": {\n    \"summary\": \"x\",\n    \"testResult\": \"green\"\n  }\n}"
	errs := decodeErr(t, in, Options{})
	if e := errs[0]; e.Line != 5 || e.Column != 19 {
		t.Errorf("position %d:%d, want 5:19", e.Line, e.Column)
	}
}

func TestConcurrentDecode(t *testing.T) {
	inputs := [][]byte{benchRequest, benchRequestYAML, []byte(minimal), []byte(`{"kind": "x", "task": {}, "output": {"summary": null}}`)}
	done := make(chan bool)
	for g := range 8 {
		go func() {
			defer func() { done <- true }()
			for i := range 50 {
				in := inputs[(g+i)%len(inputs)]
				r1, err1 := DecodeRequest(in, Options{})
				r2, err2 := DecodeRequest(in, Options{})
				if (err1 == nil) != (err2 == nil) || (err1 == nil && !cmp.Equal(r1, r2)) {
					t.Errorf("two decodes of the same input differ")
					return
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
}

// TestEveryProblemAtOnce: a value of the wrong type no longer hides the
// problems behind it (a bad criterion, an unknown field, a bad enumeration);
// all are reported, sorted, each with its line and column, in JSON and in
// YAML alike.
func TestEveryProblemAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{{
		name: "json",
		in: `{
  "attempt": "2",
  "task": {
    "criteria": [
      {"text": "a", "weight": -1, "check": {"value": "x"}},
      {"id": "b", "must": "yes", "check": {"type": "contains"}}
    ]
  },
  "output": {"summry": "done", "summary": "done", "testResult": "green"}
}`,
		want: []string{
			"wrong_type r:2:14: attempt: got string, want integer",
			"invalid_value r:5:31: task.criteria[0].weight: must be a finite number >= 0, got -1",
			"missing r:5:44: task.criteria[0].check.type: a check needs a type",
			"wrong_type r:6:27: task.criteria[1].must: got string, want boolean",
			`unknown_field r:9:14: output.summry: unknown field (did you mean "summary"?)`,
			`invalid_value r:9:65: output.testResult: "green" is not one of "passed", "failed", "skipped"`,
		},
	}, {
		name: "yaml",
		in: `attempt: "2"
task:
  criteria:
    - text: a
      weight: -1
      check: {value: x}
    - id: b
      must: yes
      check: {type: contains}
output:
  summry: done
  summary: done
  testResult: green
`,
		want: []string{
			"wrong_type r:1:10: attempt: got string, want integer",
			"invalid_value r:5:15: task.criteria[0].weight: must be a finite number >= 0, got -1",
			"missing r:6:14: task.criteria[0].check.type: a check needs a type",
			"wrong_type r:8:13: task.criteria[1].must: got string, want boolean",
			`unknown_field r:11:3: output.summry: unknown field (did you mean "summary"?)`,
			`invalid_value r:13:15: output.testResult: "green" is not one of "passed", "failed", "skipped"`,
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range decodeErr(t, tc.in, Options{Name: "r"}) {
				got = append(got, string(e.Code)+" "+e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckProblemsListed: the problems of Options.Check are listed with
// decoding's, sorted, each with its line and column, even beside a value
// of the wrong type; one about a value decoding found at fault is left
// out; a valid request with a problem Check finds is refused.
func TestCheckProblemsListed(t *testing.T) {
	// check refuses every regex check, as the engine refuses one that
	// does not compile, and a criterion the decoder found at fault.
	check := func(r *vouch.Request) error {
		var errs vouch.Errors
		for i, c := range r.Task.Criteria {
			if c.Check != nil && c.Check.Type == "regex" {
				errs = append(errs, &vouch.Error{Code: vouch.ErrCriterion, Path: fmt.Sprintf("task.criteria[%d].check.pattern", i), Message: "bad pattern", Line: 99})
			}
			if c.Check != nil && c.Check.Type == "" {
				errs = append(errs, &vouch.Error{Code: vouch.ErrCriterion, Path: fmt.Sprintf("task.criteria[%d].check.type", i), Message: "the check needs a type"})
			}
		}
		if len(errs) == 0 {
			return nil
		}
		return errs
	}
	in := `attempt: two
task:
  criteria:
    - must: "yes"
      check: {type: regex, pattern: "(x"}
    - check: {pattern: x}
    - check:
        type: regex
        pattern: "[a"
output:
  summary: done
`
	var got []string
	for _, e := range decodeErr(t, in, Options{Name: "r", Check: check}) {
		got = append(got, string(e.Code)+" "+e.Error())
	}
	want := []string{
		"wrong_type r:1:10: attempt: got string, want integer",
		"wrong_type r:4:13: task.criteria[0].must: got string, want boolean",
		"bad_criterion r:5:37: task.criteria[0].check.pattern: bad pattern",
		"missing r:6:14: task.criteria[1].check.type: a check needs a type",
		"bad_criterion r:9:18: task.criteria[2].check.pattern: bad pattern",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}

	errs := decodeErr(t, `{"task": {"criteria": [{"check": {"type": "regex", "pattern": "(x"}}]}, "output": {"summary": ""}}`, Options{Check: check})
	if len(errs) != 1 || errs[0].Path != "task.criteria[0].check.pattern" || errs[0].Line != 1 || errs[0].Column != 63 {
		t.Errorf("a valid request with a bad criterion: %v", errs)
	}
	if _, err := DecodeRequest([]byte(minimal), Options{Check: check}); err != nil {
		t.Errorf("a request Check accepts: %v", err)
	}
}

// TestFollowOnProblemsLeftOut: a member present with the wrong type is not
// also reported missing, nor a range whose end is at fault inconsistent.
func TestFollowOnProblemsLeftOut(t *testing.T) {
	errs := decodeErr(t, `{"task": "x", "output": {"summary": null, "artifacts": {"fileEdits": [{"file": "a", "editedRegion": {"start": 3, "end": "4"}}]}}}`, Options{})
	var got []string
	for _, e := range errs {
		got = append(got, e.Path+": "+e.Message)
	}
	want := []string{
		"task: got string, want object",
		"output.summary: got null, want string",
		"output.artifacts.fileEdits[0].editedRegion.end: got string, want integer",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestUnknownFieldSuggestions(t *testing.T) {
	for _, tc := range []struct{ in, path, msg string }{
		{`{"task": {"critera": []}, "output": {"summary": ""}}`, "task.critera", `unknown field (did you mean "criteria"?)`},
		{`{"task": {}, "output": {"summary": "", "testresult": "passed"}}`, "output.testresult", `unknown field (did you mean "testResult"?)`},
		{"task: {}\noutput: {summary: x}\ntrace:\n  - tol: fs:read\n", "trace[0].tol", `unknown field (did you mean "tool"?)`},
		{`{"task": {}, "output": {"summary": ""}, "x": 1}`, "x", "unknown field (want one of apiVersion, id, kind, attempt, task, output, workspace, interactionId, target, base, trace, context)"},
	} {
		errs := decodeErr(t, tc.in, Options{})
		var found bool
		for _, e := range errs {
			if e.Path == tc.path {
				found = true
				if e.Code != vouch.ErrUnknownField || e.Message != tc.msg || e.Line == 0 {
					t.Errorf("%s: got %v [%s], want %q with a position", tc.in, e, e.Code, tc.msg)
				}
			}
		}
		if !found {
			t.Errorf("%s: no error at %s: %v", tc.in, tc.path, errs)
		}
	}
}

// TestJSONAndFlowYAML: JSON escapes that YAML lacks still read as JSON;
// flow-style YAML, which starts like JSON, reads as YAML.
func TestJSONAndFlowYAML(t *testing.T) {
	r := decodeOK(t, `{"task": {}, "output": {"summary": "a\/b \ud83d\ude00"}}`)
	if r.Output.Summary != "a/b 😀" {
		t.Errorf("summary %q", r.Output.Summary)
	}
	r = decodeOK(t, `{task: {goal: g}, output: {summary: done, created: [a.go]}}`)
	if r.Task.Goal != "g" || r.Output.Summary != "done" || len(r.Output.Created) != 1 {
		t.Errorf("flow YAML: %+v", r)
	}
	// Written as JSON (the first key quoted), malformed JSON is a JSON
	// error, not a YAML reading of it.
	errs := decodeErr(t, `{"task": {}, "output": {"summary": "",}}`, Options{})
	if errs[0].Code != vouch.ErrSyntax || !strings.Contains(errs[0].Message, "malformed JSON") {
		t.Errorf("malformed JSON: %v", errs[0])
	}
}
