// Package plan holds the analyzer of decomposition requests, "plan.structure":
// it decides by rule, with no judge, whether a plan (context.plan) is
// consistent, routable and complete. It serves the checkpoint kind
// decomposition alone (the engine runs it for no other kind), and adds
// nothing for a request that carries no plan.
//
// # What is checked
//
// Consistency (dimension consistency), whenever the plan has subgoals or
// phases:
//
//   - every subgoal has an id, and no two share one (SUBGOAL_UNKNOWN);
//   - every id in dependsOn and in phases[].subgoals is a subgoal's
//     (SUBGOAL_UNKNOWN, with a near match: "did you mean s3?");
//   - the dependencies form no cycle (DEPENDENCY_CYCLE). Each elementary
//     cycle is one fault, named in order from its subgoal that comes first
//     in the plan: "s2 → s3 → s2" reads "s2 depends on s3, which depends on
//     s2"; a subgoal that depends on itself is the cycle "s1 → s1". At most
//     16 cycles are listed;
//   - no member of a parallel phase depends on another member, directly or
//     through subgoals outside the phase (PARALLEL_DEPENDENCY). A chain
//     c → b → a inside one phase gives the faults c → b and b → a, not also
//     c → a;
//   - the phases run every subgoal after the subgoals it depends on
//     (PARALLEL_DEPENDENCY: the code stands for any schedule that runs a
//     subgoal before or alongside one it depends on). Phases run in listed
//     order; a sequential phase runs its subgoals in listed order, a
//     parallel one together. A subgoal listed twice counts from its first
//     place;
//   - when phases are given, every subgoal is in exactly one of them.
//     Phases are the schedule, so a subgoal in none of them never runs: if a
//     scheduled subgoal depends on it, the schedule runs that subgoal
//     without its input, a fault of order as above (PARALLEL_DEPENDENCY);
//     if nothing scheduled depends on it, it is merely unscheduled; a
//     subgoal listed in more than one place is scheduled twice. Both use
//     SUBGOAL_UNKNOWN: the phases and the subgoals disagree on an id.
//
// Dependencies between subgoals of one cycle are left to the cycle fault:
// any order of them breaks one, and the cycle is what to fix.
//
// Routability (dimension routability), when context.agents is given: each
// subgoal names a registered agent (AGENT_UNKNOWN) that has every
// capability the subgoal requires (AGENT_INCAPABLE); a subgoal with no
// agent is a fault too (AGENT_UNKNOWN). Agent names compare exactly;
// capabilities ignore case and treat spaces, hyphens and underscores alike.
// Each fault comes with a suggestion: the registered agent with every
// required capability and the fewest others, then a general-purpose one,
// then the first by name ("route s3 to generic-executor: database-agent is
// not registered"); a near name for a typo ("did you mean db-agent?"); or
// the capability no agent offers.
//
// Completeness (dimension completeness), when the policy names
// requiredTopics: each topic is covered by some subgoal's id, description
// or required capabilities (TOPIC_UNCOVERED otherwise, with a suggested
// subgoal, and a gap). A synonym table covers the common topics (testing,
// error handling, security, documentation, rollout, monitoring,
// performance, accessibility, internationalization, backup; see
// [MatchTopic]); any other topic is covered by its own words.
//
// # Level, strength and scoring
//
// The checks are of level criteria and strength strict (confidence 1): they
// decide, by rule and with certainty, the criteria every plan implicitly
// carries: its dependencies form a schedule that can run, its routing
// resolves, it covers the topics the policy requires. They are not
// structure checks, which validate the request against vouch's contract and
// feed no dimension (a plan with a cycle is a valid request carrying a
// faulty output), nor claims checks, which re-check what an agent says it
// did against the world (and which claims.strictIsMustPass would make
// must-pass wholesale).
//
// A fault that makes the plan unable to run as written, makes it run
// wrongly, or leaves out what the policy requires is must-pass: a failed
// check sends the plan back (verdict row 2: retry, or fail on the last
// attempt) whatever the score. These are empty and duplicate ids, unknown
// ids, cycles, parallel and order faults, agents missing from the registry
// or lacking a capability, and uncovered required topics. Three faults only
// lower the score, because they leave a decision open rather than get one
// wrong: a subgoal with no agent (nothing is sent to a wrong agent, and the
// suggestion says where it should go), a subgoal in no phase that nothing
// scheduled depends on (its place is open; the suggestion gives the
// earliest phase it fits), and a subgoal listed in more than one place (the
// order checks use its first place, and an orchestrator that runs each id
// once loses nothing). They weigh in the score like any failed check: with
// the decomposition weights (completeness 0.4, consistency 0.2,
// groundedness 0.2, routability 0.2), a few of them leave a plan well above
// passAt, while a plan that routes or schedules almost nothing can fall
// below it (verdict row 4).
//
// Each dimension's score is the share of what it checks that is sound. A
// passing check stands for the sound items, weighted by their number: the
// subgoals named in no consistency fault (plan.consistency), the subgoals
// routed well (plan.routing), the required topics covered (plan.topics).
// Each fault is one failing check of weight 1 (plan.id, plan.reference,
// plan.cycle, plan.parallel, plan.order, plan.schedule, plan.route,
// plan.topic), with its code, evidence and the exact things to fix. A
// sound plan scores 1 in every dimension this package decides. A fault
// also adds one line to the findings' issues and, where one can be given,
// a suggestion; an uncovered topic adds a gap.
//
// The groundedness of a plan (files and symbols its subgoals mention that
// the context lacks) is not decided here.
package plan

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/text/plural"
)

