// Package cel provides the "cel" check kind: a criterion written as a CEL
// (Common Expression Language) expression that must evaluate to true.
//
// An expression sees four variables:
//
//	request   the whole request, as a map of its JSON form
//	task      request.task, as a map
//	output    request.output, as a map
//	summary   output.summary, as a string
//
// Maps use the contract's JSON field names; fields the request leaves out
// are absent, so test them with has() (has(output.testResult)) or optional
// selection (output.?testResult.orValue("")). Integral JSON numbers are CEL
// ints and the others doubles; ints and doubles compare with each other. The
// standard library, optional types and the strings extension
// (cel.dev/cel-go/ext) are available.
//
// An expression is parsed and type-checked when the check is compiled: it
// must be able to produce a bool. Evaluation is bounded by a cost limit, by
// the verification's context, and by a limit on the strings it builds that
// is checked before a string is built (MaxStringBytes: replace, join and
// concatenation can grow faster than their input). A failed evaluation (a
// missing key, a limit, a non-bool result) leaves the check undecided,
// never passed: it is CEL_ERROR, never a crash.
package cel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	celgo "cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/ext"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

func init() {
	check.Register(check.Type{
		Name:     "cel",
		Strength: vouch.StrengthStrict,
		New:      newCEL,
		Params:   "{expr}",
		Doc:      "The CEL expression over request, task, output and summary evaluates to true.",
	})
}

// Limits of an expression.
const (
	// CostLimit bounds the runtime cost of one evaluation (cel.CostLimit).
	CostLimit = 1_000_000
	// MaxExprLength bounds an expression's length in code points.
	MaxExprLength = 10_000
	// MaxRegexProgram bounds the compiled size of a regular expression
	// an expression matches with (matches()), as the regex check does.
	MaxRegexProgram = 10_000
	// interruptEvery is how many comprehension iterations run between
	// checks of the context.
	interruptEvery = 100
)

var (
	envOnce sync.Once
	env     *celgo.Env
	envErr  error
)

// celEnv returns the CEL environment, built the first time a cel check is
// compiled: building it costs milliseconds and most runs need none.
func celEnv() (*celgo.Env, error) {
	envOnce.Do(func() {
		obj := celgo.MapType(celgo.StringType, celgo.DynType)
		env, envErr = celgo.NewEnv(
			celgo.Variable("request", obj),
			celgo.Variable("task", obj),
			celgo.Variable("output", obj),
			celgo.Variable("summary", celgo.StringType),
			celgo.CrossTypeNumericComparisons(true),
			celgo.OptionalTypes(),
			ext.Strings(),
			celgo.ParserExpressionSizeLimit(MaxExprLength),
			celgo.RegexProgramSizeLimit(MaxRegexProgram),
		)
	})
	return env, envErr
}

type params struct {
	check.Common `json:",inline"`
	Expr         *string `json:"expr"`
}

// checker evaluates a compiled CEL program.
type checker struct {
	expr      string
	prg       celgo.Program
	okReason  string
	badReason string
}

func newCEL(spec vouch.CheckSpec, _ check.Env) (vouch.Checker, error) {
	var p params
	if err := check.DecodeParams(spec, &p); err != nil {
		return nil, err
	}
	if p.Expr == nil {
		return nil, check.Errorf("expr", "is required")
	}
	if strings.TrimSpace(*p.Expr) == "" {
		return nil, check.Errorf("expr", "must not be empty")
	}
	e, err := celEnv()
	if err != nil {
		return nil, &vouch.Error{Code: vouch.ErrInternal, Path: "expr", Message: "cannot build the CEL environment: " + err.Error(), Err: err}
	}
	ast, iss := e.Compile(*p.Expr)
	if iss != nil && iss.Err() != nil {
		return nil, check.Errorf("expr", "%s", issuesText(iss.Errors()))
	}
	if t := ast.OutputType(); !t.IsExactType(celgo.BoolType) && !t.IsExactType(celgo.DynType) {
		return nil, check.Errorf("expr", "must evaluate to bool, not %s", t)
	}
	prg, err := e.Program(ast,
		celgo.CostLimit(CostLimit),
		celgo.InterruptCheckFrequency(interruptEvery),
		celgo.CustomDecoratorV2(guardStrings),
	)
	if err != nil {
		return nil, check.Errorf("expr", "%v", err)
	}
	quoted := strconv.Quote(shorten(*p.Expr, 80))
	return &checker{
		expr:      *p.Expr,
		prg:       prg,
		okReason:  "the CEL expression " + quoted + " is true",
		badReason: "the CEL expression " + quoted + " is false",
	}, nil
}

