package plan

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

// deps builds a plan from "id:dep,dep" specs, in order.
func deps(specs ...string) *vouch.Plan {
	p := &vouch.Plan{}
	for _, s := range specs {
		id, ds, _ := strings.Cut(s, ":")
		sg := vouch.Subgoal{ID: id}
		if ds != "" {
			sg.DependsOn = strings.Split(ds, ",")
		}
		p.Subgoals = append(p.Subgoals, sg)
	}
	return p
}

func TestCycles(t *testing.T) {
	for _, tt := range []struct {
		name string
		plan *vouch.Plan
		want []string
	}{
		{"chain", deps("a", "b:a", "c:b"), nil},
		{"diamond is not a cycle", deps("a", "b:a", "c:a", "d:b,c"), nil},
		{"double diamond", deps("a", "b:a", "c:a", "d:b,c", "e:d", "f:d", "g:e,f,a"), nil},
		{"self loop", deps("s1:s1", "s2:s1"), []string{"s1 → s1"}},
		{"two subgoals", deps("s1", "s2:s3", "s3:s2"), []string{"s2 → s3 → s2"}},
		{"three subgoals", deps("s1:s3", "s2:s1", "s3:s2"), []string{"s1 → s3 → s2 → s1"}},
		{"starts at the first in the plan", deps("x", "y:z", "z:y"), []string{"y → z → y"}},
		{"two disjoint cycles", deps("a:b", "b:a", "c", "d:e", "e:d"), []string{"a → b → a", "d → e → d"}},
		{"two cycles through one subgoal", deps("a:b", "b:a,c", "c:b"), []string{"a → b → a", "b → c → b"}},
		{"a cycle and a self loop", deps("a:b", "b:a,b"), []string{"a → b → a", "b → b"}},
		{"a cycle with a chord", deps("a:b", "b:c", "c:a,b"), []string{"a → b → c → a", "b → c → b"}},
		{"unknown ids are ignored", deps("a:zz", "b:a,yy"), nil},
		{"duplicate ids merge", deps("a", "b:a", "a:b"), []string{"a → b → a"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cs, truncated := Cycles(tt.plan, 0)
			var got []string
			for _, c := range cs {
				got = append(got, strings.Join(c, " → "))
			}
			if !slices.Equal(got, tt.want) || truncated {
				t.Errorf("Cycles = %q (truncated %v), want %q", got, truncated, tt.want)
			}
		})
	}
}

func TestCyclesLimit(t *testing.T) {
	// Every subgoal depends on every other: very many cycles.
	var specs []string
	for i := range 8 {
		var ds []string
		for j := range 8 {
			if j != i {
				ds = append(ds, fmt.Sprint("s", j))
			}
		}
		specs = append(specs, fmt.Sprintf("s%d:%s", i, strings.Join(ds, ",")))
	}
	cs, truncated := Cycles(deps(specs...), 5)
	if len(cs) != 5 || !truncated {
		t.Fatalf("got %d cycles, truncated %v; want 5, true", len(cs), truncated)
	}
	seen := map[string]bool{}
	for _, c := range cs {
		k := strings.Join(c, " ")
		if seen[k] || c[0] != c[len(c)-1] {
			t.Errorf("cycle %q repeated or not closed", c)
		}
		seen[k] = true
	}
	// All of them, when the limit allows: the complete digraph on 4
	// subgoals has 6 + 8 + 6 = 20 elementary cycles.
	cs, truncated = Cycles(deps("a:b,c,d", "b:a,c,d", "c:a,b,d", "d:a,b,c"), 100)
	if len(cs) != 20 || truncated {
		t.Errorf("K4: got %d cycles (truncated %v), want 20", len(cs), truncated)
	}
}

func TestPathsAvoiding(t *testing.T) {
	// c depends on b through x; b on a; a on nothing. Stop at a, b, c.
	g := newGraph(deps("a", "x:b", "b:a", "c:x"))
	stop := make([]bool, len(g.ids))
	stop[g.idx["a"]], stop[g.idx["b"]], stop[g.idx["c"]] = true, true, true
	found, paths := g.pathsAvoiding(g.idx["c"], stop)
	if len(found) != 1 || g.ids[found[0]] != "b" || strings.Join(g.names(paths[0]), " ") != "c x b" {
		t.Errorf("from c: found %v paths %v; want b by c x b (a lies behind b)", g.names(found), paths)
	}
}
