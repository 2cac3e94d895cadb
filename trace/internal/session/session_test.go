package session

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestRecords(t *testing.T) {
	data := "\ufeff[\n  {\"a\": 1},\n  {\"b\": 2}\n]\n{\"c\": 3}\n\n  \"x\"\n"
	recs, err := Records([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	var values []string
	for _, r := range recs {
		lines = append(lines, r.Line)
		values = append(values, string(r.Value))
	}
	if !slices.Equal(lines, []int{2, 3, 5, 7}) || !slices.Equal(values, []string{`{"a": 1}`, `{"b": 2}`, `{"c": 3}`, `"x"`}) {
		t.Errorf("lines %v values %q", lines, values)
	}
	for _, tt := range []struct{ data, want string }{
		{"[{\"a\": 1},\n{\"b\": ", "line 2"},
		{"{\"a\": 1}\n{\"b\" 2}", "line 2, column 6"},
		{"[1, 2", "unexpected EOF"},
		{"[1 2]", "malformed JSON"},
	} {
		if _, err := Records([]byte(tt.data)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Records(%q): %v, want %q", tt.data, err, tt.want)
		}
	}
}

func TestScan(t *testing.T) {
	var got []string
	err := Scan([]byte(`{"a": {"b": [1, {"c": "x"}]}, "d": "y"}`+"\n"+`{"e": {"f": `), func(depth int, name string, kind jsontext.Kind, s string) bool {
		got = append(got, strings.Repeat(".", depth)+name+":"+string(rune(kind))+s)
		return true
	})
	want := []string{":{", ".a:{", "..b:[", "...:0", "...:{", "....c:\"x", ".d:\"y", ":{", ".e:{"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Scan: %v\n got %q\nwant %q", err, got, want)
	}
	if err := Scan([]byte(`{"a" 1}`), func(int, string, jsontext.Kind, string) bool { return true }); err == nil {
		t.Error("no error for malformed JSON")
	}
}

func TestArguments(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want map[string]any
	}{
		{`"{\"path\": \"a.go\"}"`, map[string]any{"path": "a.go"}},
		{`{"path": "a.go"}`, map[string]any{"path": "a.go"}},
		{`"{\"a\": 1, \"a\": 2}"`, map[string]any{"a": 2.0}},
		{`"ls -la"`, map[string]any{"arguments": "ls -la"}},
		{`"{truncated"`, map[string]any{"arguments": "{truncated"}},
		{`"[1, 2]"`, map[string]any{"arguments": "[1, 2]"}},
		{`[1, 2]`, map[string]any{"arguments": "[1, 2]"}},
		{`7`, map[string]any{"arguments": "7"}},
		{`""`, nil},
		{`"{}"`, nil},
		{`null`, nil},
		{``, nil},
	} {
		if got := Arguments(jsontext.Value(tt.raw)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Arguments(%s) = %#v, want %#v", tt.raw, got, tt.want)
		}
	}
}

func TestBuilder(t *testing.T) {
	var b Builder
	b.Prompt("Fix it")
	b.Say("Looking first.")
	b.Call("a", "bash", map[string]any{"command": "go test ./..."}, "")
	b.Call("b", "", nil, "")
	if k, fresh := b.Call("a", "other", nil, ""); fresh || k != 0 {
		t.Errorf("a duplicate id: %d %v", k, fresh)
	}
	b.Result("a", []byte(`"Exit code 2\nFAIL"`), Unflagged)
	b.Result("a", []byte(`"again"`), Failed)
	b.Result("nope", []byte(`"x"`), Failed)
	b.Call("c", "bash", map[string]any{"command": "make"}, "")
	b.Result("c", []byte(`"{\"output\": \"built\\n\", \"metadata\": {\"exit_code\": 0}}"`), Unflagged)
	b.Call("d", "bash", map[string]any{"command": "make lint"}, "")
	b.Result("d", []byte(`"clean"`), Succeeded)
	b.Prompt("Fix it")
	b.Prompt("  ")
	b.Say("Done.")
	b.Say("Done.")
	b.Say("Tests pass.")
	b.Model("m1")
	tr := b.Finish("test", map[string]any{"x": "y", "empty": ""})
	if len(tr.Trace) != 4 || tr.Trace[1].Tool != Unnamed {
		t.Fatalf("trace %+v", tr.Trace)
	}
	if a := tr.Trace[0]; !a.IsError || a.OutputText() != "Exit code 2\nFAIL" {
		t.Errorf("a: %+v", a)
	}
	if c := tr.Trace[2]; c.IsError || c.OutputText() != "<returncode>0</returncode>\n<output>\nbuilt\n</output>" {
		t.Errorf("c: %q", c.OutputText())
	}
	if tr.Output.Summary != "Done.\n\nTests pass." || tr.Goal != "Fix it" || tr.Executor.Model != "m1" {
		t.Errorf("summary %q goal %q", tr.Output.Summary, tr.Goal)
	}
	var codes []any
	for _, c := range tr.Output.Artifacts.CommandResults {
		if c.ExitCode == nil {
			codes = append(codes, nil)
		} else {
			codes = append(codes, *c.ExitCode)
		}
	}
	if !reflect.DeepEqual(codes, []any{2, 0, 0}) {
		t.Errorf("exit codes %v", codes)
	}
	if tr.Output.Metadata["source"] != "test" || tr.Output.Metadata["x"] != "y" || tr.Output.Metadata["empty"] != nil {
		t.Errorf("metadata %v", tr.Output.Metadata)
	}
}

func FuzzScan(f *testing.F) {
	f.Add([]byte(`{"a": {"b": [1, {"c": "x"}]}, "d": "y"}` + "\n" + `{"e": {"f": `))
	f.Add([]byte("\ufeff[\n{\"role\": \"user\"},\n]"))
	f.Add([]byte(`]]}}{"a":[}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		depth := -1
		_ = Scan(data, func(d int, name string, kind jsontext.Kind, s string) bool {
			if d < 0 || d > depth+1 {
				t.Fatalf("depth %d after %d", d, depth)
			}
			depth = d
			if kind == '}' || kind == ']' {
				t.Fatalf("a closing token reported")
			}
			return true
		})
		recs, err := Records(data)
		if err != nil {
			return
		}
		for _, r := range recs {
			if !r.Value.IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) || r.Line < 1 {
				t.Fatalf("record %d: line %d, value %q", r.Index, r.Line, r.Value)
			}
		}
	})
}
