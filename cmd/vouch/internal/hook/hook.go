// Package hook is vouch's Claude Code hook: it records where a session
// started, and when the agent stops it verifies the turn just finished
// and, when the work is not what the agent says, blocks the stop with
// feedback the model can act on.
//
// The protocol is Claude Code's: one JSON object on standard input
// (session_id, transcript_path, cwd, hook_event_name, stop_hook_active and
// other fields, read leniently), a JSON object on standard output, exit
// status 0. A block is {"decision": "block", "reason": ...}; a message to
// the user is {"systemMessage": ...}. An internal error never blocks: it is
// shown to the user and logged.
package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/git"
	"github.com/vouchgate/vouch/internal/jail"
	"github.com/vouchgate/vouch/trace"
	"github.com/vouchgate/vouch/trace/claudecode"
)

// Input is what Claude Code sends a hook on standard input. Fields a hook
// event does not carry are empty; fields vouch does not read are ignored.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	StopHookActive bool   `json:"stop_hook_active"`
	// AgentTranscriptPath is a subagent's own log, on SubagentStop.
	AgentTranscriptPath string `json:"agent_transcript_path"`
}

// Output is what the hook answers on standard output. The zero Output is
// written as {} and lets Claude Code go on.
type Output struct {
	// Decision is "block" to keep the agent working, with Reason telling
	// it why; empty to let it stop.
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// SystemMessage is shown to the user.
	SystemMessage string `json:"systemMessage,omitempty"`
}

// Verifier verifies one request; *engine.Engine is one.
type Verifier interface {
	Verify(ctx context.Context, req *vouch.Request) (*vouch.Report, error)
}

