// Package wire decodes vouch requests from JSON or YAML and encodes reports
// as JSON, with errors that name the path, line and column of each problem.
//
// [DecodeRequest] is the one way into the engine for untrusted input: it
// refuses oversized input before parsing, rejects unknown fields, values of
// the wrong type, out-of-range values and inconsistent ranges, and reports
// every semantic problem at once as a [vouch.Errors]. JSON is the hot path:
// it is decoded in a single pass with github.com/go-json-experiment/json and
// validated without reflection. YAML, meant for humans, is converted to JSON
// first and then takes exactly the same path; its errors point into the YAML.
//
// [MarshalReport] and [EncodeReport] write a [vouch.Report] in the shape of
// the contract: empty lists as [], empty maps as {}, an undecided score as
// null, map keys sorted.
package wire

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unsafe"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/jsonerr"
)

// DefaultMaxBytes is the size limit of a request when [Options.MaxBytes] is
// zero: 4 MiB.
const DefaultMaxBytes = 4 << 20

// Options tune [DecodeRequest]. The zero value is ready to use.
type Options struct {
	// MaxBytes is the largest input accepted, in bytes; 0 means
	// DefaultMaxBytes. Larger input is refused before it is parsed.
	MaxBytes int64
	// Name is the name of the input (a file name, "-" for stdin) written
	// into every error's File field. It may be empty.
	Name string
}

// maxErrors caps the number of semantic problems reported for one request;
// past it one last error says how many more there were.
const maxErrors = 100

// DecodeRequest decodes and validates one request. The format is JSON when
// the first byte that is not white space (after an optional UTF-8 byte order
// mark) is '{', YAML otherwise.
//
// Decoding is strict: unknown fields, values of the wrong JSON type, null
// where the contract wants a value (null is accepted only inside free-form
// values: metadata, trace input and output, plugin data, sources, task
// policy members and check parameters) and duplicate keys are errors.
// The parameters of a criterion's check, other than "type" and "not", are
// not checked here: the check kind's factory checks them when the criteria
// are compiled.
//
// A request without an id gets a content hash as id: "r-" followed by the
// first 16 hex digits of the SHA-256 of data, so the same bytes always get
// the same id. Criteria without an id get "c<N>", N being their 1-based
// position, with a suffix ("c2-2") if a written id already uses that name.
//
// On failure the request is nil and the error is a *[vouch.Error] (the
// input could not be decoded: too large, malformed, a wrong type, an unknown
// field) or a [vouch.Errors] listing every semantic problem found; use
// [vouch.ErrorList] to get at them. Every error carries a dotted path
// ("task.criteria[2].check"), the line and column in data when known (for
// YAML input, in the YAML) and opt.Name as its File.
func DecodeRequest(data []byte, opt Options) (*vouch.Request, error) {
	req, err := decodeRequest(data, opt)
	if err != nil {
		setFile(err, opt.Name)
		return nil, err
	}
	return req, nil
}

func decodeRequest(data []byte, opt Options) (*vouch.Request, error) {
	limit := opt.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	if int64(len(data)) > limit {
		return nil, &vouch.Error{
			Code:    vouch.ErrTooLarge,
			Message: fmt.Sprintf("request is %d bytes, over the limit of %d bytes", len(data), limit),
		}
	}
	body := bytes.TrimPrefix(data, utf8BOM)
	i := 0
	for i < len(body) && isSpace(body[i]) {
		i++
	}
	if i == len(body) {
		return nil, &vouch.Error{Code: vouch.ErrSyntax, Message: "empty request: want a JSON object or a YAML mapping"}
	}
	if body[i] == '{' {
		req, err := decodeJSON(body, jsonLocator{body})
		if err != nil {
			return nil, err
		}
		finish(req, data)
		return req, nil
	}
	return decodeYAML(data, body, limit)
}

var utf8BOM = []byte("\xef\xbb\xbf")

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// locator finds the line and column of errors that lack them (for JSON
// input) or replaces them (for YAML input, where the JSON positions mean
// nothing to the reader).
type locator interface {
	locate(errs []*vouch.Error)
}

