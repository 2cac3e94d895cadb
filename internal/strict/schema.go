package strict

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.yaml.in/yaml/v3"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/jsonerr"
)

// Schema is what a document must be: the shape of the Go type it decodes
// into, with the rules of the types that need their own. A Schema is
// immutable and safe for concurrent use.
type Schema struct {
	root      *shape
	yamlWords bool
	nullHint  string
	canonical bool
	unmarshal json.Options
	prepare   func(v any)
}

// SchemaOptions tune a [Schema]. The zero value is ready to use.
type SchemaOptions struct {
	// YAMLWords makes type errors speak as a YAML reader does: mappings and
	// lists, with the value at fault shown (`got string "high", want
	// number`) and, where a string is wanted, a hint to quote it. Without
	// it they speak JSON: objects and arrays, no values ("got string, want
	// integer").
	YAMLWords bool
	// NullHint is added to the message about a null where a value is
	// wanted.
	NullHint string
	// Canonical makes [Schema.Decode] always walk the document, decode its
	// canonical form (strings with the fewest escapes, numbers in their
	// shortest form, no white space; members in their order) and return
	// it, and refuse numbers that have no float64 form even where the type
	// keeps JSON as written. Without it, a valid document is decoded as it
	// is, in one pass, and raw JSON values keep their text.
	Canonical bool
	// Rules check the values of their Go types in place of the default
	// rules of their kinds. A type that decodes itself (it implements
	// json.Unmarshaler) needs one.
	Rules map[reflect.Type]Rule
	// Unmarshal are options of json.Unmarshal (unmarshalers of the
	// caller's types); json.RejectUnknownMembers is always set.
	Unmarshal json.Options
	// Prepare, if set, is called on the value before each decoding into
	// it. Before the second decoding of a document that has problems, the
	// value is zeroed first.
	Prepare func(v any)
}

// Rule says what the values of one Go type may be.
type Rule struct {
	// Want names what a value must be, for type errors: `duration (e.g.
	// "30s")`.
	Want string
	// Forms maps each JSON kind a value may take ('{', '[', '"', '0', 't'
	// for both booleans, 'n' for null) to the Go type its value is checked
	// as; a nil type takes any value of that kind. A value of another kind
	// is a type error.
	Forms map[jsontext.Kind]reflect.Type
	// Open lets an object form hold members its type does not name, with
	// any value.
	Open bool
	// Check, if set, checks further a value of one of the forms in which
	// the walk found nothing wrong. It is given the value's JSON as
	// [Doc.JSON] holds it.
	Check func(v jsontext.Value) []Problem
}

// Problem is what a [Rule]'s Check finds wrong with a value.
type Problem struct {
	// At is where the problem is inside the value, as a path relative to
	// it ("[2]", "name"); "" for the value itself.
	At string
	// Offset is the problem's byte offset in the value.
	Offset int
	// Code and Message are those of the error reported.
	Code    vouch.ErrorCode
	Message string
}

// shapeKind is what a shape accepts.
type shapeKind uint8

const (
	kAny    shapeKind = iota // any JSON value, decoded (numbers must fit a float64)
	kRaw                     // any JSON value, kept as written
	kStruct                  // an object with known members
	kMap                     // an object with members of one shape
	kSlice                   // an array
	kString
	kBool
	kInt
	kUint
	kFloat
)

// shape is the JSON shape of a Go type.
type shape struct {
	kind   shapeKind
	want   string            // what a value must be, for messages
	fields map[string]*shape // kStruct: members by name
	names  []string          // kStruct: member names in declaration order
	open   bool              // kStruct: other members are allowed
	elem   *shape            // kMap, kSlice
	bits   int               // kInt, kUint
	// forms, for a type with a Rule, maps kinds to the shape of values of
	// that kind; check checks them further.
	forms map[jsontext.Kind]*shape
	check func(jsontext.Value) []Problem
}

// jsonKind is the kind a shape's values must have, 0 for any.
func (s *shape) jsonKind() jsontext.Kind {
	switch s.kind {
	case kStruct, kMap:
		return '{'
	case kSlice:
		return '['
	case kString:
		return '"'
	case kBool:
		return 't'
	case kInt, kUint, kFloat:
		return '0'
	}
	return 0
}

