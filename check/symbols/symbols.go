// Package symbols holds the check kinds about code structure, read from a
// real parser (package code): doc_comments (every listed symbol, or every
// symbol in the claimed edited regions, has a doc comment) and
// symbol_exists. Each file is parsed at most once per verification.
package symbols

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/code"
	_ "github.com/vouchgate/vouch/code/treesitter" // TypeScript, JavaScript, Python (cgo builds)
)

func init() {
	check.Register(check.Kind{
		Name:     "doc_comments",
		Strength: vouch.StrengthStrict,
		New:      newDocComments,
		Params:   "{file, symbols[]}",
		Doc:      "Every listed symbol (without symbols: every symbol in the claimed edited regions of the file) has a doc comment; scores the share documented.",
	})
	check.Register(check.Kind{
		Name:     "symbol_exists",
		Strength: vouch.StrengthStrict,
		New:      newSymbolExists,
		Params:   "{name, file}",
		Doc:      "The file defines the symbol (a function, method, class or type; Type.method for a member).",
	})
}

type parsedKey string

type parsed struct {
	file *code.File
	err  error
}

// Parse returns the symbols of a workspace file, parsing it at most once per
// verification. Errors: the workspace errors of [vouch.Subject.ReadFile],
// [code.ErrUnsupported] when the build has no parser for the language, a
// *code.SyntaxError (with a partial File) for a file that does not parse,
// [ErrParseLimit] once the files parsed in this verification exceed the
// policy's limits.parseBytes, and ctx's error when it ends first.
func Parse(ctx context.Context, s *vouch.Subject, path string) (*code.File, error) {
	r := s.Memo(parsedKey(path), func() any {
		if lang, _, ok := code.ForPath(path); !ok {
			if lang == "" {
				lang = "this kind of file"
			}
			return parsed{nil, fmt.Errorf("%w: no parser for %s", code.ErrUnsupported, lang)}
		}
		src, err := s.ReadFile(path)
		if err != nil {
			return parsed{nil, err}
		}
		if !spend(s, len(src)) {
			return parsed{nil, fmt.Errorf("%w (limits.parseBytes)", ErrParseLimit)}
		}
		f, err := code.Parse(ctx, path, src)
		return parsed{f, err}
	}).(parsed)
	return r.file, r.err
}

// ErrParseLimit is returned by [Parse] once the files parsed in one
// verification are over the policy's limits.parseBytes.
var ErrParseLimit = errors.New("symbols: the files parsed in this verification are over the limit")

type budgetKey struct{}

// spend takes n bytes from the verification's parse budget, and reports
// whether they were there.
func spend(s *vouch.Subject, n int) bool {
	limit := int64(32 << 20)
	if s.Policy != nil && s.Policy.Limits.ParseBytes > 0 {
		limit = s.Policy.Limits.ParseBytes
	}
	left := s.Memo(budgetKey{}, func() any { v := new(atomic.Int64); v.Store(limit); return v }).(*atomic.Int64)
	if left.Add(-int64(n)) < 0 {
		left.Add(int64(n))
		return false
	}
	return true
}

// FileError turns an error of [Parse] into an outcome: no parser or a file
// that does not parse leaves the check undecided; workspace errors are
// mapped by [check.FileError].
func FileError(path string, err error) vouch.Outcome {
	var o vouch.Outcome
	switch {
	case errors.Is(err, code.ErrUnsupported):
		o = vouch.Undecided(vouch.CodeCheckUnavailable, fmt.Sprintf("%s cannot be parsed: %v", path, err))
	case errors.Is(err, code.ErrSyntax):
		o = vouch.Undecided(vouch.CodeCodeUnparsable, fmt.Sprintf("%s does not parse: %v", path, err))
	case errors.Is(err, ErrParseLimit):
		o = vouch.Undecided(vouch.CodeInputTooLarge, fmt.Sprintf("%s was not parsed: %v", path, err))
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		o = vouch.Undecided(vouch.CodeCheckCancelled, fmt.Sprintf("%s was not parsed: the verification's deadline came first", path))
	default:
		return check.FileError(path, err)
	}
	o.Evidence = map[string]any{"file": path}
	return o
}

type docParams struct {
	check.Common `json:",inline"`
	File         string   `json:"file"`
	Symbols      []string `json:"symbols,omitempty"`
}

type docComments struct {
	file    string
	symbols []string
}

func newDocComments(spec vouch.CheckSpec, _ check.Env) (vouch.Checker, error) {
	var p docParams
	if err := check.DecodeParams(spec, &p); err != nil {
		return nil, err
	}
	if p.File == "" {
		return nil, check.Errorf("file", "is required")
	}
	for i, s := range p.Symbols {
		if strings.TrimSpace(s) == "" {
			return nil, check.Errorf(fmt.Sprintf("symbols[%d]", i), "must not be empty")
		}
	}
	return &docComments{file: p.File, symbols: p.Symbols}, nil
}

// DocResult is what a doc-comment check found.
type DocResult struct {
	// Documented and Undocumented are the symbols checked, by name as
	// written (or qualified name, for symbols found in regions).
	Documented, Undocumented []string
	// Missing are named symbols the file does not define.
	Missing []string
	// Lines locates each undocumented symbol ("src/p.ts:12").
	Lines map[string]string
}

