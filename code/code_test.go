package code

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// describe renders symbols compactly for comparison:
// "kind Qualified.name start-end [doc a-b] [exported]".
func describe(t *testing.T, syms []Symbol) []string {
	t.Helper()
	out := []string{}
	for _, s := range syms {
		if s.HasDoc != (s.DocStart > 0) || (s.HasDoc && s.DocEnd < s.DocStart) || (!s.HasDoc && s.DocEnd != 0) {
			t.Errorf("%s: HasDoc %v with doc lines %d-%d", s.QualifiedName(), s.HasDoc, s.DocStart, s.DocEnd)
		}
		d := fmt.Sprintf("%s %s %d-%d", s.Kind, s.QualifiedName(), s.Start, s.End)
		if s.HasDoc {
			d += fmt.Sprintf(" doc %d-%d", s.DocStart, s.DocEnd)
		}
		if s.Exported {
			d += " exported"
		}
		out = append(out, d)
	}
	return out
}

var sample = &File{Lang: LangTypeScript, Symbols: []Symbol{
	{Name: "parse", Kind: KindFunction, Start: 5, End: 9, DocStart: 1, DocEnd: 4, HasDoc: true, Exported: true},
	{Name: "Parser", Kind: KindClass, Start: 11, End: 30, Exported: true},
	{Name: "parse", Kind: KindMethod, Receiver: "Parser", Start: 15, End: 20, DocStart: 12, DocEnd: 14, HasDoc: true, Exported: true},
	{Name: "reset", Kind: KindMethod, Receiver: "Parser", Start: 22, End: 29, Exported: true},
	{Name: "#secret", Kind: KindMethod, Receiver: "Parser", Start: 29, End: 29},
	{Name: "format", Kind: KindConst, Start: 32, End: 32},
}}

func TestQualifiedName(t *testing.T) {
	if got := sample.Symbols[0].QualifiedName(); got != "parse" {
		t.Errorf("function: %q", got)
	}
	if got := sample.Symbols[2].QualifiedName(); got != "Parser.parse" {
		t.Errorf("method: %q", got)
	}
	if got := sample.Symbols[2].String(); got != "method Parser.parse (lines 15-20)" {
		t.Errorf("String: %q", got)
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		name string
		want []string
	}{
		{"parse", []string{"function parse 5-9 doc 1-4 exported", "method Parser.parse 15-20 doc 12-14 exported"}},
		{"Parser.parse", []string{"method Parser.parse 15-20 doc 12-14 exported"}},
		{"Parser", []string{"class Parser 11-30 exported"}},
		{"reset()", []string{"method Parser.reset 22-29 exported"}},
		{" Parser.reset() ", []string{"method Parser.reset 22-29 exported"}},
		{"(*Parser).reset", []string{"method Parser.reset 22-29 exported"}},
		{"(Parser).reset", []string{"method Parser.reset 22-29 exported"}},
		{"Parser#reset", []string{"method Parser.reset 22-29 exported"}},
		{"#secret", []string{"method Parser.#secret 29-29"}},
		{"Parser.#secret", []string{"method Parser.#secret 29-29"}},
		{"format", []string{"const format 32-32"}},
		{"Other.parse", []string{}},
		{"pars", []string{}},
		{"", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, describe(t, sample.Lookup(tt.name))); diff != "" {
				t.Errorf("Lookup(%q) (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

func TestInRegion(t *testing.T) {
	tests := []struct {
		start, end int
		want       []string
	}{
		// The doc comment alone: the function it documents.
		{1, 4, []string{"function parse 5-9 doc 1-4 exported"}},
		{9, 9, []string{"function parse 5-9 doc 1-4 exported"}},
		{10, 10, []string{}},
		// A method's doc comment is inside its class.
		{13, 13, []string{"class Parser 11-30 exported", "method Parser.parse 15-20 doc 12-14 exported"}},
		{29, 29, []string{"class Parser 11-30 exported", "method Parser.reset 22-29 exported", "method Parser.#secret 29-29"}},
		{31, 100, []string{"const format 32-32"}},
		{0, 0, []string{}},
		{5, 4, []string{}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d-%d", tt.start, tt.end), func(t *testing.T) {
			if diff := cmp.Diff(tt.want, describe(t, sample.InRegion(tt.start, tt.end))); diff != "" {
				t.Errorf("InRegion(%d, %d) (-want +got):\n%s", tt.start, tt.end, diff)
			}
		})
	}
}

func TestExtent(t *testing.T) {
	if s, e := sample.Symbols[0].Extent(); s != 1 || e != 9 {
		t.Errorf("with doc: %d-%d", s, e)
	}
	if s, e := sample.Symbols[1].Extent(); s != 11 || e != 30 {
		t.Errorf("without doc: %d-%d", s, e)
	}
	// A Python docstring is inside the declaration.
	py := Symbol{Start: 3, End: 9, DocStart: 4, DocEnd: 5, HasDoc: true}
	if s, e := py.Extent(); s != 3 || e != 9 {
		t.Errorf("docstring: %d-%d", s, e)
	}
}

// This package's tests do not import code/treesitter: only Go has a
// parser, as in a build without cgo.
func TestForPathWithoutTreeSitter(t *testing.T) {
	tests := []struct {
		path, lang string
		ok         bool
	}{
		{"main.go", LangGo, true},
		{"pkg/DIR/Main.GO", LangGo, true},
		{"x.ts", LangTypeScript, false},
		{"src/app.tsx", LangTypeScript, false},
		{"x.mts", LangTypeScript, false},
		{"x.cts", LangTypeScript, false},
		{"types.d.ts", LangTypeScript, false},
		{"x.js", LangJavaScript, false},
		{"x.jsx", LangJavaScript, false},
		{"x.mjs", LangJavaScript, false},
		{"x.cjs", LangJavaScript, false},
		{"x.py", LangPython, false},
		{"x.pyi", LangPython, false},
		{"README", "", false},
		{"notes.txt", "", false},
		{".go", LangGo, true},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			lang, p, ok := ForPath(tt.path)
			if lang != tt.lang || ok != tt.ok || (p != nil) != tt.ok {
				t.Errorf("ForPath(%q) = %q, %v, %v; want %q, ok %v", tt.path, lang, p, ok, tt.lang, tt.ok)
			}
			_, err := Parse(context.Background(), tt.path, []byte("package x\n"))
			if tt.ok != (err == nil) {
				t.Errorf("Parse(%q): %v", tt.path, err)
			}
			if !tt.ok && !errors.Is(err, ErrUnsupported) {
				t.Errorf("Parse(%q) = %v, want ErrUnsupported", tt.path, err)
			}
		})
	}
	for _, lang := range Languages() {
		if lang == LangTypeScript || lang == LangJavaScript || lang == LangPython {
			t.Errorf("Languages() = %v: %s has a parser", Languages(), lang)
		}
	}
}

var registerOnce sync.Once

type nopParser struct{}

func (nopParser) Parse(context.Context, string, []byte) (*File, error) { return &File{}, nil }

func TestRegisterPanics(t *testing.T) {
	registerOnce.Do(func() { Register("test-ok", []string{".ZZOK"}, nopParser{}) })
	if lang, _, ok := ForPath("a.zzok"); !ok || lang != "test-ok" {
		t.Errorf("registered extension: %q %v", lang, ok)
	}
	tests := []struct {
		name string
		lang string
		exts []string
		p    Parser
	}{
		{"empty language", "", []string{".zz1"}, nopParser{}},
		{"nil parser", "test-nil", []string{".zz2"}, nil},
		{"no extensions", "test-noext", nil, nopParser{}},
		{"no dot", "test-nodot", []string{"zz3"}, nopParser{}},
		{"duplicate language", "test-ok", []string{".zz4"}, nopParser{}},
		{"extension of another language", "test-conflict", []string{".zzok"}, nopParser{}},
		{"go again", LangGo, []string{".go"}, nopParser{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Register did not panic")
				}
			}()
			Register(tt.lang, tt.exts, tt.p)
		})
	}
}

