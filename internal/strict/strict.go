// Package strict is the one strict decoder of vouch's inputs: requests
// (package wire) and policies (package policy). It reads YAML or JSON,
// checks the document against the Go type it decodes into, and reports
// every problem at once, each with its dotted path, line and column.
//
// A document is read once into JSON ([Parse]): JSON as it is, YAML through
// its node tree, with aliases expanded, merge keys applied and every value
// tied to its place in the YAML. There is one position locator: a path is
// found by walking the JSON, and a JSON offset is turned into the line and
// column of the input (for YAML, of the node the value came from).
//
// [Schema.Decode] then decodes the document with
// github.com/go-json-experiment/json. A valid JSON document takes that one
// pass and nothing else. Otherwise (a decoding error, a null, a YAML
// problem, or a schema that wants canonical output) a checking walk over
// the JSON tokens, guided by the shape of the Go type, reports each unknown
// key (with a suggestion), value of the wrong type, null where a value is
// wanted and number out of range, and decodes what is left so that the
// caller can check the rest ([Doc.Report]) in the same pass.
//
// Work is bounded: the input's size is checked before it is parsed; a
// YAML document's values, depth and JSON size after alias expansion are
// limited; JSON is never turned into a tree, and the walk keeps one entry
// per level of nesting. At most [MaxProblems] problems are listed.
package strict

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"go.yaml.in/yaml/v3"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/jsonerr"
)

// Defaults of [Options].
const (
	// DefaultMaxNodes bounds the values of a YAML document once its aliases
	// are expanded, unless the document is larger in bytes (every value
	// takes at least a byte or two without aliases).
	DefaultMaxNodes = 1 << 20
	// DefaultMaxDepth bounds the nesting of a YAML document, aliases
	// included. (JSON nesting is bounded by the JSON decoder, at 10000.)
	DefaultMaxDepth = 1000
	// expansion bounds the JSON a YAML document converts to, as a multiple
	// of the size limit: escaping can triple a string's length; more than
	// that is alias expansion.
	expansion = 4
)

// MaxProblems is how many problems one document lists; past it they are
// counted in one last error.
const MaxProblems = 100

// Options say how to read one document. MaxBytes must be set; the other
// zero fields mean their defaults.
type Options struct {
	// What names the document in messages: "request", "policy".
	What string
	// MaxBytes is the largest input accepted, in bytes. Larger input is
	// refused before it is parsed.
	MaxBytes int64
	// MaxNodes bounds the values of a YAML document once aliases are
	// expanded; 0 means DefaultMaxNodes or the input's size if larger.
	MaxNodes int
	// MaxDepth bounds the nesting of a YAML document; 0 means
	// DefaultMaxDepth.
	MaxDepth int
	// MaxJSONBytes bounds the JSON a YAML document expands to; 0 means four
	// times MaxBytes.
	MaxJSONBytes int
	// JSON makes the input JSON only: a document that is not valid JSON is
	// a syntax error, never read as YAML.
	JSON bool
}

// Pos is a place in the input: a 1-based line and column (in characters).
// The zero Pos means unknown.
type Pos struct {
	Line, Column int
}

// Doc is one document read by [Parse]: its JSON, where each of its values
// stands in the input, and the problems found in it so far. Problems are
// added by one goroutine at a time; [Doc.Lookup] and [Doc.Members] may be
// called concurrently.
type Doc struct {
	opt   Options
	input []byte // the input, without its byte order mark
	json  []byte // the document as JSON: input, or the YAML converted
	kind  jsontext.Kind
	yaml  bool
	// spans tie offsets of json to the YAML nodes they came from, in
	// increasing order of offset (YAML documents only).
	spans []span
	// lines holds the offset of each line's start in input, built once
	// when first needed (JSON documents only).
	lines     []int
	linesOnce sync.Once

	problems []problem
	more     int
}

// span ties the JSON written from node at offset off to it.
type span struct {
	off  int
	node *yaml.Node
}

// problem is a listed problem; covers says the value at its path was left
// out (written as null, or not written): problems found later about that
// value, or inside it, or about what holds it, follow from this one.
type problem struct {
	err    *vouch.Error
	covers bool
	off    int // offset in json, -1 when unknown
}

