package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vouchgate/vouch/code/treesitter"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/wire"
)

// resourceCase is one input built to make a verification run long or use
// much memory: work that grew faster than its input, or read what it should
// not. Each must finish within its time bound (generous: the faults took
// minutes or never ended) and allocate less than its memory bound, with a
// report, never a crash or a hang, and the check it targets must end as
// want (undecided where the input is beyond what can be checked).
type resourceCase struct {
	name string
	ts   bool // needs the tree-sitter parsers
	// files are written in the workspace (nil: no workspace).
	files map[string][]byte
	// prepare changes the workspace after the files are written.
	prepare func(t *testing.T, dir string)
	request string
	// want is the status the named check or criterion must end in; "" to
	// check only that a report came back.
	check, want string
	maxTime     time.Duration
	maxAlloc    uint64
}

func resourceCases() []resourceCase {
	var goFile strings.Builder
	goFile.WriteString("package big\n\n")
	for i := range 30000 {
		fmt.Fprintf(&goFile, "func F%d() {}\n\n", i)
	}
	var tsClasses strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&tsClasses, "export class C%d { m() {} }\n", i)
	}
	r := rand.New(rand.NewSource(3))
	junk := make([]byte, 3<<20)
	for i := range junk {
		junk[i] = byte(r.Intn(256))
	}
	oneLine := []byte(strings.Repeat("x", 3<<20))
	var regions []string
	for i := 1; i <= 3000; i++ {
		regions = append(regions, fmt.Sprintf(`{"file":"min.js","editedRegion":{"start":%d,"end":%d}}`, i, i+1))
	}
	bigSummary, _ := json.Marshal(strings.Repeat("abcdefghij ", 320_000))
	celSummary, _ := json.Marshal(strings.Repeat("abcdefghij", 20_000))
	const sec = time.Second
	return []resourceCase{
		{name: "inferred doc comments on 30k Go functions", files: map[string][]byte{"big.go": []byte(goFile.String())},
			request: `{"task":{"goal":"Add doc comments to the exported functions in big.go"},"output":{"summary":"Documented every exported function.","modified":["big.go"]}}`,
			check:   "doc_comments:inferred.docComments", want: "fail", maxTime: 20 * sec, maxAlloc: 1 << 30},
		{name: "TypeScript file of 40k classes", ts: true, files: map[string][]byte{"big.ts": []byte(tsClasses.String())},
			request: `{"task":{"goal":"Add JSDoc comments to the exported classes in big.ts"},"output":{"summary":"Added JSDoc to all exported classes.","modified":["big.ts"]}}`,
			check:   "doc_comments:inferred.docComments", want: "fail", maxTime: 20 * sec, maxAlloc: 1 << 30},
		{name: "3 MB of random bytes as .ts", ts: true, files: map[string][]byte{"src/junk.ts": junk},
			request: `{"task":{"goal":"Add JSDoc comments to the exported functions in src/junk.ts"},"output":{"summary":"Added JSDoc comments to all exported functions.","modified":["src/junk.ts"]}}`,
			check:   "doc_comments:inferred.docComments", want: "undecided", maxTime: 20 * sec, maxAlloc: 1 << 30},
		{name: "3000 regions of a 3 MB file without newlines", files: map[string][]byte{"min.js": oneLine},
			request: `{"task":{"goal":"Minify"},"output":{"summary":"Edited min.js.","artifacts":{"fileEdits":[` + strings.Join(regions, ",") + `]}}}`,
			maxTime: 20 * sec, maxAlloc: 512 << 20},
		{name: "regex with a large counted repeat on 3.5 MB",
			request: `{"task":{"criteria":[{"id":"r","check":{"type":"regex","pattern":"[a-z ]{1,1000}X"}}]},"output":{"summary":` + string(bigSummary) + `}}`,
			check:   "regex:r", want: "undecided", maxTime: 10 * sec, maxAlloc: 256 << 20},
		{name: "CEL replace that would build gigabytes",
			request: `{"task":{"criteria":[{"id":"c","check":{"type":"cel","expr":"summary.replace('a', summary) != ''"}}]},"output":{"summary":` + string(celSummary) + `}}`,
			check:   "cel:c", want: "undecided", maxTime: 10 * sec, maxAlloc: 256 << 20},
		{name: "a claimed file that is 2 GB (sparse)", files: map[string][]byte{"huge.log": []byte("x\n")},
			prepare: func(t *testing.T, dir string) {
				if err := os.Truncate(filepath.Join(dir, "huge.log"), 2<<30); err != nil {
					t.Fatal(err)
				}
			},
			request: `{"task":{"goal":"Write the log"},"output":{"summary":"Wrote huge.log.","artifacts":{"filesCreated":[{"file":"huge.log","linesCount":1}],"fileEdits":[{"file":"huge.log","editedRegion":{"start":1000000,"end":1000001}}]}}}`,
			check:   "claims.lines", want: "undecided", maxTime: 10 * sec, maxAlloc: 256 << 20},
		{name: "a claimed file that is a FIFO", files: map[string][]byte{"keep": nil},
			prepare: func(t *testing.T, dir string) {
				if err := syscall.Mkfifo(filepath.Join(dir, "out.txt"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			request: `{"task":{"criteria":[{"id":"f","check":{"type":"contains","target":"out.txt","value":"ok"}}]},"output":{"summary":"Wrote out.txt.","artifacts":{"filesCreated":[{"file":"out.txt","linesCount":3}],"fileEdits":[{"file":"out.txt","editedRegion":{"start":1,"end":2}}]}}}`,
			check:   "contains:f", want: "undecided", maxTime: 10 * sec, maxAlloc: 256 << 20},
	}
}

// TestResourceCorpus runs the resource corpus through the whole engine.
func TestResourceCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("large inputs")
	}
	eng, err := engine.New(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range resourceCases() {
		t.Run(c.name, func(t *testing.T) {
			if c.ts && !treesitter.Available {
				t.Skip("no tree-sitter parsers in this build")
			}
			req, err := wire.DecodeRequest([]byte(c.request), wire.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c.files != nil {
				dir := t.TempDir()
				for name, body := range c.files {
					p := filepath.Join(dir, filepath.FromSlash(name))
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, body, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if c.prepare != nil {
					c.prepare(t, dir)
				}
				req.Workspace = dir
			}
			// A hard stop well past the bound, so that a regression fails
			// the test instead of hanging CI.
			ctx, cancel := context.WithTimeout(context.Background(), 3*c.maxTime)
			defer cancel()
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			rep, err := eng.Verify(ctx, req)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if took > c.maxTime {
				t.Errorf("took %v, over its bound of %v", took, c.maxTime)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > c.maxAlloc {
				t.Errorf("allocated %d MB, over its bound of %d MB", alloc>>20, c.maxAlloc>>20)
			}
			if c.check == "" {
				return
			}
			for _, ch := range rep.Checks {
				if ch.Name == c.check {
					if string(ch.Status) != c.want {
						t.Errorf("%s is %s (%s), want %s", c.check, ch.Status, ch.Reason, c.want)
					}
					return
				}
			}
			var names []string
			for _, ch := range rep.Checks {
				names = append(names, ch.Name)
			}
			t.Errorf("no check %s among %v", c.check, names)
		})
	}
}
