package wire

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch"
)

// reportOptions describe the encoding of a report: nil lists as [] and nil
// maps as {} (never null), map keys sorted so that equal reports are equal
// bytes, and invalid UTF-8 from agent text replaced rather than failing the
// encoding. Pointers (score, taskCostRatio, agreement) that are nil are
// written as null. The hand-written encoder below produces exactly what
// json.Marshal does with these options (a test holds it to that); they are
// also used for evidence values of types the encoder does not know.
var reportOptions = json.JoinOptions(
	json.FormatNilSliceAsNull(false),
	json.FormatNilMapAsNull(false),
	json.Deterministic(true),
	jsontext.AllowInvalidUTF8(true),
)

var errNilReport = errors.New("wire: nil report")

// MarshalReport returns r as compact JSON in the shape of the report
// contract (see [EncodeReport]), without a trailing newline. It fails only
// when r is nil or holds a value JSON cannot represent (NaN, a channel in
// evidence...).
func MarshalReport(r *vouch.Report) ([]byte, error) {
	if r == nil {
		return nil, errNilReport
	}
	// Encoded into a buffer used again, then copied out at its size: a
	// report of 10 KB, encoded into a buffer that grows from a small one,
	// left 20 KB of garbage behind it.
	buf := reportBufs.Get().(*[]byte)
	b, err := AppendReport((*buf)[:0], r)
	var out []byte
	if err == nil {
		out = slices.Clone(b)
	}
	if cap(b) <= maxReportBuf {
		*buf = b[:0]
		reportBufs.Put(buf)
	}
	return out, err
}

// reportBufs are the buffers MarshalReport encodes into; one that grew past
// maxReportBuf (a rare huge report) is left to the collector.
var reportBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

const maxReportBuf = 256 << 10

// EncodeReport writes r to w as JSON followed by a newline: on one line
// (ready for JSONL) or, with indent, indented by two spaces. Lists that are
// nil in r are written as [], maps as {}; an undecided score is null; map
// keys are sorted.
func EncodeReport(w io.Writer, r *vouch.Report, indent bool) error {
	b, err := MarshalReport(r)
	if err != nil {
		return err
	}
	if indent {
		v := jsontext.Value(b)
		if err := v.Indent(jsontext.WithIndent("  ")); err != nil {
			return fmt.Errorf("wire: indent report: %w", err)
		}
		b = v
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// AppendReport appends r as compact JSON to dst. Reports are written on
// every verification, so this is a direct encoder rather than reflection:
// several times faster, with a handful of allocations.
func AppendReport(dst []byte, r *vouch.Report) ([]byte, error) {
	if r == nil {
		return dst, errNilReport
	}
	e := encoder{b: dst}
	e.report(r)
	return e.b, e.err
}

// encoder appends JSON, remembering the first error.
type encoder struct {
	b   []byte
	err error
}

func (e *encoder) raw(s string) { e.b = append(e.b, s...) }

func (e *encoder) key(first bool, k string) {
	if !first {
		e.b = append(e.b, ',')
	}
	e.b = append(e.b, '"')
	e.b = append(e.b, k...)
	e.b = append(e.b, '"', ':')
}

func (e *encoder) str(s string) {
	b, err := jsontext.AppendQuote(e.b, s)
	if err != nil {
		// Invalid UTF-8 from agent text: replace it, as AllowInvalidUTF8 does.
		b, _ = jsontext.AppendQuote(e.b, strings.ToValidUTF8(s, string(utf8.RuneError)))
	}
	e.b = b
}

func (e *encoder) boolean(v bool) { e.b = strconv.AppendBool(e.b, v) }

func (e *encoder) integer(v int64) { e.b = strconv.AppendInt(e.b, v, 10) }

// float writes v as json.Marshal does: the shortest representation, in
// exponent form outside [1e-6, 1e21).
func (e *encoder) float(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		if e.err == nil {
			e.err = fmt.Errorf("wire: report holds %v, which JSON cannot represent", v)
		}
		e.raw("0")
		return
	}
	abs := math.Abs(v)
	f := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		f = 'e'
	}
	start := len(e.b)
	e.b = strconv.AppendFloat(e.b, v, f, -1, 64)
	if f == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		n := len(e.b)
		if n-start >= 4 && e.b[n-4] == 'e' && e.b[n-3] == '-' && e.b[n-2] == '0' {
			e.b[n-2] = e.b[n-1]
			e.b = e.b[:n-1]
		}
	}
}

func (e *encoder) floatPtr(v *float64) {
	if v == nil {
		e.raw("null")
		return
	}
	e.float(*v)
}

