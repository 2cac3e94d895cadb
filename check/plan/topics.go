package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/text/lex"
	"github.com/vouchgate/vouch/text/plural"
)

// topic is an entry of the synonym table: the names a policy may give the
// topic, the phrases that show a subgoal covers it, and the example subgoal
// suggested when none does (%s is the plan's goal).
type topic struct {
	names   []string
	phrases []string
	example string
}

// topics is the synonym table. Phrases are matched on word boundaries with
// plurals folded (see fold), so "test" matches "tests" but not
// "attestation"; a phrase of several words matches them in a row. The
// table favours phrases that name the activity itself over words that
// merely occur near it: "log" ("log in"), "scale" ("scale the image") and
// "injection" alone ("dependency injection") are left out. "fail" is in:
// "roll back if the migration fails" is how plans say it, and so are the
// failure states a subgoal handles ("denied", "expired", "unavailable").
var topics = []topic{
	{
		names: []string{"testing", "test", "tests", "qa", "quality assurance", "verification"},
		phrases: []string{
			"test", "testing", "tested", "unit test", "integration test", "e2e", "end-to-end",
			"verify", "verification", "qa", "quality assurance", "spec", "coverage", "test suite",
			"regression test", "smoke test", "acceptance test", "assertion", "tdd", "pytest", "jest",
			"fixture",
		},
		example: "write unit and integration tests for %s",
	},
	{
		names: []string{"error handling", "errors", "error", "failure handling", "exception handling",
			"fault tolerance", "resilience", "robustness"},
		phrases: []string{
			"error", "error handling", "fail", "failed", "failure", "failover", "fail-safe", "exception", "retry",
			"backoff", "fallback", "recovery", "recover", "edge case", "timeout", "fault",
			"fault tolerance", "resilience", "resilient", "graceful", "gracefully",
			"circuit breaker", "dead letter", "invalid", "malformed", "corrupt", "idempotent",
			"idempotency", "crash", "outage", "denied", "expired", "revoked", "unavailable",
			"unreachable", "abort",
		},
		example: "handle the failure cases of %s: invalid input, timeouts, retries and fallbacks",
	},
	{
		names: []string{"security", "secure", "appsec", "application security"},
		phrases: []string{
			"security", "secure", "vulnerability", "threat", "threat model", "pentest",
			"penetration test", "encryption", "encrypt", "secret", "credential", "permission",
			"access control", "authorization", "authorisation", "authz",
			"rbac", "csrf", "xss", "sql injection", "command injection", "injection attack", "sanitize", "sanitise", "sanitization",
			"sanitisation", "hardening", "harden", "cve", "tls", "least privilege", "audit",
			"rate limit", "pii", "privacy",
		},
		example: "review %s for security: access control, secrets and input sanitisation",
	},
	{
		names: []string{"documentation", "docs", "doc", "documenting"},
		phrases: []string{
			"documentation", "document", "documented", "docs", "doc", "readme", "changelog",
			"guide", "user manual", "runbook", "docstring", "doc comment", "code comment", "jsdoc",
			"godoc", "javadoc", "api reference", "tutorial", "wiki", "release note",
		},
		example: "document %s: README, API reference and changelog",
	},
	{
		names: []string{"rollout", "roll out", "roll-out", "deployment", "deploy", "release", "launch",
			"delivery"},
		phrases: []string{
			"rollout", "roll out", "roll-out", "deploy", "deployment", "release", "launch", "ship",
			"canary", "feature flag", "feature toggle", "staged", "gradual", "blue-green",
			"rollback", "roll back", "cutover", "go live", "go-live", "production", "phased",
			"dark launch", "maintenance window", "continuous delivery",
		},
		example: "roll out %s in stages behind a feature flag, with a rollback plan",
	},
	{
		names: []string{"monitoring", "monitor", "observability", "alerting", "telemetry", "logging"},
		phrases: []string{
			"monitoring", "monitor", "observability", "metric", "alert", "alerting", "dashboard",
			"logging", "tracing", "telemetry", "slo", "sli", "sla", "health check",
			"uptime", "prometheus", "grafana", "datadog", "on-call", "pager", "instrument",
			"instrumentation", "error rate",
		},
		example: "add metrics, logs and alerts for %s",
	},
	{
		names: []string{"performance", "perf", "speed", "latency", "scalability", "efficiency"},
		phrases: []string{
			"performance", "perf", "latency", "throughput", "benchmark", "load test", "stress test",
			"profiling", "profiler", "optimize", "optimise", "optimization", "optimisation",
			"caching", "cache", "scalability", "speed", "faster", "slow",
			"p95", "p99", "memory usage", "cpu", "response time", "bottleneck", "efficient", "efficiency",
		},
		example: "benchmark %s and fix its hot spots",
	},
	{
		names: []string{"accessibility", "a11y"},
		phrases: []string{
			"accessibility", "accessible", "a11y", "screen reader", "aria", "wcag", "contrast",
			"keyboard navigation",
		},
		example: "check %s for accessibility: keyboard navigation, screen readers and contrast",
	},
	{
		names:   []string{"internationalization", "internationalisation", "i18n", "localization", "localisation", "l10n"},
		phrases: []string{"internationalization", "internationalisation", "i18n", "localization", "localisation", "l10n", "translation", "translate", "locale"},
		example: "make %s translatable and locale-aware",
	},
	{
		names:   []string{"backup", "backups", "disaster recovery"},
		phrases: []string{"backup", "back up", "snapshot", "restore", "disaster recovery", "point-in-time recovery"},
		example: "back up the data %s touches and rehearse a restore",
	},
}

