package all_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	_ "github.com/vouchgate/vouch/check/all"
)

func TestKinds(t *testing.T) {
	want := []string{
		"cel", "command", "contains", "doc_comments", "file_changed", "file_exists", "json", "json_schema", "length",
		"not_contains", "regex", "sections", "symbol_exists", "tool_called",
	}
	if d := cmp.Diff(want, check.Kinds()); d != "" {
		t.Errorf("registered kinds (-want +got):\n%s", d)
	}
}

func TestKindsDocumented(t *testing.T) {
	for _, k := range check.All() {
		if k.Doc == "" || k.Params == "" {
			t.Errorf("kind %s: Doc %q, Params %q", k.Name, k.Doc, k.Params)
		}
		if k.Strength != vouch.StrengthStrict || k.Level != vouch.LevelCriteria {
			t.Errorf("kind %s: strength %q level %q", k.Name, k.Strength, k.Level)
		}
	}
}