var utf8BOM = []byte("\xef\xbb\xbf")

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Parse reads data as one document. It is JSON when it starts (after an
// optional byte order mark and white space) with '[', or with '{' followed
// by a quoted key or '}': an author who quotes the first key writes JSON,
// and JSON errors are then reported as such. Anything else is YAML, flow
// style included ({passAt: 0.8}). With opt.JSON the input is always JSON.
//
// The error is a *vouch.Error for input that cannot be read at all: too
// large ([vouch.ErrTooLarge]), malformed YAML, or a YAML document that
// expands past the limits. JSON syntax is checked by [Schema.Decode], as
// it reads. Problems of single values (a duplicate YAML key, a scalar with
// no JSON form) are recorded in the Doc, not returned. An empty document
// (nothing but white space or comments) is a Doc of [Doc.Kind] 0.
func Parse(data []byte, opt Options) (*Doc, error) {
	if int64(len(data)) > opt.MaxBytes {
		return nil, &vouch.Error{
			Code:    vouch.ErrTooLarge,
			Message: fmt.Sprintf("%s is %d bytes, over the limit of %d bytes", opt.What, len(data), opt.MaxBytes),
		}
	}
	body := bytes.TrimPrefix(data, utf8BOM)
	i := skipWhite(body, 0)
	d := &Doc{opt: opt, input: body}
	switch {
	case i == len(body):
		return d, nil
	case i < len(body) && isJSONStart(body, i):
		d.json, d.kind = body, jsontext.Kind(body[i])
		return d, nil
	case opt.JSON:
		// Not an object: read it, for its kind or its error.
		d.json = body
		v, err := jsontext.NewDecoder(bytes.NewReader(body)).ReadValue()
		if err != nil {
			return nil, d.syntaxError(err)
		}
		d.kind = kindOf(v.Kind())
		return d, nil
	}
	if err := d.readYAML(); err != nil {
		return nil, err
	}
	return d, nil
}

// isJSONStart reports whether the document starting at data[i] is JSON:
// an array, or an object whose first key is quoted, or {}.
func isJSONStart(data []byte, i int) bool {
	switch data[i] {
	case '[':
		return true
	case '{':
		j := skipWhite(data, i+1)
		return j < len(data) && (data[j] == '"' || data[j] == '}')
	}
	return false
}

func skipWhite(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// Kind is the kind of the document's root value: '{' for a mapping
// (object), '[' for a sequence (array), '"' for a string, '0' for a
// number, 't' for a boolean, 'n' for null, and 0 for an empty document.
func (d *Doc) Kind() jsontext.Kind { return d.kind }

// kindOf folds 'f' into 't': both are booleans.
func kindOf(k jsontext.Kind) jsontext.Kind {
	if k == 'f' {
		return 't'
	}
	return k
}

// IsYAML reports whether the document was read as YAML.
func (d *Doc) IsYAML() bool { return d.yaml }

// JSON returns the document as JSON: the input itself, or the YAML
// converted (aliases expanded, merge keys applied, values that have no JSON
// form written as null). It must not be modified.
func (d *Doc) JSON() []byte { return d.json }

// Lookup finds the value at path (dotted, with indexes in brackets, "" for
// the whole document). It returns the positions of the key that sets it
// (for an array element or the root, the value itself) and of the value;
// ok is false when the document does not hold path.
func (d *Doc) Lookup(path string) (key, val Pos, ok bool) {
	found := d.walkPaths(wantPrefixes(nil, path))
	o, ok := found[path]
	if !ok {
		return Pos{}, Pos{}, false
	}
	return d.pos(o.key), d.pos(o.val), true
}

// Members returns the names of the root object's members, in order; nil
// when the root is not an object.
func (d *Doc) Members() []string {
	if d.kind != '{' {
		return nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(d.json))
	if _, err := dec.ReadToken(); err != nil {
		return nil
	}
	var names []string
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return names
		}
		names = append(names, tok.String())
		if err := dec.SkipValue(); err != nil {
			return names
		}
	}
	return names
}

// Report adds a problem found after decoding, when the caller checks what
// the types cannot (ranges, required members, consistency). It needs a
// path; its position is found from the path when the problem is listed. A
// problem about a value that decoding already found at fault (or a value
// inside or around it) is dropped: it follows from the first.
func (d *Doc) Report(e *vouch.Error) {
	for _, p := range d.problems {
		if p.covers && related(p.err.Path, e.Path) {
			return
		}
	}
	d.add(e, -1, false)
}

// Problems reports how many problems the document has so far.
func (d *Doc) Problems() int { return len(d.problems) + d.more }