func init() {
	check.RegisterAnalyzer(check.AnalyzerInfo{
		Name:  "plan.structure",
		Level: vouch.LevelCriteria,
		Kinds: []vouch.Kind{vouch.KindDecomposition},
		New:   func() vouch.Analyzer { return analyzer{} },
	})
}

// maxCycles bounds the cycles listed for one plan: a dense tangle of
// dependencies has very many, and the first few show what to fix.
const maxCycles = 16

// analyzer is the plan.structure analyzer. It holds no state, so it is safe
// for concurrent use.
type analyzer struct{}

var _ vouch.Analyzer = analyzer{}

// Analyze implements vouch.Analyzer.
func (analyzer) Analyze(ctx context.Context, s *vouch.Subject, f *vouch.Findings) error {
	req := s.Request
	if req == nil || req.Context == nil || req.Context.Plan == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	p := req.Context.Plan
	r := &recorder{f: f}
	if len(p.Subgoals) > 0 || len(p.Phases) > 0 {
		f.MarkApplicable(vouch.DimConsistency)
		consistency(p, newGraph(p), r)
	}
	if len(req.Context.Agents) > 0 && len(p.Subgoals) > 0 {
		f.MarkApplicable(vouch.DimRoutability)
		routability(p, req.Context.Agents, r)
	}
	var topics []string
	if s.Policy != nil {
		topics = s.Policy.RequiredTopics
	}
	if slices.ContainsFunc(topics, func(t string) bool { return len(words(t, false)) > 0 }) {
		f.MarkApplicable(vouch.DimCompleteness)
		goal := p.Goal
		if strings.TrimSpace(goal) == "" {
			goal = req.Task.Goal
		}
		completeness(p, goal, topics, r)
	}
	return nil
}

// recorder adds checks, issues, suggestions and gaps to the findings.
type recorder struct {
	f         *vouch.Findings
	suggested map[string]bool
}

// fault records one failing check of weight 1.
func (r *recorder) fault(dim, name, code string, must bool, reason string, ev map[string]any, fix []string, suggestions ...string) {
	if ev == nil {
		ev = map[string]any{}
	}
	ev["code"] = code
	r.f.Checks = append(r.f.Checks, vouch.CheckResult{
		Name: name, Level: vouch.LevelCriteria, Strength: vouch.StrengthStrict, Status: vouch.StatusFail,
		Confidence: 1, Reason: reason, Evidence: ev, Dimension: dim, Score: 0, Weight: 1,
		Must: must, Code: code, Fix: fix,
	})
	r.f.Issues = append(r.f.Issues, name+": "+reason)
	for _, s := range suggestions {
		if s == "" || r.suggested[s] {
			continue
		}
		if r.suggested == nil {
			r.suggested = map[string]bool{}
		}
		r.suggested[s] = true
		r.f.Suggestions = append(r.f.Suggestions, s)
	}
}

