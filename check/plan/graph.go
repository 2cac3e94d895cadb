package plan

import (
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
)

// graph is the dependency graph of a plan over its distinct, non-empty
// subgoal ids, in plan order. An edge a → b means a depends on b: b must be
// done before a starts. A subgoal id used twice is one node whose edges are
// the union of both entries' dependsOn; ids no subgoal has are left out
// (the consistency checks report them).
type graph struct {
	ids  []string
	idx  map[string]int
	deps [][]int // deps[a]: the nodes a depends on, in listed order, without repeats

	comp     []int  // comp[a]: a's strongly connected component
	compSize []int  // compSize[c]: the number of nodes in component c
	selfLoop []bool // selfLoop[a]: a depends on itself
}

// newGraph builds the dependency graph of p.
func newGraph(p *vouch.Plan) *graph {
	g := &graph{idx: make(map[string]int, len(p.Subgoals))}
	for _, sg := range p.Subgoals {
		if emptyID(sg.ID) {
			continue
		}
		if _, ok := g.idx[sg.ID]; !ok {
			g.idx[sg.ID] = len(g.ids)
			g.ids = append(g.ids, sg.ID)
		}
	}
	g.deps = make([][]int, len(g.ids))
	g.selfLoop = make([]bool, len(g.ids))
	for _, sg := range p.Subgoals {
		a, ok := g.idx[sg.ID]
		if !ok {
			continue
		}
		for _, d := range sg.DependsOn {
			b, ok := g.idx[d]
			if !ok || containsInt(g.deps[a], b) {
				continue
			}
			g.deps[a] = append(g.deps[a], b)
			if a == b {
				g.selfLoop[a] = true
			}
		}
	}
	g.components()
	return g
}

func emptyID(id string) bool { return strings.TrimSpace(id) == "" }

func containsInt(s []int, x int) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// components computes the strongly connected components (Tarjan).
func (g *graph) components() {
	n := len(g.ids)
	g.comp = make([]int, n)
	index := make([]int, n)
	low := make([]int, n)
	on := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	next := 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		on[v] = true
		for _, w := range g.deps[v] {
			switch {
			case index[w] < 0:
				visit(w)
				low[v] = min(low[v], low[w])
			case on[w]:
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		c := len(g.compSize)
		size := 0
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			on[w] = false
			g.comp[w] = c
			size++
			if w == v {
				break
			}
		}
		g.compSize = append(g.compSize, size)
	}
	for v := 0; v < n; v++ {
		if index[v] < 0 {
			visit(v)
		}
	}
}

// cyclic reports whether a and b lie on a common cycle: any order of them
// breaks some dependency, and the cycle itself is the fault to report.
func (g *graph) cyclic(a, b int) bool {
	if g.comp[a] != g.comp[b] {
		return false
	}
	return a != b || g.compSize[g.comp[a]] > 1 || g.selfLoop[a]
}

// cycles returns the elementary cycles of the graph (Johnson's algorithm),
// each once, starting at its node that comes first in the plan and
// following dependsOn; the first node is not repeated at the end. At most
// limit cycles are returned; truncated says there were more.
func (g *graph) cycles(limit int) (out [][]int, truncated bool) {
	n := len(g.ids)
	blocked := make([]bool, n)
	bset := make([][]int, n)
	in := make([]bool, n)
	var stack []int
	full := func() bool { return len(out) > limit }

	var unblock func(u int)
	unblock = func(u int) {
		blocked[u] = false
		for len(bset[u]) > 0 {
			w := bset[u][len(bset[u])-1]
			bset[u] = bset[u][:len(bset[u])-1]
			if blocked[w] {
				unblock(w)
			}
		}
	}
	var start int
	var circuit func(v int) bool
	circuit = func(v int) bool {
		found := false
		stack = append(stack, v)
		blocked[v] = true
		for _, w := range g.deps[v] {
			if full() {
				break
			}
			if !in[w] {
				continue
			}
			if w == start {
				out = append(out, append([]int(nil), stack...))
				found = true
			} else if !blocked[w] && circuit(w) {
				found = true
			}
		}
		if found {
			unblock(v)
		} else {
			for _, w := range g.deps[v] {
				if in[w] && !containsInt(bset[w], v) {
					bset[w] = append(bset[w], v)
				}
			}
		}
		stack = stack[:len(stack)-1]
		return found
	}

	for s := 0; s < n && !full(); s++ {
		if !g.cyclic(s, s) {
			continue // on no cycle at all
		}
		members := g.componentFrom(s)
		if len(members) == 1 && !g.selfLoop[s] {
			continue
		}
		for i := range in {
			in[i] = false
		}
		for _, v := range members {
			in[v] = true
			blocked[v] = false
			bset[v] = bset[v][:0]
		}
		start = s
		circuit(s)
	}
	if full() {
		return out[:limit], true
	}
	return out, false
}