func (e *encoder) strings(list []string) {
	e.b = append(e.b, '[')
	for i, s := range list {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.str(s)
	}
	e.b = append(e.b, ']')
}

// any writes a free-form value (evidence, details), falling back to
// json.Marshal for types the encoder does not know.
func (e *encoder) any(v any) {
	switch v := v.(type) {
	case nil:
		e.raw("null")
	case string:
		e.str(v)
	case bool:
		e.boolean(v)
	case int:
		e.integer(int64(v))
	case int64:
		e.integer(v)
	case float64:
		e.float(v)
	case []string:
		e.strings(v)
	case []any:
		e.b = append(e.b, '[')
		for i, x := range v {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.any(x)
		}
		e.b = append(e.b, ']')
	case map[string]any:
		e.object(v)
	default:
		b, err := json.Marshal(v, reportOptions)
		if err != nil {
			if e.err == nil {
				e.err = fmt.Errorf("wire: encode report: %w", err)
			}
			e.raw("null")
			return
		}
		e.b = append(e.b, b...)
	}
}

// object writes a map with its keys sorted.
func (e *encoder) object(m map[string]any) {
	e.b = append(e.b, '{')
	if len(m) > 0 {
		var small [16]string
		keys := small[:0]
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.str(k)
			e.b = append(e.b, ':')
			e.any(m[k])
		}
	}
	e.b = append(e.b, '}')
}

