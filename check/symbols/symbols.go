// Package symbols holds the check kinds about code structure, read from a
// real parser (package code): doc_comments (every listed symbol, or every
// symbol in the claimed edited regions, has a doc comment) and
// symbol_exists. Each file is parsed at most once per verification
// ([code.FileFor]).
package symbols

import (
	"context"
	"fmt"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/check/internal/codecheck"
	"github.com/vouchgate/vouch/code"
	_ "github.com/vouchgate/vouch/code/treesitter" // TypeScript, JavaScript, Python (cgo builds)
)

func init() {
	check.Register(check.Type{
		Name:     "doc_comments",
		Strength: vouch.StrengthStrict,
		New:      newDocComments,
		Params:   "{file, symbols[]}",
		Doc:      "Every listed symbol (without symbols: every symbol in the claimed edited regions of the file) has a doc comment; scores the share documented.",
	})
	check.Register(check.Type{
		Name:     "symbol_exists",
		Strength: vouch.StrengthStrict,
		New:      newSymbolExists,
		Params:   "{name, file}",
		Doc:      "The file defines the symbol (a function, method, class or type; Type.method for a member).",
	})
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

// Check implements vouch.Checker.
func (c *docComments) Check(ctx context.Context, s *vouch.Subject) vouch.Outcome {
	f, err := code.FileFor(ctx, s, c.file)
	if err != nil {
		return codecheck.ParseError(c.file, err)
	}
	var regions []vouch.LineRange
	if len(c.symbols) == 0 {
		regions = s.Request.Output.ClaimedRegions(c.file)
		if len(regions) == 0 {
			return vouch.Undecided(vouch.CodeNoSymbols, fmt.Sprintf("doc_comments on %s names no symbols and the output claims no edited region of it", c.file))
		}
	}
	return codecheck.Docs(f, c.file, c.symbols, regions).Outcome(c.file)
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
	f, err := code.FileFor(ctx, s, c.file)
	if err != nil {
		return codecheck.ParseError(c.file, err)
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