// Sentinels pre-populate fields before decoding; json v2 merges into the
// pre-populated request, so a sentinel still in place afterwards means the
// member was absent. They are compared by identity (string data pointer),
// so no decoded text, whatever it says, can pass for one.
var (
	sentinelOutputAbsent  = string([]byte("\x00vouch:output-absent"))
	sentinelSummaryAbsent = string([]byte("\x00vouch:summary-absent"))
	sentinelTaskAbsent    = string([]byte("\x00vouch:task-absent"))
	sentinelAPIAbsent     = string([]byte("\x00vouch:apiversion-absent"))
)

func isSentinel(s, sentinel string) bool {
	return len(s) == len(sentinel) && unsafe.StringData(s) == unsafe.StringData(sentinel)
}

// decodeOptions are built once: building them allocates.
var decodeOptions = json.JoinOptions(
	json.RejectUnknownMembers(true),
	json.WithUnmarshalers(json.JoinUnmarshalers(
		json.UnmarshalFromFunc(unmarshalCheck),
		json.UnmarshalFromFunc(markTask),
		json.UnmarshalFromFunc(markOutput),
	)),
)

// decodeJSON decodes and validates a JSON request. It leaves the content
// hash id unset (finish does it).
func decodeJSON(data []byte, loc locator) (*vouch.Request, error) {
	req := new(vouch.Request)
	req.APIVersion = sentinelAPIAbsent
	req.Task.ID = sentinelTaskAbsent
	req.Output.Summary = sentinelOutputAbsent
	if err := json.Unmarshal(data, req, decodeOptions); err != nil {
		e := convert(data, err)
		loc.locate([]*vouch.Error{e})
		return nil, e
	}
	var errs vouch.Errors
	if bytes.Contains(data, nullBytes) {
		errs = findNulls(data)
	}
	if len(errs) == 0 {
		errs = validate(req)
	}
	if len(errs) > 0 {
		loc.locate(errs)
		sortByPosition(errs)
		return nil, errs
	}
	return req, nil
}