func (e *encoder) report(r *vouch.Report) {
	e.raw(`{"apiVersion":`)
	e.str(r.APIVersion)
	e.key(false, "id")
	e.str(r.ID)
	e.key(false, "kind")
	e.str(string(r.Kind))
	e.key(false, "attempt")
	e.integer(int64(r.Attempt))
	e.key(false, "verdict")
	e.str(string(r.Verdict))
	e.key(false, "action")
	e.str(string(r.Action))
	if r.VerdictRow != 0 {
		e.key(false, "verdictRow")
		e.integer(int64(r.VerdictRow))
	}
	if r.Reason != "" {
		e.key(false, "reason")
		e.str(r.Reason)
	}
	e.key(false, "score")
	e.floatPtr(r.Score)
	e.key(false, "confidence")
	e.float(r.Confidence)
	e.key(false, "needsReview")
	e.boolean(r.NeedsReview)

	e.key(false, "claims")
	e.b = append(e.b, '[')
	for i := range r.Claims {
		c := &r.Claims[i]
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.raw(`{"id":`)
		e.str(c.ID)
		e.key(false, "text")
		e.str(c.Text)
		e.key(false, "kind")
		e.str(string(c.Kind))
		e.key(false, "source")
		e.str(c.Source)
		e.key(false, "state")
		e.str(string(c.State))
		e.key(false, "reason")
		e.str(c.Reason)
		e.key(false, "checks")
		e.b = append(e.b, '[')
		for j, n := range c.Checks {
			if j > 0 {
				e.b = append(e.b, ',')
			}
			e.integer(int64(n))
		}
		e.b = append(e.b, ']', '}')
	}
	e.b = append(e.b, ']')
	e.key(false, "coverage")
	e.floatPtr(r.Coverage)

	e.key(false, "dimensions")
	e.b = append(e.b, '{')
	names := make([]string, 0, len(r.Dimensions))
	for k := range r.Dimensions {
		names = append(names, k)
	}
	slices.Sort(names)
	for i, k := range names {
		d := r.Dimensions[k]
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.str(k)
		e.raw(`:{"score":`)
		e.floatPtr(d.Score)
		e.key(false, "state")
		e.str(string(d.State))
		e.key(false, "weight")
		e.float(d.Weight)
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, '}')

	e.key(false, "criteria")
	e.b = append(e.b, '[')
	for i := range r.Criteria {
		c := &r.Criteria[i]
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.raw(`{"id":`)
		e.str(c.ID)
		e.key(false, "text")
		e.str(c.Text)
		e.key(false, "must")
		e.boolean(c.Must)
		e.key(false, "inferred")
		e.boolean(c.Inferred)
		e.key(false, "status")
		e.str(string(c.Status))
		e.key(false, "score")
		e.floatPtr(c.Score)
		if c.DecidedBy != "" {
			e.key(false, "decidedBy")
			e.str(string(c.DecidedBy))
		}
		e.key(false, "reason")
		e.str(c.Reason)
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ']')

	e.key(false, "checks")
	e.b = append(e.b, '[')
	for i := range r.Checks {
		c := &r.Checks[i]
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.raw(`{"name":`)
		e.str(c.Name)
		e.key(false, "level")
		e.str(string(c.Level))
		e.key(false, "strength")
		e.str(string(c.Strength))
		e.key(false, "status")
		e.str(string(c.Status))
		e.key(false, "confidence")
		e.float(c.Confidence)
		e.key(false, "reason")
		e.str(c.Reason)
		e.key(false, "evidence")
		e.object(c.Evidence)
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ']')

	e.raw(`,"mentions":{"verified":[`)
	for i := range r.Mentions.Verified {
		m := &r.Mentions.Verified[i]
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.raw(`{"text":`)
		e.str(m.Text)
		e.key(false, "kind")
		e.str(string(m.Kind))
		e.key(false, "evidence")
		e.object(m.Evidence)
		e.b = append(e.b, '}')
	}
	e.raw(`],"unverified":[`)
	for i := range r.Mentions.Unverified {
		m := &r.Mentions.Unverified[i]
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.raw(`{"text":`)
		e.str(m.Text)
		e.key(false, "kind")
		e.str(string(m.Kind))
		e.key(false, "sentence")
		e.str(m.Sentence)
		e.b = append(e.b, '}')
	}
	e.raw(`],"refuted":[`)
	for i := range r.Mentions.Refuted {
		m := &r.Mentions.Refuted[i]
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.raw(`{"text":`)
		e.str(m.Text)
		e.key(false, "kind")
		e.str(string(m.Kind))
		e.key(false, "sentence")
		e.str(m.Sentence)
		e.key(false, "evidence")
		e.str(m.Evidence)
		e.b = append(e.b, '}')
	}
	e.raw(`]}`)

	e.key(false, "gaps")
	e.strings(r.Gaps)
	e.key(false, "issues")
	e.strings(r.Issues)
	e.key(false, "suggestions")
	e.strings(r.Suggestions)

	e.key(false, "warnings")
	e.b = append(e.b, '[')
	for i := range r.Warnings {
		w := &r.Warnings[i]
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.raw(`{"code":`)
		e.str(w.Code)
		e.key(false, "message")
		e.str(w.Message)
		if len(w.Details) > 0 {
			e.key(false, "details")
			e.object(w.Details)
		}
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ']')

	e.key(false, "feedback")
	e.str(r.Feedback)

	if j := r.Judge; j != nil {
		e.raw(`,"judge":{"models":`)
		e.strings(j.Models)
		e.key(false, "mode")
		e.str(j.Mode)
		e.key(false, "samples")
		e.integer(int64(j.Samples))
		e.key(false, "agreement")
		e.floatPtr(j.Agreement)
		e.key(false, "sameModelAsExecutor")
		e.boolean(j.SameModelAsExecutor)
		e.b = append(e.b, '}')
	}

	c := &r.Cost
	e.raw(`,"cost":{"judgeCalls":`)
	e.integer(int64(c.JudgeCalls))
	e.key(false, "cacheHits")
	e.integer(int64(c.CacheHits))
	e.key(false, "cacheMisses")
	e.integer(int64(c.CacheMisses))
	e.key(false, "inputTokens")
	e.integer(int64(c.InputTokens))
	e.key(false, "outputTokens")
	e.integer(int64(c.OutputTokens))
	e.key(false, "usd")
	e.float(c.USD)
	e.key(false, "taskCostRatio")
	e.floatPtr(c.TaskCostRatio)
	e.b = append(e.b, '}')

	e.key(false, "answerChars")
	e.integer(int64(r.AnswerChars))
	e.key(false, "durationMs")
	e.float(r.DurationMs)
	e.b = append(e.b, '}')
}

// ErrorLine encodes the result line of a bad request in a batch: {"line":
// N, "error": {...}}, every problem listed under "errors" when there are
// several. It is what `vouch verify --batch` writes for a bad line and what
// the server's batch results hold for a failed item. There is no trailing
// newline.
func ErrorLine(line int, err error) []byte {
	list := vouch.ErrorList(err)
	v := struct {
		Line   int            `json:"line"`
		Error  *vouch.Error   `json:"error"`
		Errors []*vouch.Error `json:"errors,omitempty"`
	}{Line: line, Error: list[0]}
	if len(list) > 1 {
		v.Errors = list
	}
	b, merr := json.Marshal(v)
	if merr != nil {
		b, _ = json.Marshal(map[string]any{"line": line, "error": map[string]string{"code": string(vouch.ErrInternal), "message": errors.Join(err, merr).Error()}})
	}
	return b
}