// phrase is a phrase as folded words.
type phrase []string

// compiled topic table: each name (folded, words joined by spaces) to its
// entry's phrases.
var (
	topicByName   = map[string]*topic{}
	topicPhrases  = map[*topic][]phrase{}
	stopWords     = lex.Named("topic-stop-words").Set()
	phraseDisplay = map[*topic][]string{}
)

func init() {
	for i := range topics {
		t := &topics[i]
		for _, n := range t.names {
			topicByName[strings.Join(words(n, false), " ")] = t
		}
		for _, p := range t.phrases {
			w := words(p, false)
			if len(w) == 0 || slices.ContainsFunc(topicPhrases[t], func(q phrase) bool { return slices.Equal(q, w) }) {
				continue
			}
			topicPhrases[t] = append(topicPhrases[t], w)
			phraseDisplay[t] = append(phraseDisplay[t], p)
		}
	}
}

// fold lowers a word and folds simple English plurals and a final silent
// e, so that "tests" and "test", "retries" and "retry", "caches" and
// "cache", "matches" and "match" fold alike. It is applied to both sides of
// a match, so it need not give real stems, only the same key for a word
// and its plural. Words of three letters or fewer are kept.
func fold(w string) string {
	w = strings.ToLower(w)
	if len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// words splits text into folded words (see [lex.Scan]): runs of letters
// and digits; with camel, also at lower-to-upper case changes
// ("writeTests"), for ids and capability names.
func words(text string, camel bool) []string {
	var out []string
	lex.Scan(text, lex.Options{Camel: camel}, func(start, end int) {
		out = append(out, fold(text[start:end]))
	})
	return out
}

// splitWords splits a name into lower-case words (for agent names).
func splitWords(name string) []string {
	var out []string
	for _, w := range words(name, true) {
		out = append(out, strings.ToLower(w))
	}
	return out
}

// subgoalWords returns the words a subgoal covers topics with: its id, its
// description and its required capabilities. An empty word separates the
// fields, so no phrase matches across two of them.
func subgoalWords(sg *vouch.Subgoal) []string {
	out := words(sg.ID, true)
	out = append(out, "")
	out = append(out, words(sg.Description, false)...)
	for _, r := range sg.Requires {
		out = append(out, "")
		out = append(out, words(r, true)...)
	}
	return out
}

// containsPhrase reports whether ws holds the words of p in a row.
func containsPhrase(ws []string, p phrase) bool {
	for i := 0; i+len(p) <= len(ws); i++ {
		if slices.Equal(ws[i:i+len(p)], p) {
			return true
		}
	}
	return false
}

// topicMatcher decides whether a subgoal's words cover one topic.
type topicMatcher struct {
	name    string
	entry   *topic   // nil for a topic not in the synonym table
	content []string // the topic's own words, bar little words, when entry is nil
}

// newTopicMatcher resolves a topic against the synonym table.
func newTopicMatcher(t string) topicMatcher {
	key := words(t, false)
	m := topicMatcher{name: strings.TrimSpace(t), entry: topicByName[strings.Join(key, " ")]}
	if m.entry == nil {
		for _, w := range key {
			if !stopWords[w] {
				m.content = append(m.content, w)
			}
		}
	}
	return m
}

// match reports which phrase shows that ws (a subgoal's words) covers the
// topic. A topic not in the synonym table is covered when every word of
// its name, bar little words like "and" and "of", is among ws.
func (m topicMatcher) match(ws []string) (string, bool) {
	if m.entry != nil {
		for i, p := range topicPhrases[m.entry] {
			if containsPhrase(ws, p) {
				return phraseDisplay[m.entry][i], true
			}
		}
		return "", false
	}
	if len(m.content) == 0 {
		return "", false
	}
	for _, w := range m.content {
		if !slices.Contains(ws, w) {
			return "", false
		}
	}
	return m.name, true
}

// MatchTopic reports whether text covers topic, and by which phrase. A topic
// of the built-in synonym table (testing, error handling, security,
// documentation, rollout, monitoring, performance, accessibility,
// internationalization, backup, and their other names) is covered by any
// of its phrases; any other topic by its own words. Matching is on word
// boundaries, case-insensitive, with plurals folded: "tests" covers
// "testing", "attestation" does not.
func MatchTopic(topic, text string) (phrase string, ok bool) {
	return newTopicMatcher(topic).match(words(text, false))
}

// completeness checks that every required topic is covered by a subgoal.
func completeness(p *vouch.Plan, goal string, required []string, r *recorder) {
	sw := make([][]string, len(p.Subgoals))
	for i := range p.Subgoals {
		sw[i] = subgoalWords(&p.Subgoals[i])
	}
	var covered []string
	seen := map[string]bool{}
	for _, t := range required {
		t = strings.TrimSpace(t)
		key := strings.Join(words(t, false), " ")
		if key == "" || seen[key] {
			continue
		}
		seen[key] = true
		by := -1
		var matched string
		tm := newTopicMatcher(t)
		for i := range sw {
			if m, ok := tm.match(sw[i]); ok {
				by, matched = i, m
				break
			}
		}
		if by >= 0 {
			covered = append(covered, fmt.Sprintf("%s: %s (%q)", t, label(p, by), matched))
			continue
		}
		sug := topicSuggestion(t, goal)
		r.fault(vouch.DimCompleteness, "plan.topic", vouch.CodeTopicUncovered, true,
			fmt.Sprintf("no subgoal covers the required topic %s", t),
			map[string]any{"topic": t, "suggestion": sug}, []string{sug}, sug)
		r.gap("required topic not covered: " + t)
	}
	if len(covered) > 0 {
		r.pass(vouch.DimCompleteness, "plan.topics",
			fmt.Sprintf("%d of %s %s covered by subgoals", len(covered), plural.Count(len(seen), "required topic"), plural.Pick(len(covered), "is", "are")),
			len(covered), map[string]any{"covered": covered})
	}
}

// topicSuggestion proposes a subgoal for an uncovered topic.
func topicSuggestion(t, goal string) string {
	obj := "the work of this plan"
	if g := strings.TrimSpace(goal); g != "" {
		if r := []rune(g); len(r) > 80 {
			g = strings.TrimSpace(string(r[:77])) + "..."
		}
		obj = fmt.Sprintf("%q", g)
	}
	if entry := topicByName[strings.Join(words(t, false), " ")]; entry != nil {
		return fmt.Sprintf("add a subgoal for %s: e.g. %s", t, fmt.Sprintf(entry.example, obj))
	}
	return fmt.Sprintf("add a subgoal for %s: e.g. cover %s in %s", t, t, obj)
}