// shorten cuts s to at most n characters, with "…" where it was cut.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// activationKey is the memo key of a verification's CEL variables.
type activationKey struct{}

type activation struct {
	vars map[string]any
	err  error
}

// variables returns the CEL variables of a verification, built once per
// verification.
func variables(s *vouch.Subject) activation {
	return s.Memo(activationKey{}, func() any {
		m, err := toMap(s.Request)
		if err != nil {
			return activation{err: err}
		}
		task, _ := m["task"].(map[string]any)
		output, _ := m["output"].(map[string]any)
		if task == nil {
			task = map[string]any{}
		}
		if output == nil {
			output = map[string]any{}
		}
		return activation{vars: map[string]any{
			"request": m,
			"task":    task,
			"output":  output,
			"summary": s.Request.Output.Summary,
		}}
	}).(activation)
}

// toMap returns the request's JSON form as a map, with integral numbers as
// int64 and the others as float64.
func toMap(r *vouch.Request) (map[string]any, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return convertNumbers(m).(map[string]any), nil
}

func convertNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = convertNumbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = convertNumbers(x)
		}
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return v
}

// Check implements vouch.Checker.
func (c *checker) Check(ctx context.Context, s *vouch.Subject) vouch.Outcome {
	ev := map[string]any{"expr": c.expr}
	if err := ctx.Err(); err != nil {
		o := vouch.Undecided(vouch.CodeCheckCancelled, "the CEL expression was not evaluated: "+err.Error())
		o.Evidence = ev
		return o
	}
	act := variables(s)
	if act.err != nil {
		o := vouch.Undecided(vouch.CodeCELError, "cannot give the request to CEL: "+act.err.Error())
		o.Evidence = ev
		return o
	}
	val, _, err := c.prg.ContextEval(ctx, act.vars)
	if err != nil {
		code, reason := vouch.CodeCELError, "the CEL expression failed: "+err.Error()
		if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			code, reason = vouch.CodeCheckCancelled, "the CEL expression was interrupted: "+err.Error()
		}
		o := vouch.Undecided(code, reason)
		ev["error"] = err.Error()
		o.Evidence = ev
		return o
	}
	b, ok := val.(types.Bool)
	if !ok {
		o := vouch.Undecided(vouch.CodeCELError,
			fmt.Sprintf("the CEL expression returned %s, not a bool", val.Type().TypeName()))
		o.Evidence = ev
		return o
	}
	if b {
		return vouch.Pass(c.okReason, ev)
	}
	return vouch.Fail(vouch.CodeCELFalse, c.badReason, ev)
}

// issuesText writes the problems CEL found in an expression on one line,
// each with its place in the expression, at most three of them.
func issuesText(errs []*celgo.Error) string {
	const most = 3
	parts := make([]string, 0, min(len(errs), most)+1)
	for i, e := range errs {
		if i == most {
			parts = append(parts, fmt.Sprintf("and %d more", len(errs)-most))
			break
		}
		at := fmt.Sprintf("at column %d", e.Location.Column()+1)
		if l := e.Location.Line(); l > 1 {
			at = fmt.Sprintf("at line %d, column %d", l, e.Location.Column()+1)
		}
		parts = append(parts, at+" of the expression: "+strings.Join(strings.Fields(e.Message), " "))
	}
	return strings.Join(parts, "; ")
}
