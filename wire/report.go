package wire

import (
	"errors"
	"io"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch"
)

// reportOptions write a report in the shape of the contract, whatever the
// report holds: nil lists as [] and nil maps as {} (never null), map keys
// sorted so that equal reports are equal bytes, and invalid UTF-8 from agent
// text replaced rather than failing the encoding. Pointers (score,
// taskCostRatio, agreement) that are nil are written as null.
var reportOptions = json.JoinOptions(
	json.FormatNilSliceAsNull(false),
	json.FormatNilMapAsNull(false),
	json.Deterministic(true),
	jsontext.AllowInvalidUTF8(true),
)

var indentOptions = json.JoinOptions(reportOptions, jsontext.WithIndent("  "))

var errNilReport = errors.New("wire: nil report")

// MarshalReport returns r as compact JSON in the shape of the report
// contract (see [EncodeReport]), without a trailing newline. It fails only
// when r is nil or holds a value JSON cannot represent (NaN, a channel in
// evidence...).
func MarshalReport(r *vouch.Report) ([]byte, error) {
	if r == nil {
		return nil, errNilReport
	}
	return json.Marshal(r, reportOptions)
}

// EncodeReport writes r to w as JSON followed by a newline: on one line
// (ready for JSONL) or, with indent, indented by two spaces. Lists that are
// nil in r are written as [], maps as {}; an undecided score is null; map
// keys are sorted.
func EncodeReport(w io.Writer, r *vouch.Report, indent bool) error {
	if r == nil {
		return errNilReport
	}
	opts := reportOptions
	if indent {
		opts = indentOptions
	}
	// A jsontext.Encoder ends each top-level value with a newline.
	return json.MarshalEncode(jsontext.NewEncoder(w, opts), r)
}
