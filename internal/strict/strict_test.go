package strict

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/vouchgate/vouch"
)

// doc is the test document type.
type doc struct {
	Name    string            `json:"name"`
	Count   int               `json:"count"`
	Small   int8              `json:"small"`
	Ratio   float64           `json:"ratio"`
	On      bool              `json:"on"`
	Tags    []string          `json:"tags"`
	Inner   *inner            `json:"inner"`
	Extra   map[string]any    `json:"extra"`
	Raw     jsontextValueLike `json:"raw"`
	Limit   limit             `json:"limit"`
	Weights map[string]float64
}

type inner struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// jsontextValueLike keeps JSON as written, like json.RawMessage.
type jsontextValueLike = jsontext.Value

// limit decodes itself, so it needs a Rule: a string or a number.
type limit struct{ s string }

func (l *limit) UnmarshalJSON(b []byte) error { l.s = string(b); return nil }

var testOptions = SchemaOptions{
	Rules: map[reflect.Type]Rule{
		reflect.TypeFor[limit](): {
			Want:  "limit",
			Forms: map[jsontext.Kind]reflect.Type{'"': nil, '0': reflect.TypeFor[int]()},
			Check: func(v jsontext.Value) []Problem {
				if v.Kind() == '"' && string(v) != `"none"` {
					return []Problem{{Code: vouch.ErrInvalid, Message: "only \"none\" or a number"}}
				}
				return nil
			},
		},
	},
}

var testSchema = NewSchema(reflect.TypeFor[doc](), testOptions)

func read(t *testing.T, in string, opt Options) *Doc {
	t.Helper()
	if opt.MaxBytes == 0 {
		opt.MaxBytes = 1 << 20
	}
	if opt.What == "" {
		opt.What = "test"
	}
	d, err := Parse([]byte(in), opt)
	if err != nil {
		t.Fatalf("Parse(%q): %v", in, err)
	}
	return d
}

// render writes errors one per line as "line:col path: [code] message".
func render(errs []*vouch.Error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, fmt.Sprintf("%d:%d %s: [%s] %s", e.Line, e.Column, e.Path, e.Code, e.Message))
	}
	return out
}

func TestFormat(t *testing.T) {
	for _, tt := range []struct {
		in   string
		yaml bool
		kind jsontext.Kind
	}{
		{`{"name": "x"}`, false, '{'},
		{" \n {}", false, '{'},
		{"\xef\xbb\xbf{\"name\": \"x\"}", false, '{'},
		{`[1, 2]`, false, '['},
		{`{name: x}`, true, '{'},
		{"{ # a comment\n name: x}", true, '{'},
		{"name: x\n", true, '{'},
		{"- a\n", true, '['},
		{"x\n", true, '"'},
		{"~\n", true, 'n'},
		{"12\n", true, '0'},
		{"", false, 0},
		{" \n", false, 0},
		{"# nothing\n", true, 0},
		{"---\n", true, 'n'},
	} {
		d := read(t, tt.in, Options{})
		if d.IsYAML() != tt.yaml || d.Kind() != tt.kind {
			t.Errorf("Parse(%q): yaml %v kind %q, want %v %q", tt.in, d.IsYAML(), d.Kind(), tt.yaml, tt.kind)
		}
	}
	// JSON only: a scalar is read for its kind; flow YAML is a JSON error.
	if d := read(t, "null", Options{JSON: true}); d.Kind() != 'n' || d.IsYAML() {
		t.Errorf("JSON null: kind %q", d.Kind())
	}
	for _, in := range []string{"{name: x}", "nope"} {
		if _, err := Parse([]byte(in), Options{MaxBytes: 100, JSON: true}); vouch.Code(err) != vouch.ErrSyntax {
			t.Errorf("JSON only, %q: %v", in, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		code     vouch.ErrorCode
		line     int
		msg      string
	}{
		{"too large", strings.Repeat("x", 101), vouch.ErrTooLarge, 0, "test is 101 bytes, over the limit of 100 bytes"},
		{"second document", "a: 1\n---\nb: 2\n", vouch.ErrSyntax, 2, "a test is one YAML document; found a second"},
		{"scanner error", "a: 1\nb: \"open\n", vouch.ErrSyntax, 2, "malformed YAML"},
		{"parser error names where the list starts", "a:\n  - x\n  y: [1\n", vouch.ErrSyntax, 2, "malformed YAML"},
		{"tab indentation", "a:\n\tb: 1\n", vouch.ErrSyntax, 2, "malformed YAML"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in), Options{What: "test", MaxBytes: 100})
			e, ok := err.(*vouch.Error)
			if !ok || e.Code != tt.code || e.Line != tt.line || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("got %v, want [%s] at line %d: …%s…", err, tt.code, tt.line, tt.msg)
			}
		})
	}
}

