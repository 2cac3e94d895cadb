package plan

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vouchgate/vouch/text/lex"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/text/plural"
)

// registry is the agent registry of a request, with capabilities
// normalised (see normCap). An agent listed twice has the union of its
// entries' capabilities.
type registry struct {
	agents []*agentEntry // in registry order
	byName map[string]*agentEntry
}

type agentEntry struct {
	name    string
	caps    map[string]bool
	generic bool
}

// genericWords mark a general-purpose agent, in its name or capabilities.
var genericWords = lex.Named("generic-agent-words").Set()

func newRegistry(agents []vouch.Agent) *registry {
	r := &registry{byName: make(map[string]*agentEntry, len(agents))}
	for _, a := range agents {
		e, ok := r.byName[a.Name]
		if !ok {
			e = &agentEntry{name: a.Name, caps: map[string]bool{}}
			r.byName[a.Name] = e
			r.agents = append(r.agents, e)
		}
		for _, c := range a.Capabilities {
			if c := normCap(c); c != "" {
				e.caps[c] = true
				e.generic = e.generic || genericWords[c]
			}
		}
		for _, w := range splitWords(a.Name) {
			e.generic = e.generic || genericWords[w]
		}
	}
	return r
}

// normCap normalises a capability for comparison: lower case, trimmed, and
// each run of spaces, hyphens and underscores made one hyphen, so "Unit
// Testing", "unit_testing" and "unit-testing" are one capability.
func normCap(c string) string {
	var b strings.Builder
	sep := false
	for _, r := range strings.ToLower(strings.TrimSpace(c)) {
		if r == ' ' || r == '-' || r == '_' || unicode.IsSpace(r) {
			sep = true
			continue
		}
		if sep && b.Len() > 0 {
			b.WriteByte('-')
		}
		sep = false
		b.WriteRune(r)
	}
	return b.String()
}

// required returns a subgoal's required capabilities, normalised, without
// repeats, in listed order; display holds them as written.
func required(sg *vouch.Subgoal) (norm, display []string) {
	for _, c := range sg.Requires {
		n := normCap(c)
		if n == "" || slices.Contains(norm, n) {
			continue
		}
		norm = append(norm, n)
		display = append(display, strings.TrimSpace(c))
	}
	return norm, display
}

// lacks returns the capabilities of req (normalised) that agent e lacks, as
// displayed.
func (e *agentEntry) lacks(req, display []string) []string {
	var out []string
	for i, c := range req {
		if !e.caps[c] {
			out = append(out, display[i])
		}
	}
	return out
}

// best chooses the registered agent for a subgoal that requires req: among
// the agents with every required capability, the one with the fewest other
// capabilities (the most specialised fit), then a general-purpose one, then
// the first by name. It returns nil when no agent has them all.
func (r *registry) best(req []string) *agentEntry {
	var out *agentEntry
	for _, e := range r.agents {
		if !hasAll(e, req) {
			continue
		}
		if out == nil || better(e, out, len(req)) {
			out = e
		}
	}
	return out
}

func hasAll(e *agentEntry, req []string) bool {
	for _, c := range req {
		if !e.caps[c] {
			return false
		}
	}
	return true
}

func better(a, b *agentEntry, nreq int) bool {
	if xa, xb := len(a.caps)-nreq, len(b.caps)-nreq; xa != xb {
		return xa < xb
	}
	if a.generic != b.generic {
		return a.generic
	}
	return a.name < b.name
}

// offeredByNone returns the required capabilities no registered agent has,
// as displayed.
func (r *registry) offeredByNone(req, display []string) []string {
	var out []string
	for i, c := range req {
		found := false
		for _, e := range r.agents {
			if e.caps[c] {
				found = true
				break
			}
		}
		if !found {
			out = append(out, display[i])
		}
	}
	return out
}

// near returns the registered agent whose name is closest to name when it
// is close enough to be a typo: equal but for case and separators, or at
// most two edits apart and no more than a third of the name. Ties go to the
// first by name.
func (r *registry) near(name string) *agentEntry {
	key := nameKey(name)
	var out *agentEntry
	bestD := -1
	for _, e := range r.agents {
		if e.name == name {
			continue
		}
		k := nameKey(e.name)
		d := distance(key, k)
		n := max(utf8.RuneCountInString(key), utf8.RuneCountInString(k))
		if d > 0 && (d > 2 || 3*d > n) {
			continue
		}
		if bestD < 0 || d < bestD || d == bestD && e.name < out.name {
			out, bestD = e, d
		}
	}
	return out
}

