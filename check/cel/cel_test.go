package cel

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

func compile(t testing.TB, raw string) (vouch.Checker, error) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("bad spec %s: %v", raw, err)
	}
	typ, _ := m["type"].(string)
	k, err := check.Lookup(typ)
	if err != nil {
		t.Fatal(err)
	}
	return k.New(vouch.CheckSpec{Type: typ, Raw: json.RawMessage(raw)}, check.Env{})
}

func celSpec(expr string) string {
	b, _ := json.Marshal(map[string]any{"type": "cel", "expr": expr})
	return string(b)
}

func testRequest() *vouch.Request {
	size := int64(2048)
	conf := 0.8
	return &vouch.Request{
		ID:      "req-1",
		Kind:    vouch.KindSubtask,
		Attempt: 2,
		Task: vouch.Task{
			ID:   "t1",
			Goal: "Add docs",
			Criteria: []vouch.Criterion{
				{ID: "c1", Text: "mentions DONE", Must: true, Check: &vouch.CheckSpec{Type: "contains", Raw: json.RawMessage(`{"type":"contains","value":"DONE"}`)}},
			},
		},
		Output: vouch.Output{
			Summary:    "All DONE: 3 files changed.",
			Created:    []string{"a.go", "b.go"},
			ToolCalls:  []string{"fs:write"},
			TestResult: vouch.TestPassed,
			Metadata:   map[string]any{"retries": 1, "ratio": 0.5, "tags": []any{"x"}},
			Artifacts: &vouch.Artifacts{
				FilesCreated: []vouch.FileCreated{{File: "a.go", SizeBytes: &size}},
			},
			SelfAssessment: &vouch.SelfAssessment{Confidence: &conf},
		},
		Trace: []vouch.TraceEntry{{Tool: "fs:write", Output: json.RawMessage(`"ok"`)}},
	}
}

func TestCEL(t *testing.T) {
	for _, c := range []struct {
		name   string
		expr   string
		req    *vouch.Request
		status vouch.Status
		code   string
		reason string
	}{
		{name: "summary", expr: `summary.contains("DONE")`, status: vouch.StatusPass, reason: `the CEL expression "summary.contains(\"DONE\")" is true`},
		{name: "list size", expr: `size(output.created) == 2`, status: vouch.StatusPass},
		{name: "int field", expr: `request.attempt == 2`, status: vouch.StatusPass},
		{name: "int64 in nested list", expr: `output.artifacts.filesCreated[0].sizeBytes > 1000`, status: vouch.StatusPass},
		{name: "double compares with int", expr: `output.selfAssessment.confidence > 0 && output.metadata.ratio < 1`, status: vouch.StatusPass},
		{name: "metadata int", expr: `output.metadata.retries == 1`, status: vouch.StatusPass},
		{name: "task", expr: `task.criteria[0].check.value == "DONE" && task.criteria[0].must`, status: vouch.StatusPass},
		{name: "trace", expr: `request.trace.exists(e, e.tool == "fs:write")`, status: vouch.StatusPass},
		{name: "enum as string", expr: `output.testResult == "passed" && request.kind == "subtask"`, status: vouch.StatusPass},
		{name: "has on absent", expr: `!has(output.deleted)`, status: vouch.StatusPass},
		{name: "optional", expr: `output.?commands.orValue([]).size() == 0`, status: vouch.StatusPass},
		{name: "strings ext", expr: `summary.lowerAscii().startsWith("all done")`, status: vouch.StatusPass},
		{name: "regex", expr: `summary.matches("\\d+ files")`, status: vouch.StatusPass},
		{name: "false", expr: `size(output.created) > 5`, status: vouch.StatusFail, code: vouch.CodeCELFalse, reason: "is false"},
		{name: "missing key", expr: `output.deleted.size() == 0`, status: vouch.StatusUndecided, code: vouch.CodeCELError, reason: "no such key"},
		{name: "dyn non-bool", expr: `output.metadata.retries`, status: vouch.StatusUndecided, code: vouch.CodeCELError, reason: "not a bool"},
		{name: "division by zero", expr: `1 / (request.attempt - 2) == 1`, status: vouch.StatusUndecided, code: vouch.CodeCELError},
		{name: "cost limit", expr: `[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, a+b+c+d+e+f > 0))))))`,
			status: vouch.StatusUndecided, code: vouch.CodeCELError, reason: "cost limit"},
		{name: "empty request", expr: `summary == "" && size(output) == 1`, req: &vouch.Request{}, status: vouch.StatusPass},
		{name: "replace", expr: `summary.replace("DONE", "done") == "All done: 3 files changed."`, status: vouch.StatusPass},
		{name: "replace n", expr: `"aaa".replace("a", "bb", 2) == "bbbba" && "aaa".replace("a", "b", -1) == "bbb" && "ab".replace("", "_") == "_a_b_"`, status: vouch.StatusPass},
		{name: "join", expr: `["a", "b"].join("-") == "a-b" && ["x", "y"].join() == "xy"`, status: vouch.StatusPass},
		{name: "concatenation", expr: `summary + "!" == "All DONE: 3 files changed.!"`, status: vouch.StatusPass},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch, err := compile(t, celSpec(c.expr))
			if err != nil {
				t.Fatal(err)
			}
			req := c.req
			if req == nil {
				req = testRequest()
			}
			s := &vouch.Subject{Request: req}
			o := ch.Check(context.Background(), s)
			if o.Status != c.status || o.Code != c.code {
				t.Fatalf("got %s %q (%s), want %s %q", o.Status, o.Code, o.Reason, c.status, c.code)
			}
			if c.reason != "" && !strings.Contains(o.Reason, c.reason) {
				t.Errorf("reason %q does not contain %q", o.Reason, c.reason)
			}
			if strings.Contains(o.Reason, "\n") {
				t.Errorf("reason has several lines: %q", o.Reason)
			}
			if o.Evidence["expr"] != c.expr {
				t.Errorf("evidence expr = %v", o.Evidence["expr"])
			}
		})
	}
}

