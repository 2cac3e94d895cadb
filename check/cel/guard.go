package cel

import (
	"strings"
	"unicode/utf8"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/interpreter"

	"github.com/vouchgate/vouch/check"
)

// MaxStringBytes bounds a string an expression builds. CEL's cost limit
// counts what a call did after it returns; a call that would build more
// than this (summary.replace('a', summary) on a large summary, which would
// build gigabytes) is refused before it allocates anything.
const MaxStringBytes = 16 << 20

// guardStrings replaces the calls of the functions whose result can grow
// faster than their input (replace, join, string concatenation) with
// versions that first work out the size of the result from their
// arguments, and fail when it is over MaxStringBytes.
func guardStrings(i interpreter.InterpretableV2) (interpreter.InterpretableV2, error) {
	call, ok := i.(interpreter.InterpretableCall)
	if !ok {
		return i, nil
	}
	var size func(args []ref.Val) (int, bool)
	var eval func(args []ref.Val) ref.Val
	switch call.OverloadID() {
	case "string_replace_string_string", "string_replace_string_string_int":
		size, eval = replaceSize, replaceEval
	case "list_join", "list_join_string":
		size, eval = joinSize, joinEval
	case "matches", "matches_string":
		size, eval = matchSize, func(args []ref.Val) ref.Val { return args[0].(types.String).Match(args[1]) }
	case "add_string":
		size = func(args []ref.Val) (int, bool) {
			a, ok1 := args[0].(types.String)
			b, ok2 := args[1].(types.String)
			return len(a) + len(b), ok1 && ok2
		}
		eval = func(args []ref.Val) ref.Val { return args[0].(types.String) + args[1].(types.String) }
	default:
		return i, nil
	}
	return &guarded{InterpretableCall: call, size: size, eval: eval}, nil
}

// guarded is a call whose result size is checked before it is built. It
// keeps the call's identity (function, overload, arguments), so CEL's cost
// tracking still sees it.
type guarded struct {
	interpreter.InterpretableCall
	size func(args []ref.Val) (int, bool)
	eval func(args []ref.Val) ref.Val
}

// Exec evaluates the arguments once, checks the size the result would
// have, and only then builds it.
func (g *guarded) Exec(f *interpreter.ExecutionFrame) ref.Val {
	in := g.InterpretableCall.Args()
	args := make([]ref.Val, len(in))
	for k, a := range in {
		v := a.Exec(f)
		if types.IsUnknownOrError(v) {
			return v
		}
		args[k] = v
	}
	n, ok := g.size(args)
	if !ok {
		return types.NewErr("%s: unexpected arguments", g.Function())
	}
	if n > MaxStringBytes {
		if g.OverloadID() == "matches" || g.OverloadID() == "matches_string" {
			return types.NewErr("matches: the text is too long for this pattern (its length times the pattern's size is over %d)", check.MaxRegexWork)
		}
		return types.NewErr("%s would build a string of %d bytes, over the limit of %d", g.Function(), n, MaxStringBytes)
	}
	return g.eval(args)
}

// Eval implements the older Interpretable interface.
func (g *guarded) Eval(act interpreter.Activation) ref.Val {
	f, err := interpreter.NewExecutionFrame(act)
	if err != nil {
		return types.WrapErr(err)
	}
	defer f.Close()
	return g.Exec(f)
}

// replaceSize is the length of str.replace(old, new[, n]).
func replaceSize(args []ref.Val) (int, bool) {
	str, ok1 := args[0].(types.String)
	old, ok2 := args[1].(types.String)
	repl, ok3 := args[2].(types.String)
	if !ok1 || !ok2 || !ok3 {
		return 0, false
	}
	var count int
	if old == "" {
		count = utf8.RuneCountInString(string(str)) + 1
	} else {
		count = strings.Count(string(str), string(old))
	}
	if len(args) == 4 {
		n, ok := args[3].(types.Int)
		if !ok {
			return 0, false
		}
		if n >= 0 && int64(n) < int64(count) {
			count = int(n)
		}
	}
	grow := len(repl) - len(old)
	if grow > 0 && count > (MaxStringBytes+1)/grow {
		return MaxStringBytes + 1, true // and no overflow
	}
	return len(str) + count*grow, true
}

func replaceEval(args []ref.Val) ref.Val {
	str, old, repl := string(args[0].(types.String)), string(args[1].(types.String)), string(args[2].(types.String))
	n := -1
	if len(args) == 4 {
		n = int(args[3].(types.Int))
	}
	return types.String(strings.Replace(str, old, repl, n))
}

// joinSize is the length of list.join([sep]).
func joinSize(args []ref.Val) (int, bool) {
	l, ok := args[0].(traits.Lister)
	if !ok {
		return 0, false
	}
	sep := 0
	if len(args) == 2 {
		s, ok := args[1].(types.String)
		if !ok {
			return 0, false
		}
		sep = len(s)
	}
	sz, ok := l.Size().(types.Int)
	if !ok {
		return 0, false
	}
	total := 0
	for i := types.Int(0); i < sz; i++ {
		s, ok := l.Get(i).(types.String)
		if !ok {
			return 0, false
		}
		total += len(s)
		if i > 0 {
			total += sep
		}
		if total > MaxStringBytes {
			return total, true
		}
	}
	return total, true
}

func joinEval(args []ref.Val) ref.Val {
	l := args[0].(traits.Lister)
	sep := ""
	if len(args) == 2 {
		sep = string(args[1].(types.String))
	}
	sz := l.Size().(types.Int)
	var b strings.Builder
	for i := types.Int(0); i < sz; i++ {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(string(l.Get(i).(types.String)))
	}
	return types.String(b.String())
}

// matchSize is the work of text.matches(pattern): the text's length times
// the pattern's program size (see check.MaxRegexWork), which is what RE2's
// matching can take. Over the limit the match is not tried.
func matchSize(args []ref.Val) (int, bool) {
	text, ok1 := args[0].(types.String)
	pat, ok2 := args[1].(types.String)
	if !ok1 || !ok2 {
		return 0, false
	}
	size, err := check.RegexProgramSize(string(pat))
	if err != nil {
		return 0, true // the match reports the bad pattern itself
	}
	if work := len(text) * size; work > check.MaxRegexWork {
		return MaxStringBytes + 1, true
	}
	return 0, true
}
