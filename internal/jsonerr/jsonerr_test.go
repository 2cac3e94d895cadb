package jsonerr

import (
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/vouchgate/vouch"
)

func TestPointerToPath(t *testing.T) {
	for in, want := range map[string]string{
		"":                       "",
		"/":                      "",
		"/task":                  "task",
		"/task/criteria/2/check": "task.criteria[2].check",
		"/0/a":                   "[0].a",
		"/a~1b/c~0d":             "a/b.c~d",
		"/trace/10/input/x":      "trace[10].input.x",
	} {
		if got := PointerToPath(in); got != want {
			t.Errorf("PointerToPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLineCol(t *testing.T) {
	data := []byte("ab\ncd\n\nef")
	for _, tt := range []struct {
		off       int64
		line, col int
	}{{0, 1, 1}, {1, 1, 2}, {3, 2, 1}, {6, 3, 1}, {7, 4, 1}, {8, 4, 2}, {100, 4, 3}} {
		if l, c := LineCol(data, tt.off); l != tt.line || c != tt.col {
			t.Errorf("LineCol(%d) = %d:%d, want %d:%d", tt.off, l, c, tt.line, tt.col)
		}
	}
}

func TestConvert(t *testing.T) {
	type inner struct {
		N int    `json:"n"`
		S string `json:"s"`
	}
	var v struct {
		A []inner `json:"a"`
	}
	for _, tt := range []struct {
		in   string
		code vouch.ErrorCode
		path string
		line int
	}{
		{`{"a":[{"n":1},{"zz":2}]}`, vouch.ErrUnknownField, "a[1].zz", 1},
		{"{\"a\":[\n{\"n\":\"x\"}]}", vouch.ErrType, "a[0].n", 2},
		{`{"a":[{"n":1.5}]}`, vouch.ErrType, "a[0].n", 1},
		{"{\"a\":\n[,]}", vouch.ErrSyntax, "a", 2},
		{`{"a":[],"a":[]}`, vouch.ErrInvalid, "a", 1},
	} {
		err := json.Unmarshal([]byte(tt.in), &v, json.RejectUnknownMembers(true))
		if err == nil {
			t.Errorf("%s: no error", tt.in)
			continue
		}
		e := Convert([]byte(tt.in), err)
		if e.Code != tt.code || e.Path != tt.path || e.Line != tt.line {
			t.Errorf("%s: got %s %q line %d (%v), want %s %q line %d", tt.in, e.Code, e.Path, e.Line, e, tt.code, tt.path, tt.line)
		}
	}
	if Convert(nil, nil) != nil {
		t.Error("Convert(nil) != nil")
	}
}
