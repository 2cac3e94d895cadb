// Package codecheck holds what the checks over parsed code share: the
// outcome of a file that could not be parsed ([ParseError]) and the
// doc-comment check of a parsed file's symbols ([Docs]). The doc_comments
// check kind (package symbols) and the claims analyzers' inferred
// doc-comment criterion and count claims use them; the files come from
// [code.FileFor], parsed once per verification.
package codecheck

import (
	"context"
	"errors"
	"fmt"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/code"
	"github.com/vouchgate/vouch/text/plural"
)

// ParseError turns an error of [code.FileFor] into an outcome: no parser,
// a file that does not parse, a parse budget spent or a deadline passed
// leaves the check undecided; workspace errors are mapped by
// [check.FileError].
func ParseError(path string, err error) vouch.Outcome {
	var o vouch.Outcome
	switch {
	case errors.Is(err, code.ErrUnsupported):
		o = vouch.Undecided(vouch.CodeCheckUnavailable, fmt.Sprintf("%s cannot be parsed: %v", path, err))
	case errors.Is(err, code.ErrSyntax):
		o = vouch.Undecided(vouch.CodeCodeUnparsable, fmt.Sprintf("%s does not parse: %v", path, err))
	case errors.Is(err, code.ErrParseLimit):
		o = vouch.Undecided(vouch.CodeInputTooLarge, fmt.Sprintf("%s was not parsed: %v", path, err))
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		o = vouch.Undecided(vouch.CodeCheckCancelled, fmt.Sprintf("%s was not parsed: the verification's deadline came first", path))
	default:
		return check.FileError(path, err)
	}
	o.Evidence = map[string]any{"file": path}
	return o
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

// Docs checks that the named symbols of a parsed file (or, with no names,
// the symbols inside regions) have doc comments. file names the file in
// the result's Lines.
func Docs(f *code.File, file string, names []string, regions []vouch.LineRange) DocResult {
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
		if total == 1 {
			return vouch.Pass(fmt.Sprintf("the one symbol in %s has a doc comment", file), ev)
		}
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
	reason := fmt.Sprintf("%d of %s in %s %s doc comments; missing on %s", len(r.Documented), plural.Count(total, "symbol"), file,
		plural.Pick(len(r.Documented), "has", "have"), check.List(append(append([]string(nil), r.Undocumented...), r.Missing...), 20))
	o := vouch.Outcome{Status: vouch.StatusFail, Score: float64(len(r.Documented)) / float64(total), Code: vouch.CodeDocMissing, Reason: reason, Evidence: ev, Fix: fix}
	return o
}

// nonNil returns s, or an empty list for nil, so that evidence shows [].
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
