package jsonschemax

import (
	"errors"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestCompileAndViolations(t *testing.T) {
	s, err := CompileInline([]byte(`{"type":"object","required":["a"],"properties":{"a":{"type":"integer"},"b/c":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"b/c": 1}`))
	var ve *jsonschema.ValidationError
	if err := s.Validate(inst); !errors.As(err, &ve) {
		t.Fatalf("want a validation error, got %v", err)
	}
	vs := Violations(ve)
	if len(vs) != 2 || vs[0].Display() != "(root)" || vs[1].Path != "/b~1c" {
		t.Fatalf("violations = %+v", vs)
	}
	if _, err := CompileInline([]byte(`{"$ref":"https://example.com/s.json"}`)); err == nil {
		t.Error("an inline schema loaded a remote reference")
	}
	if _, err := CompileInline([]byte(`{"$ref":"file:///etc/passwd"}`)); err == nil {
		t.Error("an inline schema loaded a local file")
	}
	if _, err := CompileInline([]byte(`{"type":"nonsense"}`)); err == nil {
		t.Error("an invalid schema compiled")
	}
}
