package critmatch

import (
	"slices"
	"testing"
)

// Numbers match as numbers, words case-insensitively and lightly
// stemmed; met needs every number and more than half of the words.
func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		criterion, output string
		met               bool
		words, numbers    []string // matched
		missW, missN      []string // unmatched
	}{
		{"returns 5 items", "It returned 5 items.", true, []string{"returns", "items"}, []string{"5"}, nil, nil},
		{"returns 5 items", "It returned 15 items.", false, []string{"returns", "items"}, nil, nil, []string{"5"}},
		{"returns 5 items", "It returned 5.5 items.", false, []string{"returns", "items"}, nil, nil, []string{"5"}},
		{"returns 5 items", "Build v5a returned items.", false, []string{"returns", "items"}, nil, nil, []string{"5"}},
		{"costs 5 dollars", "It costs 5.0 DOLLARS", true, []string{"costs", "dollars"}, []string{"5"}, nil, nil},
		{"Mentions WAVES and the tide", "waves fold, the tides turn", true, []string{"waves", "tide"}, nil, nil, nil},
		{"covers tests, docs and benchmarks", "Added tests.", false, []string{"tests"}, nil, []string{"covers", "docs", "benchmarks"}, nil},
		{"covers tests and docs", "Added tests and docs; nothing else.", true, []string{"tests", "docs"}, nil, []string{"covers"}, nil},
		{"returns 5 items", "Version 5.5.1 returned items.", false, []string{"returns", "items"}, nil, nil, []string{"5"}},
		{"returns 1.5 items", "Build v1.5 returned items.", false, []string{"returns", "items"}, nil, nil, []string{"1.5"}},
		{"says it doesn't fail", "It doesn’t fail.", true, []string{"doesnt", "fail"}, nil, nil, nil},
	} {
		r := NewIndex(tc.output).Match(tc.criterion)
		if r.Met() != tc.met || !slices.Equal(r.MatchedWords, tc.words) || !slices.Equal(r.MatchedNumbers, tc.numbers) ||
			!slices.Equal(r.UnmatchedWords, tc.missW) || !slices.Equal(r.UnmatchedNumbers, tc.missN) {
			t.Errorf("%q against %q: met %v, %+v", tc.criterion, tc.output, r.Met(), r)
		}
	}
	if r := NewIndex("anything").Match("is it?"); r.Decidable() || r.Met() || r.Score() != 0 {
		t.Errorf("a criterion with nothing to match: %+v", r)
	}
	if r := NewIndex("one two").Match("one three 4"); r.Score() != 1.0/3 {
		t.Errorf("score %v, want 1/3", r.Score())
	}
}
