package server

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/quality"
)

// TestOpenAPIMatchesTypes holds the response and input schemas that
// openapi.json writes by hand to the Go types the server encodes and
// decodes: every member of a type is a property of its schema, and
// every property a member, down through nested objects and arrays. The
// clients' types are generated from the document (clients/gen), so a
// field the server gains and the document lacks would be missing in
// every client.
func TestOpenAPIMatchesTypes(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	schemas := doc.Components.Schemas
	for name, v := range map[string]any{
		"AlertReport":   api.AlertReport{},
		"BatchStatus":   api.BatchStatus{},
		"Calibration":   quality.Calibration{},
		"Error":         apiError{},
		"List":          api.List{},
		"Metrics":       api.Metrics{},
		"Outcome":       api.Outcome{},
		"OutcomeInput":  api.OutcomeInput{},
		"Override":      api.Override{},
		"OverrideInput": api.OverrideInput{},
		"Rate":          api.Rate{},
		"Summary":       api.Summary{},
		"TaskInput":     api.TaskInput{},
		"TaskResult":    api.TaskResult{},
		"Window":        api.Window{},
	} {
		s, ok := schemas[name]
		if !ok {
			t.Errorf("openapi.json has no schema %s", name)
			continue
		}
		compareSchema(t, schemas, name, s, reflect.TypeOf(v))
	}
}

// compareSchema compares the properties of schema s (at path) with the
// JSON members of type typ, recursively.
func compareSchema(t *testing.T, schemas map[string]map[string]any, path string, s map[string]any, typ reflect.Type) {
	t.Helper()
	s = resolve(schemas, s)
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch typ.Kind() {
	case reflect.Slice, reflect.Array:
		if typ.Elem().Kind() == reflect.Uint8 {
			return // bytes: raw JSON or base64
		}
		if items, ok := s["items"].(map[string]any); ok {
			compareSchema(t, schemas, path+"[]", items, typ.Elem())
		}
		return
	case reflect.Map:
		if add, ok := s["additionalProperties"].(map[string]any); ok {
			compareSchema(t, schemas, path+"{}", add, typ.Elem())
		}
		return
	case reflect.Struct:
	default:
		return
	}
	if typ == reflect.TypeOf(time.Time{}) || typ.Implements(reflect.TypeOf((*json.Marshaler)(nil)).Elem()) {
		return
	}
	props, ok := s["properties"].(map[string]any)
	if !ok {
		return // an object described without its members: nothing to hold
	}
	members := jsonMembers(typ)
	for name, f := range members {
		p, ok := props[name]
		if !ok {
			t.Errorf("openapi.json: %s lacks %q, a member of %s", path, name, typ)
			continue
		}
		if ps, ok := p.(map[string]any); ok {
			compareSchema(t, schemas, path+"."+name, ps, f.Type)
		}
	}
	for name := range props {
		if _, ok := members[name]; !ok {
			t.Errorf("openapi.json: %s has %q, which %s lacks", path, name, typ)
		}
	}
}

// resolve follows a schema's $ref into components.
func resolve(schemas map[string]map[string]any, s map[string]any) map[string]any {
	for range 8 {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		next, ok := schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
		if !ok {
			return s
		}
		s = next
	}
	return s
}

// jsonMembers returns the JSON members of a struct type by name, with
// embedded structs' members promoted as encoding/json does.
func jsonMembers(typ reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for f := range typ.Fields() {
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for n, sf := range jsonMembers(ft) {
					out[n] = sf
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}
