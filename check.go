package vouch

import (
	"context"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Checker decides one criterion by rule. A Checker is compiled once from a
// [CheckSpec] by its kind's factory (see package check) and then used for
// many verifications: Check may be called concurrently and must not modify
// the Checker or the Subject's request.
//
// Check never returns an error: a check that cannot decide returns an
// Outcome with [StatusUndecided] and a code saying why. Negation (not: true)
// is applied by the engine, not by the Checker.
type Checker interface {
	Check(ctx context.Context, s *Subject) Outcome
}

// Outcome is what a [Checker] found.
type Outcome struct {
	Status Status
	// Score is in [0,1]: 1 for pass and 0 for fail, or the share found for
	// a count (3 of 4 sections = 0.75). Ignored when undecided.
	Score float64
	// Reason says in one sentence what was found.
	Reason string
	// Code is a catalogue code, required when the check failed or stayed
	// undecided.
	Code string
	// Evidence holds what the check saw, as JSON-ready values. It is
	// read-only once returned: the engine copies it before adding to it, so
	// a Checker may return a map it shares between calls.
	Evidence map[string]any
	// Fix lists the exact things to fix (missing sections, lines, symbols),
	// quoted in the feedback of a second retry.
	Fix []string
	// Strength overrides the kind's evidence strength for this outcome (a
	// tool_called check decided from the agent's claims alone is light).
	// Empty means the kind's strength.
	Strength Strength
}

// Pass returns a passing Outcome with the given reason.
func Pass(reason string, evidence map[string]any) Outcome {
	return Outcome{Status: StatusPass, Score: 1, Reason: reason, Evidence: evidence}
}

// Fail returns a failing Outcome with the given code and reason.
func Fail(code, reason string, evidence map[string]any) Outcome {
	return Outcome{Status: StatusFail, Score: 0, Code: code, Reason: reason, Evidence: evidence}
}

// Undecided returns an undecided Outcome with the given code and reason.
func Undecided(code, reason string) Outcome {
	return Outcome{Status: StatusUndecided, Code: code, Reason: reason}
}

// Analyzer examines a whole request beyond its written criteria: re-checks
// of claims against the workspace, grounding of mentions, the structure of a
// plan. Analyzers are registered with package check and run by the engine in
// the order of their level. Analyze may be called concurrently.
//
// An Analyzer adds what it found to f. It returns an error only when it
// could not run at all; the engine then records a warning and leaves the
// parts the analyzer decides undecided.
type Analyzer interface {
	Analyze(ctx context.Context, s *Subject, f *Findings) error
}

// Concluder is an ability an [Analyzer] may have: to add warnings that
// depend on the verdict (a synthesis that failed says to hand on the agent
// outputs it was built from instead). Once the verdict table has decided,
// the engine calls Conclude on each analyzer of the request's kind that has
// this ability, in pipeline order, whether or not its Analyze could run,
// and adds the warnings it returns to the report. rep is the report as far
// as it is built (verdict, action, score, checks, warnings); Conclude must
// not modify it, and may be called concurrently.
type Concluder interface {
	Conclude(s *Subject, rep *Report) []Warning
}

// Findings collects what analyzers found for one verification.
type Findings struct {
	// Checks are check results; each names the Dimension it feeds.
	Checks []CheckResult
	// Criteria are inferred criteria with their results; each is paired
	// with the check in Checks that decided it by Name.
	Criteria []CriterionResult
	// Applicable marks dimensions the analyzers found something to check
	// against, even when no check could decide them.
	Applicable  map[string]bool
	Mentions    Mentions
	Warnings    []Warning
	Gaps        []string
	Issues      []string
	Suggestions []string
}

// MarkApplicable records that dimension dim has something to check against.
func (f *Findings) MarkApplicable(dim string) {
	if f.Applicable == nil {
		f.Applicable = make(map[string]bool)
	}
	f.Applicable[dim] = true
}

// Subject is what the checks of one verification look at: the request, the
// policy in force and the workspace. It also memoises work that several
// checks share (a lowered summary, a parsed file, the git state), so each is
// done at most once per verification. A Subject belongs to one verification.
type Subject struct {
	Request *Request
	Policy  *Policy
	// Workspace is the agent's workspace, opened as a root that no path can
	// leave; nil when the request has none. Its files are read through the
	// Subject's methods (ReadFile, Stat, FS); a process is started in it
	// through [Subject.Dir], never through its Name, which is for messages.
	Workspace *os.Root
	// Now is the clock.
	Now func() time.Time
	// MaxFileBytes bounds the files a check reads (0 means 4 MiB).
	MaxFileBytes int64

	mu   sync.Mutex
	memo map[any]any
	ran  atomic.Bool

	// The directory behind Dir, opened at its first call.
	dirMu   sync.Mutex
	dirDone bool
	dirFile *os.File
	dirPath string
}

// MarkRan records that a check ran a command in the workspace: code the
// agent wrote, which could have read what the user running vouch can
// read. The engine then scrubs the report of the secrets of its
// environment.
func (s *Subject) MarkRan() { s.ran.Store(true) }

// Ran reports whether a check ran a command (see [Subject.MarkRan]).
func (s *Subject) Ran() bool { return s.ran.Load() }

// Memo returns the value cached under key, computing it with compute the
// first time. Keys should be values of an unexported type of the caller's
// package, as with context keys.
func (s *Subject) Memo(key any, compute func() any) any {
	s.mu.Lock()
	if v, ok := s.memo[key]; ok {
		s.mu.Unlock()
		return v
	}
	s.mu.Unlock()
	v := compute()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.memo == nil {
		s.memo = make(map[any]any)
	}
	if old, ok := s.memo[key]; ok {
		return old
	}
	s.memo[key] = v
	return v
}

// Errors of [Subject.ReadFile].
var (
	ErrNoWorkspace    = errors.New("vouch: the request has no workspace")
	ErrOutsideRoot    = errors.New("vouch: path leaves the workspace")
	ErrNotRegularFile = errors.New("vouch: not a regular file")
	ErrFileTooLarge   = errors.New("vouch: file over the size limit")
)

// ReadFile reads a file of the workspace by its slash-separated path
// relative to the workspace root. It refuses absolute paths and paths that
// leave the root ([ErrOutsideRoot]), files that are not regular files
// ([ErrNotRegularFile]) and files over the size limit ([ErrFileTooLarge]:
// MaxFileBytes, else the policy's limits.fileBytes); a missing file gives
// an error matching [fs.ErrNotExist]. The file is opened before it is
// checked, and read once per verification.
func (s *Subject) ReadFile(path string) ([]byte, error) {
	r := s.read(path)
	switch {
	case r.err != nil:
		return nil, r.err
	case !r.whole:
		return nil, ErrFileTooLarge
	}
	return r.data, nil
}

type textKey string

type textResult struct {
	text string
	err  error
}

// Text returns the text a text check reads: the output's summary when target
// is empty, else the workspace file target (see [Subject.ReadFile]). The
// file's text is memoised, so several checks on one file share one copy.
func (s *Subject) Text(target string) (string, error) {
	if target == "" {
		return s.Request.Output.Summary, nil
	}
	r := s.Memo(textKey(target), func() any {
		data, err := s.ReadFile(target)
		return textResult{string(data), err}
	}).(textResult)
	return r.text, r.err
}