var (
	rawMessageType = reflect.TypeFor[stdjson.RawMessage]()
	valueType      = reflect.TypeFor[jsontext.Value]()
	unmarshalerV1  = reflect.TypeFor[stdjson.Unmarshaler]()
	unmarshalerV2  = reflect.TypeFor[json.UnmarshalerFrom]()
)

// NewSchema builds the schema of Go type t. It panics on a type that
// decodes itself but has no Rule: decoding it could accept what the walk
// refuses, or the other way round.
func NewSchema(t reflect.Type, opt SchemaOptions) *Schema {
	b := builder{opt: opt, seen: map[reflect.Type]*shape{}}
	s := &Schema{
		root:      b.build(t),
		yamlWords: opt.YAMLWords,
		nullHint:  opt.NullHint,
		canonical: opt.Canonical,
		unmarshal: json.RejectUnknownMembers(true),
		prepare:   opt.Prepare,
	}
	if opt.Unmarshal != nil {
		s.unmarshal = json.JoinOptions(s.unmarshal, opt.Unmarshal)
	}
	return s
}

type builder struct {
	opt  SchemaOptions
	seen map[reflect.Type]*shape
}

// word names a kind in messages, as JSON or as YAML says it.
func (b *builder) word(jsonWord, yamlWord string) string {
	if b.opt.YAMLWords {
		return yamlWord
	}
	return jsonWord
}

func (b *builder) build(t reflect.Type) *shape {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := b.seen[t]; ok {
		return s
	}
	if r, ok := b.opt.Rules[t]; ok {
		return b.rule(t, r)
	}
	switch {
	case t == rawMessageType || t == valueType:
		return &shape{kind: kRaw, want: "JSON value"}
	case t.Kind() == reflect.Interface:
		return &shape{kind: kAny, want: "JSON value"}
	case t.Implements(unmarshalerV1) || reflect.PointerTo(t).Implements(unmarshalerV1) ||
		t.Implements(unmarshalerV2) || reflect.PointerTo(t).Implements(unmarshalerV2):
		panic(fmt.Sprintf("strict: %v decodes itself and has no Rule", t))
	}
	switch t.Kind() {
	case reflect.Struct:
		s := &shape{kind: kStruct, want: b.word("object", "mapping"), fields: map[string]*shape{}}
		b.seen[t] = s
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			s.fields[name] = b.build(f.Type)
			s.names = append(s.names, name)
		}
		return s
	case reflect.Map:
		s := &shape{kind: kMap, want: b.word("object", "mapping")}
		b.seen[t] = s
		s.elem = b.build(t.Elem())
		return s
	case reflect.Slice, reflect.Array:
		s := &shape{kind: kSlice, want: b.word("array", "list")}
		b.seen[t] = s
		s.elem = b.build(t.Elem())
		return s
	case reflect.String:
		return &shape{kind: kString, want: "string"}
	case reflect.Bool:
		return &shape{kind: kBool, want: "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &shape{kind: kInt, want: "integer", bits: t.Bits()}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return &shape{kind: kUint, want: "integer", bits: t.Bits()}
	case reflect.Float32, reflect.Float64:
		return &shape{kind: kFloat, want: "number", bits: t.Bits()}
	}
	panic(fmt.Sprintf("strict: %v has no JSON form", t))
}

func (b *builder) rule(t reflect.Type, r Rule) *shape {
	s := &shape{kind: kRaw, want: r.Want, forms: map[jsontext.Kind]*shape{}, check: r.Check}
	b.seen[t] = s
	for k, ft := range r.Forms {
		f := &shape{kind: kRaw, want: r.Want}
		if ft != nil {
			f = b.build(ft)
		}
		if r.Open && f.kind == kStruct {
			open := *f
			open.open = true
			f = &open
		}
		s.forms[kindOf(k)] = f
	}
	return s
}

var nullBytes = []byte("null")

