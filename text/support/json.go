package support

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/vouchgate/vouch/text/mention"
)

// record is a JSON source read by [FromJSON]: its flattened text and the
// values in it, typed, so that indexing needs no text parsing of them.
type record struct {
	text string
	// items are the byte offsets where each item of a top-level array
	// starts (one item for an object); an item is one unit for finding
	// contradictions, like a sentence of prose.
	items []int32
	// values are the numbers of the record (JSON numbers, with a unit from
	// their key) and the numbers and dates mentioned in its strings, in
	// text order.
	values []value
}

// value is a number, date or quantity found in a source, with its byte
// range in the source text.
type value struct {
	kind       mention.Kind
	start, end int32
	text       string
	norm       string
	num        float64
	unit       string // a number's unit or a quantity's noun
	derived    bool   // implied by the text, not written (see derive)
}

// FromJSON returns the source a request gives as raw JSON: a JSON string
// is the source's text; any other JSON value (a record, e.g.
// {"company":"Acme","revenue_usd":3200000,"year":2023}) is flattened to
// text that keeps each key with its value:
//
//	company: Acme; revenue usd: 3200000; year: 2023
//
// Keys keep their order; underscores, hyphens and camelCase become spaces;
// nested keys are dotted ("order.total.amount: 259.9"); an array of
// scalars is listed ("tags: red, green") and an array of records is
// flattened item by item; the items of a top-level array go on lines of
// their own. Numbers keep the digits of the JSON text. A number whose key
// ends in a unit ("latency_ms", "price_eur", "temp_c") or that sits beside
// a "currency" or "unit" field has that unit, so "1.25 s" is found in
// {"latency_ms":1250}. Invalid JSON is taken as text.
//
// The source keeps what FromJSON read, so [NewIndex] does not parse the
// flattened text again; a Source whose Text is changed afterwards is read
// as text.
func FromJSON(id string, raw []byte) Source {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return Source{ID: id, Text: s}
		}
	}
	rec, ok := flatten(raw)
	if !ok {
		return Source{ID: id, Text: string(raw)}
	}
	return Source{ID: id, Text: rec.text, rec: rec}
}

// flatten reads a JSON value into a record.
func flatten(raw []byte) (*record, bool) {
	if len(raw) == 0 || raw[0] != '{' && raw[0] != '[' || !json.Valid(raw) {
		return nil, false
	}
	r := jsonReader{s: raw}
	v := r.value()
	f := &flattener{rec: &record{}}
	f.buf.Grow(len(raw))
	var top []any
	if arr, ok := v.(ordered); ok && arr.array {
		for _, it := range arr.items {
			top = append(top, it.v)
		}
	} else {
		top = []any{v}
	}
	for i, it := range top {
		if i > 0 {
			f.buf.WriteByte('\n')
		}
		f.rec.items = append(f.rec.items, int32(f.buf.Len()))
		f.sep = false
		f.value(f.key[:0], it, "")
	}
	f.rec.text = f.buf.String()
	for i := range f.rec.values {
		v := &f.rec.values[i]
		v.text = f.rec.text[v.start:v.end]
	}
	return f.rec, true
}

// ordered is a JSON object or array with its members in order.
type ordered struct {
	array bool
	items []member
}

type member struct {
	key string
	v   any
}

// jsonNumber is a JSON number as written.
type jsonNumber string

// jsonReader reads JSON already known to be valid: objects keep the order
// of their keys; strings are decoded, numbers kept as written.
type jsonReader struct {
	s []byte
	i int
}

func (r *jsonReader) space() {
	for r.i < len(r.s) && (r.s[r.i] == ' ' || r.s[r.i] == '\t' || r.s[r.i] == '\n' || r.s[r.i] == '\r') {
		r.i++
	}
}

func (r *jsonReader) value() any {
	r.space()
	if r.i >= len(r.s) {
		return nil
	}
	switch c := r.s[r.i]; {
	case c == '{' || c == '[':
		r.i++
		o := ordered{array: c == '['}
		for {
			r.space()
			if r.s[r.i] == '}' || r.s[r.i] == ']' {
				r.i++
				return o
			}
			if r.s[r.i] == ',' {
				r.i++
				continue
			}
			var key string
			if !o.array {
				key = r.str()
				r.space()
				r.i++ // ':'
			}
			o.items = append(o.items, member{key, r.value()})
		}
	case c == '"':
		return r.str()
	case c == 't':
		r.i += 4
		return true
	case c == 'f':
		r.i += 5
		return false
	case c == 'n':
		r.i += 4
		return nil
	default:
		j := r.i
		for r.i < len(r.s) && strings.IndexByte("+-0123456789.eE", r.s[r.i]) >= 0 {
			r.i++
		}
		return jsonNumber(r.s[j:r.i])
	}
}

// str reads a string; one with escapes is decoded by encoding/json.
func (r *jsonReader) str() string {
	j := r.i
	r.i++
	escaped := false
	for r.s[r.i] != '"' {
		if r.s[r.i] == '\\' {
			escaped = true
			r.i++
		}
		r.i++
	}
	r.i++
	if !escaped {
		return string(r.s[j+1 : r.i-1])
	}
	var s string
	json.Unmarshal(r.s[j:r.i], &s)
	return s
}

