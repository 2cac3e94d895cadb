// Package check is the registry of check kinds and analyzers.
//
// A check kind decides a criterion by rule: "contains", "regex", "cel"... Each
// kind registers itself from an init function with [Register]; a binary
// blank-imports check/all to get every built-in kind. Analyzers examine whole
// requests (claims, grounding, plans) and register with [RegisterAnalyzer],
// naming the checkpoint kinds they serve ([AnalyzerInfo.Kinds]): the engine
// runs a request through its kind's analyzers only.
//
// A check kind (check.type) and a checkpoint kind ([vouch.Kind]) are not the
// same thing: the first names a rule a criterion can use, the second what
// sort of agent output a request carries.
//
// The packages under check/ do not import one another (check/all, which
// registers them, excepted): what several checks need lives in the domain
// (package vouch: [vouch.Subject.Rel], [vouch.Output.ClaimedRegions]), in
// an adapter, memoised once per verification (git.ChangesFor, code.FileFor,
// trace.SummaryFor), or in check/internal. A test in check/all keeps it so.
//
// Registration panics on an empty name, a nil factory, a duplicate or an
// analyzer that names no kind or an unknown one, like database/sql's
// Register: these are programming errors found at start-up.
package check

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"sync"

	"github.com/go-json-experiment/json"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/jsonerr"
	"github.com/vouchgate/vouch/text/claimtext"
)

// Env is what a factory may use while compiling a check.
type Env struct {
	// Files resolves files a check names at compile time (a json_schema
	// check's schemaFile). Never the workspace under verification: the
	// agent could have written it. Nil means no files can be named.
	Files fs.FS
}

// Factory compiles a check from its spec. It returns a *vouch.Error (or
// vouch.Errors) whose paths are relative to the check object when the spec
// is wrong: an unknown parameter, a bad regex, a schema that does not
// compile. The returned Checker must be safe for concurrent use.
type Factory func(spec vouch.CheckSpec, env Env) (vouch.Checker, error)

// Type describes one check type: a criterion's check.type.
type Type struct {
	// Name is the value of check.type ("contains").
	Name string
	// Strength is the evidence strength of the kind's results.
	Strength vouch.Strength
	// Level is the pipeline level of the kind's results (usually criteria).
	Level vouch.Level
	// New compiles a spec of this kind.
	New Factory
	// Params documents the kind's parameters ("{value, ignoreCase}").
	Params string
	// Doc says in one sentence what the kind checks.
	Doc string
}

// AnalyzerInfo describes one analyzer.
type AnalyzerInfo struct {
	// Name identifies the analyzer ("claims.files").
	Name string
	// Level is the pipeline level the analyzer's checks belong to; analyzers
	// run in pipeline order of their levels, then by name.
	Level vouch.Level
	// Kinds are the checkpoint kinds the analyzer serves: the engine runs
	// it for requests of these kinds and no others, so the analyzer need
	// not look at the request's kind to decide whether it applies. It
	// must not be empty: an analyzer that serves every kind says so with
	// [EveryKind].
	Kinds []vouch.Kind
	// New returns the analyzer; it is called once per engine.
	New func() vouch.Analyzer
}

// EveryKind returns every checkpoint kind ([vouch.Kinds]), for the
// [AnalyzerInfo.Kinds] of an analyzer that serves them all.
func EveryKind() []vouch.Kind { return slices.Clone(vouch.Kinds) }

// Serves reports whether the analyzer serves requests of kind k.
func (a AnalyzerInfo) Serves(k vouch.Kind) bool { return slices.Contains(a.Kinds, k) }

// ServesEveryKind reports whether the analyzer serves every checkpoint
// kind.
func (a AnalyzerInfo) ServesEveryKind() bool {
	for _, k := range vouch.Kinds {
		if !a.Serves(k) {
			return false
		}
	}
	return true
}

var (
	mu        sync.RWMutex
	kinds     = map[string]Type{}
	analyzers = map[string]AnalyzerInfo{}
)

// Register makes a check kind available. It panics if the name is empty, the
// factory is nil or the name is already registered.
func Register(k Type) {
	mu.Lock()
	defer mu.Unlock()
	if k.Name == "" {
		panic("check: Register with an empty kind name")
	}
	if k.New == nil {
		panic("check: Register of kind " + k.Name + " with a nil factory")
	}
	if _, dup := kinds[k.Name]; dup {
		panic("check: Register called twice for kind " + k.Name)
	}
	if k.Strength == "" {
		k.Strength = vouch.StrengthStrict
	}
	if k.Level == "" {
		k.Level = vouch.LevelCriteria
	}
	kinds[k.Name] = k
}

// Lookup returns the registered kind with the given name.
func Lookup(name string) (Type, error) {
	mu.RLock()
	defer mu.RUnlock()
	k, ok := kinds[name]
	if !ok {
		return Type{}, fmt.Errorf("check: kind not registered: %q", name)
	}
	return k, nil
}

// Kinds returns the names of the registered kinds, sorted.
func Kinds() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(kinds))
	for name := range kinds {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// All returns every registered kind, sorted by name.
func All() []Type {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Type, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b Type) int { return compare(a.Name, b.Name) })
	return out
}

