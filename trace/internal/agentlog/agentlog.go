// Package agentlog holds what the readers of agent logs (package trace and
// its importers) share: lenient JSON decoding, short decoding errors, and
// the small readers of the tagged text agent tools print
// ("<returncode>1</returncode>", "Exit code 1").
package agentlog

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// DecodeOptions read agent logs leniently where JSON allows: duplicate
// names and invalid UTF-8 in agent text are not errors.
var DecodeOptions = json.JoinOptions(
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
)

// Error shortens the errors of package json for one record of a log.
func Error(err error) error {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return fmt.Errorf("malformed JSON at byte %d: %v", se.ByteOffset, se.Err)
	}
	var te *json.SemanticError
	if errors.As(err, &te) {
		return fmt.Errorf("unexpected JSON at %s: %v", te.JSONPointer, err)
	}
	return err
}

// TagValue returns the text between <tag> and </tag> in b, trimmed.
func TagValue(b []byte, tag string) []byte {
	open := "<" + tag + ">"
	i := bytes.Index(b, []byte(open))
	if i < 0 {
		return nil
	}
	rest := b[i+len(open):]
	j := bytes.Index(rest, []byte("</"+tag+">"))
	if j < 0 {
		return nil
	}
	return bytes.TrimSpace(rest[:j])
}

// LeadingInt parses the optionally signed integer (of up to 9 digits) at
// the start of b.
func LeadingInt(b []byte) (int, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	v, n := 0, 0
	for n < len(b) && n < 9 && '0' <= b[n] && b[n] <= '9' {
		v = v*10 + int(b[n]-'0')
		n++
	}
	if n == 0 || (n < len(b) && '0' <= b[n] && b[n] <= '9') {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// AppendDistinct appends s to list unless it is empty or seen holds it.
func AppendDistinct(list []string, seen map[string]bool, s string) []string {
	if s == "" || seen[s] {
		return list
	}
	seen[s] = true
	return append(list, s)
}

// TextExitCode reads an exit status from the head of a text output.
func TextExitCode(head []byte) (int, bool) {
	h := bytes.TrimLeft(head, " \t\r\n")
	h = bytes.TrimPrefix(h, []byte("Error: "))
	if rest, ok := bytes.CutPrefix(h, []byte("Exit code")); ok {
		// "Exit code 1" (Claude Code), "Exit code: 1" (Codex).
		rest = bytes.TrimPrefix(rest, []byte(":"))
		if len(rest) == 0 || rest[0] != ' ' {
			return 0, false
		}
		return LeadingInt(rest[1:])
	}
	if rest, ok := bytes.CutPrefix(h, []byte("<exception>")); ok {
		// mini-swe-agent puts what went wrong before the status.
		i := bytes.Index(rest, []byte("</exception>"))
		if i < 0 {
			return 0, false
		}
		h = bytes.TrimLeft(rest[i+len("</exception>"):], " \t\r\n")
	}
	if rest, ok := bytes.CutPrefix(h, []byte("<returncode>")); ok {
		return LeadingInt(bytes.TrimLeft(rest, " \t\r\n"))
	}
	return 0, false
}

// Between returns the text between open and the last close after it.
func Between(s, open, close string) (string, bool) {
	i := strings.Index(s, open)
	if i < 0 {
		return "", false
	}
	s = s[i+len(open):]
	j := strings.LastIndex(s, close)
	if j < 0 {
		return "", false
	}
	return s[:j], true
}

// Quote returns text as a JSON string, invalid UTF-8 replaced.
func Quote(text string) []byte {
	b, err := jsontext.AppendQuote(nil, strings.ToValidUTF8(text, "\uFFFD"))
	if err != nil {
		return []byte(`""`)
	}
	return b
}
