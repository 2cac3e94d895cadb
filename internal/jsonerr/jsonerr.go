// Package jsonerr turns the errors of the JSON decoder into [vouch.Error]
// values that name the JSON path, line and column of the problem.
package jsonerr

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch"
)

// PointerToPath turns a JSON Pointer ("/task/criteria/2/check") into a dotted
// path ("task.criteria[2].check"). Segments made only of digits become
// indexes.
func PointerToPath(ptr string) string {
	if ptr == "" || ptr == "/" {
		return ""
	}
	var b strings.Builder
	for i, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		if isIndex(seg) {
			b.WriteByte('[')
			b.WriteString(seg)
			b.WriteByte(']')
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// LineCol returns the 1-based line and column of byte offset off in data.
// Columns count characters, not bytes, as editors do.
func LineCol(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	line, col = 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else if c&0xC0 != 0x80 {
			col++
		}
	}
	return line, col
}

// Convert turns an error from json.Unmarshal of data into a *vouch.Error with
// a dotted path, line and column. A *vouch.Error wrapped in the decoder's
// error (returned by a caller-specified unmarshaler) gets the decoder's path
// prepended and its position; a bare *vouch.Error is returned as it is.
func Convert(data []byte, err error) *vouch.Error {
	if err == nil {
		return nil
	}
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		line, col := LineCol(data, syn.ByteOffset)
		msg := syn.Err.Error()
		if errors.Is(syn.Err, jsontext.ErrDuplicateName) {
			return &vouch.Error{Code: vouch.ErrInvalid, Path: PointerToPath(string(syn.JSONPointer)), Message: "duplicate key", Line: line, Column: col, Err: err}
		}
		return &vouch.Error{Code: vouch.ErrSyntax, Path: PointerToPath(string(syn.JSONPointer)), Message: "malformed JSON: " + msg, Line: line, Column: col, Err: err}
	}
	var sem *json.SemanticError
	if errors.As(err, &sem) {
		path := PointerToPath(string(sem.JSONPointer))
		line, col := LineCol(data, sem.ByteOffset)
		switch {
		case errors.Is(sem.Err, json.ErrUnknownName):
			return &vouch.Error{Code: vouch.ErrUnknownField, Path: path, Message: "unknown field", Line: line, Column: col, Err: err}
		case errors.Is(sem.Err, strconv.ErrSyntax) && sem.JSONKind == '0' && goTypeName(sem) == "integer":
			return &vouch.Error{Code: vouch.ErrType, Path: path, Message: "got a fraction or an out-of-range number, want integer", Line: line, Column: col, Err: err}
		case sem.Err != nil:
			var inner *vouch.Error
			if errors.As(sem.Err, &inner) {
				c := *inner
				c.Path = vouch.JoinPath(path, c.Path)
				if c.Line == 0 {
					c.Line, c.Column = line, col
				}
				return &c
			}
			return &vouch.Error{Code: vouch.ErrInvalid, Path: path, Message: sem.Err.Error(), Line: line, Column: col, Err: err}
		default:
			want := goTypeName(sem)
			got := "value"
			if sem.JSONKind != 0 {
				got = KindName(sem.JSONKind)
			}
			return &vouch.Error{Code: vouch.ErrType, Path: path, Message: fmt.Sprintf("got %s, want %s", got, want), Line: line, Column: col, Err: err}
		}
	}
	var ve *vouch.Error
	if errors.As(err, &ve) {
		return ve
	}
	return &vouch.Error{Code: vouch.ErrSyntax, Message: err.Error(), Err: err}
}

// KindName names a JSON kind for messages: "null", "boolean", "string",
// "number", "object", "array"; "nothing" for the zero kind.
func KindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "boolean"
	case '"':
		return "string"
	case '0':
		return "number"
	case '{':
		return "object"
	case '[':
		return "array"
	case 0:
		return "nothing"
	}
	return "value"
}

func goTypeName(sem *json.SemanticError) string {
	if sem.GoType == nil {
		return "another type"
	}
	t := sem.GoType
	for t.Kind().String() == "ptr" {
		t = t.Elem()
	}
	switch t.Kind().String() {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "integer"
	case "float32", "float64":
		return "number"
	case "slice", "array":
		if t.Elem().Kind().String() == "uint8" && t.Name() != "" {
			return "JSON value"
		}
		return "array"
	case "map", "struct":
		return "object"
	case "interface":
		return "JSON value"
	}
	return t.String()
}
