package vouch

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrorCode classifies an [Error]. Codes are stable: tools match on them.
type ErrorCode string

// The error codes. Every one means the input was at fault except ErrInternal.
const (
	ErrSyntax       ErrorCode = "syntax"         // malformed JSON or YAML
	ErrUnknownField ErrorCode = "unknown_field"  // a key the contract does not have
	ErrType         ErrorCode = "wrong_type"     // a value of the wrong JSON type
	ErrMissing      ErrorCode = "missing"        // a required field is absent
	ErrInvalid      ErrorCode = "invalid_value"  // out of range, not in the enumeration, inconsistent
	ErrTooLarge     ErrorCode = "too_large"      // the input is over the size limit
	ErrCriterion    ErrorCode = "bad_criterion"  // a criterion's check does not compile
	ErrWiden        ErrorCode = "policy_widened" // a request tried to widen the policy
	ErrUsage        ErrorCode = "usage"          // a command was called wrongly
	ErrInternal     ErrorCode = "internal"       // a fault of vouch itself
)

// Error is a problem with an input: a request, a policy, a criterion. It
// names where the problem is (a JSON path, and a file, line and column when
// known) and what it is.
type Error struct {
	Code ErrorCode `json:"code"`
	// Path is the location in the document, dotted with indexes in
	// brackets: "task.criteria[2].check.pattern". Empty for the whole input.
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	// Err is the underlying error, if any.
	Err error `json:"-"`
}

// Error formats the error as "file:line:col: path: message".
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteByte(':')
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "%d:", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, "%d:", e.Column)
		}
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Errors is a list of problems found in one input. It is returned when
// validation can report more than one problem at once.
type Errors []*Error

// Error joins the errors one per line.
func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Unwrap returns the errors, for errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// ErrorList returns the *Error values inside err: the list of an [Errors],
// a single *Error, or, for any other non-nil error, one [ErrInternal] error.
func ErrorList(err error) []*Error {
	if err == nil {
		return nil
	}
	var es Errors
	if errors.As(err, &es) {
		return slices.Clone(es)
	}
	var e *Error
	if errors.As(err, &e) {
		return []*Error{e}
	}
	return []*Error{{Code: ErrInternal, Message: err.Error(), Err: err}}
}

// Code returns the code of err: the code of the first *Error in it, or
// [ErrInternal] for any other non-nil error, or "" for nil.
func Code(err error) ErrorCode {
	if err == nil {
		return ""
	}
	return ErrorList(err)[0].Code
}

// WithPrefix returns a copy of the errors in err with prefix prepended to each
// path, used when an error found inside a part (a criterion's check) is
// reported for the whole document.
func WithPrefix(prefix string, err error) error {
	list := ErrorList(err)
	out := make(Errors, len(list))
	for i, e := range list {
		c := *e
		c.Path = JoinPath(prefix, c.Path)
		out[i] = &c
	}
	if len(out) == 1 {
		return out[0]
	}
	return out
}

// JoinPath joins two dotted paths; an index part ("[2]") joins without a dot.
func JoinPath(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	case b[0] == '[':
		return a + b
	}
	return a + "." + b
}
