package yamldoc

import (
	"testing"

	"github.com/vouchgate/vouch"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		nil_ bool
		code vouch.ErrorCode
		line int
	}{
		{"mapping", "a: 1\n", false, "", 0},
		{"empty", "", true, "", 0},
		{"comment only", "# nothing\n", true, "", 0},
		{"second document", "a: 1\n---\nb: 2\n", true, vouch.ErrSyntax, 2},
		{"scanner error", "a: 1\nb: \"open\n", true, vouch.ErrSyntax, 2},
		{"parser error names where the list starts", "a:\n  - x\n  y: [1\n", true, vouch.ErrSyntax, 2},
		{"tab indentation", "a:\n\tb: 1\n", true, vouch.ErrSyntax, 2},
	} {
		n, err := Parse([]byte(tt.in), "a test")
		if tt.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			if (n == nil) != tt.nil_ {
				t.Errorf("%s: node = %v", tt.name, n)
			}
			continue
		}
		if err == nil || err.Code != tt.code || err.Line != tt.line {
			t.Errorf("%s: got %v (line %d), want %s at line %d", tt.name, err, lineOf(err), tt.code, tt.line)
		}
	}
}

func lineOf(e *vouch.Error) int {
	if e == nil {
		return 0
	}
	return e.Line
}