// pass records a passing check standing for n sound items (n > 0).
func (r *recorder) pass(dim, name, reason string, n int, ev map[string]any) {
	r.f.Checks = append(r.f.Checks, vouch.CheckResult{
		Name: name, Level: vouch.LevelCriteria, Strength: vouch.StrengthStrict, Status: vouch.StatusPass,
		Confidence: 1, Reason: reason, Evidence: ev, Dimension: dim, Score: 1, Weight: float64(n),
	})
}

// gap records a gap.
func (r *recorder) gap(g string) { r.f.Gaps = append(r.f.Gaps, g) }

// slot is a subgoal's place in the schedule: its phase (from 0) and its
// position in a sequential phase (0 for every member of a parallel phase).
type slot struct{ phase, pos int }

func (a slot) before(b slot) bool {
	return a.phase < b.phase || a.phase == b.phase && a.pos < b.pos
}

// consistency checks ids, references, cycles and the phases.
func consistency(p *vouch.Plan, g *graph, r *recorder) {
	entries := make(map[string][]int, len(g.ids))
	for i, sg := range p.Subgoals {
		if !emptyID(sg.ID) {
			entries[sg.ID] = append(entries[sg.ID], i)
		}
	}
	implicated := make([]bool, len(p.Subgoals))
	mark := func(nodes ...int) {
		for _, v := range nodes {
			for _, i := range entries[g.ids[v]] {
				implicated[i] = true
			}
		}
	}
	fault := func(name, code string, must bool, reason string, ev map[string]any, fix string, suggestions ...string) {
		r.fault(vouch.DimConsistency, name, code, must, reason, ev, []string{fix}, suggestions...)
	}

	// Ids.
	for i, sg := range p.Subgoals {
		if emptyID(sg.ID) {
			implicated[i] = true
			at := fmt.Sprintf("context.plan.subgoals[%d]", i)
			fault("plan.id", vouch.CodeSubgoalUnknown, true, at+" has no id",
				map[string]any{"at": at}, "give "+at+" a unique id")
		}
	}
	for v, id := range g.ids {
		if es := entries[id]; len(es) > 1 {
			mark(v)
			at := make([]string, len(es))
			for k, i := range es {
				at[k] = fmt.Sprintf("context.plan.subgoals[%d]", i)
			}
			fault("plan.id", vouch.CodeSubgoalUnknown, true,
				fmt.Sprintf("%d subgoals share the id %s (%s)", len(es), id, andList(at)),
				map[string]any{"id": id, "at": at},
				fmt.Sprintf("give each subgoal with the id %s its own id, and update dependsOn and phases", id))
		}
	}

	// References to ids no subgoal has.
	for i := range p.Subgoals {
		sg := &p.Subgoals[i]
		seen := map[string]bool{}
		for j, d := range sg.DependsOn {
			if _, ok := g.idx[d]; ok || seen[d] {
				continue
			}
			seen[d] = true
			implicated[i] = true
			name := label(p, i)
			ev := map[string]any{"subgoal": name, "unknown": d, "at": fmt.Sprintf("context.plan.subgoals[%d].dependsOn[%d]", i, j)}
			reason := fmt.Sprintf("%s depends on %s, which no subgoal has", name, idText(d))
			fix := fmt.Sprintf("%s: remove %s from dependsOn, or add the subgoal it means", name, idText(d))
			var sug string
			if near := nearID(d, g.ids); near != "" {
				ev["nearest"] = near
				reason += fmt.Sprintf(" (did you mean %s?)", near)
				fix = fmt.Sprintf("%s: depend on %s instead of %s", name, near, idText(d))
				sug = fix
			}
			fault("plan.reference", vouch.CodeSubgoalUnknown, true, reason, ev, fix, sug)
		}
	}
	for pi, ph := range p.Phases {
		seen := map[string]bool{}
		for k, m := range ph.Subgoals {
			if _, ok := g.idx[m]; ok || seen[m] {
				continue
			}
			seen[m] = true
			ev := map[string]any{"phase": pi + 1, "unknown": m, "at": fmt.Sprintf("context.plan.phases[%d].subgoals[%d]", pi, k)}
			reason := fmt.Sprintf("phase %d names %s, which no subgoal has", pi+1, idText(m))
			fix := fmt.Sprintf("phase %d: remove %s, or add the subgoal it means", pi+1, idText(m))
			var sug string
			if near := nearID(m, g.ids); near != "" {
				ev["nearest"] = near
				reason += fmt.Sprintf(" (did you mean %s?)", near)
				fix = fmt.Sprintf("phase %d: name %s instead of %s", pi+1, near, idText(m))
				sug = fix
			}
			fault("plan.reference", vouch.CodeSubgoalUnknown, true, reason, ev, fix, sug)
		}
	}

	// Cycles.
	cycles, truncated := g.cycles(maxCycles)
	for k, c := range cycles {
		mark(c...)
		ids := append(g.names(c), g.ids[c[0]])
		text := strings.Join(ids, " → ")
		reason := "the dependencies form a cycle: " + text
		fix := "break the cycle " + text + " by dropping one of its dependencies"
		if len(c) == 1 {
			reason = fmt.Sprintf("%s depends on itself", ids[0])
			fix = fmt.Sprintf("%s: remove %s from its own dependsOn", ids[0], ids[0])
		}
		ev := map[string]any{"cycle": ids}
		if truncated && k == len(cycles)-1 {
			reason += fmt.Sprintf(" (the plan has more cycles; the first %d are listed)", maxCycles)
			ev["truncated"] = true
		}
		fault("plan.cycle", vouch.CodeDependencyCycle, true, reason, ev, fix, fix)
	}
	for v := range g.ids {
		if g.cyclic(v, v) {
			mark(v) // cycles past the limit
		}
	}

	if len(p.Phases) > 0 {
		schedule(p, g, fault, mark)
	}

	clean := 0
	for _, bad := range implicated {
		if !bad {
			clean++
		}
	}
	if clean == 0 {
		return
	}
	reason := plural.Pick(clean, "the subgoal has a unique id and known dependencies, and forms no cycle", fmt.Sprintf("the %d subgoals have unique ids and known dependencies, and form no cycle", clean))
	if len(p.Phases) > 0 {
		reason += "; the phases run each of them once, after what it depends on"
	}
	if clean < len(p.Subgoals) {
		reason = fmt.Sprintf("%d of %s %s named in no consistency fault", clean, plural.Count(len(p.Subgoals), "subgoal"), plural.Pick(clean, "is", "are"))
	}
	r.pass(vouch.DimConsistency, "plan.consistency", reason, clean,
		map[string]any{"subgoals": len(p.Subgoals), "sound": clean, "phases": len(p.Phases)})
}

