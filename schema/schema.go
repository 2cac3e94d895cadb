// Package schema holds the JSON Schemas (draft 2020-12) of the vouch
// contracts: the request an orchestrator sends and the report it gets back.
// They match the Go types of package vouch and the decoder of package wire,
// and are what `vouch schema request|report` prints.
//
// A schema cannot express every rule of the request: package wire also
// checks that an edited region's start is not after its end, that criterion
// ids are unique and that no object repeats a key. The request schema's
// description says so.
package schema

import (
	"bytes"
	"fmt"
	"sync"

	_ "embed"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vouchgate/vouch"
)

// The URLs the schemas declare as their $id.
const (
	RequestURL = "https://vouchgate.github.io/vouch/schema/v1/request.schema.json"
	ReportURL  = "https://vouchgate.github.io/vouch/schema/v1/report.schema.json"
)

//go:embed request.schema.json
var requestSchema []byte

//go:embed report.schema.json
var reportSchema []byte

// Names returns the names [Lookup] accepts.
func Names() []string { return []string{"request", "report"} }

// Request returns the JSON Schema of a request. The slice is a copy: the
// caller may change it.
func Request() []byte { return bytes.Clone(requestSchema) }

// Report returns the JSON Schema of a report. The slice is a copy: the
// caller may change it.
func Report() []byte { return bytes.Clone(reportSchema) }

// Lookup returns the schema called name, "request" or "report". Any other
// name is a *vouch.Error with code [vouch.ErrUsage].
func Lookup(name string) ([]byte, error) {
	switch name {
	case "request":
		return Request(), nil
	case "report":
		return Report(), nil
	}
	return nil, &vouch.Error{Code: vouch.ErrUsage, Message: fmt.Sprintf("unknown schema %q: want request or report", name)}
}

var (
	compileRequest = sync.OnceValues(func() (*jsonschema.Schema, error) {
		return compile(RequestURL, requestSchema)
	})
	compileReport = sync.OnceValues(func() (*jsonschema.Schema, error) {
		return compile(ReportURL, reportSchema)
	})
)

// CompileRequest returns the request schema compiled for validation. It is
// compiled once, on first use; the result is safe for concurrent use.
// Validate values produced by [jsonschema.UnmarshalJSON].
func CompileRequest() (*jsonschema.Schema, error) { return compileRequest() }

// CompileReport returns the report schema compiled for validation, like
// [CompileRequest].
func CompileReport() (*jsonschema.Schema, error) { return compileReport() }

func compile(url string, src []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("schema: parse %s: %w", url, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema: add %s: %w", url, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema: compile %s: %w", url, err)
	}
	return s, nil
}
