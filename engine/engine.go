// Package engine turns a policy and a request into a report.
//
// An [Engine] is built once from a policy ([New]) and then verifies many
// requests, concurrently if the caller likes: compiled criteria and request
// policies are cached by content hash, so a batch that repeats criteria
// compiles each once. One verification runs the pipeline of DESIGN.md:
// structure (criteria compile), the analyzers that serve the request's
// checkpoint kind in pipeline order (plugin schemas, claims, grounding), the
// rule-decided criteria, the judge for what is left, and finally scoring,
// confidence and the verdict table. Each kind's pipeline is built once, by
// New.
package engine

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"slices"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/internal/secret"
	"github.com/vouchgate/vouch/policy"
	"github.com/vouchgate/vouch/wire"
)

// Options configure an [Engine]. The zero Options mean: the built-in policy,
// no judge, the system clock, requests up to 4 MiB, workspaces taken from
// the request as directory paths.
type Options struct {
	// Policy is the resolved policy (built-in defaults, then policy files);
	// nil means vouch.DefaultPolicy(). Requests may tighten it.
	Policy *vouch.Policy
	// Judge decides what no rule can; nil means no judge.
	Judge vouch.Judge
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Files resolves files named by criteria at compile time (a json_schema
	// check's schemaFile); nil means none can be named.
	Files fs.FS
	// MaxRequestBytes bounds a request given to VerifyBytes; 0 means 4 MiB.
	MaxRequestBytes int64
	// Workspace opens the workspace of a request: a root of its directory,
	// or nil for none. The engine owns what it returns: it checks the open
	// directory (never the filesystem root or a kernel pseudo-filesystem),
	// reads the workspace through it, starts git and commands in it (see
	// [vouch.Subject.Dir]) and closes it when the verification ends,
	// whether or not it succeeds; each call must therefore return a root
	// of its own. The engine never looks the workspace's path up again:
	// what was opened is what is verified. Nil means [OpenDir] of the
	// request's own workspace field. A command-line flag ([WorkspaceAt])
	// or an allow-list of workspace roots ([Roots.Open]) goes here.
	Workspace func(req *vouch.Request) (*os.Root, error)
	// Analyzers names the registered analyzers to run: nil means all of
	// them, an empty non-nil list none. Each runs only for the checkpoint
	// kinds it serves, and in pipeline order whatever the order of the
	// names.
	Analyzers []string
}

// Engine verifies requests against a policy. It is safe for concurrent use.
type Engine struct {
	policy    vouch.Policy
	judge     vouch.Judge
	now       func() time.Time
	files     fs.FS
	maxBytes  int64
	workspace func(req *vouch.Request) (*os.Root, error)
	// pipelines holds, for each checkpoint kind, the analyzers that serve
	// it in pipeline order; built once by New.
	pipelines map[vouch.Kind][]namedAnalyzer

	criteria *cache[*compiled]
	policies *cache[policyResult]
}

type namedAnalyzer struct {
	name     string
	analyzer vouch.Analyzer
	// concluder is the analyzer when it is a vouch.Concluder, else nil.
	concluder vouch.Concluder
}

type policyResult struct {
	p   *vouch.Policy
	err error
}

// New returns an engine for the given options. It fails if the policy does
// not validate or a named analyzer is not registered. It builds each
// checkpoint kind's pipeline once: the selected analyzers that serve the
// kind, in pipeline order, each made once and shared by the kinds it
// serves.
func New(opts Options) (*Engine, error) {
	p := vouch.DefaultPolicy()
	if opts.Policy != nil {
		p = *opts.Policy
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	e := &Engine{
		policy:    p,
		judge:     opts.Judge,
		now:       opts.Now,
		files:     opts.Files,
		maxBytes:  opts.MaxRequestBytes,
		workspace: opts.Workspace,
		criteria:  newCache[*compiled](4096),
		policies:  newCache[policyResult](256),
	}
	if e.now == nil {
		e.now = time.Now
	}
	if e.workspace == nil {
		e.workspace = func(req *vouch.Request) (*os.Root, error) { return OpenDir(req.Workspace) }
	}
	pipelines, err := buildPipelines(check.Analyzers(), opts.Analyzers)
	if err != nil {
		return nil, err
	}
	e.pipelines = pipelines
	return e, nil
}

// buildPipelines returns the pipeline of each checkpoint kind: the
// analyzers of registered (in pipeline order) that names selects (nil: all
// of them) and that serve the kind.
func buildPipelines(registered []check.AnalyzerInfo, names []string) (map[vouch.Kind][]namedAnalyzer, error) {
	selected := registered
	if names != nil {
		want := make(map[string]bool, len(names))
		for _, name := range names {
			if !slices.ContainsFunc(registered, func(a check.AnalyzerInfo) bool { return a.Name == name }) {
				return nil, fmt.Errorf("engine: analyzer not registered: %q", name)
			}
			want[name] = true
		}
		selected = nil
		for _, a := range registered {
			if want[a.Name] {
				selected = append(selected, a)
			}
		}
	}
	made := make([]namedAnalyzer, len(selected))
	for i, a := range selected {
		an := a.New()
		c, _ := an.(vouch.Concluder)
		made[i] = namedAnalyzer{name: a.Name, analyzer: an, concluder: c}
	}
	pipelines := make(map[vouch.Kind][]namedAnalyzer, len(vouch.Kinds))
	for _, k := range vouch.Kinds {
		p := []namedAnalyzer{}
		for i, a := range selected {
			if a.Serves(k) {
				p = append(p, made[i])
			}
		}
		pipelines[k] = p
	}
	return pipelines, nil
}

// Analyzers returns the names of the analyzers a request of checkpoint
// kind k runs through, in pipeline order; nil for an unknown kind.
func (e *Engine) Analyzers(k vouch.Kind) []string {
	p, ok := e.pipelines[k]
	if !ok {
		return nil
	}
	out := make([]string, len(p))
	for i, a := range p {
		out[i] = a.name
	}
	return out
}

// Policy returns the engine's policy (before any request's tightening).
func (e *Engine) Policy() vouch.Policy { return e.policy }

// CallsOut reports whether a verification by e may reach beyond the
// process: ask a judge, or run a program the policy allows. Verifying a
// request again then costs more than looking up an earlier answer.
func (e *Engine) CallsOut() bool { return e.judge != nil || len(e.policy.Commands.Allow) > 0 }

// VerifyBytes decodes a request (JSON or YAML, see package wire) and
// verifies it. Invalid input gives an error listing every problem, each
// with its path, line and column (a criterion that does not compile too,
// beside what decoding found), never a report.
func (e *Engine) VerifyBytes(ctx context.Context, data []byte) (*vouch.Report, error) {
	opt := wire.Options{MaxBytes: e.maxBytes}
	req, err := wire.DecodeRequest(data, opt)
	if err == nil {
		var rep *vouch.Report
		if rep, err = e.Verify(ctx, req); err == nil {
			return rep, nil
		}
	}
	// Bad input is decoded again with the engine's check, off the path
	// of good input, to list all its problems with their positions.
	opt.Check = e.Check
	if _, all := wire.DecodeRequest(data, opt); all != nil {
		return nil, all
	}
	return nil, err
}

// Verify verifies one decoded request. It returns an error only when the
// request is invalid (its task.policy widens the policy, a criterion does
// not compile: a *vouch.Error or vouch.Errors naming the path) or its
// workspace cannot be opened; everything that goes wrong during the checks
// themselves makes parts of the report undecided instead. Verify never
// returns a passing report for a run that could not check anything.
func (e *Engine) Verify(ctx context.Context, req *vouch.Request) (*vouch.Report, error) {
	start := e.now()
	if req == nil {
		return nil, &vouch.Error{Code: vouch.ErrMissing, Message: "no request"}
	}
	kind := req.EffectiveKind()
	if !kind.Valid() {
		return nil, &vouch.Error{Code: vouch.ErrInvalid, Path: "kind", Message: fmt.Sprintf("unknown kind %q", kind)}
	}
	pol, perr := e.requestPolicy(req)
	rules, cerr := e.compileCriteria(req)
	if err := joinProblems(perr, cerr); err != nil {
		return nil, err
	}
	if d := time.Duration(pol.Timeout); d > 0 {
		// A timer only when the caller's deadline, if any, is later.
		if dl, ok := ctx.Deadline(); !ok || time.Until(dl) > d {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, d)
			defer cancel()
		}
	}
	subj := &vouch.Subject{Request: req, Policy: pol, Now: e.now}
	root, err := e.workspace(req)
	if root != nil {
		defer root.Close()
	}
	if err != nil {
		return nil, err
	}
	if root != nil {
		if err := checkWorkspace(root); err != nil {
			return nil, err
		}
		subj.Workspace = root
		defer subj.Close()
	}

	run := &run{e: e, ctx: ctx, req: req, kind: kind, pol: pol, subj: subj}
	run.analyze()
	run.criteria(rules)
	run.judge()
	rep := run.report()
	if subj.Ran() {
		// A command ran code the agent wrote, which can read what the
		// user running vouch can: no credential of vouch's environment
		// may leave in the report.
		secret.Scrub(rep, secret.Secrets())
	}
	rep.DurationMs = float64(e.now().Sub(start).Microseconds()) / 1000
	return rep, nil
}

// Check reports the problems of a decoded request that only the engine
// sees, every one with its path: a task.policy that widens (or breaks) the
// policy, criteria whose checks do not compile. It returns nil when there
// are none; Verify reports the same problems. Pass it as wire.Options.Check
// to have them listed with decoding's, each with its line and column.
func (e *Engine) Check(req *vouch.Request) error {
	if req == nil {
		return nil
	}
	_, perr := e.requestPolicy(req)
	_, cerr := e.compileCriteria(req)
	return joinProblems(perr, cerr)
}

// joinProblems lists the problems of both errors in one: nil when both
// are nil, one of them when the other is.
func joinProblems(a, b error) error {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return append(vouch.Errors(vouch.ErrorList(a)), vouch.ErrorList(b)...)
}

// requestPolicy returns the policy in force for req: the engine's, tightened
// by the request's task.policy (cached by content).
func (e *Engine) requestPolicy(req *vouch.Request) (*vouch.Policy, error) {
	raw := req.Task.Policy
	if len(raw) == 0 || string(raw) == "null" {
		return &e.policy, nil
	}
	r := e.policies.get("", raw, func() policyResult {
		p, err := policy.ApplyRequest(e.policy, raw)
		if err != nil {
			return policyResult{err: err}
		}
		return policyResult{p: &p}
	})
	return r.p, r.err
}

// rule is a criterion with its compiled rule.
type rule struct {
	index int
	crit  *vouch.Criterion
	comp  *compiled // nil when the criterion has no check
}

// compileCriteria compiles every criterion, reporting every one that does
// not compile with its path.
func (e *Engine) compileCriteria(req *vouch.Request) ([]rule, error) {
	crits := req.Task.Criteria
	if len(crits) == 0 {
		return nil, nil
	}
	rules := make([]rule, len(crits))
	var errs vouch.Errors
	env := check.Env{Files: e.files}
	for i := range crits {
		c := &crits[i]
		rules[i] = rule{index: i, crit: c}
		if c.Check == nil {
			continue
		}
		comp := e.criteria.get(c.Check.Type, c.Check.Raw, func() *compiled { return compileSpec(c.Check, env) })
		if comp.err != nil {
			errs = append(errs, vouch.ErrorList(vouch.WithPrefix(fmt.Sprintf("task.criteria[%d].check", i), comp.err))...)
			continue
		}
		rules[i].comp = comp
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return rules, nil
}

// stack returns a short stack for panic reports.
func stack() string {
	s := string(debug.Stack())
	if len(s) > 2000 {
		s = s[:2000]
	}
	return s
}