func TestLimits(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for _, c := range "bcdefg" {
		prev := string(c - 1)
		bomb += fmt.Sprintf("%c: &%c [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", c, c, prev, prev, prev, prev, prev, prev, prev, prev, prev, prev)
	}
	for _, tt := range []struct {
		name, in string
		opt      Options
		msg      string
	}{
		{"values", bomb, Options{}, "YAML holds more than 1048576 values once aliases are expanded (expanding alias *e)"},
		{"values, set", bomb, Options{MaxNodes: 500}, "more than 500 values"},
		{"bytes", bomb, Options{MaxJSONBytes: 2000}, "more than 2000 bytes of JSON"},
		{"depth", "a: " + strings.Repeat("[", 60) + strings.Repeat("]", 60) + "\n", Options{MaxDepth: 50}, "nested more than 50 levels"},
		{"merges", "m0: &m0 {a: 1, b: 2}\n" + mergeBomb(30), Options{MaxNodes: 10000}, "more than 10000 values"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.opt.What, tt.opt.MaxBytes = "test", 1<<20
			_, err := Parse([]byte(tt.in), tt.opt)
			if vouch.Code(err) != vouch.ErrTooLarge || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %v, want too_large: …%s…", err, tt.msg)
			}
		})
	}
}

func mergeBomb(n int) string {
	var b strings.Builder
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "m%d: &m%d {<<: [*m%d, *m%d, *m%d]}\n", i, i, i-1, i-1, i-1)
	}
	return b.String()
}

// TestEveryProblemJSON: every problem of a JSON document at once, sorted,
// each with its line and column; unknown keys with a suggestion.
func TestEveryProblemJSON(t *testing.T) {
	in := `{
  "nme": "x",
  "count": 1.5,
  "small": 300,
  "ratio": 1e400,
  "on": "yes",
  "tags": ["a", 2, null],
  "inner": {"start": "1", "finish": 2},
  "extra": {"n": null, "big": 1e999},
  "raw": {"anything": [1e999, null]},
  "limit": "some",
  "Weights": {"a": null}
}`
	d := read(t, in, Options{})
	var v doc
	if testSchema.Decode(d, &v) == nil {
		t.Fatal("Decode gave up on a readable document")
	}
	want := []string{
		`2:3 nme: [unknown_field] unknown field (did you mean "name"?)`,
		`3:12 count: [wrong_type] got a number with a fraction or an exponent, want integer`,
		`4:12 small: [invalid_value] 300 is out of range`,
		`5:12 ratio: [invalid_value] 1e400 is out of range`,
		`6:9 on: [wrong_type] got string, want boolean`,
		`7:17 tags[1]: [wrong_type] got number, want string`,
		`7:20 tags[2]: [wrong_type] got null, want string`,
		`8:22 inner.start: [wrong_type] got string, want integer`,
		`8:27 inner.finish: [unknown_field] unknown field (want one of start, end)`,
		`9:31 extra.big: [invalid_value] 1e999 is out of range`,
		`11:12 limit: [invalid_value] only "none" or a number`,
		`12:20 Weights.a: [wrong_type] got null, want number`,
	}
	if diff := cmp.Diff(want, render(d.Errors())); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	// What was right is decoded, what was wrong left out.
	if v.Name != "" || v.Inner == nil || v.Inner.End != 0 || !reflect.DeepEqual(v.Tags, []string{"a", "", ""}) {
		t.Errorf("decoded %+v", v)
	}
}

// TestEveryProblemYAML: the same for YAML, positions in the YAML, values
// shown as written.
func TestEveryProblemYAML(t *testing.T) {
	in := `name: x
count: 0x1F
nmae: y
on: .inf
tags: [a, 0x10, ~]
inner:
  <<: {start: 1, end: 2, stop: 3}
  end: 4
  end: 5
extra: {a: &x [1, *x]}
Weights: [1]
`
	d := read(t, in, Options{})
	var v doc
	NewSchema(reflect.TypeFor[doc](), SchemaOptions{YAMLWords: true, NullHint: " (leave it out)", Rules: testOptions.Rules}).Decode(d, &v)
	want := []string{
		`3:1 nmae: [unknown_field] unknown field (did you mean "name"?)`,
		`4:5 on: [invalid_value] ".inf" is not a finite number`,
		`5:11 tags[1]: [wrong_type] got number 0x10, want string (quote it: "0x10")`,
		`5:17 tags[2]: [wrong_type] got null, want string (leave it out)`,
		`7:26 inner.stop: [unknown_field] unknown field (want one of start, end)`,
		`9:3 inner.end: [invalid_value] duplicate key (first at line 8)`,
		`10:19 extra.a[1][1]: [invalid_value] alias *x refers to a value that contains it`,
		`11:10 Weights: [wrong_type] got list, want mapping`,
	}
	if diff := cmp.Diff(want, render(d.Errors())); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if v.Count != 31 || v.Inner == nil || v.Inner.Start != 1 || v.Inner.End != 4 {
		t.Errorf("decoded %+v %+v", v, v.Inner)
	}
}

