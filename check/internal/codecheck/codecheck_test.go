package codecheck

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/code"
)

func TestParseError(t *testing.T) {
	for _, tt := range []struct {
		err  error
		code string
	}{
		{fmt.Errorf("%w: no parser for typescript", code.ErrUnsupported), vouch.CodeCheckUnavailable},
		{&code.SyntaxError{Path: "a.go", Line: 1, Column: 1, Msg: "expected 'package'"}, vouch.CodeCodeUnparsable},
		{fmt.Errorf("%w (limits.parseBytes)", code.ErrParseLimit), vouch.CodeInputTooLarge},
		{context.DeadlineExceeded, vouch.CodeCheckCancelled},
		{fs.ErrNotExist, vouch.CodeFileMissing},
		{vouch.ErrNoWorkspace, vouch.CodeNoWorkspace},
	} {
		o := ParseError("a.go", tt.err)
		if o.Code != tt.code || o.Evidence["file"] != "a.go" {
			t.Errorf("%v: %+v, want code %s", tt.err, o, tt.code)
		}
		if wantFail := errors.Is(tt.err, fs.ErrNotExist); (o.Status == vouch.StatusFail) != wantFail {
			t.Errorf("%v: status %s", tt.err, o.Status)
		}
	}
}

func TestDocs(t *testing.T) {
	src := "package p\n\n// A is documented.\nfunc A() {}\n\nfunc B() {}\n\nfunc C() {}\n"
	f, err := code.Parse(context.Background(), "p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r := Docs(f, "p.go", []string{"A", "B", "D"}, nil)
	if !slices.Equal(r.Documented, []string{"A"}) || !slices.Equal(r.Undocumented, []string{"B"}) ||
		!slices.Equal(r.Missing, []string{"D"}) || r.Lines["B"] != "p.go:6" {
		t.Errorf("named: %+v", r)
	}
	o := r.Outcome("p.go")
	if o.Status != vouch.StatusFail || o.Code != vouch.CodeDocMissing || o.Score != 1.0/3 ||
		!slices.Equal(o.Fix, []string{"B (p.go:6)", "D (not defined in p.go)"}) {
		t.Errorf("outcome %+v", o)
	}
	// Lines 3-6 hold A with its doc comment and B.
	r = Docs(f, "p.go", nil, []vouch.LineRange{{Start: 3, End: 6}})
	if !slices.Equal(r.Documented, []string{"A"}) || !slices.Equal(r.Undocumented, []string{"B"}) {
		t.Errorf("region: %+v", r)
	}
	if o := Docs(f, "p.go", nil, nil).Outcome("p.go"); o.Status != vouch.StatusUndecided || o.Code != vouch.CodeNoSymbols {
		t.Errorf("nothing to check: %+v", o)
	}
	if o := Docs(f, "p.go", []string{"A"}, nil).Outcome("p.go"); o.Status != vouch.StatusPass || o.Score != 1 {
		t.Errorf("all documented: %+v", o)
	}
}
