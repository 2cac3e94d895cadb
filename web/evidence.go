package web

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// evNode is one entry of a check's evidence (or of a tool call's input)
// as the page shows it to people: a scalar as text, a multi-line text
// as lines (a diff's changes, an error marked), a cited tool call as a
// link, or an object's members and a list's items nested. Nothing of it
// is trusted as HTML: the template escapes every string.
type evNode struct {
	// Key is the member's name in words ("failed commands"); "" for a
	// list's item.
	Key string
	// Text is a scalar, or a list of short scalars joined by commas.
	Text string
	// Lines is a string of several lines.
	Lines []textLine
	// Call is set when the value cites a tool call of the trace.
	Call *callLink
	// Items are an object's members or a list's items; List says which.
	Items []evNode
	List  bool
	// Empty says the value is an empty object, list or text.
	Empty bool
}

// Bounds of the evidence drawn for people: the entries of one check's
// evidence, how deep it is followed, a value's length, and the raw JSON
// shown under "raw".
const (
	maxEvidenceNodes = 400
	maxEvidenceDepth = 6
	maxEvidenceValue = 2000
	maxRawEvidence   = 20000
)

// callResolver finds the tool calls a value cites: by index ("call":
// 12), by the id of the trace's entry ("call": "toolu_01"), or by the
// command a call ran (a "command" of the evidence, a run listed as
// "command: 3 passed"). A nil resolver finds none.
type callResolver interface {
	// byIndex returns the link to call i, or nil when the trace has no
	// call i.
	byIndex(i int) *callLink
	// byID returns the call whose entry has id, or -1.
	byID(id string) int
	// byCommand returns the last call that ran the command s (or whose
	// command s starts, followed by ": "), or -1.
	byCommand(s string) int
}

// callKey reports whether an evidence member names a tool call.
func callKey(k string) bool { return k == "call" }

// commandKey reports whether an evidence member's strings may be
// commands a call ran.
func commandKey(k string) bool {
	k = strings.ToLower(k)
	return strings.Contains(k, "command") || k == "runs" || k == "run" || k == "cmd"
}

// citedCalls calls fn with each tool call evidence cites: by index or
// id under a "call" member, at any depth, or by its command under a
// member that holds commands (see commandKey); byCommand says which.
func citedCalls(v any, r callResolver, fn func(call int, byCommand bool)) {
	if r == nil {
		return
	}
	n := 0
	var walk func(v any, key string, depth int)
	walk = func(v any, key string, depth int) {
		if n++; n > maxEvidenceNodes || depth > maxEvidenceDepth {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(x, k, depth+1)
			}
		case []any:
			for _, x := range v {
				walk(x, key, depth+1)
			}
		default:
			if i, ok := callOf(v, key, r); ok {
				fn(i, false)
			} else if s, ok := v.(string); ok && commandKey(key) {
				if i := r.byCommand(s); i >= 0 {
					fn(i, true)
				}
			}
		}
	}
	walk(v, "", 0)
}

// callOf reads a scalar under key as a call of the trace: an index or
// an entry's id under "call", or, under any key, a place in the trace
// as the checks name it ("trace[3] Read").
func callOf(v any, key string, r callResolver) (int, bool) {
	if s, ok := v.(string); ok {
		if i, ok := traceRef(s); ok && r.byIndex(i) != nil {
			return i, true
		}
	}
	if !callKey(key) {
		return 0, false
	}
	switch v := v.(type) {
	case float64:
		if v == math.Trunc(v) && v >= 0 && v < math.MaxInt32 && r.byIndex(int(v)) != nil {
			return int(v), true
		}
	case int:
		if r.byIndex(v) != nil {
			return v, true
		}
	case string:
		if i := r.byID(v); i >= 0 {
			return i, true
		}
	}
	return 0, false
}

// traceRef reads "trace[N]", or "trace[N] Tool", as call N.
func traceRef(s string) (int, bool) {
	rest, ok := strings.CutPrefix(s, "trace[")
	if !ok {
		return 0, false
	}
	n, rest, ok := strings.Cut(rest, "]")
	if !ok || n == "" || len(n) > 9 || rest != "" && (rest[0] != ' ' || strings.ContainsAny(rest[1:], " \n")) {
		return 0, false
	}
	i, err := strconv.Atoi(n)
	return i, err == nil && i >= 0
}

// evDraw is how evidence is drawn: the resolver of the calls it cites
// (nil links none), whether member names are kept as written (a
// policy's keys) rather than said in words, and the entries left to draw.
type evDraw struct {
	r        callResolver
	keepKeys bool
	budget   int
}

// evidenceTree turns evidence into entries for people, members in name
// order, each call it cites a link (through r; nil links none).
func evidenceTree(m map[string]any, r callResolver) []evNode {
	if len(m) == 0 {
		return nil
	}
	return members(m, &evDraw{r: r, budget: maxEvidenceNodes}, 0)
}

// keyTree is like evidenceTree, for settings whose names matter as
// written (a policy's keys): no call is linked, no name reworded.
func keyTree(m map[string]any) []evNode {
	if len(m) == 0 {
		return nil
	}
	return members(m, &evDraw{keepKeys: true, budget: maxEvidenceNodes}, 0)
}