// Errors returns every problem found, sorted by position (problems without
// one last), each with its position; past [MaxProblems] one last error
// says how many more there were. It returns nil when there are none.
func (d *Doc) Errors() vouch.Errors {
	if d.Problems() == 0 {
		return nil
	}
	d.locate()
	errs := make(vouch.Errors, len(d.problems), len(d.problems)+1)
	for i, p := range d.problems {
		errs[i] = p.err
	}
	sortByPosition(errs)
	if d.more > 0 {
		errs = append(errs, &vouch.Error{
			Code:    vouch.ErrTooLarge,
			Message: fmt.Sprintf("%d more problems not listed", d.more),
		})
	}
	return errs
}

// full reports whether the list of problems is full: more are counted.
func (d *Doc) full() bool { return len(d.problems) >= MaxProblems }

// add lists a problem (or counts it, past the limit). off is its offset in
// json when known, else -1.
func (d *Doc) add(e *vouch.Error, off int, covers bool) {
	if d.full() {
		d.more++
		return
	}
	d.problems = append(d.problems, problem{err: e, covers: covers, off: off})
}

// covered reports whether a problem that covers exactly path is listed.
func (d *Doc) covered(path string) bool {
	for _, p := range d.problems {
		if p.covers && p.err.Path == path {
			return true
		}
	}
	return false
}

// related reports whether one of two paths is the other or inside it.
func related(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if !strings.HasPrefix(b, a) {
		return false
	}
	return len(a) == len(b) || a == "" || b[len(a)] == '.' || b[len(a)] == '['
}

// sortByPosition orders errors as they appear in the input, keeping the
// order of errors at one position; errors without a position come last.
func sortByPosition(errs []*vouch.Error) {
	slices.SortStableFunc(errs, func(a, b *vouch.Error) int {
		if az, bz := a.Line == 0, b.Line == 0; az || bz {
			switch {
			case az && bz:
				return 0
			case az:
				return 1
			}
			return -1
		}
		if c := cmp.Compare(a.Line, b.Line); c != 0 {
			return c
		}
		return cmp.Compare(a.Column, b.Column)
	})
}

// locate gives each listed problem without a line the position of its
// offset or, failing that, of the value at its path or of the closest
// enclosing value the document holds.
func (d *Doc) locate() {
	var want map[string]bool
	for _, p := range d.problems {
		if p.err.Line == 0 && p.off < 0 && p.err.Path != "" {
			want = wantPrefixes(want, p.err.Path)
		}
	}
	var found map[string]offsets
	if want != nil {
		found = d.walkPaths(want)
	}
	for i := range d.problems {
		p := &d.problems[i]
		if p.err.Line != 0 {
			continue
		}
		off := p.off
		if off < 0 && p.err.Path != "" {
			for path := p.err.Path; ; path = parentPath(path) {
				if o, ok := found[path]; ok {
					off = o.val
					break
				}
				if path == "" {
					break
				}
			}
		}
		if off >= 0 {
			pos := d.pos(off)
			p.err.Line, p.err.Column = pos.Line, pos.Column
		}
	}
}

// pos returns the position of the JSON at offset off.
func (d *Doc) pos(off int) Pos {
	if d.yaml {
		if n := d.nodeAt(off); n != nil {
			return Pos{n.Line, n.Column}
		}
		return Pos{}
	}
	d.linesOnce.Do(func() {
		d.lines = []int{0}
		for i, c := range d.input {
			if c == '\n' {
				d.lines = append(d.lines, i+1)
			}
		}
	})
	off = min(max(off, 0), len(d.input))
	line, _ := slices.BinarySearch(d.lines, off+1)
	start := d.lines[line-1]
	col := 1
	for _, c := range d.input[start:off] {
		if c&0xC0 != 0x80 {
			col++
		}
	}
	return Pos{line, col}
}

// nodeAt returns the YAML node written at offset off of json, or the last
// one written before it.
func (d *Doc) nodeAt(off int) *yaml.Node {
	i, found := slices.BinarySearchFunc(d.spans, off, func(s span, off int) int { return cmp.Compare(s.off, off) })
	if !found {
		i--
	}
	if i < 0 {
		return nil
	}
	return d.spans[i].node
}

// offsets are where a member's key and its value start in json.
type offsets struct{ key, val int }

// walkPaths walks json and returns the offsets of the values at the paths
// of want, descending only into wanted paths. A syntax error ends the walk;
// what was found stands.
func (d *Doc) walkPaths(want map[string]bool) map[string]offsets {
	found := make(map[string]offsets, len(want))
	dec := jsontext.NewDecoder(bytes.NewReader(d.json))
	start := skipSpace(d.json, 0)
	_ = d.walkPath(dec, "", offsets{start, start}, want, found)
	return found
}

