//go:build !cgo

package treesitter

import (
	"context"
	"errors"
	"testing"

	"github.com/vouchgate/vouch/code"
)

func TestNoCgo(t *testing.T) {
	if Available {
		t.Fatal("Available is true without cgo")
	}
	for _, path := range []string{"a.ts", "a.tsx", "a.js", "a.py"} {
		if lang, _, ok := code.ForPath(path); ok || lang == "" {
			t.Errorf("ForPath(%q) = %q, %v; want a language without a parser", path, lang, ok)
		}
		if _, err := code.Parse(context.Background(), path, []byte("x")); !errors.Is(err, code.ErrUnsupported) {
			t.Errorf("Parse(%q) = %v, want ErrUnsupported", path, err)
		}
	}
}
