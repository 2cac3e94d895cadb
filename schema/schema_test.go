package schema

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vouchgate/vouch"
)

func TestCompile(t *testing.T) {
	for name, compile := range map[string]func() (*jsonschema.Schema, error){
		"request": CompileRequest,
		"report":  CompileReport,
	} {
		s1, err := compile()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s2, _ := compile()
		if s1 != s2 {
			t.Errorf("%s: compiled twice", name)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, name := range Names() {
		b, err := Lookup(name)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", name, err)
		}
		if !json.Valid(b) {
			t.Errorf("Lookup(%q): invalid JSON", name)
		}
		b[0] = 'x' // a copy: the embedded schema is untouched
	}
	if !bytes.Equal(Request(), requestSchema) || Request()[0] != '{' {
		t.Error("Request() was modified through a returned slice")
	}
	_, err := Lookup("policy")
	if vouch.Code(err) != vouch.ErrUsage {
		t.Errorf("Lookup(policy) = %v, want a usage error", err)
	}
}

func TestIDs(t *testing.T) {
	for url, src := range map[string][]byte{RequestURL: requestSchema, ReportURL: reportSchema} {
		var doc struct {
			Schema string `json:"$schema"`
			ID     string `json:"$id"`
		}
		if err := json.Unmarshal(src, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.ID != url || doc.Schema != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("$id %q $schema %q, want %q and draft 2020-12", doc.ID, doc.Schema, url)
		}
	}
}

func TestMinimalRequest(t *testing.T) {
	s, err := CompileRequest()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		doc string
		ok  bool
	}{
		{`{"task": {}, "output": {"summary": ""}}`, true},
		{`{"apiVersion": "vouch/v1", "task": {}, "output": {"summary": "x"}}`, true},
		{`{"apiVersion": "vouch/v2", "task": {}, "output": {"summary": "x"}}`, false},
		{`{"task": {}, "output": {}}`, false},
		{`{"output": {"summary": ""}}`, false},
		{`{"task": {"criteria": [{"check": {"type": "regex", "pattern": "x", "anything": [1]}}]}, "output": {"summary": ""}}`, true},
		{`{"task": {"criteria": [{"check": {"pattern": "x"}}]}, "output": {"summary": ""}}`, false},
		{`{"task": {"criteria": [{"check": {"type": "x", "not": "yes"}}]}, "output": {"summary": ""}}`, false},
	} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		err = s.Validate(v)
		if (err == nil) != tc.ok {
			t.Errorf("%s: valid = %v, want %v (%v)", tc.doc, err == nil, tc.ok, err)
		}
	}
}

// TestMatchesGoTypes walks the Go types and the schemas side by side: every
// struct has exactly the properties its JSON tags name and no others, and
// scalar fields have the matching JSON type. For the report, every field
// without omitempty is required.
func TestMatchesGoTypes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		src      []byte
		typ      reflect.Type
		required bool
	}{
		{"request", requestSchema, reflect.TypeFor[vouch.Request](), false},
		{"report", reportSchema, reflect.TypeFor[vouch.Report](), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var root map[string]any
			if err := json.Unmarshal(tc.src, &root); err != nil {
				t.Fatal(err)
			}
			w := walker{t: t, root: root, required: tc.required}
			w.walk("", tc.typ, root)
		})
	}
}

type walker struct {
	t        *testing.T
	root     map[string]any
	required bool
}

// resolve follows a local $ref.
func (w walker) resolve(s map[string]any) map[string]any {
	for range 10 {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok {
			w.t.Fatalf("unexpected $ref %q", ref)
		}
		s = w.root["$defs"].(map[string]any)[name].(map[string]any)
	}
	return s
}

var (
	rawType   = reflect.TypeFor[json.RawMessage]()
	checkType = reflect.TypeFor[vouch.CheckSpec]()
)

func (w walker) walk(path string, t reflect.Type, s map[string]any) {
	s = w.resolve(s)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == rawType:
		return // any JSON (or an object, checked by its own schema)
	case t == checkType:
		if s["type"] != "object" || s["additionalProperties"] != true {
			w.t.Errorf("%s: a check is an open object", path)
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if s["type"] != "object" || s["additionalProperties"] != false {
			w.t.Errorf("%s: want a closed object (additionalProperties: false)", path)
		}
		props, _ := s["properties"].(map[string]any)
		var names []string
		var required []string
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			names = append(names, name)
			if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
				required = append(required, name)
			}
			ps, ok := props[name].(map[string]any)
			if !ok {
				w.t.Errorf("%s: schema lacks property %q", path, name)
				continue
			}
			w.walk(path+"."+name, f.Type, ps)
		}
		var have []string
		for name := range props {
			have = append(have, name)
		}
		sort.Strings(names)
		sort.Strings(have)
		if !slices.Equal(names, have) {
			w.t.Errorf("%s: schema properties %v, Go fields %v", path, have, names)
		}
		if w.required {
			var req []string
			for _, r := range s["required"].([]any) {
				req = append(req, r.(string))
			}
			sort.Strings(req)
			sort.Strings(required)
			if !slices.Equal(req, required) {
				w.t.Errorf("%s: schema requires %v, Go always writes %v", path, req, required)
			}
		}
	case reflect.Slice:
		if s["type"] != "array" {
			w.t.Errorf("%s: want an array", path)
		}
		if items, ok := s["items"].(map[string]any); ok {
			w.walk(path+"[]", t.Elem(), items)
		} else if t.Elem() != rawType {
			w.t.Errorf("%s: array without items", path)
		}
	case reflect.Map:
		if s["type"] != "object" {
			w.t.Errorf("%s: want an object", path)
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			w.walk(path+"{}", t.Elem(), ap)
		}
	case reflect.String:
		if s["type"] != "string" && s["enum"] == nil && s["const"] == nil {
			w.t.Errorf("%s: want a string, enum or const", path)
		}
	case reflect.Bool:
		w.want(path, s, "boolean")
	case reflect.Int, reflect.Int64:
		w.want(path, s, "integer")
	case reflect.Float64:
		w.want(path, s, "number")
	default:
		w.t.Errorf("%s: unexpected Go kind %s", path, t.Kind())
	}
}

func (w walker) want(path string, s map[string]any, typ string) {
	switch v := s["type"].(type) {
	case string:
		if v == typ {
			return
		}
	case []any:
		if slices.Contains(v, any(typ)) {
			return
		}
	}
	w.t.Errorf("%s: schema type %v, want %s", path, s["type"], typ)
}