// Config is what the hook needs besides its input.
type Config struct {
	// Verifier verifies the turn. It must honour the request's workspace
	// (the session's cwd).
	Verifier Verifier
	// StateDir holds the sessions' state, outside any workspace:
	// $XDG_STATE_HOME/vouch/claude-code by default (see [DefaultStateDir]).
	StateDir string
	// MaxBlocks is how often the hook blocks a stop in one turn; after
	// that it lets the agent stop and tells the user. The policy's
	// maxRetries by default.
	MaxBlocks int
	// MaxTranscriptBytes caps the session log read (64 MiB when 0).
	MaxTranscriptBytes int64
	// Timeout bounds one call of the hook, so that it answers before
	// Claude Code gives up on it (TimeoutSeconds); 50 s when 0. A
	// verification cut short is an error, which never blocks.
	Timeout time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Events the hook acts on.
const (
	EventSessionStart     = "SessionStart"
	EventUserPromptSubmit = "UserPromptSubmit"
	EventStop             = "Stop"
	EventSubagentStop     = "SubagentStop"
)

// DefaultStateDir returns $XDG_STATE_HOME/vouch/claude-code, or
// ~/.local/state/vouch/claude-code when XDG_STATE_HOME is unset.
func DefaultStateDir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("hook: no state directory: %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "vouch", "claude-code"), nil
}

// maxInputBytes caps the hook's input: a few paths and flags.
const maxInputBytes = 1 << 20

// Run reads one hook input from r, acts on it and writes the answer to w.
// It returns an error only when the answer cannot be written; every other
// failure is in the answer's system message and in the state directory's
// log, and lets the agent go on.
func Run(ctx context.Context, r io.Reader, w io.Writer, cfg Config) error {
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = (TimeoutSeconds - 10) * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := handle(ctx, r, cfg)
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// handle decides the answer, never failing: an error becomes a message.
func handle(ctx context.Context, r io.Reader, cfg Config) Output {
	now := time.Now
	if cfg.Now != nil {
		now = cfg.Now
	}
	in, err := readInput(r)
	if err != nil {
		return internalError(cfg, now, err)
	}
	st := &store{dir: cfg.StateDir, id: in.SessionID}
	switch in.HookEventName {
	case EventSessionStart:
		err = start(ctx, st, in, now, true)
	case EventUserPromptSubmit:
		err = start(ctx, st, in, now, false)
	case EventStop, EventSubagentStop:
		var out Output
		out, err = stop(ctx, st, in, cfg, now)
		if err == nil {
			return out
		}
	default:
		return Output{} // an event vouch has nothing to do on
	}
	if err != nil {
		return internalError(cfg, now, err)
	}
	return Output{}
}

func readInput(r io.Reader) (*Input, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxInputBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the hook input: %w", err)
	}
	if len(data) > maxInputBytes {
		return nil, fmt.Errorf("the hook input is over %d bytes", maxInputBytes)
	}
	var in Input
	if err := json.Unmarshal(data, &in, json.RejectUnknownMembers(false)); err != nil {
		return nil, fmt.Errorf("the hook input is not a JSON object: %w", err)
	}
	if in.HookEventName == "" {
		return nil, errors.New("the hook input has no hook_event_name")
	}
	if in.SessionID == "" {
		return nil, errors.New("the hook input has no session_id")
	}
	return &in, nil
}

// start records where the session (or, without a record, the turn)
// started: the base commit and the files already dirty. Every new prompt
// starts a turn, whose blocks are counted afresh.
func start(ctx context.Context, st *store, in *Input, now func() time.Time, session bool) error {
	s, err := st.load()
	if err != nil {
		return err
	}
	s.Blocks, s.Asked = 0, false
	if session || !s.Recorded {
		if in.Cwd == "" || !filepath.IsAbs(in.Cwd) {
			return fmt.Errorf("%s: the hook input has no absolute cwd", in.HookEventName)
		}
		info, err := git.Snapshot(ctx, in.Cwd)
		if err != nil {
			return fmt.Errorf("%s: recording the base of %s: %w", in.HookEventName, in.Cwd, err)
		}
		s.Recorded, s.Cwd, s.Base, s.Dirty, s.StartedAt = true, in.Cwd, info.Base, info.Dirty, now().UTC()
	}
	return st.save(s)
}

// stop verifies the turn that just ended.
func stop(ctx context.Context, st *store, in *Input, cfg Config, now func() time.Time) (Output, error) {
	s, err := st.load()
	if err != nil {
		return Output{}, err
	}
	path := in.TranscriptPath
	if in.HookEventName == EventSubagentStop && in.AgentTranscriptPath != "" {
		path = in.AgentTranscriptPath
	}
	req, err := request(path, cfg.MaxTranscriptBytes)
	if err != nil {
		return Output{}, err
	}
	req.Workspace = in.Cwd
	if s.Recorded && s.Cwd == in.Cwd {
		req.Base = s.Base
	}
	rep, err := cfg.Verifier.Verify(ctx, req)
	if err != nil {
		return Output{}, fmt.Errorf("verifying the turn: %w", err)
	}
	s.LastVerdict, s.LastAt = string(rep.Verdict), now().UTC()
	if err := st.saveReport(rep); err != nil {
		return Output{}, err
	}
	var out Output
	switch {
	case rep.Verdict == vouch.VerdictPass:
	case rep.Verdict == vouch.VerdictRetry && s.Blocks < cfg.MaxBlocks:
		s.Blocks++
		out = Output{Decision: "block", Reason: blockReason(rep, s.Blocks, cfg.MaxBlocks)}
	case rep.Verdict == vouch.VerdictRetry:
		out.SystemMessage = fmt.Sprintf("vouch: RETRY, not blocking again (%d blocks this turn): %s%s", s.Blocks, rep.Reason, feedbackLines(rep))
	case rep.Verdict == vouch.VerdictUnverified && rep.Action == vouch.ActionFollowUp && s.Blocks < cfg.MaxBlocks && !s.Asked:
		// The policy asks the agent about claims nothing could check: once a
		// turn, as a question, never as a finding.
		s.Blocks++
		s.Asked = true
		out = Output{Decision: "block", Reason: askReason(rep)}
	case rep.Verdict == vouch.VerdictUnverified:
		// Nothing was found false: the stop goes on, and the user is told
		// what could not be checked.
		out.SystemMessage = "vouch: UNVERIFIED: " + unverifiedLine(rep)
		if rep.Action == vouch.ActionEscalate {
			out.SystemMessage = "vouch: UNVERIFIED, for a person to check: " + unverifiedLine(rep)
		}
		out.SystemMessage += " (" + st.path(".report.json") + ")"
	default:
		out.SystemMessage = fmt.Sprintf("vouch: FAIL (%s): %s%s", rep.Action, rep.Reason, feedbackLines(rep))
	}
	if err := st.save(s); err != nil {
		return Output{}, err
	}
	return out, nil
}

// request reads the session log at path into a request.
func request(path string, max int64) (*vouch.Request, error) {
	if path == "" {
		return nil, errors.New("the hook input has no transcript_path")
	}
	if max <= 0 {
		max = 64 << 20
	}
	// The log's path comes from the hook's input: opened without blocking
	// and checked open (a FIFO is refused, not waited on).
	f, fi, err := jail.OpenPath(path)
	if errors.Is(err, jail.ErrNotRegular) {
		return nil, fmt.Errorf("the session log %s is not a regular file", path)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the session log: %w", err)
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, fmt.Errorf("the session log %s is %d bytes, over the limit of %d", path, fi.Size(), max)
	}
	t, err := claudecode.Read(io.LimitReader(f, max))
	if err != nil {
		return nil, fmt.Errorf("reading the session log %s: %w", path, err)
	}
	return t.Request(), nil
}

// blockReason is what the agent is told when its stop is blocked: that
// the work was checked, and the report's feedback (one line per thing to
// fix, most important first), else its reason.
func blockReason(rep *vouch.Report, n, max int) string {
	why := strings.TrimSpace(rep.Feedback)
	if why == "" {
		why = rep.Reason
	}
	return fmt.Sprintf("vouch checked your work against the workspace, git and your tool calls, and it does not hold up yet (block %d of %d). Fix it, or say only what you have verified:\n%s", n, max, why)
}

// askReason is what the agent is asked when its stop is held for the
// claims nothing could check: the report's question.
func askReason(rep *vouch.Report) string {
	q := strings.TrimSpace(rep.Feedback)
	if q == "" {
		q = rep.Reason
	}
	return "vouch found nothing false in your work, but could not check some of what you say. Answer this, then stop:\n" + q
}

// unverifiedLine says in a line how much of an unverified turn's claims
// could not be checked, and the first of them.
func unverifiedLine(rep *vouch.Report) string {
	// The first claim named is the first specific one: "All done" says
	// less than what the agent said it did.
	n := 0
	first, general := "", ""
	for _, c := range rep.Claims {
		if c.State != vouch.ClaimUnverified {
			continue
		}
		n++
		switch {
		case c.Kind == vouch.ClaimCompletion:
			if general == "" {
				general = c.Text
			}
		case first == "":
			first = c.Text
		}
	}
	if first == "" {
		first = general
	}
	if n == 0 {
		return rep.Reason
	}
	first = trace.Excerpt(first, 120)
	return fmt.Sprintf("%d of %d claims could not be checked, and nothing was found false (first: %q); the session's report lists them.", n, len(rep.Claims), first)
}

// feedbackLines is the report's feedback on lines of its own, for a user.
func feedbackLines(rep *vouch.Report) string {
	if fb := strings.TrimSpace(rep.Feedback); fb != "" {
		return "\n" + fb
	}
	return ""
}

// internalError logs err and tells the user, without blocking.
func internalError(cfg Config, now func() time.Time, err error) Output {
	msg := "vouch: error: " + err.Error()
	if cfg.StateDir != "" {
		if lerr := appendLog(cfg.StateDir, now().UTC().Format(time.RFC3339)+" "+err.Error()); lerr != nil {
			msg += " (and the log could not be written: " + lerr.Error() + ")"
		}
	}
	return Output{SystemMessage: msg}
}