// Decode decodes doc into v, a non-nil pointer to a value of the schema's
// type, and adds to doc every problem it finds: unknown keys (with a
// suggestion), values of the wrong type, nulls where a value is wanted
// (null is only a value where the type keeps any JSON value), numbers out
// of the range of their type, what the Rules refuse, and syntax errors.
//
// It returns the JSON it decoded into v: doc's own, or (for a document with
// problems, or a Canonical schema) the document as it was walked, with
// each value at fault written as null and each unknown key left out. Then
// v holds what could be decoded, and the caller may check it further and
// [Doc.Report] what it finds. Decode returns nil when v does not hold the
// document: a syntax error or a limit stopped the reading, or the schema
// is Canonical and there were problems.
func (s *Schema) Decode(doc *Doc, v any) []byte {
	fast := !s.canonical && doc.Problems() == 0
	var fastErr error
	if fast {
		s.prep(v)
		fastErr = json.Unmarshal(doc.json, v, s.unmarshal)
		if fastErr == nil && !bytes.Contains(doc.json, nullBytes) {
			return doc.json
		}
	}
	w := walker{d: doc, s: s, dec: jsontext.NewDecoder(bytes.NewReader(doc.json))}
	w.out = make([]byte, 0, len(doc.json))
	out, err := w.walk()
	if err != nil {
		doc.add(doc.syntaxError(err), -1, false)
		return nil
	}
	if doc.Problems() == 0 {
		if s.canonical {
			s.prep(v)
			if err := json.Unmarshal(out, v, s.unmarshal); err != nil {
				doc.decodeError(err)
				return nil
			}
			return out
		}
		if fastErr == nil {
			return doc.json // the nulls were all allowed
		}
		// The decoder refused what the walk let through.
		doc.decodeError(fastErr)
		return nil
	}
	if s.canonical {
		return nil
	}
	reflect.ValueOf(v).Elem().SetZero()
	s.prep(v)
	if json.Unmarshal(out, v, s.unmarshal) != nil {
		return nil
	}
	return out
}

func (s *Schema) prep(v any) {
	if s.prepare != nil {
		s.prepare(v)
	}
}

// decodeError reports an error of the JSON decoder that the walk did not
// foresee, at the position of its path.
func (d *Doc) decodeError(err error) {
	e := jsonerr.Convert(d.json, err)
	e.Line, e.Column = 0, 0
	d.add(e, -1, true)
}

// walker checks a document's JSON against a shape, token by token, and
// writes it out again.
type walker struct {
	d    *Doc
	s    *Schema
	dec  *jsontext.Decoder
	out  []byte
	path []seg
}

func (w *walker) walk() ([]byte, error) {
	if err := w.value(w.s.root); err != nil {
		return nil, err
	}
	off := skipSpace(w.d.json, int(w.dec.InputOffset()))
	switch _, err := w.dec.ReadToken(); {
	case err == io.EOF:
		return w.out, nil
	case err != nil:
		return nil, err
	default:
		return nil, &jsontext.SyntacticError{ByteOffset: int64(off), Err: fmt.Errorf("invalid character %q after top-level value", w.d.json[off])}
	}
}

// at returns the path of the value being walked.
func (w *walker) at() string { return formatPath(w.path) }

// problem reports a problem at offset off of the value being walked.
func (w *walker) problem(off int, code vouch.ErrorCode, msg string, covers bool) {
	if w.d.full() {
		w.d.more++ // counted, never listed: no path to write
		return
	}
	w.d.add(&vouch.Error{Code: code, Path: w.at(), Message: msg}, off, covers)
}

