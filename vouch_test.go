package vouch_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strconv"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

// TestCatalogueComplete parses the package and checks that every check and
// warning code constant, and every error code, is in the catalogue once.
func TestCatalogueComplete(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var consts []string
	for _, f := range pkgs["vouch"].Files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for i, name := range vs.Names {
					isCode := strings.HasPrefix(name.Name, "Code") && name.Name != "CodeCheck" && name.Name != "CodeWarning" && name.Name != "CodeError"
					isErr := strings.HasPrefix(name.Name, "Err") && vs.Type != nil && types(vs.Type) == "ErrorCode"
					if !isCode && !isErr || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok {
						continue
					}
					v, _ := strconv.Unquote(lit.Value)
					consts = append(consts, v)
				}
			}
		}
	}
	if len(consts) < 30 {
		t.Fatalf("found only %d code constants; the parse is wrong", len(consts))
	}
	seen := map[string]int{}
	for _, c := range vouch.Codes() {
		seen[c.Code]++
		if c.Meaning == "" {
			t.Errorf("code %s has no meaning", c.Code)
		}
	}
	for code, n := range seen {
		if n > 1 {
			t.Errorf("code %s is listed %d times", code, n)
		}
	}
	for _, c := range consts {
		if seen[c] == 0 {
			t.Errorf("code %s is not in the catalogue", c)
		}
		if _, ok := vouch.LookupCode(c); !ok {
			t.Errorf("LookupCode(%s) missed", c)
		}
	}
}

func types(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func TestDefaultPolicyValid(t *testing.T) {
	p := vouch.DefaultPolicy()
	if err := p.Validate(); err != nil {
		t.Fatalf("default policy invalid: %v", err)
	}
	for _, k := range vouch.Kinds {
		sum := 0.0
		for _, d := range vouch.Dimensions(k) {
			sum += p.Weight(k, d)
		}
		if sum < 0.999 || sum > 1.001 {
			t.Errorf("kind %s: default weights sum to %v", k, sum)
		}
	}
}

func TestPolicyValidate(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(p *vouch.Policy)
		paths []string
	}{
		{"passAt over 1", func(p *vouch.Policy) { p.PassAt = 1.5 }, []string{"passAt"}},
		{"failBelow over passAt", func(p *vouch.Policy) { p.FailBelow = 0.8 }, []string{"failBelow"}},
		{"negative retries", func(p *vouch.Policy) { p.MaxRetries = -1 }, []string{"maxRetries"}},
		{"unknown kind", func(p *vouch.Policy) { p.Weights["essay"] = map[string]float64{"x": 1} }, []string{"weights.essay"}},
		{"unknown dimension", func(p *vouch.Policy) { p.Weights[vouch.KindSubtask]["style"] = 1 }, []string{"weights.subtask.style"}},
		{"all zero", func(p *vouch.Policy) {
			p.Weights[vouch.KindModeration] = map[string]float64{"coverage": 0, "faithfulness": 0}
		}, []string{"weights.moderation"}},
		{"empty argv", func(p *vouch.Policy) {
			p.Commands.Allow = []vouch.CommandRule{vouch.NewCommandRule(), vouch.NewCommandRule("go", "")}
		}, []string{"commands.allow[0]", "commands.allow[1].run[1]"}},
		{"zero timeout", func(p *vouch.Policy) { p.Commands.Timeout = 0 }, []string{"commands.timeout"}},
		{"bad plugin schema", func(p *vouch.Policy) { p.PluginSchemas = map[string]json.RawMessage{"t": json.RawMessage("{")} }, []string{"pluginSchemas.t"}},
		{"samples", func(p *vouch.Policy) { p.Judge.Samples = 0 }, []string{"judge.samples"}},
		{"promote after none", func(p *vouch.Policy) { p.Memory.PromoteAfter = 0 }, []string{"memory.promoteAfter"}},
	}
	for _, tt := range tests {
		p := vouch.DefaultPolicy()
		tt.edit(&p)
		err := p.Validate()
		list := vouch.ErrorList(err)
		if len(list) != len(tt.paths) {
			t.Errorf("%s: got %d errors (%v), want %d", tt.name, len(list), err, len(tt.paths))
			continue
		}
		for i, e := range list {
			if e.Path != tt.paths[i] || e.Code != vouch.ErrInvalid {
				t.Errorf("%s: error %d = %s %q, want invalid_value %q", tt.name, i, e.Code, e.Path, tt.paths[i])
			}
		}
	}
}

func TestErrorFormat(t *testing.T) {
	e := &vouch.Error{Code: vouch.ErrUnknownField, Path: "task.x", Message: "unknown field", File: "r.yaml", Line: 3, Column: 5}
	if got, want := e.Error(), "r.yaml:3:5: task.x: unknown field"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	wrapped := vouch.WithPrefix("task.criteria[1].check", &vouch.Error{Code: vouch.ErrCriterion, Path: "pattern", Message: "bad"})
	if l := vouch.ErrorList(wrapped); l[0].Path != "task.criteria[1].check.pattern" {
		t.Errorf("WithPrefix path = %q", l[0].Path)
	}
	if vouch.Code(nil) != "" || vouch.Code(strconvErr()) != vouch.ErrInternal {
		t.Error("Code of nil or a foreign error is wrong")
	}
	if vouch.JoinPath("a", "[2]") != "a[2]" || vouch.JoinPath("", "b") != "b" || vouch.JoinPath("a", "b") != "a.b" {
		t.Error("JoinPath")
	}
}

func strconvErr() error { _, err := strconv.Atoi("x"); return err }

// TestOutputTextMatchesJSON holds the fast unquoting of trace outputs to
// encoding/json's.
func TestOutputTextMatchesJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "a\nb\tc\r", `q"uote\back/slash`, "\u00e9\u4e16 \U0001F600", "\x01\x1f", "\b\f", "bad \xff byte"} {
		raw, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		e := vouch.TraceEntry{Output: raw}
		var want string
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if got := e.OutputText(); got != want {
			t.Errorf("OutputText(%s) = %q, want %q", raw, got, want)
		}
	}
	for _, raw := range []string{`"\ud83d\ude00"`, `"\ud83d x"`, `"\u00E9"`, `"a\/b"`} {
		e := vouch.TraceEntry{Output: json.RawMessage(raw)}
		var want string
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		if got := e.OutputText(); got != want {
			t.Errorf("OutputText(%s) = %q, want %q", raw, got, want)
		}
	}
}