// sortByPosition orders errors as they appear in the input; errors without
// a position (a count of unlisted problems) stay last.
func sortByPosition(errs vouch.Errors) {
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

var nullBytes = []byte("null")

// markTask runs when the request has a "task" member, before it is decoded:
// it clears the sentinel so that an absent task can be told from an empty
// one. It consumes nothing and lets the default decoding proceed.
func markTask(_ *jsontext.Decoder, t *vouch.Task) error {
	if isSentinel(t.ID, sentinelTaskAbsent) {
		t.ID = ""
	}
	return errors.ErrUnsupported
}

// markOutput is markTask for "output": present, its summary is absent until
// the decoder writes it.
func markOutput(_ *jsontext.Decoder, o *vouch.Output) error {
	if isSentinel(o.Summary, sentinelOutputAbsent) {
		o.Summary = sentinelSummaryAbsent
	}
	return errors.ErrUnsupported
}

// unmarshalCheck decodes a check object in one pass over the decoder's
// tokens: it reads "type" and "not", skips the other members (the check
// kind's factory checks them later) and keeps a copy of the object's bytes
// as written in Raw.
func unmarshalCheck(dec *jsontext.Decoder, c *vouch.CheckSpec) error {
	if k := dec.PeekKind(); k != '{' {
		if k == 0 {
			_, err := dec.ReadToken() // report the syntax error
			return err
		}
		return &vouch.Error{Code: vouch.ErrType, Message: "got " + jsonerr.KindName(k) + ", want object"}
	}
	// json.Unmarshal decodes from the caller's slice, so the unread buffer
	// is the rest of the input and stays valid while we read.
	buf := dec.UnreadBuffer()
	start := dec.InputOffset()
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	var (
		typ     string
		hasType bool
		not     bool
	)
	for {
		k := dec.PeekKind()
		if k == '}' {
			break
		}
		name, err := dec.ReadValue()
		if err != nil {
			return err
		}
		switch memberName(name) {
		case "type":
			v, err := dec.ReadValue()
			if err != nil {
				return err
			}
			if v.Kind() != '"' {
				return &vouch.Error{Code: vouch.ErrType, Path: "type", Message: "got " + jsonerr.KindName(v.Kind()) + ", want string"}
			}
			typ, hasType = checkType(v), true
		case "not":
			v, err := dec.ReadValue()
			if err != nil {
				return err
			}
			switch v.Kind() {
			case 't':
				not = true
			case 'f':
				not = false
			default:
				return &vouch.Error{Code: vouch.ErrType, Path: "not", Message: "got " + jsonerr.KindName(v.Kind()) + ", want boolean"}
			}
		default:
			if err := dec.SkipValue(); err != nil {
				return err
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	n := dec.InputOffset() - start
	if n <= 0 || n > int64(len(buf)) {
		return fmt.Errorf("wire: check object spans %d bytes of a %d-byte buffer", n, len(buf))
	}
	raw := buf[:n]
	for len(raw) > 0 && (isSpace(raw[0]) || raw[0] == ':' || raw[0] == ',') {
		raw = raw[1:]
	}
	if len(raw) < 2 || raw[0] != '{' || raw[len(raw)-1] != '}' {
		return fmt.Errorf("wire: check object bytes misread")
	}
	if !hasType {
		return &vouch.Error{Code: vouch.ErrMissing, Path: "type", Message: "a check needs a type"}
	}
	if typ == "" {
		return &vouch.Error{Code: vouch.ErrInvalid, Path: "type", Message: "check type must not be empty"}
	}
	c.Type = typ
	c.Not = not
	c.Raw = append(c.Raw[:0:0], raw...)
	return nil
}

// memberName returns the name of a check object's member if it is "type"
// or "not" (however it is escaped), "" otherwise.
func memberName(name jsontext.Value) string {
	switch string(name) {
	case `"type"`:
		return "type"
	case `"not"`:
		return "not"
	}
	if bytes.IndexByte(name, '\\') < 0 {
		return ""
	}
	switch u, _ := jsontext.AppendUnquote(nil, name); string(u) {
	case "type":
		return "type"
	case "not":
		return "not"
	}
	return ""
}

// checkType returns the unquoted check type; the built-in types are
// returned as constants, without allocating.
func checkType(v jsontext.Value) string {
	if bytes.IndexByte(v, '\\') < 0 {
		s := v[1 : len(v)-1]
		switch string(s) {
		case "contains":
			return "contains"
		case "not_contains":
			return "not_contains"
		case "regex":
			return "regex"
		case "sections":
			return "sections"
		case "length":
			return "length"
		case "json":
			return "json"
		case "json_schema":
			return "json_schema"
		case "cel":
			return "cel"
		case "file_exists":
			return "file_exists"
		case "file_changed":
			return "file_changed"
		case "doc_comments":
			return "doc_comments"
		case "symbol_exists":
			return "symbol_exists"
		case "command":
			return "command"
		case "tool_called":
			return "tool_called"
		case "llm":
			return "llm"
		}
		return string(s)
	}
	u, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return ""
	}
	return string(u)
}

// convert turns a json.Unmarshal error into a *vouch.Error, improving on
// jsonerr.Convert for numbers that do not fit the Go field.
func convert(data []byte, err error) *vouch.Error {
	var sem *json.SemanticError
	if errors.As(err, &sem) {
		// An error of our own from unmarshalCheck: jsonerr.Convert would
		// return it as it is, without the path of the check object.
		var inner *vouch.Error
		if errors.As(sem.Err, &inner) {
			c := *inner
			c.Path = vouch.JoinPath(jsonerr.PointerToPath(string(sem.JSONPointer)), c.Path)
			c.Line, c.Column = 0, 0 // the locator finds the member, or the check object
			return &c
		}
	}
	e := jsonerr.Convert(data, err)
	if e.Code == vouch.ErrInvalid && errors.As(err, &sem) && sem.GoType != nil && sem.JSONKind == '0' {
		switch {
		case errors.Is(sem.Err, strconv.ErrSyntax):
			e.Code = vouch.ErrType
			e.Message = "want an integer, got a number with a fraction or an exponent"
		case errors.Is(sem.Err, strconv.ErrRange):
			e.Message = "number out of range"
		}
	}
	return e
}

// finish sets the content-hash id of a valid request.
func finish(req *vouch.Request, data []byte) {
	if req.ID == "" {
		req.ID = ContentID(data)
	}
}

// ContentID returns the id given to a request that has none: "r-" and the
// first 16 hex digits of the SHA-256 of data, the request's bytes as
// received.
func ContentID(data []byte) string {
	sum := sha256.Sum256(data)
	var b [18]byte
	b[0], b[1] = 'r', '-'
	hex.Encode(b[2:], sum[:8])
	return string(b[:])
}

func setFile(err error, name string) {
	if name == "" {
		return
	}
	var es vouch.Errors
	if errors.As(err, &es) {
		for _, e := range es {
			e.File = name
		}
		return
	}
	var e *vouch.Error
	if errors.As(err, &e) {
		e.File = name
	}
}

// jsonLocator finds positions in JSON input.
type jsonLocator struct{ data []byte }

func (l jsonLocator) locate(errs []*vouch.Error) {
	var want map[string]bool
	for _, e := range errs {
		if e.Line != 0 || e.Path == "" {
			continue
		}
		if want == nil {
			want = map[string]bool{"": true}
		}
		for _, p := range pathPrefixes(e.Path) {
			want[p] = true
		}
	}
	if want == nil {
		return
	}
	found := make(map[string]int64, len(want))
	dec := jsontext.NewDecoder(bytes.NewBuffer(l.data))
	_ = locateWalk(dec, l.data, "", want, found) // a syntax error ends the walk; what was found stands
	for _, e := range errs {
		if e.Line != 0 || e.Path == "" {
			continue
		}
		prefixes := pathPrefixes(e.Path)
		for i := len(prefixes) - 1; i >= 0; i-- {
			if off, ok := found[prefixes[i]]; ok {
				e.Line, e.Column = jsonerr.LineCol(l.data, off)
				break
			}
		}
	}
}

// locateWalk reads the value at path, recording the offset where it starts
// and descending into the members and elements whose paths are wanted.
func locateWalk(dec *jsontext.Decoder, data []byte, path string, want map[string]bool, found map[string]int64) error {
	off := dec.InputOffset()
	for off < int64(len(data)) && (isSpace(data[off]) || data[off] == ':' || data[off] == ',') {
		off++
	}
	found[path] = off
	switch dec.PeekKind() {
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return err
			}
			child := vouch.JoinPath(path, tok.String())
			if want[child] {
				err = locateWalk(dec, data, child, want, found)
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
			child := path + "[" + strconv.Itoa(i) + "]"
			var err error
			if want[child] {
				err = locateWalk(dec, data, child, want, found)
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

// pathPrefixes returns the paths from the root ("") to path itself:
// "a.b[2].c" gives "", "a", "a.b", "a.b[2]", "a.b[2].c".
func pathPrefixes(path string) []string {
	out := []string{""}
	for i := 1; i < len(path); i++ {
		if path[i] == '.' || path[i] == '[' {
			out = append(out, path[:i])
		}
	}
	if path != "" {
		out = append(out, path)
	}
	return out
}

// pathSegment is one step of a dotted path: a key, or an index when idx >= 0.
type pathSegment struct {
	key string
	idx int
}

// splitPath splits a dotted path into its segments. Keys holding '.' or '['
// cannot be told apart from the path's own punctuation; such paths are
// located approximately.
func splitPath(path string) []pathSegment {
	var segs []pathSegment
	for i := 0; i < len(path); {
		switch path[i] {
		case '.':
			i++
		case '[':
			j := i + 1
			for j < len(path) && path[j] != ']' {
				j++
			}
			n, err := strconv.Atoi(path[i+1 : j])
			if err != nil {
				segs = append(segs, pathSegment{key: path[i:min(j+1, len(path))], idx: -1})
			} else {
				segs = append(segs, pathSegment{idx: n})
			}
			i = j + 1
		default:
			j := i
			for j < len(path) && path[j] != '.' && path[j] != '[' {
				j++
			}
			segs = append(segs, pathSegment{key: path[i:j], idx: -1})
			i = j
		}
	}
	return segs
}