// TestCELRunaway: expressions whose strings grow faster than their input
// are refused before they build anything, and end as CEL_ERROR: they do
// not exhaust memory.
func TestCELRunaway(t *testing.T) {
	big := strings.Repeat("abcdefghij", 20_000) // 200 KB, 20000 a's
	req := &vouch.Request{Output: vouch.Output{Summary: big}}
	for _, expr := range []string{
		`summary.replace("a", summary) != ""`,
		`summary.replace("", summary) != ""`,
		`summary.replace("a", summary, 1000) != ""`,
		`[summary, summary, summary, summary, summary, summary, summary, summary, summary, summary].map(x, x + x + x + x + x + x + x + x + x).join(summary) != ""`,
		`summary.replace("a", summary.replace("b", summary)) != ""`,
		`(summary + summary + summary + summary + summary + summary + summary + summary + summary + summary).matches("[a-z ]{1,1000}X")`,
	} {
		ch, err := compile(t, celSpec(expr))
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		o := ch.Check(context.Background(), &vouch.Subject{Request: req})
		runtime.ReadMemStats(&after)
		if o.Status != vouch.StatusUndecided || o.Code != vouch.CodeCELError {
			t.Errorf("%s: got %s %s (%s), want CEL_ERROR", expr, o.Status, o.Code, o.Reason)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20 {
			t.Errorf("%s: allocated %d MB", expr, grew>>20)
		}
	}
	// Within the limit, the same functions work on a large text.
	ch, err := compile(t, celSpec(`summary.replace("a", "A").size() == 200000`))
	if err != nil {
		t.Fatal(err)
	}
	if o := ch.Check(context.Background(), &vouch.Subject{Request: req}); o.Status != vouch.StatusPass {
		t.Errorf("a replace within the limit: %s %s", o.Status, o.Reason)
	}
}

func TestCELCancelled(t *testing.T) {
	ch, err := compile(t, celSpec(`[1,2,3].all(a, [1,2,3].all(b, a + b > 0))`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := ch.Check(ctx, &vouch.Subject{Request: testRequest()})
	if o.Status != vouch.StatusUndecided || o.Code != vouch.CodeCheckCancelled {
		t.Errorf("got %s %q (%s), want undecided %q", o.Status, o.Code, o.Reason, vouch.CodeCheckCancelled)
	}
}

// lateContext is done from the start but reports its error only from the
// second call of Err, so that evaluation starts and is interrupted.
type lateContext struct {
	context.Context
	mu    sync.Mutex
	calls int
}

func (c *lateContext) Done() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

func (c *lateContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.calls == 1 {
		return nil
	}
	return context.Canceled
}

func TestCELInterrupted(t *testing.T) {
	ch, err := compile(t, celSpec(`[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, a+b+c > 0)))`))
	if err != nil {
		t.Fatal(err)
	}
	o := ch.Check(&lateContext{Context: context.Background()}, &vouch.Subject{Request: testRequest()})
	if o.Status != vouch.StatusUndecided || o.Code != vouch.CodeCheckCancelled {
		t.Errorf("got %s %q (%s), want undecided %q", o.Status, o.Code, o.Reason, vouch.CodeCheckCancelled)
	}
}

// TestCELVariablesOnce checks that the request is converted once per
// verification, and that the conversion does not change the request.
func TestCELVariablesOnce(t *testing.T) {
	a, err := compile(t, celSpec(`summary != ""`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := compile(t, celSpec(`size(output.created) == 2`))
	if err != nil {
		t.Fatal(err)
	}
	req := testRequest()
	before := testRequest()
	s := &vouch.Subject{Request: req}
	for _, c := range []vouch.Checker{a, b} {
		if o := c.Check(context.Background(), s); o.Status != vouch.StatusPass {
			t.Fatalf("got %s: %s", o.Status, o.Reason)
		}
	}
	act := s.Memo(activationKey{}, func() any { t.Error("variables not memoised"); return activation{} }).(activation)
	if act.vars["summary"] != req.Output.Summary {
		t.Errorf("summary variable = %v", act.vars["summary"])
	}
	if d := cmp.Diff(before, req); d != "" {
		t.Errorf("request changed (-before +after):\n%s", d)
	}
}

func TestCELConcurrent(t *testing.T) {
	ch, err := compile(t, celSpec(`output.created.exists(f, f.endsWith(".go")) && request.attempt > 1`))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	s := &vouch.Subject{Request: testRequest()} // shared: checks of one verification run together
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if o := ch.Check(context.Background(), s); o.Status != vouch.StatusPass {
					t.Errorf("got %s: %s", o.Status, o.Reason)
				}
				if o := ch.Check(context.Background(), &vouch.Subject{Request: testRequest()}); o.Status != vouch.StatusPass {
					t.Errorf("got %s: %s", o.Status, o.Reason)
				}
			}
		})
	}
	wg.Wait()
}

func TestCELCompileErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		spec string
		path string
		code vouch.ErrorCode
		msg  string
	}{
		{"missing expr", `{"type":"cel"}`, "expr", vouch.ErrCriterion, "is required"},
		{"empty expr", `{"type":"cel","expr":"  "}`, "expr", vouch.ErrCriterion, ""},
		{"expr wrong type", `{"type":"cel","expr":true}`, "expr", vouch.ErrType, ""},
		{"unknown parameter", `{"type":"cel","expr":"true","target":"a.md"}`, "target", vouch.ErrUnknownField, ""},
		{"syntax error", celSpec(`summary.contains(`), "expr", vouch.ErrCriterion, "Syntax error"},
		{"undeclared variable", celSpec(`outputs.created == []`), "expr", vouch.ErrCriterion, "undeclared reference"},
		{"type error", celSpec(`summary + 1 == "x"`), "expr", vouch.ErrCriterion, "no matching overload"},
		{"non-bool string", celSpec(`summary`), "expr", vouch.ErrCriterion, "must evaluate to bool, not string"},
		{"non-bool int", celSpec(`size(summary)`), "expr", vouch.ErrCriterion, "must evaluate to bool, not int"},
		{"too long", celSpec(strings.Repeat("true && ", 2000) + "true"), "expr", vouch.ErrCriterion, "size"},
		{"regex too large", celSpec(`summary.matches("[a-z ]{1,1000}[0-9]{1,1000}[A-Z]{1,1000}[a-z]{1,1000}[0-9]{1,1000}[a-z]{1,1000}")`), "expr", vouch.ErrCriterion, "regex program size"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch, err := compile(t, c.spec)
			if err == nil {
				t.Fatalf("compiled to %T, want an error", ch)
			}
			var ve *vouch.Error
			if !errors.As(err, &ve) {
				t.Fatalf("error %v (%T) is not a *vouch.Error", err, err)
			}
			list := vouch.ErrorList(err)
			if len(list) != 1 || list[0].Path != c.path || list[0].Code != c.code {
				t.Fatalf("got %v (path %q code %q), want path %q code %q", err, list[0].Path, list[0].Code, c.path, c.code)
			}
			if !strings.Contains(list[0].Message, c.msg) {
				t.Errorf("message %q does not contain %q", list[0].Message, c.msg)
			}
		})
	}
}

// TestEnvNotBuiltAtInit runs itself in a fresh process, where no cel check
// has been compiled, to check that the environment is built lazily.
func TestEnvNotBuiltAtInit(t *testing.T) {
	if os.Getenv("VOUCH_CEL_LAZY_CHILD") == "1" {
		if env != nil {
			t.Fatal("the CEL environment was built before any cel check was compiled")
		}
		if _, err := compile(t, celSpec("true")); err != nil {
			t.Fatal(err)
		}
		if env == nil {
			t.Fatal("compiling a cel check did not build the environment")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEnvNotBuiltAtInit$", "-test.count=1")
	cmd.Env = append(os.Environ(), "VOUCH_CEL_LAZY_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func BenchmarkCEL(b *testing.B) {
	ch, err := compile(b, celSpec(`summary.contains("DONE") && size(output.created) == 2`))
	if err != nil {
		b.Fatal(err)
	}
	req := testRequest()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		ch.Check(ctx, &vouch.Subject{Request: req})
	}
}