// RegisterAnalyzer makes an analyzer available. It panics if the name is
// empty, New is nil, Kinds is empty or names an unknown or repeated kind, or
// the name is already registered. The kinds are kept in the order of
// [vouch.Kinds].
func RegisterAnalyzer(a AnalyzerInfo) {
	mu.Lock()
	defer mu.Unlock()
	if a.Name == "" {
		panic("check: RegisterAnalyzer with an empty name")
	}
	if a.New == nil {
		panic("check: RegisterAnalyzer of " + a.Name + " with a nil New")
	}
	if len(a.Kinds) == 0 {
		panic("check: RegisterAnalyzer of " + a.Name + " with no kinds (use EveryKind for all of them)")
	}
	for i, k := range a.Kinds {
		if !k.Valid() {
			panic(fmt.Sprintf("check: RegisterAnalyzer of %s with unknown kind %q", a.Name, k))
		}
		if slices.Contains(a.Kinds[:i], k) {
			panic(fmt.Sprintf("check: RegisterAnalyzer of %s with kind %s twice", a.Name, k))
		}
	}
	if _, dup := analyzers[a.Name]; dup {
		panic("check: RegisterAnalyzer called twice for " + a.Name)
	}
	kinds := make([]vouch.Kind, 0, len(a.Kinds))
	for _, k := range vouch.Kinds {
		if slices.Contains(a.Kinds, k) {
			kinds = append(kinds, k)
		}
	}
	a.Kinds = kinds
	analyzers[a.Name] = a
}

// Analyzers returns the registered analyzers in pipeline order: by level,
// then by name. Each one's Kinds is its own copy.
func Analyzers() []AnalyzerInfo {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]AnalyzerInfo, 0, len(analyzers))
	for _, a := range analyzers {
		a.Kinds = slices.Clone(a.Kinds)
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b AnalyzerInfo) int {
		if d := levelOrder(a.Level) - levelOrder(b.Level); d != 0 {
			return d
		}
		return compare(a.Name, b.Name)
	})
	return out
}

// AnalyzersFor returns the registered analyzers that serve checkpoint kind
// k, in pipeline order.
func AnalyzersFor(k vouch.Kind) []AnalyzerInfo {
	all := Analyzers()
	out := all[:0]
	for _, a := range all {
		if a.Serves(k) {
			out = append(out, a)
		}
	}
	return out
}

// Unregister removes a kind or analyzer by name. It is meant for tests that
// register fakes.
func Unregister(name string) {
	mu.Lock()
	defer mu.Unlock()
	delete(kinds, name)
	delete(analyzers, name)
}

func levelOrder(l vouch.Level) int {
	switch l {
	case vouch.LevelStructure:
		return 0
	case vouch.LevelPluginSchema:
		return 1
	case vouch.LevelClaims:
		return 2
	case vouch.LevelGrounding:
		return 3
	case vouch.LevelCriteria:
		return 4
	case vouch.LevelJudge:
		return 5
	}
	return 6
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Common holds the parameters every check accepts: its type and negation.
// Embed it in a kind's parameter struct with `json:",inline"`.
type Common struct {
	Type string `json:"type"`
	Not  bool   `json:"not,omitempty"`
}

// Target is the parameter of text checks: the workspace file to read instead
// of output.summary. Embed it with `json:",inline"`.
type Target struct {
	Target string `json:"target,omitempty"`
}

// DecodeParams decodes the spec's raw object into v strictly: unknown
// parameters and wrong types are errors whose paths are relative to the
// check object. v must be a pointer to a struct that embeds [Common].
func DecodeParams(spec vouch.CheckSpec, v any) error {
	raw := spec.Raw
	if len(raw) == 0 {
		raw = []byte(`{"type":` + quote(spec.Type) + `}`)
	}
	if err := json.Unmarshal(raw, v, json.RejectUnknownMembers(true)); err != nil {
		e := jsonerr.Convert(raw, err)
		e.Code = codeFor(e.Code)
		e.Line, e.Column = 0, 0
		return e
	}
	return nil
}

func codeFor(c vouch.ErrorCode) vouch.ErrorCode {
	if c == vouch.ErrSyntax {
		return vouch.ErrCriterion
	}
	return c
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Errorf returns a *vouch.Error with code bad_criterion at path (relative to
// the check object).
func Errorf(path, format string, args ...any) error {
	return &vouch.Error{Code: vouch.ErrCriterion, Path: path, Message: fmt.Sprintf(format, args...)}
}

// FileError turns an error reading a workspace file (see
// [vouch.Subject.ReadFile]) into an outcome, the same way for every check: a
// missing file or a path out of the workspace fails; no workspace, or a file
// that cannot be read (a device, a FIFO, a directory, too large) leaves the
// check undecided.
func FileError(path string, err error) vouch.Outcome {
	ev := map[string]any{"file": path}
	var o vouch.Outcome
	switch {
	case errors.Is(err, fs.ErrNotExist):
		o = vouch.Fail(vouch.CodeFileMissing, fmt.Sprintf("%s does not exist", path), ev)
		o.Fix = []string{path}
		return o
	case errors.Is(err, vouch.ErrOutsideRoot):
		return vouch.Fail(vouch.CodePathOutsideWorkspace, fmt.Sprintf("%s leads outside the workspace", path), ev)
	case errors.Is(err, vouch.ErrNoWorkspace):
		o = vouch.Undecided(vouch.CodeNoWorkspace, fmt.Sprintf("%s cannot be looked at: the request has no workspace", path))
	default:
		o = vouch.Undecided(vouch.CodeFileUnreadable, fmt.Sprintf("%s cannot be read: %v", path, err))
	}
	o.Evidence = ev
	return o
}

// statementsKey is the memo key of Statements.
type statementsKey struct{}

// Statements returns the claims the request's summary makes, clause by
// clause (package claimtext's Statements), read once per verification:
// the claim ledger and every analyzer that holds a kind of them share the
// reading.
func Statements(s *vouch.Subject) []claimtext.Statement {
	return s.Memo(statementsKey{}, func() any { return claimtext.Statements(s.Request.Output.Summary) }).([]claimtext.Statement)
}
