package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/vouchgate/vouch"
)

// maxSummary bounds the text summary of a report; the report itself is
// the structured content.
const maxSummary = 4000

// Summary is the short text a tool result gives the model beside the
// report: the verdict with its score and confidence, the reason, the
// claims found false and those nothing could check, the failed checks no
// claim names, and the feedback to act on. withURI adds the report's
// resource URI.
func Summary(report []byte, withURI bool) (string, error) {
	var r struct {
		ID         string   `json:"id"`
		Verdict    string   `json:"verdict"`
		Action     string   `json:"action"`
		Reason     string   `json:"reason"`
		Score      *float64 `json:"score"`
		Confidence float64  `json:"confidence"`
		Claims     []struct {
			ID     string `json:"id"`
			Text   string `json:"text"`
			State  string `json:"state"`
			Reason string `json:"reason"`
			Checks []int  `json:"checks"`
		} `json:"claims"`
		Checks []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
			Reason string `json:"reason"`
		} `json:"checks"`
		Feedback string `json:"feedback"`
	}
	if err := json.Unmarshal(report, &r); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "vouch: %s (action %s", r.Verdict, r.Action)
	if r.Score != nil {
		fmt.Fprintf(&b, ", score %.2f", *r.Score)
	}
	fmt.Fprintf(&b, ", confidence %.2f)", r.Confidence)
	if r.Reason != "" {
		b.WriteString(": ")
		b.WriteString(r.Reason)
	}
	b.WriteByte('\n')
	named := map[int]bool{} // checks a claim cites
	for _, state := range []struct{ state, head string }{
		{string(vouch.ClaimRefuted), "Claims found false:"},
		{string(vouch.ClaimUnverified), "Claims nothing could check (not found false):"},
	} {
		n := 0
		for _, c := range r.Claims {
			if c.State != state.state {
				continue
			}
			for _, i := range c.Checks {
				named[i] = true
			}
			if n == 0 {
				b.WriteString(state.head + "\n")
			}
			if n++; n > 10 {
				if n == 11 {
					b.WriteString("- ...\n")
				}
				continue
			}
			fmt.Fprintf(&b, "- %s %q: %s\n", c.ID, c.Text, c.Reason)
		}
	}
	failed := 0
	for i, c := range r.Checks {
		if c.Status != string(vouch.StatusFail) || named[i] {
			continue
		}
		if failed == 0 {
			b.WriteString("Failed checks:\n")
		}
		failed++
		if failed > 10 {
			b.WriteString("- ...\n")
			break
		}
		fmt.Fprintf(&b, "- %s: %s\n", c.Name, c.Reason)
	}
	if r.Feedback != "" && r.Verdict != string(vouch.VerdictPass) {
		b.WriteString("Feedback:\n")
		b.WriteString(r.Feedback)
		b.WriteByte('\n')
	}
	if withURI && r.ID != "" {
		fmt.Fprintf(&b, "Report: %s%s\n", resourcePrefix, r.ID)
	}
	return cut(strings.TrimRight(b.String(), "\n"), maxSummary), nil
}

// cut shortens s to at most n bytes, on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - len(" ...")
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + " ..."
}