// componentFrom returns the strongly connected component of s in the
// subgraph of the nodes s, s+1, ... n-1.
func (g *graph) componentFrom(s int) []int {
	n := len(g.ids)
	fwd := make([]bool, n)
	reach(s, fwd, func(v int) []int { return g.deps[v] }, s)
	rev := make([][]int, n)
	for a := s; a < n; a++ {
		for _, b := range g.deps[a] {
			if b >= s {
				rev[b] = append(rev[b], a)
			}
		}
	}
	back := make([]bool, n)
	reach(s, back, func(v int) []int { return rev[v] }, s)
	var out []int
	for v := s; v < n; v++ {
		if fwd[v] && back[v] {
			out = append(out, v)
		}
	}
	return out
}

// reach marks in seen every node reachable from s along next, among the
// nodes >= lo.
func reach(s int, seen []bool, next func(int) []int, lo int) {
	todo := []int{s}
	seen[s] = true
	for len(todo) > 0 {
		v := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, w := range next(v) {
			if w >= lo && !seen[w] {
				seen[w] = true
				todo = append(todo, w)
			}
		}
	}
}

// pathsAvoiding finds, by breadth-first search from a along dependsOn, the
// nodes marked in stop that a depends on without passing through another
// marked node, with the shortest such path to each (a first, the found node
// last). The search goes through any unmarked node. Results are in the
// order found, which is deterministic.
func (g *graph) pathsAvoiding(a int, stop []bool) (found []int, paths [][]int) {
	n := len(g.ids)
	parent := make([]int, n)
	seen := make([]bool, n)
	seen[a] = true
	queue := []int{a}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range g.deps[v] {
			if seen[w] {
				continue
			}
			seen[w] = true
			parent[w] = v
			if stop[w] {
				found = append(found, w)
				var p []int
				for x := w; x != a; x = parent[x] {
					p = append(p, x)
				}
				p = append(p, a)
				slices.Reverse(p)
				paths = append(paths, p)
				continue
			}
			queue = append(queue, w)
		}
	}
	return found, paths
}

// names returns the ids of nodes.
func (g *graph) names(nodes []int) []string {
	out := make([]string, len(nodes))
	for i, v := range nodes {
		out[i] = g.ids[v]
	}
	return out
}

// Cycles returns the dependency cycles of a plan, each once, as the ids
// along dependsOn starting at the cycle's subgoal that comes first in the
// plan and ending with it again: ["s2", "s3", "s2"] means s2 depends on s3
// and s3 on s2; a subgoal that depends on itself gives ["s1", "s1"]. Ids no
// subgoal has are ignored. At most limit cycles are returned (limit <= 0
// means 16); truncated says there were more.
func Cycles(p *vouch.Plan, limit int) (cycles [][]string, truncated bool) {
	if p == nil {
		return nil, false
	}
	if limit <= 0 {
		limit = maxCycles
	}
	g := newGraph(p)
	cs, truncated := g.cycles(limit)
	for _, c := range cs {
		cycles = append(cycles, append(g.names(c), g.ids[c[0]]))
	}
	return cycles, truncated
}