func TestSyntaxError(t *testing.T) {
	err := error(&SyntaxError{Path: "a.go", Line: 3, Column: 7, Msg: "expected ';'"})
	if !errors.Is(err, ErrSyntax) {
		t.Error("SyntaxError does not wrap ErrSyntax")
	}
	if got, want := err.Error(), "a.go:3:7: syntax error: expected ';'"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestIndexMatchesScan: Lookup and InRegion, which use an index, find
// exactly what a scan of every symbol finds, on random files.
func TestIndexMatchesScan(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	names := []string{"a", "b", "parse", "P", "Q"}
	for trial := range 200 {
		f := &File{}
		line := 1
		for range r.Intn(30) {
			s := Symbol{Name: names[r.Intn(len(names))], Start: line + r.Intn(3)}
			s.End = s.Start + r.Intn(40)
			if r.Intn(2) == 0 {
				s.Receiver = names[r.Intn(len(names))]
			}
			if r.Intn(3) == 0 {
				s.DocStart, s.DocEnd = max(1, s.Start-2), s.Start-1
			}
			line = s.Start + r.Intn(5)
			f.Symbols = append(f.Symbols, s)
		}
		for _, n := range append(names, "P.a", "Q.parse", "a()", "(*P).b") {
			var want []Symbol
			nn := normalizeName(n)
			for _, s := range f.Symbols {
				if s.Name == nn || s.Receiver != "" && s.QualifiedName() == nn {
					want = append(want, s)
				}
			}
			if got := f.Lookup(n); !reflect.DeepEqual(got, want) {
				t.Fatalf("trial %d: Lookup(%q) = %v, want %v", trial, n, got, want)
			}
		}
		for range 20 {
			start := r.Intn(line + 10)
			end := start + r.Intn(20) - 3
			var want []Symbol
			if start <= end {
				for _, s := range f.Symbols {
					if from, to := s.Extent(); from <= end && to >= start {
						want = append(want, s)
					}
				}
			}
			if got := f.InRegion(start, end); !reflect.DeepEqual(got, want) {
				t.Fatalf("trial %d: InRegion(%d, %d) = %v, want %v", trial, start, end, got, want)
			}
		}
	}
}
