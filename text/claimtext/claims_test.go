package claimtext

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/vouchgate/vouch/internal/sharedtest"
	"github.com/vouchgate/vouch/text/lex"
)

func ExampleCounts() {
	for _, c := range Counts("Added JSDoc comments to all 4 exported functions. 12/12 tests passed; 2 methods remain undocumented.") {
		fmt.Printf("%d %s %s all=%v negated=%v: %q\n", c.Number, c.Noun, c.Action, c.All, c.Negated, c.Text)
	}
	// Output:
	// 4 function document all=true negated=false: "Added JSDoc comments to all 4 exported functions"
	// 12 test pass all=true negated=false: "12/12 tests passed"
	// 2 method document all=false negated=true: "2 methods remain undocumented"
}

func ExampleTaskIntents() {
	ti := TaskIntents("Add JSDoc comments to the exported functions parse, tokenize, format, validate in src/parser.ts")
	fmt.Printf("%+v\n", ti)
	// Output:
	// {DocComments:true DocStyle:jsdoc Symbols:[parse tokenize format validate] Names:[] Files:[src/parser.ts] Count:0 Noun:function}
}

func ExampleTestClaims() {
	for _, c := range TestClaims("All **43 tests pass**, 0 failures.\nProgress: 10 of 12 pass now.") {
		fmt.Printf("passed=%v count=%d failed=%d\n", c.Passed, c.Count, c.Failed)
	}
	// Output:
	// passed=true count=43 failed=0
	// passed=false count=10 failed=2
}

// The DESIGN's worked example: the task names 4 symbols; the agent documents
// one and claims all 4.
func TestWorkedExample(t *testing.T) {
	ti := TaskIntents("Add JSDoc comments to the exported functions parse, tokenize, format, validate in src/parser.ts")
	want := TaskIntent{DocComments: true, DocStyle: "jsdoc", Symbols: []string{"parse", "tokenize", "format", "validate"}, Files: []string{"src/parser.ts"}, Noun: "function"}
	if !reflect.DeepEqual(ti, want) {
		t.Errorf("TaskIntents = %+v, want %+v", ti, want)
	}
	got := Counts("Added JSDoc comments to all 4 exported functions")
	if len(got) != 1 {
		t.Fatalf("Counts = %+v, want one claim", got)
	}
	c := got[0]
	if c.Number != 4 || !c.All || c.Noun != "function" || c.Action != "document" || c.Negated {
		t.Errorf("claim = %+v", c)
	}
	if c.Text != "Added JSDoc comments to all 4 exported functions" || c.Sentence != c.Text {
		t.Errorf("Text %q, Sentence %q", c.Text, c.Sentence)
	}
	// The honest version names what it did.
	got = Counts("Added a JSDoc comment to `parse`; tokenize, format and validate are not documented yet.")
	if len(got) != 1 || got[0].Number != 1 || !reflect.DeepEqual(got[0].Items, []string{"parse"}) || got[0].Action != "document" {
		t.Errorf("honest Counts = %+v", got)
	}
}

func TestSentenceAndText(t *testing.T) {
	got := Counts("## Summary\n\n- **Created** 3 files: `a.go`, `b.go` and `c.go`\n- Nothing else.")
	if len(got) != 1 {
		t.Fatalf("Counts = %+v", got)
	}
	c := got[0]
	if c.Sentence != "Created 3 files: `a.go`, `b.go` and `c.go`" {
		t.Errorf("Sentence = %q", c.Sentence)
	}
	if c.Text != c.Sentence {
		t.Errorf("Text = %q", c.Text)
	}
	if !reflect.DeepEqual(c.Items, []string{"a.go", "b.go", "c.go"}) {
		t.Errorf("Items = %q", c.Items)
	}
}

func TestWrappedParagraph(t *testing.T) {
	got := Counts("I went through the parser and added JSDoc comments to all\n4 exported functions, then ran the tests.")
	if len(got) != 1 || got[0].Number != 4 || got[0].Noun != "function" {
		t.Errorf("Counts = %+v", got)
	}
}

func TestEmptyAndOdd(t *testing.T) {
	inputs := []string{
		"", " ", "\n\n", "```", "`", "``unclosed", "4", "all", "both", "the", "?", "...", "—",
		"1,000 tests pass", "12/", "/12", "v", "4th", "(((4 methods", "4 methods)))",
		strings.Repeat("a", 100) + " 4 tests passed", "日本語のテキスト 3 tests passed",
		"’’’ didn’t add 3 tests", "all all all 4 4 4 tests tests", "| 3 | tests | passed |",
	}
	for _, s := range inputs {
		Counts(s)
		TestClaims(s)
		TaskIntents(s)
	}
	if got := Counts("1,000 tests pass"); len(got) != 1 || got[0].Number != 1000 {
		t.Errorf("thousands: %+v", got)
	}
	if got := Counts("I didn’t add 3 tests."); len(got) != 1 || !got[0].Negated {
		t.Errorf("typographic apostrophe: %+v", got)
	}
}

func FuzzCounts(f *testing.F) {
	for _, s := range []string{
		"Added JSDoc comments to all 4 exported functions",
		"- 6 new builder tests, 4 controller tests, 1 LiveView test",
		"Documented one of the 4 methods; 3 remain undocumented.",
		"Both `parse` and `tokenize` are documented.",
		"**Test counts:** 141 Elixir (127 tests + 14 doctests) + 16 Vitest = **157 total tests**, all passing.",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range Counts(s) {
			if c.Action == "" || c.Number < 0 || !strings.Contains(c.Sentence, c.Text) {
				t.Fatalf("bad claim %+v", c)
			}
		}
		for _, c := range TestClaims(s) {
			if !strings.Contains(c.Sentence, c.Text) {
				t.Fatalf("bad test claim %+v", c)
			}
		}
		TaskIntents(s)
	})
}

