package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/jsonerr"
)

// json v2 decodes null into any Go value as its zero value, so after
// decoding "summary": null looks like "summary": "". The contract has no
// null values outside its free-form parts, so a request that holds the
// bytes "null" at all is walked once more, token by token, guided by the
// shape of vouch.Request, to report each null where a value is wanted. The
// walk runs only when the input contains "null".

// shape is the JSON shape of a Go type of the contract.
type shape struct {
	want   string            // what a value must be: "string", "object"...
	fields map[string]*shape // the members of an object with known fields
	elem   *shape            // the elements of an array
	free   bool              // any JSON value, null included
	open   bool              // an object whose members are free-form
}

var requestShape = sync.OnceValue(func() *shape {
	return shapeOf(reflect.TypeFor[vouch.Request]())
})

func shapeOf(t reflect.Type) *shape {
	switch t {
	case reflect.TypeFor[json.RawMessage]():
		return &shape{want: "JSON value", free: true}
	case reflect.TypeFor[vouch.CheckSpec]():
		return &shape{want: "object", open: true}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return shapeOf(t.Elem())
	case reflect.Struct:
		s := &shape{want: "object", fields: map[string]*shape{}}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			s.fields[name] = shapeOf(f.Type)
		}
		return s
	case reflect.Slice:
		return &shape{want: "array", elem: shapeOf(t.Elem())}
	case reflect.Map:
		return &shape{want: "object", open: true}
	case reflect.Interface:
		return &shape{want: "JSON value", free: true}
	case reflect.String:
		return &shape{want: "string"}
	case reflect.Bool:
		return &shape{want: "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &shape{want: "integer"}
	case reflect.Float32, reflect.Float64:
		return &shape{want: "number"}
	}
	return &shape{want: "JSON value", free: true}
}

// findNulls reports every null in data where the contract wants a value.
// data has already decoded without error.
func findNulls(data []byte) vouch.Errors {
	var errs vouch.Errors
	dec := jsontext.NewDecoder(bytes.NewBuffer(data))
	_ = walkNulls(dec, data, requestShape(), &errs) // data is valid JSON: no error
	return errs
}

func walkNulls(dec *jsontext.Decoder, data []byte, s *shape, errs *vouch.Errors) error {
	if s == nil || s.free {
		return dec.SkipValue()
	}
	switch dec.PeekKind() {
	case 'n':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		if len(*errs) < maxErrors {
			line, col := jsonerr.LineCol(data, dec.InputOffset()-int64(len("null")))
			*errs = append(*errs, &vouch.Error{
				Code:    vouch.ErrType,
				Path:    jsonerr.PointerToPath(string(dec.StackPointer())),
				Message: "got null, want " + s.want,
				Line:    line,
				Column:  col,
			})
		}
		return nil
	case '{':
		if s.open || s.fields == nil {
			return dec.SkipValue()
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for dec.PeekKind() != '}' {
			name, err := dec.ReadToken()
			if err != nil {
				return err
			}
			if err := walkNulls(dec, data, s.fields[name.String()], errs); err != nil {
				return err
			}
		}
		_, err := dec.ReadToken()
		return err
	case '[':
		if s.elem == nil {
			return dec.SkipValue()
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for dec.PeekKind() != ']' {
			if err := walkNulls(dec, data, s.elem, errs); err != nil {
				return err
			}
		}
		_, err := dec.ReadToken()
		return err
	}
	return dec.SkipValue()
}