// value walks the next value, which must fit shape sh.
func (w *walker) value(sh *shape) error {
	start := skipSpace(w.d.json, int(w.dec.InputOffset()))
	k := kindOf(w.dec.PeekKind())
	if k == 0 {
		_, err := w.dec.ReadToken()
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	f := sh
	if sh.forms != nil {
		if f = sh.forms[k]; f == nil {
			return w.wrongKind(sh, k, start)
		}
	}
	if k == 'n' {
		if f.kind == kAny || f.kind == kRaw {
			_, err := w.dec.ReadValue()
			w.out = append(w.out, "null"...)
			return err
		}
		return w.wrongKind(sh, k, start)
	}
	if want := f.jsonKind(); want != 0 && want != k {
		return w.wrongKind(sh, k, start)
	}
	found := w.d.Problems()
	var err error
	switch f.kind {
	case kStruct, kMap:
		err = w.object(f)
	case kSlice:
		err = w.array(f.elem)
	case kAny:
		err = w.any()
	case kRaw:
		if w.s.canonical {
			err = w.any()
		} else {
			var raw jsontext.Value
			raw, err = w.dec.ReadValue()
			w.out = append(w.out, raw...)
		}
	default:
		err = w.scalar(f, start)
	}
	if err == nil && sh.check != nil && w.d.Problems() == found {
		end := int(w.dec.InputOffset())
		for _, p := range sh.check(jsontext.Value(w.d.json[start:end])) {
			w.d.add(&vouch.Error{Code: p.Code, Path: vouch.JoinPath(w.at(), p.At), Message: p.Message}, start+p.Offset, false)
		}
	}
	return err
}

// wrongKind reports a value of kind k where shape sh is wanted, skips it
// and writes null in its place.
func (w *walker) wrongKind(sh *shape, k jsontext.Kind, start int) error {
	raw, err := w.dec.ReadValue()
	if err != nil {
		return err
	}
	w.out = append(w.out, "null"...)
	if k == 'n' && w.d.yaml && w.d.covered(w.at()) {
		return nil // the null stands for a YAML value already reported
	}
	if w.d.full() {
		w.d.more++
		return nil
	}
	msg := "got " + w.describe(k, raw, start) + ", want " + sh.want
	switch {
	case k == 'n':
		msg += w.s.nullHint
	case w.s.yamlWords && sh.want == "string" && (k == '"' || k == '0' || k == 't'):
		msg += fmt.Sprintf(` (quote it: "%s")`, truncate(w.d.source(start, raw), 40))
	}
	w.problem(start, vouch.ErrType, msg, true)
	return nil
}

// describe names a value of kind k for a type error.
func (w *walker) describe(k jsontext.Kind, raw jsontext.Value, start int) string {
	if !w.s.yamlWords {
		return jsonerr.KindName(k)
	}
	switch k {
	case '{':
		return "mapping"
	case '[':
		return "list"
	case 'n':
		return "null"
	case '"':
		return fmt.Sprintf("string %q", truncate(w.d.source(start, raw), 40))
	case '0':
		return "number " + truncate(w.d.source(start, raw), 40)
	}
	return "boolean " + truncate(w.d.source(start, raw), 40)
}

// source returns the text of the scalar raw at offset start as written in
// the input: for YAML, the scalar's own text (0x1F, not 31).
func (d *Doc) source(start int, raw jsontext.Value) string {
	if d.yaml {
		if n := deref(d.nodeAt(start)); n != nil && n.Kind == yaml.ScalarNode {
			return n.Value
		}
	}
	if raw.Kind() == '"' {
		return unquote(raw)
	}
	return string(raw)
}

// object walks an object of struct or map shape sh.
func (w *walker) object(sh *shape) error {
	if _, err := w.dec.ReadToken(); err != nil {
		return err
	}
	w.out = append(w.out, '{')
	first := true
	for w.dec.PeekKind() != '}' {
		keyStart := skipSpace(w.d.json, int(w.dec.InputOffset()))
		name, err := w.dec.ReadValue()
		if err != nil {
			return err
		}
		// The name as written; ReadValue's own slice is only valid until
		// the next read.
		end := keyStart + len(name)
		raw := w.d.json[keyStart:end:end]
		f := sh.elem
		if sh.kind == kStruct {
			name := ""
			if bytes.IndexByte(raw, '\\') < 0 {
				f = sh.fields[string(raw[1:len(raw)-1])]
			} else {
				name = unquote(raw)
				f = sh.fields[name]
			}
			if f == nil && !sh.open {
				if name == "" {
					name = unquote(raw)
				}
				w.path = append(w.path, seg{key: raw})
				w.problem(keyStart, vouch.ErrUnknownField, "unknown field"+suggest(name, sh.names), false)
				w.path = w.path[:len(w.path)-1]
				if err := w.dec.SkipValue(); err != nil {
					return err
				}
				continue
			}
			if f == nil {
				f = rawShape
			}
		}
		if !first {
			w.out = append(w.out, ',')
		}
		first = false
		w.out = appendString(w.out, raw)
		w.out = append(w.out, ':')
		w.path = append(w.path, seg{key: raw})
		err = w.value(f)
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return err
		}
	}
	if _, err := w.dec.ReadToken(); err != nil {
		return err
	}
	w.out = append(w.out, '}')
	return nil
}