// TestReport: problems found after decoding are listed with the others,
// located by their path, unless they follow from a value at fault.
func TestReport(t *testing.T) {
	in := "{\n \"count\": \"x\",\n \"inner\": {\"start\": \"a\", \"end\": 1},\n \"tags\": [\"\"]\n}"
	d := read(t, in, Options{})
	var v doc
	if testSchema.Decode(d, &v) == nil {
		t.Fatal("Decode gave up")
	}
	for _, e := range []*vouch.Error{
		{Code: vouch.ErrInvalid, Path: "count", Message: "must be positive"},             // the value at fault: dropped
		{Code: vouch.ErrInvalid, Path: "inner", Message: "start (0) > end (1)"},          // around it: dropped
		{Code: vouch.ErrMissing, Path: "tags[0]", Message: "a tag must not be empty"},    // elsewhere: kept
		{Code: vouch.ErrMissing, Path: "inner.label", Message: "an inner needs a label"}, // absent: at its parent
		{Code: vouch.ErrMissing, Path: "name", Message: "a name is needed"},              // absent: at the root
	} {
		d.Report(e)
	}
	want := []string{
		`1:1 name: [missing] a name is needed`,
		`2:11 count: [wrong_type] got string, want integer`,
		`3:11 inner.label: [missing] an inner needs a label`,
		`3:21 inner.start: [wrong_type] got string, want integer`,
		`4:11 tags[0]: [missing] a tag must not be empty`,
	}
	if diff := cmp.Diff(want, render(d.Errors())); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestMaxProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"tags": [`)
	for i := range 250 {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("1")
	}
	b.WriteString("]}")
	d := read(t, b.String(), Options{})
	testSchema.Decode(d, new(doc))
	errs := d.Errors()
	if len(errs) != MaxProblems+1 || d.Problems() != 250 {
		t.Fatalf("%d errors listed, %d problems", len(errs), d.Problems())
	}
	for i, e := range errs[:MaxProblems] {
		if e.Line != i+1 {
			t.Fatalf("error %d at line %d", i, e.Line)
		}
	}
	if last := errs[MaxProblems]; last.Code != vouch.ErrTooLarge || last.Message != "150 more problems not listed" || last.Line != 0 {
		t.Errorf("last error %v", last)
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, tt := range []struct {
		in, at, msg string
	}{
		{"{\"name\": \"x\",\n \"count\": 1,,\n}", "2:13 ", "malformed JSON"},
		{`{"name": "x", "name": "y"}`, "1:15 name", "duplicate key"},
		{`{"name": "x"} {}`, "1:15 ", "after top-level value"},
		{`{"name": "x"`, "1:13 ", "unexpected EOF"},
		{`{"extra": {"a": 1, "a": 2}}`, "1:20 extra.a", "duplicate key"},
	} {
		d := read(t, tt.in, Options{})
		if testSchema.Decode(d, new(doc)) != nil {
			t.Errorf("%s: decoded", tt.in)
		}
		errs := d.Errors()
		last := errs[len(errs)-1]
		if got := fmt.Sprintf("%d:%d %s", last.Line, last.Column, last.Path); got != tt.at || !strings.Contains(last.Message, tt.msg) {
			t.Errorf("%s: got %s: %s, want %s: …%s…", tt.in, got, last.Message, tt.at, tt.msg)
		}
	}
}

// TestEscapes: JSON escapes that YAML does not have decode as JSON, and a
// schema that is Canonical writes strings with the fewest escapes.
func TestEscapes(t *testing.T) {
	in := `{"name": "a\/b \ud83d\ude00 \u00e9", "tags": ["\u0074ag"], "raw": {"k": "\u2028", "n": -0.0, "m": 1E2, "i": 10}}`
	var v doc
	d := read(t, in, Options{})
	if testSchema.Decode(d, &v) == nil || d.Problems() != 0 {
		t.Fatalf("errors: %v", d.Errors())
	}
	if v.Name != "a/b 😀 é" || v.Tags[0] != "tag" || string(v.Raw) != `{"k": "\u2028", "n": -0.0, "m": 1E2, "i": 10}` {
		t.Errorf("decoded %q %q %s", v.Name, v.Tags, v.Raw)
	}
	canon := NewSchema(reflect.TypeFor[doc](), SchemaOptions{Canonical: true, Rules: testOptions.Rules})
	d = read(t, in, Options{})
	out := canon.Decode(d, new(doc))
	want := "{\"name\":\"a/b 😀 é\",\"tags\":[\"tag\"],\"raw\":{\"k\":\"\u2028\",\"n\":0,\"m\":100,\"i\":10}}"
	if string(out) != want {
		t.Errorf("canonical:\n got %s\nwant %s", out, want)
	}
	// The YAML of the same document gives the same canonical JSON.
	d = read(t, "name: \"a/b \\U0001F600 é\"\ntags: [tag]\nraw: {k: \"\\u2028\", n: -0.0, m: 1E2, i: 0xA}\n", Options{})
	if out := canon.Decode(d, new(doc)); string(out) != want {
		t.Errorf("canonical from YAML:\n got %s\nwant %s", out, want)
	}
}

func TestLookup(t *testing.T) {
	for _, tt := range []struct {
		in, path string
		key, val Pos
		ok       bool
	}{
		{"{\n  \"inner\": {\"start\": 1}\n}", "inner.start", Pos{2, 13}, Pos{2, 22}, true},
		{"{\n  \"inner\": {\"start\": 1}\n}", "inner", Pos{2, 3}, Pos{2, 12}, true},
		{"{\n  \"tags\": [\"a\", \"b\"]\n}", "tags[1]", Pos{2, 17}, Pos{2, 17}, true},
		{"{\n  \"tags\": [\"a\", \"b\"]\n}", "", Pos{1, 1}, Pos{1, 1}, true},
		{"{\n  \"tags\": [\"a\", \"b\"]\n}", "tags[2]", Pos{}, Pos{}, false},
		{"inner:\n  start: 1\n", "inner.start", Pos{2, 3}, Pos{2, 10}, true},
		{"base: &b {start: 1}\ninner:\n  <<: *b\n", "inner.start", Pos{1, 11}, Pos{1, 18}, true},
		{"base: &b [x]\ntags: *b\n", "tags", Pos{2, 1}, Pos{2, 7}, true},
		{"base: &b [x]\ntags: *b\n", "tags[0]", Pos{1, 11}, Pos{1, 11}, true},
		{"\"ké\": {\"é\": 1}\n", "ké.é", Pos{1, 8}, Pos{1, 13}, true},
	} {
		key, val, ok := read(t, tt.in, Options{}).Lookup(tt.path)
		if key != tt.key || val != tt.val || ok != tt.ok {
			t.Errorf("Lookup(%q) in %q = %v %v %v, want %v %v %v", tt.path, tt.in, key, val, ok, tt.key, tt.val, tt.ok)
		}
	}
}

func TestMembers(t *testing.T) {
	if got := read(t, `{"b": 1, "a": {"c": 2}}`, Options{}).Members(); !reflect.DeepEqual(got, []string{"b", "a"}) {
		t.Errorf("Members = %q", got)
	}
	if got := read(t, "- 1\n", Options{}).Members(); got != nil {
		t.Errorf("Members of a list = %q", got)
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"passAt", "failBelow", "claims", "id"}
	for name, want := range map[string]string{
		"passat":    ` (did you mean "passAt"?)`,
		"pasAt":     ` (did you mean "passAt"?)`,
		"failbelw":  ` (did you mean "failBelow"?)`,
		"nmae":      " (want one of passAt, failBelow, claims, id)",
		"calims":    ` (did you mean "claims"?)`,
		"claim":     ` (did you mean "claims"?)`,
		"a":         " (want one of passAt, failBelow, claims, id)",
		"ID":        ` (did you mean "id"?)`,
		"something": " (want one of passAt, failBelow, claims, id)",
	} {
		if got := suggest(name, known); got != want {
			t.Errorf("suggest(%q) = %q, want %q", name, got, want)
		}
	}
	if got := suggest("x", nil); got != "" {
		t.Errorf("Suggest with nothing known = %q", got)
	}
}

func TestNoRulePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewSchema accepted a type that decodes itself without a Rule")
		}
	}()
	NewSchema(reflect.TypeFor[struct{ L limit }](), SchemaOptions{})
}

// TestConcurrentLookup: lookups may run concurrently (a policy layer is
// applied by several goroutines); run with -race.
func TestConcurrentLookup(t *testing.T) {
	d := read(t, "{\n \"inner\": {\"start\": 1},\n \"tags\": [\"a\"]\n}", Options{})
	done := make(chan Pos)
	for range 4 {
		go func() {
			_, val, _ := d.Lookup("inner.start")
			done <- val
		}()
	}
	for range 4 {
		if val := <-done; val != (Pos{2, 21}) {
			t.Errorf("Lookup = %v", val)
		}
	}
}
