package plural_test

import (
	"fmt"
	"testing"

	"github.com/vouchgate/vouch/text/plural"
)

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "file", "0 files"},
		{1, "file", "1 file"},
		{2, "file", "2 files"},
		{1, "test function", "1 test function"},
		{3, "test function", "3 test functions"},
		{2, "class", "2 classes"},
		{2, "match", "2 matches"},
		{2, "box", "2 boxes"},
		{2, "entry", "2 entries"},
		{2, "key", "2 keys"},
		{2, "analysis", "2 analyses"},
		{2, "URL", "2 URLs"},
		{-1, "retry", "-1 retries"},
		{1000, "verification", "1000 verifications"},
	} {
		if got := plural.Count(tt.n, tt.noun); got != tt.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
		}
	}
	if got := plural.Count(int64(1), "label"); got != "1 label" {
		t.Errorf("int64: %q", got)
	}
	if got := plural.Count(uint(7), "label"); got != "7 labels" {
		t.Errorf("uint: %q", got)
	}
}

func TestNounAndPick(t *testing.T) {
	if got := plural.Noun(1, "symbol") + " " + plural.Pick(1, "has", "have"); got != "symbol has" {
		t.Errorf("one: %q", got)
	}
	if got := plural.Noun(4, "symbol") + " " + plural.Pick(4, "has", "have"); got != "symbols have" {
		t.Errorf("four: %q", got)
	}
	if got := plural.All(1, "symbol") + "; " + plural.All(3, "symbol"); got != "the one symbol; all 3 symbols" {
		t.Errorf("All: %q", got)
	}
	if got := plural.Pick(0, "is", "are"); got != "are" {
		t.Errorf("zero: %q", got)
	}
}

func ExampleCount() {
	fmt.Println(plural.Count(1, "created file") + ", " + plural.Count(2, "created file"))
	fmt.Printf("%d of 4 %s %s doc comments\n", 1, plural.Noun(4, "symbol"), plural.Pick(1, "has", "have"))
	// Output:
	// 1 created file, 2 created files
	// 1 of 4 symbols has doc comments
}
