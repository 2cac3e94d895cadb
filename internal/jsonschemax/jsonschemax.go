// Package jsonschemax holds what vouch does with JSON Schemas in more than
// one place: compilers set up the one way (draft 2020-12 by default, formats
// asserted, no loading from the network or the disk unless a loader is
// given), and validation errors flattened to sorted (path, message) pairs.
package jsonschemax

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// NewCompiler returns a compiler for untrusted schemas. With a nil loader, a
// schema may refer to nothing outside itself. A compiler is not safe for
// concurrent use; compiled schemas are.
func NewCompiler(loader jsonschema.URLLoader) *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if loader == nil {
		loader = closed{}
	}
	c.UseLoader(loader)
	return c
}

// closed refuses every reference.
type closed struct{}

// Load implements jsonschema.URLLoader.
func (closed) Load(loc string) (any, error) {
	return nil, fmt.Errorf("refers to %s: an inline schema may not refer outside itself", loc)
}

// CompileInline compiles a schema given as JSON text that refers to nothing
// outside itself.
func CompileInline(raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		return nil, err
	}
	const loc = "vouch-inline:///schema.json"
	c := NewCompiler(nil)
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

// Violation is one leaf error of a validation: the JSON Pointer of the
// offending value ("" for the root) and what is wrong with it.
type Violation struct {
	Path, Message string
}

// Display returns the violation's path for a message: "(root)" for "".
func (v Violation) Display() string {
	if v.Path == "" {
		return "(root)"
	}
	return v.Path
}

// Violations returns the leaf violations of a validation error, sorted by
// path and message, without duplicates: the validator's own order depends
// on map iteration.
func Violations(ve *jsonschema.ValidationError) []Violation {
	vs := leaves(ve, nil)
	slices.SortFunc(vs, func(a, b Violation) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Message, b.Message))
	})
	return slices.Compact(vs)
}

// leaves appends the errors without causes, each with the JSON Pointer of
// its instance location.
func leaves(e *jsonschema.ValidationError, out []Violation) []Violation {
	if len(e.Causes) == 0 {
		// A ValidationError without location prints as "at '': message".
		msg := (&jsonschema.ValidationError{ErrorKind: e.ErrorKind}).Error()
		msg = strings.TrimPrefix(msg, "at '': ")
		return append(out, Violation{Path: pointer(e.InstanceLocation), Message: msg})
	}
	for _, c := range e.Causes {
		out = leaves(c, out)
	}
	return out
}

// pointer returns the JSON Pointer (RFC 6901) of a location.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}
