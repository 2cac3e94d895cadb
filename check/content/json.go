package content

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/internal/jsonerr"
)

// The JSON of a text (for json and json_schema) is found by one rule:
//
//  1. the whole text, if it is valid JSON (white space around it is allowed,
//     as JSON allows it);
//  2. else the first fenced code block (``` or ~~~) whose info string is
//     empty or "json" (any case), whatever text surrounds it: agents often
//     answer "Here is the result:" and a ```json block;
//  3. else there is no JSON, and the error is the whole text's.
//
// When rule 2 picks a block, the block's content decides: an invalid block
// is reported with its line and column in the whole text. Valid JSON here is
// RFC 8259 JSON in UTF-8 without duplicate object names (I-JSON, RFC 7493):
// a document whose meaning depends on which duplicate a reader keeps is not
// a sound basis for a verdict.

// jsonDoc is the JSON found in a text.
type jsonDoc struct {
	body     string       // the JSON text
	source   string       // "whole text" or "fenced block at line N"
	firstLn  int          // line of body's first line in the whole text
	syntaxEr *vouch.Error // nil when body is valid
}

// jsonDocKey is the memo key of a target's jsonDoc.
type jsonDocKey string

// findJSON applies the rule above to text.
func findJSON(text string) jsonDoc {
	err := validJSON(text)
	if err == nil {
		return jsonDoc{body: text, source: "whole text", firstLn: 1}
	}
	if body, line, ok := firstJSONBlock(text); ok {
		d := jsonDoc{body: body, source: fmt.Sprintf("fenced block at line %d", line-1), firstLn: line}
		if e := validJSON(body); e != nil {
			if e.Line > 0 {
				e.Line += line - 1
			}
			d.syntaxEr = e
		}
		return d
	}
	return jsonDoc{body: text, source: "whole text", firstLn: 1, syntaxEr: err}
}

// validJSON returns nil when s is one valid JSON value, else the error with
// its line and column in s.
func validJSON(s string) *vouch.Error {
	if jsontext.Value(s).IsValid() {
		return nil
	}
	data := []byte(s)
	err := json.Unmarshal(data, new(jsontext.Value))
	if err == nil { // IsValid and Unmarshal disagree: trust the stricter
		return &vouch.Error{Code: vouch.ErrSyntax, Message: "invalid JSON"}
	}
	e := jsonerr.Convert(data, err)
	e.Message = strings.TrimPrefix(e.Message, "malformed JSON: ")
	if strings.TrimSpace(s) == "" {
		e.Message = "the text is empty"
	}
	return e
}

// firstJSONBlock returns the content of the first fenced code block whose
// info string is empty or "json", and the line of its first content line.
func firstJSONBlock(text string) (body string, line int, ok bool) {
	var (
		lineNo    int
		fenceChar byte
		fenceLen  int
		want      bool // the open block is a JSON block
		start     int  // offset of the open block's content
		startLn   int
	)
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		next := len(text)
		if end >= 0 {
			end += off
			next = end + 1
		} else {
			end = len(text)
		}
		raw := strings.TrimSuffix(text[off:end], "\r")
		lineNo++
		indent, rest := splitIndent(raw)
		switch {
		case fenceChar != 0:
			if indent <= 3 && fenceRun(rest, fenceChar) >= fenceLen &&
				strings.TrimSpace(strings.TrimLeft(rest, string(fenceChar))) == "" {
				if want {
					return text[start:off], startLn, true
				}
				fenceChar = 0
			}
		case indent <= 3 && rest != "" && (rest[0] == '`' || rest[0] == '~'):
			ch := rest[0]
			n := fenceRun(rest, ch)
			info := strings.TrimSpace(rest[n:])
			if n >= 3 && (ch == '~' || !strings.Contains(info, "`")) {
				fenceChar, fenceLen = ch, n
				lang, _, _ := strings.Cut(info, " ")
				want = lang == "" || strings.EqualFold(lang, "json")
				start, startLn = next, lineNo+1
			}
		}
		off = next
	}
	if fenceChar != 0 && want { // an unclosed block runs to the end
		return text[start:], startLn, true
	}
	return "", 0, false
}

// checkJSON returns the JSON of the target's text, memoised per
// verification. When ok is false, out is the outcome to return: the text
// could not be read, or it is not valid JSON.
func checkJSON(s *vouch.Subject, target string) (doc jsonDoc, out vouch.Outcome, ok bool) {
	text, out, ok := readText(s, target)
	if !ok {
		return jsonDoc{}, out, false
	}
	doc = s.Memo(jsonDocKey(target), func() any { return findJSON(text) }).(jsonDoc)
	if doc.syntaxEr == nil {
		return doc, vouch.Outcome{}, true
	}
	e := doc.syntaxEr
	ev := map[string]any{
		"target": targetName(target),
		"source": doc.source,
		"error":  e.Message,
	}
	where := ""
	if e.Line > 0 {
		ev["line"], ev["column"] = e.Line, e.Column
		where = fmt.Sprintf(" at line %d, column %d", e.Line, e.Column)
	}
	subject := targetPhrase(target)
	if doc.source != "whole text" {
		subject = "the " + doc.source + " of " + subject
	}
	return doc, vouch.Fail(vouch.CodeJSONInvalid,
		fmt.Sprintf("%s is not valid JSON: %s%s", subject, e.Message, where), ev), false
}

type jsonParams struct {
	check.Common `json:",inline"`
	check.Target `json:",inline"`
}

// jsonChecker passes when the text holds valid JSON (see findJSON).
type jsonChecker struct {
	target string
}

func newJSON(spec vouch.CheckSpec, _ check.Env) (vouch.Checker, error) {
	var p jsonParams
	if err := check.DecodeParams(spec, &p); err != nil {
		return nil, err
	}
	return &jsonChecker{target: p.Target.Target}, nil
}

// Check implements vouch.Checker.
func (c *jsonChecker) Check(_ context.Context, s *vouch.Subject) vouch.Outcome {
	doc, out, ok := checkJSON(s, c.target)
	if !ok {
		return out
	}
	subject := targetPhrase(c.target)
	if doc.source != "whole text" {
		subject = "the " + doc.source + " of " + subject
	}
	return vouch.Pass(subject+" is valid JSON", map[string]any{
		"target": targetName(c.target),
		"source": doc.source,
	})
}