type flattener struct {
	buf bytes.Buffer
	rec *record
	sep bool   // a field was written in the current item
	key []byte // scratch for dotted keys
}

// value writes one JSON value under the dotted key; unit is the unit its
// record names through a sibling field.
func (f *flattener) value(key []byte, v any, unitHint string) {
	switch v := v.(type) {
	case ordered:
		if v.array {
			f.array(key, v)
			return
		}
		hint := ""
		for _, m := range v.items {
			if s, ok := m.v.(string); ok {
				switch strings.ToLower(m.key) {
				case "currency", "unit", "units", "currency_code":
					if _, known := units[strings.ToLower(s)]; known {
						hint = strings.ToLower(s)
					}
				}
			}
		}
		for _, m := range v.items {
			k := key
			if len(k) > 0 {
				k = append(k, '.')
			}
			k = appendKeyWords(k, m.key)
			f.value(k, m.v, hint)
			f.key = k[:0]
		}
	case nil:
		// A null says nothing.
	default:
		f.field(key)
		f.scalar(key, v, unitHint)
	}
}

// array writes an array: scalars as a list, records item by item.
func (f *flattener) array(key []byte, a ordered) {
	scalars := true
	for _, it := range a.items {
		if _, ok := it.v.(ordered); ok {
			scalars = false
			break
		}
	}
	if !scalars {
		for _, it := range a.items {
			f.value(key, it.v, "")
		}
		return
	}
	if len(a.items) == 0 {
		return
	}
	f.field(key)
	for i, it := range a.items {
		if i > 0 {
			f.buf.WriteString(", ")
		}
		f.scalar(key, it.v, "")
	}
}

// field starts a "key: " field.
func (f *flattener) field(key []byte) {
	if f.sep {
		f.buf.WriteString("; ")
	}
	f.sep = true
	if len(key) > 0 {
		f.buf.Write(key)
		f.buf.WriteString(": ")
	}
}

// scalar writes a string, number or boolean and records its values.
func (f *flattener) scalar(key []byte, v any, unitHint string) {
	start := int32(f.buf.Len())
	switch v := v.(type) {
	case string:
		f.buf.WriteString(v)
		if d, ok := durationString(v); ok {
			// "15m", "1h30m", "250ms": a duration as Go and most
			// configuration formats write it, in seconds.
			f.rec.values = append(f.rec.values, value{kind: kindNumber, start: start, end: int32(f.buf.Len()),
				norm: v, num: d.Seconds(), unit: "s"})
			return
		}
		if strings.IndexFunc(v, unicode.IsDigit) >= 0 {
			doc := mention.Parse(v)
			for _, m := range doc.Mentions {
				switch m.Kind {
				case kindNumber, kindDate, kindQuantity:
					f.rec.values = append(f.rec.values, value{
						kind: m.Kind, start: start + int32(m.Start), end: start + int32(m.End),
						norm: m.Norm, num: m.Value, unit: m.Unit,
					})
				}
			}
		}
	case jsonNumber:
		f.buf.WriteString(string(v))
		n, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return
		}
		u := keyUnit(lastKeyWord(key))
		if u == "" {
			u = unitHint
		}
		f.rec.values = append(f.rec.values, value{
			kind: kindNumber, start: start, end: int32(f.buf.Len()),
			norm: string(v), num: n, unit: u,
		})
	case bool:
		if v {
			f.buf.WriteString("true")
		} else {
			f.buf.WriteString("false")
		}
	}
}

// lastKeyWord returns the last word of a dotted key in words.
func lastKeyWord(key []byte) string {
	i := bytes.LastIndexAny(key, " .")
	return string(key[i+1:])
}

// KeyWords returns a record key spelt in words, as [FromJSON] writes it in
// a source's text: "WiFi" → "wi fi", "RestaurantsTakeOut" → "restaurants
// take out", "revenue_usd" → "revenue usd". A name an answer takes from a
// key ("WiFi") is found in a flattened record under these words.
func KeyWords(key string) string { return string(appendKeyWords(nil, key)) }

// appendKeyWords appends a key spelt in words: "revenue_usd" → "revenue
// usd", "reviewCount" → "review count".
func appendKeyWords(dst []byte, key string) []byte {
	start := len(dst)
	prevLower := false
	for _, r := range key {
		switch {
		case r == '_' || r == '-' || r == ' ':
			if len(dst) > start && dst[len(dst)-1] != ' ' {
				dst = append(dst, ' ')
			}
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			dst = append(dst, ' ')
		}
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			dst = append(dst, byte(r))
		} else {
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		}
	}
	return dst
}

// durationString reads a whole string written as a duration with units
// ("15m", "1h30m", "2.5s", "250ms"), as time.ParseDuration reads it. A bare
// number is no duration.
func durationString(v string) (time.Duration, bool) {
	if v == "" || !isDigit(v[0]) || !strings.ContainsAny(v, "hms") {
		return 0, false
	}
	d, err := time.ParseDuration(v)
	return d, err == nil && d > 0
}
