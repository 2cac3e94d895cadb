package vouch_test

import (
	"slices"
	"testing"

	"github.com/vouchgate/vouch"
)

func TestClaimedRegions(t *testing.T) {
	o := &vouch.Output{Artifacts: &vouch.Artifacts{FileEdits: []vouch.FileEdit{
		{File: "src/a.ts", EditedRegion: &vouch.LineRange{Start: 1, End: 4}},
		{File: "src/b.ts", EditedRegion: &vouch.LineRange{Start: 2, End: 2}},
		{File: "./src/a.ts", EditedRegion: &vouch.LineRange{Start: 9, End: 12}},
		{File: "src/a.ts", ChangeType: vouch.ChangeDelete},
	}}}
	want := []vouch.LineRange{{Start: 1, End: 4}, {Start: 9, End: 12}}
	for _, file := range []string{"src/a.ts", "./src/a.ts"} {
		if got := o.ClaimedRegions(file); !slices.Equal(got, want) {
			t.Errorf("ClaimedRegions(%q) = %v, want %v", file, got, want)
		}
	}
	if got := o.ClaimedRegions("src/c.ts"); got != nil {
		t.Errorf("unclaimed file: %v", got)
	}
	if got := (&vouch.Output{}).ClaimedRegions("src/a.ts"); got != nil {
		t.Errorf("no artifacts: %v", got)
	}
}

func TestRequestComplexity(t *testing.T) {
	plan := &vouch.Context{Plan: &vouch.Plan{Subgoals: []vouch.Subgoal{{ID: "a"}, {ID: "b"}, {ID: "c"}}}}
	two := []vouch.Criterion{{ID: "c1"}, {ID: "c2"}}
	for _, c := range []struct {
		name string
		req  vouch.Request
		want int
	}{
		{"no criteria", vouch.Request{}, 0},
		{"criteria", vouch.Request{Task: vouch.Task{Criteria: two}}, 2},
		{"a decomposition counts its plan's subgoals", vouch.Request{Kind: vouch.KindDecomposition, Task: vouch.Task{Criteria: two}, Context: plan}, 3},
		{"a subtask in a plan counts its criteria", vouch.Request{Kind: vouch.KindSubtask, Task: vouch.Task{Criteria: two}, Context: plan}, 2},
		{"a decomposition without a plan counts its criteria", vouch.Request{Kind: vouch.KindDecomposition, Task: vouch.Task{Criteria: two}}, 2},
	} {
		if got := c.req.Complexity(); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
