// Package wire decodes vouch requests from JSON or YAML and encodes reports
// as JSON, with errors that name the path, line and column of each problem.
//
// [DecodeRequest] is the one way into the engine for untrusted input: it
// refuses oversized input before parsing, rejects unknown fields (with a
// suggestion), values of the wrong type, out-of-range values and
// inconsistent ranges, and reports every problem at once as a
// [vouch.Errors]. Reading is internal/strict's, as for policies: JSON is
// the hot path, decoded in a single pass with
// github.com/go-json-experiment/json and validated without reflection;
// YAML, meant for humans, is converted to JSON first and then takes the
// same path, its errors pointing into the YAML.
//
// [MarshalReport] and [EncodeReport] write a [vouch.Report] in the shape of
// the contract: empty lists as [], empty maps as {}, an undecided score as
// null, map keys sorted.
package wire

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/jsonerr"
	"github.com/vouchgate/vouch/internal/strict"
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
	// Check, when set, checks what decoding cannot see (the engine's
	// Check: a task.policy that widens the policy, a criterion's check
	// that does not compile). It is called with the request as decoded,
	// also when decoding found problems (the values at fault then left
	// out), unless the input could not be read at all. The problems it
	// returns, a *vouch.Error or a vouch.Errors with paths into the
	// request, are listed with decoding's, each with its line and column,
	// but for those about a value decoding already found at fault (or a
	// value inside or around it), which follow from that one.
	Check func(*vouch.Request) error
}

// DecodeRequest decodes and validates one request. The format is JSON when
// the input starts (after an optional UTF-8 byte order mark and white
// space) with '{' and a quoted key, YAML otherwise: flow-style YAML such as
// {task: {}, output: {summary: done}} is YAML.
//
// Decoding is strict: unknown fields (reported with the field meant, when
// one is close: `unknown field (did you mean "passAt"?)`), values of the
// wrong JSON type, null where the contract wants a value (null is accepted
// only inside free-form values: metadata, trace input and output, plugin
// data, sources, task policy members and check parameters) and duplicate
// keys are errors. The parameters of a criterion's check, other than "type"
// and "not", are not checked here: the check kind's factory checks them
// when the criteria are compiled.
//
// A request without an id gets a content hash as id: "r-" followed by the
// first 16 hex digits of the SHA-256 of data, so the same bytes always get
// the same id. Criteria without an id get "c<N>", N being their 1-based
// position, with a suffix ("c2-2") if a written id already uses that name.
//
// On failure the request is nil. Every problem is reported at once, sorted
// by position: a value of the wrong type does not hide a bad criterion
// elsewhere (only what follows from a value at fault is left out: a
// missing member that was there with the wrong type). The error is a
// [vouch.Errors] listing them, or a single *[vouch.Error] when decoding
// found just one problem and nothing else was wrong (too large, malformed,
// a wrong type, an unknown field); use [vouch.ErrorList] to get at them.
// Every error carries a dotted path ("task.criteria[2].check"), the line
// and column in data when known (for YAML input, in the YAML) and opt.Name
// as its File.
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
	doc, err := strict.Parse(data, strict.Options{What: "request", MaxBytes: limit})
	if err != nil {
		return nil, err
	}
	switch k := doc.Kind(); k {
	case '{':
	case 0:
		return nil, &vouch.Error{Code: vouch.ErrSyntax, Message: "empty request: want a JSON object or a YAML mapping"}
	default:
		_, at, _ := doc.Lookup("")
		return nil, &vouch.Error{Code: vouch.ErrType, Message: "a request must be a mapping (object), got " + kindName(k), Line: at.Line, Column: at.Column}
	}
	req := new(vouch.Request)
	decoded := requestSchema().Decode(doc, req) != nil
	found := doc.Problems()
	if decoded {
		validate(req, problems{doc})
		if opt.Check != nil {
			found += checkRequest(doc, req, opt.Check)
		}
	}
	errs := doc.Errors()
	switch {
	case len(errs) == 0:
		finish(req, data)
		return req, nil
	case len(errs) == 1 && found == 1:
		return nil, errs[0]
	}
	return nil, errs
}