// members are an object's members as entries, in name order.
func members(m map[string]any, dr *evDraw, depth int) []evNode {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	// An object that names its call ({"call": 7, "command": ...}) links
	// it once: its command is only text.
	named := false
	if dr.r != nil {
		_, named = callOf(m["call"], "call", dr.r)
	}
	out := make([]evNode, 0, len(keys))
	for _, k := range keys {
		if dr.budget <= 0 {
			out = append(out, evNode{Key: "more", Text: strconv.Itoa(len(keys)-len(out)) + " entries not shown (see raw)"})
			break
		}
		var n evNode
		if s, ok := m[k].(string); ok && named && commandKey(k) && !strings.Contains(s, "\n") {
			dr.budget--
			n = evNode{Text: clip(s, maxEvidenceValue)}
		} else {
			n = node(m[k], k, dr, depth+1)
		}
		n.Key = k
		if !dr.keepKeys {
			n.Key = words(k)
		}
		out = append(out, n)
	}
	return out
}

// node is one value as an entry; key is the member it is under (a
// list's items are under their list's member).
func node(v any, key string, dr *evDraw, depth int) evNode {
	dr.budget--
	r := dr.r
	if r != nil {
		if i, ok := callOf(v, key, r); ok {
			return evNode{Call: r.byIndex(i)}
		}
	}
	if depth > maxEvidenceDepth {
		return evNode{Text: clip(compactJSON(v), maxEvidenceValue)}
	}
	switch v := v.(type) {
	case nil:
		return evNode{Text: "null (no value)"}
	case bool:
		if v {
			return evNode{Text: "yes"}
		}
		return evNode{Text: "no"}
	case float64:
		return evNode{Text: number(v)}
	case int:
		return evNode{Text: strconv.Itoa(v)}
	case string:
		if v == "" {
			return evNode{Text: "empty", Empty: true}
		}
		if strings.Contains(v, "\n") {
			return evNode{Lines: textLines(clip(v, 64<<10))}
		}
		n := evNode{Text: clip(v, maxEvidenceValue)}
		if r != nil && commandKey(key) {
			if i := r.byCommand(v); i >= 0 {
				n.Call = r.byIndex(i)
			}
		}
		return n
	case map[string]any:
		if len(v) == 0 {
			return evNode{Text: "empty", Empty: true}
		}
		return evNode{Items: members(v, dr, depth)}
	case []any:
		if len(v) == 0 {
			return evNode{Text: "none", Empty: true}
		}
		if s, ok := inline(v); ok && !(r != nil && commandKey(key)) {
			return evNode{Text: s}
		}
		if len(v) == 1 {
			return node(v[0], key, dr, depth+1)
		}
		out := evNode{List: true}
		for i, x := range v {
			if dr.budget <= 0 {
				out.Items = append(out.Items, evNode{Text: strconv.Itoa(len(v)-i) + " more not shown (see raw)"})
				break
			}
			out.Items = append(out.Items, node(x, key, dr, depth+1))
		}
		return out
	}
	return evNode{Text: clip(compactJSON(v), maxEvidenceValue)}
}

// inline joins a list of short scalars with commas, when it is one.
func inline(v []any) (string, bool) {
	var b strings.Builder
	for i, x := range v {
		var s string
		switch x := x.(type) {
		case string:
			if strings.Contains(x, "\n") {
				return "", false
			}
			s = x
		case float64:
			s = number(x)
		case bool:
			s = strconv.FormatBool(x)
		default:
			return "", false
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
		if b.Len() > 300 {
			return "", false
		}
	}
	return b.String(), true
}

// number formats a JSON number: whole numbers without a fraction or an
// exponent, others with at most four decimals.
func number(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(math.Round(v*1e4)/1e4, 'f', -1, 64)
}

// words says a member's name in words: "failedCommands" and
// "failed_commands" are "failed commands". A name with other characters
// is kept as it is.
func words(k string) string {
	if k == "" || strings.IndexFunc(k, func(r rune) bool { return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') }) >= 0 {
		return k
	}
	var b strings.Builder
	rs := []rune(k)
	for i, r := range rs {
		switch {
		case r == '_':
			b.WriteByte(' ')
			continue
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1])):
			b.WriteByte(' ')
		}
		next := i+1 < len(rs)
		if unicode.IsUpper(r) && (next && unicode.IsUpper(rs[i+1]) || i > 0 && unicode.IsUpper(rs[i-1]) && !(next && unicode.IsLower(rs[i+1]))) {
			b.WriteRune(r) // an acronym stays as written
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// clip cuts s after n bytes (at a UTF-8 boundary), saying so.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return clipLineAt(s, n)
}

// clipLineAt cuts s at n bytes, at a UTF-8 boundary, saying how much
// was cut.
func clipLineAt(s string, n int) string {
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "… (" + strconv.Itoa(len(s)-cut) + " more bytes)"
}

// compactJSON is v as JSON on one line.
func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "(a value that cannot be shown)"
	}
	return string(b)
}

// rawJSON is v as indented JSON, cut at maxRawEvidence bytes: what the
// page shows under "raw".
func rawJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return ""
	}
	return clip(string(b), maxRawEvidence)
}
