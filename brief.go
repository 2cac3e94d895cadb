package vouch

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// BriefMaxBytes bounds the JSON of a [Brief], which stays under it: what
// a hook, an orchestrator's log line or a PR status can carry.
const BriefMaxBytes = 500

// Brief is the compact form of a report: the verdict and its figures, the
// first findings and the feedback, in fewer than [BriefMaxBytes] bytes of
// JSON. The full report stays where it is (the log, --json); a brief
// points at it by id and attempt.
type Brief struct {
	ID         string   `json:"id,omitempty"`
	Attempt    int      `json:"attempt,omitzero"`
	Verdict    Verdict  `json:"verdict"`
	Action     Action   `json:"action"`
	Score      *float64 `json:"score"`
	Confidence float64  `json:"confidence"`
	Coverage   *float64 `json:"coverage"`
	// Findings are at most three of the report's issues, one per check,
	// most important first (the report's order), each cut short.
	Findings []string `json:"findings,omitempty"`
	// Unverified counts the claims that stayed unverified.
	Unverified int `json:"unverified,omitzero"`
	// Feedback is the report's feedback for a retry, cut short to keep
	// the brief within its bound ("…" marks a cut).
	Feedback string `json:"feedback,omitempty"`
	// Override is the verdict a reviewer last gave the verification, when
	// one did (the service's log holds overrides; a report has none).
	Override Verdict `json:"override,omitempty"`
}

// Limits of a brief's parts, in bytes.
const (
	briefMaxFindings = 3
	briefFindingMax  = 72
	briefIDMax       = 64
)

// Brief returns the compact form of r. Its JSON (MarshalBrief) stays
// under BriefMaxBytes: the findings and the feedback are cut to fit.
func (r *Report) Brief() Brief {
	b := Brief{ID: cut(r.ID, briefIDMax), Attempt: r.Attempt, Verdict: r.Verdict, Action: r.Action,
		Score: round3(r.Score), Confidence: *round3(&r.Confidence), Coverage: round3(r.Coverage), Feedback: r.Feedback}
	seen := map[string]bool{}
	for _, is := range r.Issues {
		if len(b.Findings) == briefMaxFindings {
			break
		}
		check, _, _ := strings.Cut(is, ":")
		if seen[check] {
			continue // one finding per check: three checks say more than three of one
		}
		seen[check] = true
		b.Findings = append(b.Findings, cut(is, briefFindingMax))
	}
	for _, c := range r.Claims {
		if c.State == ClaimUnverified {
			b.Unverified++
		}
	}
	return b
}

// MarshalBrief returns the JSON of b, cutting its feedback, then its
// findings, until it is shorter than BriefMaxBytes.
func MarshalBrief(b Brief) []byte {
	const limit = BriefMaxBytes - 1
	out := marshalBrief(b)
	if len(out) <= limit {
		return out
	}
	// The feedback gives way first, by what is over (JSON escapes make
	// a byte cost more than one, so cut again until it fits).
	for b.Feedback != "" && len(out) > limit {
		over := len(out) - limit
		b.Feedback = cut(b.Feedback, max(0, len(b.Feedback)-over-len("…")))
		out = marshalBrief(b)
	}
	for len(b.Findings) > 0 && len(out) > limit {
		b.Findings = b.Findings[:len(b.Findings)-1]
		out = marshalBrief(b)
	}
	return out
}

// marshalBrief is b's JSON without HTML escapes ("<" stays one byte).
func marshalBrief(b Brief) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(b) // a Brief of strings and numbers always encodes
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// cut returns s within max bytes, whole runes, ending in "…" when cut;
// "" when max leaves no room for a rune and the mark.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max - len("…")
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimRight(s[:n], " ") + "…"
}

// round3 rounds a figure to three decimals, as a brief shows it.
func round3(f *float64) *float64 {
	if f == nil {
		return nil
	}
	r := float64(int64(*f*1000+0.5)) / 1000
	if *f < 0 {
		r = -float64(int64(-*f*1000+0.5)) / 1000
	}
	return &r
}
