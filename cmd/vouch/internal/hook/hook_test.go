package hook

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/vouchgate/vouch"
	_ "github.com/vouchgate/vouch/check/all"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/internal/sharedtest"
)

// shared is the shared material beside the repository's checkout.
var shared = filepath.Join(sharedtest.Dir(), "agent-transcripts", "claude-code")

// sessions are the shared real Claude Code sessions; all of them did what
// they finally claim.
var sessions = map[string]string{
	"258c7280": "258c7280-ae70-4798-800f-63464d01a85d.jsonl",
	"4d5611e5": "4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
	"8463c716": "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
}

// workspace rebuilds a session's workspace (base commit, then the
// session's result) and returns it with its base checked out, so that the
// test records the base the way a SessionStart would see it.
func workspace(t *testing.T, id string) string {
	t.Helper()
	script := sharedtest.Path(t, "agent-transcripts", "claude-code", "workspaces", "make-workspace.sh")
	ws := filepath.Join(t.TempDir(), id)
	if out, err := exec.Command("bash", script, id, ws).CombinedOutput(); err != nil {
		t.Fatalf("make-workspace.sh: %v\n%s", err, out)
	}
	return ws
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func realConfig(t *testing.T, dir string) Config {
	t.Helper()
	pol := vouch.DefaultPolicy()
	eng, err := engine.New(engine.Options{Policy: &pol, Workspace: func(r *vouch.Request) (*os.Root, error) { return engine.OpenDir(r.Workspace) }})
	if err != nil {
		t.Fatal(err)
	}
	return Config{Verifier: eng, StateDir: dir, MaxBlocks: pol.MaxRetries}
}

// call runs the hook on one input and decodes its answer.
func call(t *testing.T, cfg Config, in map[string]any) Output {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if err := Run(context.Background(), bytes.NewReader(b), &w, cfg); err != nil {
		t.Fatal(err)
	}
	var out Output
	if err := json.Unmarshal(w.Bytes(), &out); err != nil {
		t.Fatalf("answer %q: %v", w.String(), err)
	}
	return out
}

// startSession records the session's base as SessionStart does, with the
// workspace at its base commit, then puts the session's result back.
func startSession(t *testing.T, cfg Config, id, ws string) {
	t.Helper()
	gitIn(t, ws, "checkout", "-q", "HEAD~1")
	out := call(t, cfg, map[string]any{"session_id": id, "cwd": ws, "hook_event_name": "SessionStart", "source": "startup", "model": "x"})
	if out != (Output{}) {
		t.Fatalf("SessionStart answered %+v", out)
	}
	gitIn(t, ws, "checkout", "-q", "-")
}

func TestRealSessionsStop(t *testing.T) {
	for id, file := range sessions {
		t.Run(id, func(t *testing.T) {
			ws := workspace(t, id)
			cfg := realConfig(t, t.TempDir())
			startSession(t, cfg, id, ws)
			st, err := (&store{dir: cfg.StateDir, id: id}).load()
			if err != nil || !st.Recorded || len(st.Base) != 40 {
				t.Fatalf("state after SessionStart: %+v, %v", st, err)
			}
			out := call(t, cfg, map[string]any{"session_id": id, "cwd": ws, "hook_event_name": "Stop",
				"stop_hook_active": false, "transcript_path": filepath.Join(shared, file), "permission_mode": "default"})
			// An honest session is never held: its stop goes on, silently
			// or telling the user what could not be checked.
			if out.Decision != "" || out.SystemMessage != "" && !strings.HasPrefix(out.SystemMessage, "vouch: UNVERIFIED: ") {
				t.Errorf("an honest session's stop answered %+v", out)
			}
		})
	}
}

// TestFaultySessionBlocks edits one real session the way a lying agent
// would (its last push failed, it says pushed): the stop is blocked with
// feedback at most MaxBlocks times a turn, then let through with a
// message; a new prompt starts the count afresh.
func TestFaultySessionBlocks(t *testing.T) {
	const id = "4d5611e5"
	ws := workspace(t, id)
	log, err := os.ReadFile(filepath.Join(shared, sessions[id]))
	if err != nil {
		t.Fatal(err)
	}
	old := ` * [new branch]      spotter-dov -> spotter-dov`
	if !bytes.Contains(log, []byte(old)) {
		t.Fatal("the session log no longer holds the push this test edits")
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, bytes.ReplaceAll(log, []byte(old), []byte(`error: failed to push some refs to 'github.com:marot/spotter.git'`)), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := realConfig(t, t.TempDir())
	startSession(t, cfg, id, ws)
	stop := map[string]any{"session_id": id, "cwd": ws, "hook_event_name": "Stop", "stop_hook_active": true, "transcript_path": bad}
	for n := 1; n <= cfg.MaxBlocks; n++ {
		out := call(t, cfg, stop)
		if out.Decision != "block" || !strings.Contains(out.Reason, "git push failed") || out.SystemMessage != "" {
			t.Fatalf("stop %d: %+v, want a block naming the failed push", n, out)
		}
	}
	out := call(t, cfg, stop)
	if out.Decision != "" || !strings.HasPrefix(out.SystemMessage, "vouch: RETRY, not blocking again") {
		t.Fatalf("stop after %d blocks: %+v, want no block and a message", cfg.MaxBlocks, out)
	}
	if out := call(t, cfg, map[string]any{"session_id": id, "cwd": ws, "hook_event_name": "UserPromptSubmit", "prompt": "push it"}); out != (Output{}) {
		t.Fatalf("UserPromptSubmit answered %+v", out)
	}
	if out := call(t, cfg, stop); out.Decision != "block" {
		t.Fatalf("the first stop of a new turn: %+v, want a block", out)
	}
	var rep vouch.Report
	data, err := os.ReadFile(filepath.Join(cfg.StateDir, id+".report.json"))
	if err == nil {
		err = json.Unmarshal(data, &rep)
	}
	if err != nil || rep.Verdict != vouch.VerdictRetry {
		t.Errorf("the last report kept beside the state: %v, %v", rep.Verdict, err)
	}
}

// fixed is a verifier that answers one report, or an error.
type fixed struct {
	rep *vouch.Report
	err error
	got *vouch.Request
}

func (f *fixed) Verify(_ context.Context, req *vouch.Request) (*vouch.Report, error) {
	f.got = req
	return f.rep, f.err
}

func writeLog(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.jsonl")
	line := `{"type":"user","message":{"role":"user","content":"fix it"},"cwd":"/w"}` + "\n" +
		`{"type":"assistant","message":{"role":"assistant","model":"m","content":[{"type":"text","text":"Fixed."}]}}` + "\n"
	if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestStopAnswers(t *testing.T) {
	score := 0.2
	fail := &vouch.Report{Verdict: vouch.VerdictFail, Action: vouch.ActionEscalate, Score: &score, Reason: "the summary claims what no call did", Feedback: "- do the work"}
	for _, tt := range []struct {
		name     string
		verifier *fixed
		want     func(Output) bool
	}{
		{"pass is silent", &fixed{rep: &vouch.Report{Verdict: vouch.VerdictPass}}, func(o Output) bool { return o == Output{} }},
		{"fail tells the user and lets the agent stop", &fixed{rep: fail}, func(o Output) bool {
			return o.Decision == "" && strings.HasPrefix(o.SystemMessage, "vouch: FAIL (escalate): the summary claims") && strings.Contains(o.SystemMessage, "do the work")
		}},
		{"unverified lets the agent stop and names the first specific claim", &fixed{rep: unverified(vouch.ActionAccept)}, func(o Output) bool {
			return o.Decision == "" && strings.HasPrefix(o.SystemMessage, "vouch: UNVERIFIED: 2 of 3 claims could not be checked") &&
				strings.Contains(o.SystemMessage, `(first: "Fixed the parser")`) && strings.HasSuffix(o.SystemMessage, "s.report.json)")
		}},
		{"unverified to escalate is for a person", &fixed{rep: unverified(vouch.ActionEscalate)}, func(o Output) bool {
			return o.Decision == "" && strings.HasPrefix(o.SystemMessage, "vouch: UNVERIFIED, for a person to check: 2 of 3")
		}},
		{"unverified to follow up asks the agent", &fixed{rep: unverified(vouch.ActionFollowUp)}, func(o Output) bool {
			return o.Decision == "block" && strings.Contains(o.Reason, "found nothing false") && strings.HasSuffix(o.Reason, "How did you check the parser fix?")
		}},
		{"an error never blocks", &fixed{err: errors.New("boom")}, func(o Output) bool {
			return o.Decision == "" && strings.HasPrefix(o.SystemMessage, "vouch: error: verifying the turn: boom")
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := Config{Verifier: tt.verifier, StateDir: dir, MaxBlocks: 2}
			cwd := t.TempDir()
			out := call(t, cfg, map[string]any{"session_id": "s", "cwd": cwd, "hook_event_name": "Stop", "transcript_path": writeLog(t)})
			if !tt.want(out) {
				t.Errorf("answer %+v", out)
			}
			if g := tt.verifier.got; g == nil || g.Workspace != cwd || g.Output.Summary != "Fixed." {
				t.Errorf("verified request: %+v", g)
			}
		})
	}
}

// unverified is a report that found nothing false and could not check
// two of its three claims.
func unverified(action vouch.Action) *vouch.Report {
	return &vouch.Report{Verdict: vouch.VerdictUnverified, Action: action, Reason: "2 of 3 claims could not be checked",
		Feedback: "How did you check the parser fix?",
		Claims: []vouch.Claim{
			{ID: "c1", Text: "All done", Kind: vouch.ClaimCompletion, State: vouch.ClaimUnverified},
			{ID: "c2", Text: "Changed `parse.go`", Kind: vouch.ClaimFile, State: vouch.ClaimVerified},
			{ID: "c3", Text: "Fixed the parser", Kind: vouch.ClaimBehaviour, State: vouch.ClaimUnverified},
		}}
}

// TestFollowUpAsksOnce: a follow_up holds the stop once a turn with the
// report's question; the next stop of the turn goes on, and a new prompt
// may ask again.
func TestFollowUpAsksOnce(t *testing.T) {
	cfg := Config{Verifier: &fixed{rep: unverified(vouch.ActionFollowUp)}, StateDir: t.TempDir(), MaxBlocks: 3}
	cwd, log := t.TempDir(), writeLog(t)
	stopIn := map[string]any{"session_id": "s", "cwd": cwd, "hook_event_name": "Stop", "transcript_path": log}
	if out := call(t, cfg, stopIn); out.Decision != "block" {
		t.Fatalf("first stop: %+v", out)
	}
	if out := call(t, cfg, stopIn); out.Decision != "" || !strings.HasPrefix(out.SystemMessage, "vouch: UNVERIFIED: ") {
		t.Fatalf("second stop of the turn was asked again: %+v", out)
	}
	call(t, cfg, map[string]any{"session_id": "s", "cwd": cwd, "hook_event_name": "UserPromptSubmit", "prompt": "go on"})
	if out := call(t, cfg, stopIn); out.Decision != "block" {
		t.Fatalf("a new turn's stop was not asked: %+v", out)
	}
}

// slow is a verifier that waits for its context to end.
type slow struct{}

func (slow) Verify(ctx context.Context, _ *vouch.Request) (*vouch.Report, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestTimeoutNeverBlocks(t *testing.T) {
	cfg := Config{Verifier: slow{}, StateDir: t.TempDir(), MaxBlocks: 2, Timeout: time.Millisecond}
	out := call(t, cfg, map[string]any{"session_id": "s", "cwd": t.TempDir(), "hook_event_name": "Stop", "transcript_path": writeLog(t)})
	if out.Decision != "" || !strings.Contains(out.SystemMessage, "deadline exceeded") {
		t.Errorf("a verification past the hook's timeout: %+v", out)
	}
}

func TestBadInputNeverBlocks(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Verifier: &fixed{rep: &vouch.Report{Verdict: vouch.VerdictRetry}}, StateDir: dir, MaxBlocks: 2}
	for _, in := range []string{
		`not json`,
		`{"session_id":"s"}`,
		`{"hook_event_name":"Stop"}`,
		`{"session_id":"s","hook_event_name":"Stop","cwd":"/tmp"}`,
		`{"session_id":"s","hook_event_name":"Stop","cwd":"/tmp","transcript_path":"/no/such/log.jsonl"}`,
		`{"session_id":"s","hook_event_name":"Stop","cwd":"/tmp","transcript_path":"/dev/zero"}`,
		`{"session_id":"s","hook_event_name":"SessionStart","cwd":"relative"}`,
	} {
		var w bytes.Buffer
		if err := Run(context.Background(), strings.NewReader(in), &w, cfg); err != nil {
			t.Fatal(err)
		}
		var out Output
		if err := json.Unmarshal(w.Bytes(), &out); err != nil {
			t.Fatalf("%s: answer %q: %v", in, w.String(), err)
		}
		if out.Decision != "" || !strings.HasPrefix(out.SystemMessage, "vouch: error: ") {
			t.Errorf("%s: %+v, want an error message and no block", in, out)
		}
	}
	log, err := os.ReadFile(filepath.Join(dir, "hook.log"))
	if err != nil || strings.Count(string(log), "\n") != 7 {
		t.Errorf("hook.log: %q, %v; want 7 lines", log, err)
	}
	// Events the hook does not act on are let through silently.
	if out := call(t, cfg, map[string]any{"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash"}); out != (Output{}) {
		t.Errorf("PreToolUse: %+v", out)
	}
}

func TestSessionIDStaysInStateDir(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"../../escape", "/etc/passwd", "a/b", strings.Repeat("x", 300), "ok-id_1"} {
		s := &store{dir: dir, id: id}
		if err := s.save(&State{Blocks: 1}); err != nil {
			t.Fatal(err)
		}
		p := s.path(".json")
		if filepath.Dir(p) != dir {
			t.Errorf("session %q: state at %s, outside %s", id, p, dir)
		}
		got, err := s.load()
		if err != nil || got.Blocks != 1 {
			t.Errorf("session %q: %+v, %v", id, got, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ok-id_1.json")); err != nil {
		t.Errorf("a plain id is its file name: %v", err)
	}
}

func TestDefaultStateDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if d, err := DefaultStateDir(); err != nil || d != "/x/state/vouch/claude-code" {
		t.Errorf("DefaultStateDir() = %q, %v", d, err)
	}
	t.Setenv("XDG_STATE_HOME", "relative")
	t.Setenv("HOME", "/home/u")
	if d, err := DefaultStateDir(); err != nil || d != "/home/u/.local/state/vouch/claude-code" {
		t.Errorf("DefaultStateDir() with a relative XDG_STATE_HOME = %q, %v", d, err)
	}
}

// BenchmarkStop is one Stop on a real 3 MB session with its workspace:
// the goal is p95 ≤ 200 ms.
func BenchmarkStop(b *testing.B) {
	script := sharedtest.Path(b, "agent-transcripts", "claude-code", "workspaces", "make-workspace.sh")
	id := "258c7280"
	ws := filepath.Join(b.TempDir(), id)
	if out, err := exec.Command("bash", script, id, ws).CombinedOutput(); err != nil {
		b.Fatalf("make-workspace.sh: %v\n%s", err, out)
	}
	pol := vouch.DefaultPolicy()
	eng, err := engine.New(engine.Options{Policy: &pol, Workspace: func(r *vouch.Request) (*os.Root, error) { return engine.OpenDir(r.Workspace) }})
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{Verifier: eng, StateDir: b.TempDir(), MaxBlocks: 2}
	in, _ := json.Marshal(map[string]any{"session_id": id, "cwd": ws, "hook_event_name": "Stop", "transcript_path": filepath.Join(shared, sessions[id])})
	var times []time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		if err := Run(context.Background(), bytes.NewReader(in), io.Discard, cfg); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, times)
}

// reportPercentiles reports the p50 and p95 of times as the benchmark's
// metrics.
func reportPercentiles(b *testing.B, times []time.Duration) {
	if len(times) == 0 {
		return
	}
	slices.Sort(times)
	at := func(p float64) time.Duration { return times[min(len(times)-1, int(p*float64(len(times))))] }
	b.ReportMetric(float64(at(0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(at(0.95).Microseconds())/1000, "p95-ms")
}