// CheckDocs checks that the named symbols of a parsed file (or, with no
// names, the symbols inside regions) have doc comments.
func CheckDocs(f *code.File, file string, names []string, regions []vouch.LineRange) DocResult {
	r := DocResult{Lines: map[string]string{}}
	if len(names) == 0 {
		seen := map[string]bool{}
		for _, reg := range regions {
			for _, sym := range f.InRegion(reg.Start, reg.End) {
				q := sym.QualifiedName()
				if seen[q] {
					continue
				}
				seen[q] = true
				if sym.HasDoc {
					r.Documented = append(r.Documented, q)
				} else {
					r.Undocumented = append(r.Undocumented, q)
					r.Lines[q] = fmt.Sprintf("%s:%d", file, sym.Start)
				}
			}
		}
		return r
	}
	for _, name := range names {
		syms := f.Lookup(name)
		if len(syms) == 0 {
			r.Missing = append(r.Missing, name)
			continue
		}
		all := true
		for _, sym := range syms {
			all = all && sym.HasDoc
		}
		if all {
			r.Documented = append(r.Documented, name)
		} else {
			r.Undocumented = append(r.Undocumented, name)
			r.Lines[name] = fmt.Sprintf("%s:%d", file, syms[0].Start)
		}
	}
	return r
}

// maxNamed bounds the symbols a doc-comment outcome names in its reason,
// evidence and fixes: a file of thousands of undocumented functions gives
// a report of a readable size.
const maxNamed = 50

// Outcome turns a DocResult into a check outcome; the score is the share
// of symbols documented.
func (r DocResult) Outcome(file string) vouch.Outcome {
	total := len(r.Documented) + len(r.Undocumented) + len(r.Missing)
	ev := map[string]any{"file": file, "documented": nonNil(check.Cap(r.Documented, maxNamed)), "undocumented": nonNil(check.Cap(r.Undocumented, maxNamed))}
	if len(r.Missing) > 0 {
		ev["missing"] = check.Cap(r.Missing, maxNamed)
	}
	if total > maxNamed {
		ev["counts"] = map[string]int{"documented": len(r.Documented), "undocumented": len(r.Undocumented), "missing": len(r.Missing)}
	}
	if total == 0 {
		o := vouch.Undecided(vouch.CodeNoSymbols, fmt.Sprintf("no symbols to check in %s", file))
		o.Evidence = ev
		return o
	}
	if len(r.Undocumented)+len(r.Missing) == 0 {
		return vouch.Pass(fmt.Sprintf("all %d symbols in %s have doc comments", total, file), ev)
	}
	var fix []string
	for _, n := range r.Undocumented {
		if len(fix) == maxNamed {
			break
		}
		fix = append(fix, n+" ("+r.Lines[n]+")")
	}
	for _, n := range r.Missing {
		if len(fix) == maxNamed {
			break
		}
		fix = append(fix, n+" (not defined in "+file+")")
	}
	if left := len(r.Undocumented) + len(r.Missing) - len(fix); left > 0 {
		fix = append(fix, fmt.Sprintf("… and %d more", left))
	}
	reason := fmt.Sprintf("%d of %d symbols in %s have doc comments; missing on %s", len(r.Documented), total, file, check.List(append(append([]string(nil), r.Undocumented...), r.Missing...), 20))
	o := vouch.Outcome{Status: vouch.StatusFail, Score: float64(len(r.Documented)) / float64(total), Code: vouch.CodeDocMissing, Reason: reason, Evidence: ev, Fix: fix}
	return o
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Check implements vouch.Checker.
func (c *docComments) Check(ctx context.Context, s *vouch.Subject) vouch.Outcome {
	f, err := Parse(ctx, s, c.file)
	if err != nil {
		return FileError(c.file, err)
	}
	var regions []vouch.LineRange
	if len(c.symbols) == 0 {
		regions = ClaimedRegions(s.Request, c.file)
		if len(regions) == 0 {
			return vouch.Undecided(vouch.CodeNoSymbols, fmt.Sprintf("doc_comments on %s names no symbols and the output claims no edited region of it", c.file))
		}
	}
	return CheckDocs(f, c.file, c.symbols, regions).Outcome(c.file)
}

// ClaimedRegions returns the edited regions the output claims for file.
func ClaimedRegions(req *vouch.Request, file string) []vouch.LineRange {
	var out []vouch.LineRange
	if a := req.Output.Artifacts; a != nil {
		for _, fe := range a.FileEdits {
			if fe.EditedRegion != nil && samePath(fe.File, file) {
				out = append(out, *fe.EditedRegion)
			}
		}
	}
	return out
}

func samePath(a, b string) bool {
	return strings.TrimPrefix(a, "./") == strings.TrimPrefix(b, "./")
}

type existsParams struct {
	check.Common `json:",inline"`
	Name         string `json:"name"`
	File         string `json:"file"`
}

type symbolExists struct{ name, file string }

func newSymbolExists(spec vouch.CheckSpec, _ check.Env) (vouch.Checker, error) {
	var p existsParams
	if err := check.DecodeParams(spec, &p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, check.Errorf("name", "is required")
	}
	if p.File == "" {
		return nil, check.Errorf("file", "is required")
	}
	return symbolExists{p.Name, p.File}, nil
}

// Check implements vouch.Checker.
func (c symbolExists) Check(ctx context.Context, s *vouch.Subject) vouch.Outcome {
	f, err := Parse(ctx, s, c.file)
	if err != nil {
		return FileError(c.file, err)
	}
	ev := map[string]any{"name": c.name, "file": c.file}
	if syms := f.Lookup(c.name); len(syms) > 0 {
		ev["kind"], ev["line"] = syms[0].Kind, syms[0].Start
		return vouch.Pass(fmt.Sprintf("%s defines %s %s at line %d", c.file, syms[0].Kind, c.name, syms[0].Start), ev)
	}
	o := vouch.Fail(vouch.CodeSymbolMissing, fmt.Sprintf("%s defines no %s", c.file, c.name), ev)
	o.Fix = []string{c.name}
	return o
}