// array walks an array whose elements must fit elem.
func (w *walker) array(elem *shape) error {
	if _, err := w.dec.ReadToken(); err != nil {
		return err
	}
	w.out = append(w.out, '[')
	for i := 0; w.dec.PeekKind() != ']'; i++ {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		w.path = append(w.path, seg{idx: i})
		err := w.value(elem)
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return err
		}
	}
	if _, err := w.dec.ReadToken(); err != nil {
		return err
	}
	w.out = append(w.out, ']')
	return nil
}

// any walks any value, decoded: numbers must fit a float64.
func (w *walker) any() error {
	start := skipSpace(w.d.json, int(w.dec.InputOffset()))
	switch w.dec.PeekKind() {
	case '{':
		return w.object(anyObject)
	case '[':
		return w.array(anyShape)
	}
	raw, err := w.dec.ReadValue()
	if err != nil {
		return err
	}
	switch raw.Kind() {
	case '"':
		w.out = appendString(w.out, raw)
	case '0':
		b, ok := appendNumber(w.out, raw)
		if !ok {
			w.problem(start, vouch.ErrInvalid, truncate(w.d.source(start, raw), 40)+" is out of range", true)
			b = append(w.out, "null"...)
		}
		w.out = b
	default:
		w.out = append(w.out, raw...)
	}
	return nil
}

var (
	anyShape  = &shape{kind: kAny, want: "JSON value"}
	anyObject = &shape{kind: kMap, want: "object", elem: anyShape}
	rawShape  = &shape{kind: kRaw, want: "JSON value"}
)

// scalar walks a string, boolean or number of shape sh (of the right
// kind).
func (w *walker) scalar(sh *shape, start int) error {
	raw, err := w.dec.ReadValue()
	if err != nil {
		return err
	}
	switch sh.kind {
	case kString:
		w.out = appendString(w.out, raw)
		return nil
	case kBool:
		w.out = append(w.out, raw...)
		return nil
	}
	text := string(raw)
	if sh.kind != kFloat && strings.ContainsAny(text, ".eE") {
		got := "a number with a fraction or an exponent"
		if w.s.yamlWords {
			got = "number " + truncate(w.d.source(start, raw), 40)
		}
		w.out = append(w.out, "null"...)
		w.problem(start, vouch.ErrType, "got "+got+", want "+sh.want, true)
		return nil
	}
	switch sh.kind {
	case kInt:
		n, perr := strconv.ParseInt(text, 10, sh.bits)
		if perr == nil {
			w.out = strconv.AppendInt(w.out, n, 10)
			return nil
		}
	case kUint:
		n, perr := strconv.ParseUint(text, 10, sh.bits)
		if perr == nil {
			w.out = strconv.AppendUint(w.out, n, 10)
			return nil
		}
	case kFloat:
		f, perr := strconv.ParseFloat(text, sh.bits)
		if perr == nil {
			w.out = appendFloat(w.out, f)
			return nil
		}
	}
	w.out = append(w.out, "null"...)
	w.problem(start, vouch.ErrInvalid, truncate(w.d.source(start, raw), 40)+" is out of range", true)
	return nil
}

// appendString writes the JSON string raw with the fewest escapes.
func appendString(b []byte, raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 {
		return append(b, raw...)
	}
	u, err := jsontext.AppendUnquote(nil, raw)
	if err != nil {
		return append(b, raw...)
	}
	out, err := jsontext.AppendQuote(b, u)
	if err != nil {
		return append(b, raw...)
	}
	return out
}

// appendNumber writes the JSON number raw in its shortest form: integers
// as integers, other numbers as the shortest text of their float64. It
// reports false for a number that has no float64 form.
func appendNumber(b []byte, raw []byte) ([]byte, bool) {
	text := string(raw)
	if !strings.ContainsAny(text, ".eE") {
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return strconv.AppendInt(b, n, 10), true
		}
		if n, err := strconv.ParseUint(text, 10, 64); err == nil {
			return strconv.AppendUint(b, n, 10), true
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return b, false
	}
	return appendFloat(b, f), true
}