// TestConcurrent runs the corpus from many goroutines at once: the functions
// share only the lexicon and a pool of scanners.
func TestConcurrent(t *testing.T) {
	var texts []string
	for _, path := range []string{"testdata/counts.txt", "testdata/tasks.txt", "testdata/tests.txt"} {
		for _, c := range readCorpus(t, path) {
			texts = append(texts, c.text)
		}
	}
	type result struct {
		counts []CountClaim
		tests  []TestClaim
		intent TaskIntent
	}
	want := make([]result, len(texts))
	for i, s := range texts {
		want[i] = result{Counts(s), TestClaims(s), TaskIntents(s)}
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := range texts {
				i := (k + g*31) % len(texts)
				got := result{Counts(texts[i]), TestClaims(texts[i]), TaskIntents(texts[i])}
				if !reflect.DeepEqual(got, want[i]) {
					t.Errorf("goroutine %d: %q differs", g, texts[i])
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

// TestTables checks the lists claim text reads are well formed: every list
// flagLists names exists, every action-verbs line names a class and a known
// form, every claim-phrases line has several words and known meanings.
func TestTables(t *testing.T) {
	for _, fl := range flagLists {
		if len(lex.Named(fl.list).Lines()) == 0 {
			t.Errorf("%s: empty", fl.list)
		}
	}
	for _, ln := range lex.Named("action-verbs").Lines() {
		class, form, _ := strings.Cut(ln.Value, " ")
		if _, ok := formOf[form]; class == "" || !ok {
			t.Errorf("action-verbs: bad line %q = %q", ln.Word, ln.Value)
		}
	}
	for _, ln := range lex.Named("claim-phrases").Lines() {
		if len(strings.Fields(ln.Word)) < 2 {
			t.Errorf("claim-phrases: %q is one word", ln.Word)
		}
		for _, m := range strings.Fields(ln.Value) {
			key, _, _ := strings.Cut(m, ":")
			switch _, flag := phraseFlags[key]; {
			case flag, key == "number", key == "noun", key == "style", key == "verb":
			default:
				t.Errorf("claim-phrases: %q: unknown meaning %q", ln.Word, m)
			}
		}
		if e := lexicon().lookup(strings.Fields(ln.Word)[0]); e == nil || len(e.phrases) == 0 {
			t.Errorf("claim-phrases: %q is not found from its first word", ln.Word)
		}
	}
}

// TestTranscripts reads the real Claude Code sessions in
// shared/agent-transcripts, when present: every session ends with its tests
// passing, and the last test claim of its assistant text must say so.
func TestTranscripts(t *testing.T) {
	files := sharedtest.Glob(t, "agent-transcripts/claude-code/*.jsonl")
	for _, path := range files {
		var text strings.Builder
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var line struct {
				Type    string `json:"type"`
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil || line.Type != "assistant" {
				continue
			}
			var blocks []struct{ Type, Text string }
			if json.Unmarshal(line.Message.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type == "text" {
					text.WriteString(b.Text)
					text.WriteString("\n\n")
				}
			}
		}
		f.Close()
		tcs := TestClaims(text.String())
		if len(tcs) == 0 {
			t.Errorf("%s: no test claims", filepath.Base(path))
			continue
		}
		if last := tcs[len(tcs)-1]; !last.Passed {
			t.Errorf("%s: last test claim %+v", filepath.Base(path), last)
		}
		t.Logf("%s: %d test claims, %d count claims; last: %q", filepath.Base(path), len(tcs), len(Counts(text.String())), tcs[len(tcs)-1].Text)
	}
}

// TestTaskIntentNames: words in a name's place that read as English are
// offered as Names for the code to resolve; plain English around them is
// not.
func TestTaskIntentNames(t *testing.T) {
	for _, tt := range []struct {
		goal    string
		symbols []string
		names   []string
	}{
		{"Add godoc comments to the Store methods Open, Close, Get and Put in store/store.go", []string{"Store"}, []string{"Open", "Close", "Get", "Put"}},
		{"Document the methods Run, Reset, Update and Apply of Job in job/job.go", nil, []string{"Run", "Reset", "Update", "Apply"}},
		{"Add doc comments to the functions config, handler and parse in server/server.go", nil, []string{"config", "handler", "parse"}},
		{"Add JSDoc comments to the methods on, off, emit and once of the Emitter class in src/emitter.ts", []string{"Emitter"}, []string{"on", "off", "emit", "once"}},
		{"Add a doc comment to Close in store/store.go", nil, []string{"Close"}},
		{"Add JSDoc comments to the exported functions in src/emitter.ts", nil, nil},
		{"Add JSDoc comments to the exported functions parse, tokenize, format, validate in src/parser.ts", []string{"parse", "tokenize", "format", "validate"}, nil},
	} {
		ti := TaskIntents(tt.goal)
		if !reflect.DeepEqual(ti.Symbols, tt.symbols) || !reflect.DeepEqual(ti.Names, tt.names) {
			t.Errorf("%q: Symbols %q Names %q, want %q %q", tt.goal, ti.Symbols, ti.Names, tt.symbols, tt.names)
		}
	}
}