func (d *Doc) walkPath(dec *jsontext.Decoder, path string, at offsets, want map[string]bool, found map[string]offsets) error {
	found[path] = at
	switch dec.PeekKind() {
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for dec.PeekKind() != '}' {
			key := skipSpace(d.json, int(dec.InputOffset()))
			tok, err := dec.ReadToken()
			if err != nil {
				return err
			}
			child := joinKey(path, tok.String())
			if want[child] {
				err = d.walkPath(dec, child, offsets{key, skipSpace(d.json, int(dec.InputOffset()))}, want, found)
			} else {
				err = dec.SkipValue()
			}
			if err != nil {
				return err
			}
		}
		_, err := dec.ReadToken()
		return err
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for i := 0; dec.PeekKind() != ']'; i++ {
			child := joinIndex(path, i)
			var err error
			if want[child] {
				off := skipSpace(d.json, int(dec.InputOffset()))
				err = d.walkPath(dec, child, offsets{off, off}, want, found)
			} else {
				err = dec.SkipValue()
			}
			if err != nil {
				return err
			}
		}
		_, err := dec.ReadToken()
		return err
	}
	return dec.SkipValue()
}

// skipSpace returns the offset of the first byte of data at or after off
// that is not white space or the ',' or ':' between tokens.
func skipSpace(data []byte, off int) int {
	for off < len(data) && (isSpace(data[off]) || data[off] == ':' || data[off] == ',') {
		off++
	}
	return off
}

// wantPrefixes adds path and its ancestors ("a.b[2].c" gives "", "a",
// "a.b", "a.b[2]", "a.b[2].c") to want. A key holding '.' or '[' adds
// paths that do not exist; they are harmless.
func wantPrefixes(want map[string]bool, path string) map[string]bool {
	if want == nil {
		want = map[string]bool{}
	}
	want[""] = true
	for i := 1; i < len(path); i++ {
		if path[i] == '.' || path[i] == '[' {
			want[path[:i]] = true
		}
	}
	want[path] = true
	return want
}

// parentPath drops the last key or index of a dotted path.
func parentPath(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		switch path[i] {
		case '.', '[':
			return path[:i]
		}
	}
	return ""
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func joinIndex(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// renamedKeys are keys of the contracts that were renamed, with what a
// user of the old name should know.
var renamedKeys = map[string]struct{ to, why string }{
	"maxUnverified": {"maxRefuted", "it counts the mentions the evidence contradicts; unverified mentions no longer count against an output"},
}

// suggest returns a hint naming the known key closest to an unknown one:
// ` (did you mean "passAt"?)` for a key that differs from one by case or
// by at most two edits (fewer than half its length: "a" is no typo of
// "id"), else the known keys, ` (want one of a, b, c)`.
func suggest(name string, known []string) string {
	if r, ok := renamedKeys[name]; ok && slices.Contains(known, r.to) {
		return fmt.Sprintf(" (renamed %q: %s)", r.to, r.why)
	}
	best, bestD := "", 3
	for _, k := range known {
		if strings.EqualFold(k, name) {
			return fmt.Sprintf(" (did you mean %q?)", k)
		}
		if d := editDistance(strings.ToLower(name), strings.ToLower(k)); d < bestD && 2*d < len(name) {
			best, bestD = k, d
		}
	}
	if best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	if len(known) == 0 {
		return ""
	}
	return " (want one of " + strings.Join(known, ", ") + ")"
}

// editDistance is the number of edits (a byte inserted, deleted or
// replaced, or two neighbours swapped) that turn a into b: the optimal
// string alignment distance.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return max(len(a), len(b))
	}
	// Three rows: the one before the previous, the previous, the current.
	rows := make([]int, 3*(len(b)+1))
	prev2, prev, cur := rows[:len(b)+1], rows[len(b)+1:2*(len(b)+1)], rows[2*(len(b)+1):]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// truncate shortens s to about n bytes for a message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// syntaxError turns an error of the JSON decoder reading json into a
// problem with its position.
func (d *Doc) syntaxError(err error) *vouch.Error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		pos := d.pos(len(d.json))
		return &vouch.Error{Code: vouch.ErrSyntax, Message: "malformed JSON: unexpected EOF", Line: pos.Line, Column: pos.Column, Err: err}
	}
	e := jsonerr.Convert(d.json, err)
	if d.yaml {
		e.Line, e.Column = 0, 0 // cannot happen: converted JSON is valid
	}
	return e
}
