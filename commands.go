package vouch

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CommandRule is one entry of the command allow-list (commands.allow): a
// program, the flags it may take and the arguments it may be given. A
// command runs only when its argv matches a rule as a whole, not merely
// its first tokens: "go test -exec /bin/true ./..." does not match the rule
// [go, test], because -exec is not one of its flags.
//
// In YAML and JSON a rule is written either as a list, the program's words
// then the flags it permits ([go, test, -v, -race, "-count=*"]), or as a
// mapping ({run: [go, test], flags: [-v], args: paths}).
type CommandRule struct {
	// Run is the program and the words that must follow it, matched
	// exactly: ["go", "test"], ["npm", "test"], ["pytest"].
	Run []string `json:"run"`
	// Flags are the options a command may add after Run, anywhere among
	// its arguments:
	//
	//   "-v"        the token -v, exactly
	//   "-count=*"  -count with any value, as -count=3 or -count 3
	//   "-count=1"  -count with that value only (-count=1 or -count 1)
	//   "--"        the end of options: what follows is an argument
	//
	// Any other token that starts with "-" is refused.
	Flags []string `json:"flags,omitempty"`
	// Args says which other arguments a command may take: ArgsPaths (the
	// default), ArgsNone or ArgsAny.
	Args string `json:"args,omitempty"`
}

// The values of [CommandRule.Args].
const (
	// ArgsPaths allows arguments that name something inside the workspace:
	// relative paths and patterns (./..., src/a_test.py::test_x, a
	// package's import path), never absolute, never with a ".." element,
	// never with a "=" (make's VAR=value), a leading "~" or a leading "@"
	// (pytest's and compilers' @file of more arguments).
	ArgsPaths = "paths"
	// ArgsNone allows no argument but flags.
	ArgsNone = "none"
	// ArgsAny allows any argument (not NUL or a newline).
	ArgsAny = "any"
)

// ErrCommandRefused is wrapped by the error [CommandRule.Match] returns for
// a command that a rule names (its program and words match) but whose
// flags or arguments the rule does not permit.
var ErrCommandRefused = errors.New("the command's flags or arguments are not allowed")

// ErrCommandNotListed is returned by [CommandRule.Match] for a command
// whose program and words the rule does not name.
var ErrCommandNotListed = errors.New("the command is not on the allow-list")

// RefusedError says which token of a command a rule refused and why.
type RefusedError struct {
	// Rule is the rule that named the command, as written in a policy.
	Rule string
	// Token is the refused argument.
	Token string
	// Why says what is wrong with it.
	Why string
}

// Error says which token was refused, why, and by which rule.
func (e *RefusedError) Error() string {
	return fmt.Sprintf("%q %s (allowed by %s)", e.Token, e.Why, e.Rule)
}

// Unwrap makes a RefusedError match [ErrCommandRefused].
func (e *RefusedError) Unwrap() error { return ErrCommandRefused }

// Match reports whether argv is allowed by r: nil when it is,
// [ErrCommandNotListed] when r does not name its program, a
// [*RefusedError] (matching [ErrCommandRefused]) when r names it but not
// one of its flags or arguments.
func (r CommandRule) Match(argv []string) error {
	if len(r.Run) == 0 || len(argv) < len(r.Run) || !slices.Equal(argv[:len(r.Run)], r.Run) {
		return ErrCommandNotListed
	}
	refuse := func(tok, why string) error { return &RefusedError{Rule: r.String(), Token: tok, Why: why} }
	rest := argv[len(r.Run):]
	for i := 0; i < len(rest); i++ {
		tok := rest[i]
		if strings.ContainsAny(tok, "\x00\n\r") {
			return refuse(tok, "holds a control character")
		}
		if tok == "--" {
			if !slices.Contains(r.Flags, "--") {
				return refuse(tok, "ends the options, and the rule does not list \"--\"")
			}
			for _, a := range rest[i+1:] {
				if why := r.argProblem(a); why != "" {
					return refuse(a, why)
				}
			}
			return nil
		}
		if len(tok) > 1 && tok[0] == '-' {
			name, value, inline := strings.Cut(tok, "=")
			spec, ok := r.flag(name)
			if !ok {
				return refuse(tok, "is a flag the rule does not list")
			}
			switch {
			case spec == name: // a flag without a value
				if inline {
					return refuse(tok, "takes no value in the rule")
				}
			case !inline: // the value is the next token
				if i+1 >= len(rest) {
					return refuse(tok, "needs a value")
				}
				i++
				value = rest[i]
				fallthrough
			default:
				if want := spec[len(name)+1:]; want != "*" && value != want {
					return refuse(tok+" "+value, fmt.Sprintf("is allowed only as %s", spec))
				}
			}
			continue
		}
		if why := r.argProblem(tok); why != "" {
			return refuse(tok, why)
		}
	}
	return nil
}

// flag returns the rule's spec for the flag name: name itself, or
// name=VALUE, or name=*.
func (r CommandRule) flag(name string) (string, bool) {
	for _, f := range r.Flags {
		if f == name || strings.HasPrefix(f, name+"=") {
			return f, true
		}
	}
	return "", false
}

