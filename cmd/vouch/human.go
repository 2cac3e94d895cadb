package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// marks are the marks of a line's state: passed or verified, failed or
// refuted, undecided or unverified.
type marks struct{ ok, bad, open string }

var (
	// unicodeMarks are used with colour, on a terminal.
	unicodeMarks = marks{ok: "✓", bad: "✗", open: "?"}
	// asciiMarks are used without: under NO_COLOR, TERM=dumb, or when
	// the output is no terminal.
	asciiMarks = marks{ok: "ok", bad: "x", open: "?"}
)

// marksFor returns the marks for output coloured or not.
func marksFor(color bool) marks {
	if color {
		return unicodeMarks
	}
	return asciiMarks
}

// plainValue turns a value of a report's evidence (Go values built by a
// check, or JSON read back) into JSON's own: string, float64, bool, nil,
// []any and map[string]any, so that it renders the same however it was
// made. A value with no JSON form is written with %v.
func plainValue(v any) any {
	switch v := v.(type) {
	case nil, string, bool, float64:
		return v
	case fmt.Stringer:
		return v.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return fmt.Sprint(v)
	}
	return out
}

// humanText writes a value on one line for a person: a list as its items
// joined by commas ("none" when empty), an object as its members ("key
// value", joined by semicolons; a problem's path and message as "path:
// message"), a whole number without a decimal point.
func humanText(v any) string {
	switch v := plainValue(v).(type) {
	case nil:
		return "none"
	case string:
		return v
	case bool:
		if v {
			return "yes"
		}
		return "no"
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case []any:
		if len(v) == 0 {
			return "none"
		}
		parts := make([]string, len(v))
		for i, it := range v {
			parts[i] = humanText(it)
		}
		sep := ", "
		if composite(v) {
			sep = "; "
		}
		return strings.Join(parts, sep)
	case map[string]any:
		if len(v) == 0 {
			return "none"
		}
		if path, ok := v["path"].(string); ok && len(v) == 2 {
			if msg, ok := v["message"]; ok {
				return path + ": " + humanText(msg)
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + " " + humanText(v[k])
		}
		return strings.Join(parts, "; ")
	default:
		return fmt.Sprint(v)
	}
}

// composite reports whether a list holds a list or an object.
func composite(items []any) bool {
	for _, it := range items {
		switch it.(type) {
		case []any, map[string]any:
			return true
		}
	}
	return false
}

// writeField writes one named value at indent: on the line of its name,
// or, for a list of objects or lists, one item a line below it.
func writeField(w io.Writer, indent, name string, v any) {
	v = plainValue(v)
	if items, ok := v.([]any); ok && len(items) > 1 && composite(items) {
		fmt.Fprintf(w, "%s%s:\n", indent, name)
		for _, it := range items {
			fmt.Fprintf(w, "%s  - %s\n", indent, clipLine(humanText(it), 200))
		}
		return
	}
	fmt.Fprintf(w, "%s%s: %s\n", indent, name, clipLine(humanText(v), 200))
}

// weightsText writes a kind's dimension weights, in the order of dims,
// then any other sorted: "criteria 0.63, completeness 0.37".
func weightsText(weights map[string]float64, dims []string) string {
	if len(weights) == 0 {
		return "none"
	}
	var parts []string
	for _, d := range orderedKeys(weights, dims, false) {
		parts = append(parts, fmt.Sprintf("%s %.2f", d, weights[d]))
	}
	return strings.Join(parts, ", ")
}

// orderedKeys returns the keys of m in the order of first, then the
// others sorted. A key of first that m lacks is listed only with always.
func orderedKeys[V any, K ~string](m map[string]V, first []K, always bool) []string {
	var out []string
	seen := make(map[string]bool, len(first))
	for _, k := range first {
		if _, ok := m[string(k)]; ok || always {
			out = append(out, string(k))
		}
		seen[string(k)] = true
	}
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}