// checkRequest runs check on a decoded request and adds to doc the
// problems it finds, but for those about a value already at fault; it
// returns how many it added.
func checkRequest(doc *strict.Doc, req *vouch.Request, check func(*vouch.Request) error) int {
	err := check(req)
	if err == nil {
		return 0
	}
	var listed vouch.Errors
	if doc.Problems() > 0 {
		listed = doc.Errors()
	}
	added := 0
	for _, e := range vouch.ErrorList(err) {
		if slices.ContainsFunc(listed, func(l *vouch.Error) bool { return related(l.Path, e.Path) }) {
			continue
		}
		c := *e
		c.File, c.Line, c.Column = "", 0, 0 // located in this document
		doc.Report(&c)
		added++
	}
	return added
}

// related reports whether one of two paths is the other or lies inside
// it; the empty path (the whole document) is related to none.
func related(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if a == "" || !strings.HasPrefix(b, a) {
		return false
	}
	return len(a) == len(b) || b[len(a)] == '.' || b[len(a)] == '['
}

// kindName names the kind of a document's root for an error.
func kindName(k jsontext.Kind) string {
	switch k {
	case '[':
		return "a sequence"
	case 'n':
		return "null"
	}
	return "a scalar"
}

// requestSchema is the shape of a request for internal/strict, built once.
var requestSchema = sync.OnceValue(func() *strict.Schema {
	return strict.NewSchema(reflect.TypeFor[vouch.Request](), strict.SchemaOptions{
		Rules: map[reflect.Type]strict.Rule{
			// A check is an object with a type and a negation; its
			// other members are the check kind's (see unmarshalCheck).
			reflect.TypeFor[vouch.CheckSpec](): {
				Want:  "object",
				Forms: map[jsontext.Kind]reflect.Type{'{': reflect.TypeFor[checkHead]()},
				Open:  true,
			},
		},
		Unmarshal: decodeOptions,
		Prepare:   prepare,
	})
})

// checkHead is what a check object holds besides its kind's parameters.
type checkHead struct {
	Type string `json:"type"`
	Not  bool   `json:"not"`
}

// prepare puts the sentinels in place before a request is decoded.
func prepare(v any) {
	r := v.(*vouch.Request)
	r.APIVersion = sentinelAPIAbsent
	r.Task.ID = sentinelTaskAbsent
	r.Output.Summary = sentinelOutputAbsent
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Sentinels pre-populate fields before decoding; json v2 merges into the
// pre-populated request, so a sentinel still in place afterwards means the
// member was absent. They are compared by identity (string data pointer),
// so no decoded text, whatever it says, can pass for one.
var (
	sentinelOutputAbsent  = string([]byte("\x00vouch:output-absent"))
	sentinelSummaryAbsent = string([]byte("\x00vouch:summary-absent"))
	sentinelTaskAbsent    = string([]byte("\x00vouch:task-absent"))
	sentinelAPIAbsent     = string([]byte("\x00vouch:apiversion-absent"))
	sentinelTypeAbsent    = string([]byte("\x00vouch:check-type-absent"))
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
// as written in Raw. A missing type is left as a sentinel for validate to
// report; a null type or negation reads as absent, for the walk of
// internal/strict has reported it (a value it wrote as null).
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
			switch v.Kind() {
			case '"':
				typ, hasType = checkType(v), true
			case 'n':
			default:
				return &vouch.Error{Code: vouch.ErrType, Path: "type", Message: "got " + jsonerr.KindName(v.Kind()) + ", want string"}
			}
		case "not":
			v, err := dec.ReadValue()
			if err != nil {
				return err
			}
			switch v.Kind() {
			case 't':
				not = true
			case 'f', 'n':
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
		typ = sentinelTypeAbsent
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