// argProblem says why a is not an argument r allows, or "".
func (r CommandRule) argProblem(a string) string {
	switch r.args() {
	case ArgsNone:
		return "is an argument, and the rule allows none"
	case ArgsAny:
		if strings.ContainsAny(a, "\x00\n\r") {
			return "holds a control character"
		}
		return ""
	}
	switch {
	case a == "":
		return "is empty"
	case strings.HasPrefix(a, "/") || strings.HasPrefix(a, `\`) || strings.HasPrefix(a, "~") || len(a) > 1 && a[1] == ':':
		return "is not a path inside the workspace"
	case strings.Contains(a, "="):
		return "sets a variable (NAME=value), which the rule's args: paths does not allow"
	case strings.HasPrefix(a, "@"):
		return "names a file of more arguments (@file), which the rule's args: paths does not allow"
	}
	for _, el := range strings.FieldsFunc(a, func(r rune) bool { return r == '/' || r == '\\' }) {
		if el == ".." {
			return "leaves the workspace (..)"
		}
	}
	return ""
}

func (r CommandRule) args() string {
	if r.Args == "" {
		return ArgsPaths
	}
	return r.Args
}

// Covers reports whether every command n allows, r allows too: n names
// r's program (and maybe more words that r allows as arguments), each
// flag n permits r permits, and n's arguments are no wider. A request's
// task.policy may only list rules some rule in force covers.
func (r CommandRule) Covers(n CommandRule) bool {
	if len(r.Run) == 0 || len(n.Run) < len(r.Run) || !slices.Equal(n.Run[:len(r.Run)], r.Run) {
		return false
	}
	for _, w := range n.Run[len(r.Run):] {
		if strings.HasPrefix(w, "-") || r.argProblem(w) != "" {
			return false
		}
	}
	for _, f := range n.Flags {
		name, value, hasValue := strings.Cut(f, "=")
		spec, ok := r.flag(name)
		switch {
		case !ok:
			return false
		case spec == f || spec == name+"=*" && hasValue:
		case spec != name && hasValue && value != "*" && spec[len(name)+1:] == value:
		default:
			return false
		}
	}
	rank := map[string]int{ArgsNone: 0, ArgsPaths: 1, ArgsAny: 2}
	return rank[n.args()] <= rank[r.args()]
}

// String writes the rule as in a policy: its list form, or its mapping
// form when its arguments are not the default.
func (r CommandRule) String() string {
	words := func(ws []string) string {
		b := []byte{'['}
		for i, w := range ws {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendQuote(b, w)
		}
		return string(append(b, ']'))
	}
	if r.args() == ArgsPaths {
		return words(append(slices.Clip(r.Run), r.Flags...))
	}
	return fmt.Sprintf("{run: %s, flags: %s, args: %s}", words(r.Run), words(r.Flags), r.args())
}

// validate reports the problems of the rule at path.
func (r CommandRule) validate(path string, bad func(path, format string, args ...any)) {
	if len(r.Run) == 0 {
		bad(path, "must name at least the program")
	}
	for j, w := range r.Run {
		switch {
		case w == "":
			bad(fmt.Sprintf("%s.run[%d]", path, j), "must not be empty")
		case j > 0 && strings.HasPrefix(w, "-"):
			bad(fmt.Sprintf("%s.run[%d]", path, j), "%q is a flag: list it in flags (or after the program's words)", w)
		}
	}
	for j, f := range r.Flags {
		name, _, _ := strings.Cut(f, "=")
		if len(name) < 2 || name[0] != '-' {
			bad(fmt.Sprintf("%s.flags[%d]", path, j), "must be a flag such as -v, -count=* or -count=1, got %q", f)
		}
	}
	if a := r.args(); a != ArgsPaths && a != ArgsNone && a != ArgsAny {
		bad(path+".args", "must be paths, none or any, got %q", r.Args)
	}
}

// NewCommandRule returns the rule of the list form words: the words up to
// the first that starts with "-" are the program's, the rest its flags;
// arguments are [ArgsPaths]. NewCommandRule("go", "test", "-v", "-count=*")
// allows go test with -v, -count and package paths.
func NewCommandRule(words ...string) CommandRule {
	var r CommandRule
	for i, w := range words {
		if strings.HasPrefix(w, "-") && i > 0 {
			r.Flags = slices.Clone(words[i:])
			break
		}
		r.Run = append(r.Run, w)
	}
	return r
}

// MarshalJSON writes a rule with default arguments in its list form.
func (r CommandRule) MarshalJSON() ([]byte, error) {
	if r.args() == ArgsPaths {
		return json.Marshal(append(append([]string{}, r.Run...), r.Flags...))
	}
	type plain CommandRule
	return json.Marshal(plain(r))
}

// UnmarshalJSON reads a rule in its list or its mapping form. In the list
// form the words up to the first that starts with "-" are the program's,
// the rest its flags.
func (r *CommandRule) UnmarshalJSON(data []byte) error {
	if d := strings.TrimLeft(string(data), " \t\r\n"); strings.HasPrefix(d, "[") {
		var words []string
		if err := json.Unmarshal(data, &words); err != nil {
			return err
		}
		*r = NewCommandRule(words...)
		for _, f := range r.Flags {
			if !strings.HasPrefix(f, "-") {
				return fmt.Errorf("%q follows a flag: in the list form the program's words come first, then only flags (use {run, flags, args} for more)", f)
			}
		}
		return nil
	}
	type plain CommandRule
	var p plain
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return err
	}
	*r = CommandRule(p)
	return nil
}