type faultFunc func(name, code string, must bool, reason string, ev map[string]any, fix string, suggestions ...string)

// schedule checks the phases against the dependencies: parallel members
// that depend on each other, subgoals run before what they depend on, and
// subgoals scheduled never or twice.
func schedule(p *vouch.Plan, g *graph, fault faultFunc, mark func(...int)) {
	n := len(g.ids)
	first := make([]slot, n)
	places := make([][]int, n) // the phases (from 0) each node is listed in
	for pi, ph := range p.Phases {
		for k, m := range ph.Subgoals {
			v, ok := g.idx[m]
			if !ok {
				continue
			}
			pos := k
			if ph.Mode == vouch.PhaseParallel {
				pos = 0
			}
			if len(places[v]) == 0 {
				first[v] = slot{pi, pos}
			}
			places[v] = append(places[v], pi)
		}
	}
	scheduled := func(v int) bool { return len(places[v]) > 0 }
	rev := make([][]int, n)
	for a := range g.deps {
		for _, b := range g.deps[a] {
			rev[b] = append(rev[b], a)
		}
	}

	// Members of a parallel phase that depend on each other.
	for pi, ph := range p.Phases {
		if ph.Mode != vouch.PhaseParallel {
			continue
		}
		var members []int
		stop := make([]bool, n)
		for _, m := range ph.Subgoals {
			if v, ok := g.idx[m]; ok && !stop[v] {
				stop[v] = true
				members = append(members, v)
			}
		}
		if len(members) < 2 {
			continue
		}
		for _, x := range members {
			found, paths := g.pathsAvoiding(x, stop)
			for k, y := range found {
				if g.cyclic(x, y) {
					continue
				}
				mark(x, y)
				path := g.names(paths[k])
				a, b := g.ids[x], g.ids[y]
				reason := fmt.Sprintf("phase %d runs %s and %s in parallel, but %s depends on %s", pi+1, a, b, a, b)
				if len(path) > 2 {
					reason += " (" + strings.Join(path, " → ") + ")"
				}
				fix := fmt.Sprintf("move %s to a phase after the one of %s, or drop the dependency", a, b)
				fault("plan.parallel", vouch.CodeParallelDependency, true, reason,
					map[string]any{"phase": pi + 1, "subgoal": a, "dependsOn": b, "path": path}, fix,
					fmt.Sprintf("run %s in a phase after %s: it depends on it", a, b))
			}
		}
	}

	// Subgoals the phases run before what they depend on.
	for a := range g.ids {
		if !scheduled(a) {
			continue
		}
		for _, b := range g.deps[a] {
			if g.cyclic(a, b) || !scheduled(b) {
				continue
			}
			sa, sb := first[a], first[b]
			if sb.before(sa) || sa == sb {
				continue // in order, or together in a parallel phase (checked above)
			}
			mark(a, b)
			x, y := g.ids[a], g.ids[b]
			var reason string
			if sa.phase == sb.phase {
				reason = fmt.Sprintf("phase %d runs %s before %s, but %s depends on %s", sa.phase+1, x, y, x, y)
			} else {
				reason = fmt.Sprintf("phase %d runs %s, but %s depends on %s, which runs later, in phase %d", sa.phase+1, x, x, y, sb.phase+1)
			}
			fix := fmt.Sprintf("run %s after %s: move %s to an earlier place or %s to a later one", x, y, y, x)
			fault("plan.order", vouch.CodeParallelDependency, true, reason,
				map[string]any{"subgoal": x, "dependsOn": y, "phase": sa.phase + 1, "dependencyPhase": sb.phase + 1}, fix, fix)
		}
	}

	// Subgoals in no phase, or in more than one place.
	for v, id := range g.ids {
		switch {
		case len(places[v]) > 1:
			mark(v)
			ph := make([]string, len(places[v]))
			for k, pi := range places[v] {
				ph[k] = fmt.Sprint(pi + 1)
			}
			fault("plan.schedule", vouch.CodeSubgoalUnknown, false,
				fmt.Sprintf("%s is scheduled %d times (phases %s), so it would run more than once", id, len(places[v]), andList(ph)),
				map[string]any{"subgoal": id, "phases": ph},
				fmt.Sprintf("list %s in one phase only", id))
		case len(places[v]) == 0:
			mark(v)
			if deps := scheduledDependents(v, rev, scheduled); len(deps) > 0 {
				names := g.names(deps)
				fault("plan.order", vouch.CodeParallelDependency, true,
					fmt.Sprintf("%s is in no phase, but %s (phase %d) depends on it, so the phases run %s without it",
						id, names[0], first[deps[0]].phase+1, andList(names)),
					map[string]any{"subgoal": id, "dependents": names},
					fmt.Sprintf("add %s to a phase before the one of %s", id, names[0]))
				continue
			}
			fix := fmt.Sprintf("add %s to a phase", id)
			last := -1
			for _, b := range g.deps[v] {
				if scheduled(b) && first[b].phase > last {
					last = first[b].phase
				}
			}
			if last >= 0 {
				fix = fmt.Sprintf("add %s to a phase after phase %d, where what it depends on runs", id, last+1)
			}
			fault("plan.schedule", vouch.CodeSubgoalUnknown, false,
				fmt.Sprintf("%s is in no phase, so the phases never run it", id),
				map[string]any{"subgoal": id}, fix, fix)
		}
	}
}

// scheduledDependents returns the scheduled nodes that depend on v directly
// or through unscheduled nodes, in plan order.
func scheduledDependents(v int, rev [][]int, scheduled func(int) bool) []int {
	seen := map[int]bool{v: true}
	todo := []int{v}
	var out []int
	for len(todo) > 0 {
		u := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, w := range rev[u] {
			if seen[w] {
				continue
			}
			seen[w] = true
			if scheduled(w) {
				out = append(out, w)
			} else {
				todo = append(todo, w)
			}
		}
	}
	slices.Sort(out)
	return out
}

// idText shows an id in a sentence, an empty one as "".
func idText(id string) string {
	if emptyID(id) {
		return fmt.Sprintf("%q", id)
	}
	return id
}
