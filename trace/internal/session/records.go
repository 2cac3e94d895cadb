package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch/internal/jsonerr"
	"github.com/vouchgate/vouch/trace/internal/agentlog"
)

// Record is one JSON value of a log: a top-level value, or an element of
// a top-level list.
type Record struct {
	Line  int            // 1-based line of its first byte
	Index int            // 1-based position among the records
	Value jsontext.Value // the value as logged, sharing the log's memory when it can
}

// Records splits a log into records: each value of a top-level list, and
// each other top-level value (a JSON document holds one, a JSONL log one a
// line). A UTF-8 byte order mark at the start is skipped. Malformed JSON,
// a truncated document included, is an error naming its line and column.
// The values share data's memory.
func Records(data []byte) ([]Record, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	dec := jsontext.NewDecoder(bytes.NewReader(data), agentlog.DecodeOptions)
	var out []Record
	// The line of a record is counted on from the record before, so that
	// splitting a log costs time in proportion to its length.
	line, counted := 1, int64(0)
	add := func() error {
		start := skipSpace(data, dec.InputOffset())
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		end := start + int64(len(v))
		if end <= int64(len(data)) && bytes.Equal(data[start:end], v) {
			v = data[start:end:end]
		} else {
			v = bytes.Clone(v)
		}
		if start > counted {
			line += bytes.Count(data[counted:start], []byte("\n"))
			counted = start
		}
		out = append(out, Record{Line: line, Index: len(out) + 1, Value: v})
		return nil
	}
	for {
		switch dec.PeekKind() {
		case 0:
			if _, err := dec.ReadToken(); err == io.EOF {
				return out, nil
			} else if err != nil {
				return nil, SyntaxError(data, err)
			}
			return nil, errors.New("unexpected input")
		case '[':
			if _, err := dec.ReadToken(); err != nil {
				return nil, SyntaxError(data, err)
			}
			for dec.PeekKind() != ']' {
				if dec.PeekKind() == 0 {
					_, err := dec.ReadToken()
					if err == nil || err == io.EOF {
						err = io.ErrUnexpectedEOF
					}
					return nil, SyntaxError(data, err)
				}
				if err := add(); err != nil {
					return nil, SyntaxError(data, err)
				}
			}
			if _, err := dec.ReadToken(); err != nil {
				return nil, SyntaxError(data, err)
			}
		default:
			if err := add(); err != nil {
				return nil, SyntaxError(data, err)
			}
		}
	}
}

// skipSpace returns the offset of the first byte at or after off that is
// neither JSON white space nor the comma between two elements.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',':
			off++
		default:
			return off
		}
	}
	return off
}

// SyntaxError places a decoding error of data at its line and column.
func SyntaxError(data []byte, err error) error {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		line, col := jsonerr.LineCol(data, se.ByteOffset)
		return fmt.Errorf("malformed JSON at line %d, column %d: %v", line, col, se.Err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		line, col := jsonerr.LineCol(data, int64(len(data)))
		return fmt.Errorf("malformed JSON at line %d, column %d: unexpected end of input", line, col)
	}
	return err
}

// Decode decodes a record's value (or a part of it) into v, with a short
// error naming the member at fault.
func Decode(data jsontext.Value, v any) error {
	if err := json.Unmarshal(data, v, agentlog.DecodeOptions); err != nil {
		return agentlog.Error(err)
	}
	return nil
}

// Text returns message content as text: a string, or the text of a list
// of parts ({"type": "text"|"input_text"|"output_text", "text": ...},
// {"type": "refusal", "refusal": ...}) joined by newlines, an image part
// as "[image]" and a file part as "[file]" when marks is set. Other kinds
// of content have no text.
func Text(content jsontext.Value, marks bool) (string, error) {
	switch content.Kind() {
	case '"':
		var s string
		if err := Decode(content, &s); err != nil {
			return "", err
		}
		return s, nil
	case '[':
		var parts []struct {
			Type    string         `json:"type"`
			Text    jsontext.Value `json:"text"`
			Refusal string         `json:"refusal"`
			Content jsontext.Value `json:"content"`
		}
		if err := Decode(content, &parts); err != nil {
			return "", err
		}
		var out []string
		for _, p := range parts {
			switch p.Type {
			case "text", "input_text", "output_text", "":
				// OpenAI parts hold "text"; OpenTelemetry's hold "content".
				v := p.Text
				if v.Kind() != '"' {
					v = p.Content
				}
				if v.Kind() == '"' {
					var s string
					if err := Decode(v, &s); err != nil {
						return "", err
					}
					out = append(out, s)
				}
			case "refusal":
				out = append(out, p.Refusal)
			case "image", "image_url", "input_image", "output_image":
				if marks {
					out = append(out, "[image]")
				}
			case "file", "input_file", "blob", "uri":
				if marks {
					out = append(out, "[file]")
				}
			}
		}
		return joinLines(out), nil
	}
	return "", nil
}

func joinLines(parts []string) string {
	var b bytes.Buffer
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p)
	}
	return b.String()
}

// Scan walks the JSON values in data in order, top-level values one after
// another (a JSONL log), and calls fn with each value's depth (0 for a
// top-level value, 1 for its members or elements...), the name of the
// member it is (or "" for an element of a list or a top-level value), its
// kind, and its text when it is a string. Scan stops when fn returns
// false or at the first error, so a prefix of a log cut anywhere can be
// scanned: it returns the error of malformed JSON, placed at its line and
// column, but not the end of data in the middle of a value.
func Scan(data []byte, fn func(depth int, name string, kind jsontext.Kind, s string) bool) error {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	dec := jsontext.NewDecoder(bytes.NewReader(data), agentlog.DecodeOptions)
	type frame struct {
		kind jsontext.Kind
		name string // the member whose value comes next, in an object
		key  bool   // the next token in an object is a member name
	}
	var stack []frame
	for {
		tok, err := dec.ReadToken()
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil
		}
		if err != nil {
			return SyntaxError(data, err)
		}
		k := tok.Kind()
		if k == '}' || k == ']' {
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			if n := len(stack); n > 0 && stack[n-1].kind == '{' {
				stack[n-1].key = true
			}
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].kind == '{' && stack[n-1].key {
			stack[n-1].name, stack[n-1].key = tok.String(), false
			continue
		}
		name := ""
		if n := len(stack); n > 0 && stack[n-1].kind == '{' {
			name = stack[n-1].name
		}
		s := ""
		if k == '"' {
			s = tok.String()
		}
		if !fn(len(stack), name, k, s) {
			return nil
		}
		switch k {
		case '{':
			stack = append(stack, frame{kind: '{', key: true})
		case '[':
			stack = append(stack, frame{kind: '['})
		default:
			if n := len(stack); n > 0 && stack[n-1].kind == '{' {
				stack[n-1].key = true
			}
		}
	}
}
