package web

import (
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
)

// segment is a piece of an agent's output: plain text, or a mention the
// report verified, refuted or could not check. The template escapes each
// piece and draws mentions as <mark> elements; no piece is ever trusted
// as HTML.
type segment struct {
	Text string
	// Mark is "" for plain text, "ok" for a verified mention, "bad" for
	// a refuted one, "unv" for an unverified one.
	Mark string
	// Kind is the mention's kind; Note says why it is marked.
	Kind, Note string
}

// Bounds of the highlighting: the mentions looked for, and the marks
// made in one output.
const (
	maxMentions = 500
	maxMarks    = 2000
)

// highlight splits an output around its mentions: each occurrence of a
// mention's text that does not cut a word is marked, longer mentions
// first, and where two of the same length overlap, the refuted one, then
// the unverified one.
func highlight(text string, m vouch.Mentions) []segment {
	type span struct {
		from, to   int
		mark, kind string
		note       string
	}
	var spans []span
	taken := func(from, to int) bool {
		for _, s := range spans {
			if from < s.to && s.from < to {
				return true
			}
		}
		return false
	}
	add := func(needle, mark, kind, note string) {
		if needle == "" {
			return
		}
		for off := 0; off < len(text) && len(spans) < maxMarks; {
			i := strings.Index(text[off:], needle)
			if i < 0 {
				return
			}
			from, to := off+i, off+i+len(needle)
			if !cutsWord(text, from, to) && !taken(from, to) {
				spans = append(spans, span{from, to, mark, kind, note})
			}
			off = to
		}
	}
	// Longer mentions first, so that a mention inside another does not
	// cut it; at equal length, refuted ones first, then unverified ones.
	type mention struct{ text, mark, kind, note string }
	var list []mention
	for i, r := range m.Refuted {
		if i >= maxMentions {
			break
		}
		list = append(list, mention{r.Text, "bad", string(r.Kind), "refuted " + string(r.Kind)})
	}
	for i, u := range m.Unverified {
		if i >= maxMentions {
			break
		}
		list = append(list, mention{u.Text, "unv", string(u.Kind), "unverified " + string(u.Kind)})
	}
	for i, v := range m.Verified {
		if i >= maxMentions {
			break
		}
		list = append(list, mention{v.Text, "ok", string(v.Kind), "verified " + string(v.Kind)})
	}
	slices.SortStableFunc(list, func(a, b mention) int { return len(b.text) - len(a.text) })
	for _, x := range list {
		add(x.text, x.mark, x.kind, x.note)
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	var out []segment
	at := 0
	for _, s := range spans {
		if s.from > at {
			out = append(out, segment{Text: text[at:s.from]})
		}
		out = append(out, segment{Text: text[s.from:s.to], Mark: s.mark, Kind: s.kind, Note: s.note})
		at = s.to
	}
	if at < len(text) {
		out = append(out, segment{Text: text[at:]})
	}
	return out
}

// cutsWord reports whether text[from:to] starts or ends inside a word:
// "parse" in "parser" is not a mention of parse.
func cutsWord(text string, from, to int) bool {
	return from > 0 && isWord(text[from-1]) && isWord(text[from]) ||
		to < len(text) && isWord(text[to]) && isWord(text[to-1])
}

// isWord reports whether b may be part of a word (bytes of multi-byte
// characters count as letters).
func isWord(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}
