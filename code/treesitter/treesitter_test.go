//go:build cgo

package treesitter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vouchgate/vouch/code"
)

func TestAvailable(t *testing.T) {
	if !Available {
		t.Fatal("Available is false in a cgo build")
	}
	want := []string{code.LangGo, code.LangJavaScript, code.LangPython, code.LangTypeScript}
	if diff := cmp.Diff(want, code.Languages()); diff != "" {
		t.Errorf("Languages (-want +got):\n%s", diff)
	}
}

// TestDocCommentsClaim is the design's worked example: the task names four
// functions, the agent documented one.
func TestDocCommentsClaim(t *testing.T) {
	names := []string{"parse", "tokenize", "format", "validate"}
	for _, tt := range []struct {
		name       string
		src        string
		documented []string
	}{
		{"one of four", parserOnlyParse, []string{"parse"}},
		{"all four", parserAllFour, names},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := code.Parse(context.Background(), "src/parser.ts", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			var documented []string
			for _, name := range names {
				syms := f.Lookup(name)
				if len(syms) != 1 {
					t.Fatalf("Lookup(%q) = %v", name, syms)
				}
				if !syms[0].Exported || syms[0].Kind != code.KindFunction {
					t.Errorf("%s: %+v", name, syms[0])
				}
				if syms[0].HasDoc {
					documented = append(documented, name)
				}
			}
			if diff := cmp.Diff(tt.documented, documented); diff != "" {
				t.Errorf("documented (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLookupAndInRegionParsed(t *testing.T) {
	src := `/** Parses. */
export function parse(src: string) {}

export class Parser {
  /**
   * Parses with state.
   */
  parse(): void {}

  reset(): void {}
}
`
	f, err := code.Parse(context.Background(), "src/parser.ts", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	lookups := map[string][]string{
		"parse":         {"function parse 2-2 doc 1-1 exported", "method Parser.parse 8-8 doc 5-7 exported"},
		"Parser.parse":  {"method Parser.parse 8-8 doc 5-7 exported"},
		"Parser#reset":  {"method Parser.reset 10-10 exported"},
		"Parser":        {"class Parser 4-11 exported"},
		"Parser.format": {},
	}
	for name, want := range lookups {
		if diff := cmp.Diff(want, describe(t, f.Lookup(name))); diff != "" {
			t.Errorf("Lookup(%q) (-want +got):\n%s", name, diff)
		}
	}
	regions := []struct {
		start, end int
		want       []string
	}{
		// The edit that added the first JSDoc block: the function it documents.
		{1, 1, []string{"function parse 2-2 doc 1-1 exported"}},
		// The edit that added the method's JSDoc block.
		{5, 7, []string{"class Parser 4-11 exported", "method Parser.parse 8-8 doc 5-7 exported"}},
		{3, 3, []string{}},
		{9, 10, []string{"class Parser 4-11 exported", "method Parser.reset 10-10 exported"}},
	}
	for _, r := range regions {
		if diff := cmp.Diff(r.want, describe(t, f.InRegion(r.start, r.end))); diff != "" {
			t.Errorf("InRegion(%d, %d) (-want +got):\n%s", r.start, r.end, diff)
		}
	}
}

// TestConcurrentParse parses the same files from many goroutines: run it
// with -race. Every result must equal the sequential one.
func TestConcurrentParse(t *testing.T) {
	files := map[string][]byte{
		"src/parser.ts":  []byte(parserOnlyParse),
		"src/all.ts":     []byte(parserAllFour),
		"src/bench.ts":   mustRead(t, "testdata/bench.ts"),
		"src/App.tsx":    []byte("/** App. */\nexport const App = () => <div />;\n"),
		"lib/index.js":   []byte("/** F. */\nfunction f() {}\nmodule.exports = { f };\n"),
		"pkg/bench.py":   mustRead(t, "testdata/bench.py"),
		"pkg/broken.py":  []byte("def bad(:\n    pass\n"),
		"cmd/main.go":    []byte("package main\n\n// Main runs.\nfunc Main() {}\n"),
		"notes/readme.x": []byte("nothing"),
	}
	want := map[string]string{}
	for path, src := range files {
		want[path] = result(code.Parse(context.Background(), path, src))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 16 {
		wg.Go(func() {
			paths := make([]string, 0, len(files))
			for p := range files {
				paths = append(paths, p)
			}
			slices.Sort(paths)
			for i := range 20 {
				p := paths[(g+i)%len(paths)]
				if got := result(code.Parse(context.Background(), p, files[p])); got != want[p] {
					select {
					case errs <- fmt.Sprintf("%s: got %s, want %s", p, got, want[p]):
					default:
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func result(f *code.File, err error) string {
	if f == nil {
		return fmt.Sprintf("nil file, %v", err)
	}
	return fmt.Sprintf("%s %+v %v", f.Lang, f.Symbols, err)
}

func mustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func benchmarkParse(b *testing.B, path, file string, symbols int) {
	src := mustRead(b, file)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		f, err := code.Parse(context.Background(), path, src)
		if err != nil {
			b.Fatal(err)
		}
		if len(f.Symbols) != symbols {
			b.Fatalf("%d symbols, want %d", len(f.Symbols), symbols)
		}
	}
}

// BenchmarkParseTS parses a 209-line TypeScript module.
func BenchmarkParseTS(b *testing.B) { benchmarkParse(b, "src/bench.ts", "testdata/bench.ts", 18) }

// BenchmarkParsePython parses a 209-line Python module.
func BenchmarkParsePython(b *testing.B) {
	benchmarkParse(b, "pkg/bench.py", "testdata/bench.py", 21)
}

// BenchmarkParseTSParallel measures the parser free list under load.
func BenchmarkParseTSParallel(b *testing.B) {
	src := mustRead(b, "testdata/bench.ts")
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := code.Parse(context.Background(), "src/bench.ts", src); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// TestTruncatedSources parses every prefix of the benchmark files (cut at
// arbitrary bytes, so mostly broken code) and checks that nothing panics
// and every symbol's lines lie inside the file.
func TestTruncatedSources(t *testing.T) {
	for _, tt := range []struct{ path, file string }{
		{"src/bench.ts", "testdata/bench.ts"},
		{"src/bench.tsx", "testdata/bench.ts"},
		{"src/bench.js", "testdata/bench.ts"},
		{"pkg/bench.py", "testdata/bench.py"},
	} {
		src := mustRead(t, tt.file)
		step := 17 // every byte takes half a minute
		if testing.Short() {
			step = 211
		}
		for n := 0; n <= len(src); n += step {
			prefix := src[:n]
			lines := bytes.Count(prefix, []byte("\n")) + 1
			f, err := code.Parse(context.Background(), tt.path, prefix)
			if f == nil {
				t.Fatalf("%s[:%d]: no file: %v", tt.path, n, err)
			}
			if err != nil && !errors.Is(err, code.ErrSyntax) {
				t.Fatalf("%s[:%d]: %v", tt.path, n, err)
			}
			for _, s := range f.Symbols {
				if s.Start < 1 || s.End < s.Start || s.End > lines ||
					(s.HasDoc && (s.DocStart < 1 || s.DocEnd < s.DocStart || s.DocEnd > s.End)) {
					t.Fatalf("%s[:%d]: bad lines in %+v (file has %d lines)", tt.path, n, s, lines)
				}
			}
		}
	}
}

// TestLargeInputsLinear: inputs that made the walk quadratic (tree-sitter's
// Child(i) and PrevSibling walk from the first child) or the parser's error
// recovery slow take time linear in their size, and a deadline stops a
// parse. The bounds are generous: the quadratic walk took minutes.
func TestLargeInputsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("large inputs")
	}
	var members, classes strings.Builder
	members.WriteString("export class C {\n")
	for i := range 40000 {
		fmt.Fprintf(&members, "  /** doc */\n  @dec()\n  m%d() {}\n", i)
		fmt.Fprintf(&classes, "/** doc */\nexport class C%d { m() {} }\n", i)
	}
	members.WriteString("}\n")
	r := rand.New(rand.NewSource(1))
	junk := make([]byte, 3<<20)
	for i := range junk {
		junk[i] = byte(r.Intn(256))
	}
	for _, tt := range []struct {
		name    string
		src     []byte
		symbols int
		syntax  bool
	}{
		{"40k methods in a class", []byte(members.String()), 40001, false},
		{"40k classes", []byte(classes.String()), 80000, false},
		{"3 MB of random bytes", junk, 0, true},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		start := time.Now()
		f, err := code.Parse(ctx, "big.ts", tt.src)
		took := time.Since(start)
		cancel()
		if tt.syntax != errors.Is(err, code.ErrSyntax) || !tt.syntax && err != nil {
			t.Errorf("%s: err %v", tt.name, err)
		}
		if !tt.syntax && (f == nil || len(f.Symbols) != tt.symbols) {
			t.Errorf("%s: %d symbols, want %d", tt.name, len(f.Symbols), tt.symbols)
		}
		if took > 20*time.Second {
			t.Errorf("%s: took %v", tt.name, took)
		}
	}
	// A parse stops at its deadline: a broken file just under the size
	// above which it is given up at the first error, whose error recovery
	// takes seconds, is stopped by its context.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := code.Parse(ctx, "junk.ts", junk[:1<<20]); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("parse past its deadline: %v", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the parse went on %v past a 100ms deadline", took)
	}
}