// nameKey folds a name for near matching: lower case, without separators.
func nameKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if lex.IsWordRune(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// distance is the Levenshtein distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// nearID returns the id of ids closest to id when it is close enough to be
// a typo (see registry.near), or "".
func nearID(id string, ids []string) string {
	out, bestD := "", -1
	for _, c := range ids {
		if c == id {
			continue
		}
		d := distance(strings.ToLower(id), strings.ToLower(c))
		n := max(utf8.RuneCountInString(id), utf8.RuneCountInString(c))
		if d > 2 || 3*d > n && d > 0 {
			continue
		}
		if bestD < 0 || d < bestD {
			out, bestD = c, d
		}
	}
	return out
}

// routability checks the routing of every subgoal against the registry.
func routability(p *vouch.Plan, agents []vouch.Agent, r *recorder) {
	reg := newRegistry(agents)
	ok := 0
	for i := range p.Subgoals {
		sg := &p.Subgoals[i]
		name := label(p, i)
		req, display := required(sg)
		ev := map[string]any{"subgoal": name, "agent": sg.Agent}
		if len(display) > 0 {
			ev["requires"] = display
		}
		fit := reg.best(req)
		switch e, registered := reg.byName[sg.Agent]; {
		case strings.TrimSpace(sg.Agent) == "":
			// Nothing is sent to a wrong agent: the orchestrator can route
			// it, and the suggestion says where. Lowers the score only.
			sug := unroutedSuggestion(reg, name, fit, req, display)
			ev["suggestion"] = sug
			r.fault(vouch.DimRoutability, "plan.route", vouch.CodeAgentUnknown, false,
				fmt.Sprintf("%s has no agent", name), ev, []string{sug}, sug)
		case !registered:
			sug, nearName := unknownSuggestion(reg, name, sg.Agent, fit, req, display)
			ev["suggestion"] = sug
			if nearName != "" {
				ev["nearest"] = nearName
			}
			reason := fmt.Sprintf("%s is routed to %s, which is not in the agent registry", name, sg.Agent)
			if nearName != "" {
				reason += fmt.Sprintf(" (did you mean %s?)", nearName)
			}
			r.fault(vouch.DimRoutability, "plan.route", vouch.CodeAgentUnknown, true, reason, ev, []string{sug}, sug)
		default:
			missing := e.lacks(req, display)
			if len(missing) == 0 {
				ok++
				continue
			}
			ev["missing"] = missing
			sug := incapableSuggestion(reg, name, sg.Agent, missing, fit, req, display)
			ev["suggestion"] = sug
			r.fault(vouch.DimRoutability, "plan.route", vouch.CodeAgentIncapable, true,
				fmt.Sprintf("%s is routed to %s, which lacks %s", name, sg.Agent, andList(missing)), ev, []string{sug}, sug)
		}
	}
	if ok > 0 {
		reason := fmt.Sprintf("every subgoal is routed to a registered agent with the capabilities it requires (%d)", ok)
		if ok < len(p.Subgoals) {
			reason = fmt.Sprintf("%d of %s %s routed to a registered agent with the capabilities %s", ok, plural.Count(len(p.Subgoals), "subgoal"), plural.Pick(ok, "is", "are"), plural.Pick(ok, "it requires", "they require"))
		}
		r.pass(vouch.DimRoutability, "plan.routing", reason, ok,
			map[string]any{"subgoals": len(p.Subgoals), "routed": ok, "agents": len(reg.agents)})
	}
}

func unroutedSuggestion(reg *registry, name string, fit *agentEntry, req, display []string) string {
	if fit != nil {
		return fmt.Sprintf("route %s to %s: it has no agent", name, fit.name)
	}
	return fmt.Sprintf("%s has no agent, and %s", name, noFit(reg, name, req, display))
}

func unknownSuggestion(reg *registry, name, agent string, fit *agentEntry, req, display []string) (sug, nearName string) {
	nm := reg.near(agent)
	if nm != nil {
		nearName = nm.name
	}
	switch {
	case nm != nil && hasAll(nm, req):
		return fmt.Sprintf("route %s to %s: %s is not registered (did you mean %s?)", name, nm.name, agent, nm.name), nearName
	case fit != nil && nm != nil:
		return fmt.Sprintf("route %s to %s: %s is not registered, and %s, the nearest name, lacks %s",
			name, fit.name, agent, nm.name, andList(nm.lacks(req, display))), nearName
	case fit != nil:
		return fmt.Sprintf("route %s to %s: %s is not registered", name, fit.name, agent), nearName
	}
	return fmt.Sprintf("%s is not registered, and %s", agent, noFit(reg, name, req, display)), nearName
}

func incapableSuggestion(reg *registry, name, agent string, missing []string, fit *agentEntry, req, display []string) string {
	if fit != nil {
		return fmt.Sprintf("route %s to %s: %s lacks %s", name, fit.name, agent, andList(missing))
	}
	return fmt.Sprintf("%s lacks %s, and %s", agent, andList(missing), noFit(reg, name, req, display))
}

// noFit says why no registered agent can take a subgoal.
func noFit(reg *registry, name string, req, display []string) string {
	if none := reg.offeredByNone(req, display); len(none) > 0 {
		return fmt.Sprintf("no registered agent offers %s, which %s requires: register one or drop the requirement", andList(none), name)
	}
	return fmt.Sprintf("no single registered agent has all of %s: split %s into parts that one agent each can take", andList(display), name)
}

// label names subgoal i: its id, or its place in the plan when it has none.
func label(p *vouch.Plan, i int) string {
	if id := p.Subgoals[i].ID; !emptyID(id) {
		return id
	}
	return fmt.Sprintf("context.plan.subgoals[%d]", i)
}

// andList joins items as English: "a", "a and b", "a, b and c".
func andList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
