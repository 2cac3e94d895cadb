//go:build cgo

package treesitter

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vouchgate/vouch/code"
)

// parseCase is one source and the symbols expected from it.
type parseCase struct {
	name string
	path string
	src  string
	want []string
	// syntaxErrorLine, when set, is the line of the expected syntax error.
	syntaxErrorLine int
}

// describe renders symbols compactly for comparison:
// "kind Qualified.name start-end [doc a-b] [exported]".
func describe(t *testing.T, syms []code.Symbol) []string {
	t.Helper()
	out := []string{}
	for _, s := range syms {
		if s.HasDoc != (s.DocStart > 0) || (s.HasDoc && s.DocEnd < s.DocStart) || (!s.HasDoc && s.DocEnd != 0) {
			t.Errorf("%s: HasDoc %v with doc lines %d-%d", s.QualifiedName(), s.HasDoc, s.DocStart, s.DocEnd)
		}
		if s.End < s.Start || s.Start < 1 {
			t.Errorf("%s: lines %d-%d", s.QualifiedName(), s.Start, s.End)
		}
		d := fmt.Sprintf("%s %s %d-%d", s.Kind, s.QualifiedName(), s.Start, s.End)
		if s.HasDoc {
			d += fmt.Sprintf(" doc %d-%d", s.DocStart, s.DocEnd)
		}
		if s.Exported {
			d += " exported"
		}
		out = append(out, d)
	}
	return out
}

// runCases parses each case with LF and with CRLF line endings, through
// the registry as a caller would, and compares the symbols.
func runCases(t *testing.T, lang string, cases []parseCase) {
	t.Helper()
	for _, tt := range cases {
		for _, eol := range []string{"LF", "CRLF"} {
			t.Run(tt.name+"/"+eol, func(t *testing.T) {
				src := tt.src
				if eol == "CRLF" {
					src = strings.ReplaceAll(src, "\n", "\r\n")
				}
				f, err := code.Parse(context.Background(), tt.path, []byte(src))
				if tt.syntaxErrorLine > 0 {
					se, ok := err.(*code.SyntaxError)
					if !ok {
						t.Fatalf("err = %v, want a *code.SyntaxError", err)
					}
					if se.Line != tt.syntaxErrorLine || se.Path != tt.path {
						t.Errorf("syntax error %v, want at %s:%d", se, tt.path, tt.syntaxErrorLine)
					}
				} else if err != nil {
					t.Fatal(err)
				}
				if f.Lang != lang {
					t.Errorf("Lang = %q, want %q", f.Lang, lang)
				}
				if diff := cmp.Diff(tt.want, describe(t, f.Symbols)); diff != "" {
					t.Errorf("symbols (-want +got):\n%s", diff)
				}
			})
		}
	}
}
