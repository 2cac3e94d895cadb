package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// operational are the operations no client calls: probes, the document
// itself and the Prometheus metrics.
var operational = map[string]bool{"health": true, "ready": true, "openapi": true, "metrics": true}

// clientSources are the hand-written clients, and how each names an
// operation it calls.
var clientSources = []struct {
	path string
	call func(id string) *regexp.Regexp
}{
	{"clients/python/vouch/client.py", func(id string) *regexp.Regexp {
		return regexp.MustCompile(`_op\("` + regexp.QuoteMeta(id) + `"`)
	}},
	{"clients/typescript/src/client.ts", func(id string) *regexp.Regexp {
		return regexp.MustCompile(`op\("` + regexp.QuoteMeta(id) + `"`)
	}},
}

func root(t *testing.T) string {
	t.Helper()
	r, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Stale returns, for each output under root that differs from what the
// generator writes from root's OpenAPI document, why.
func Stale(root string) ([]string, error) {
	files, err := Generate(root)
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, o := range Outputs {
		old, err := os.ReadFile(filepath.Join(root, o.Path))
		if err != nil {
			stale = append(stale, fmt.Sprintf("%s: %v", o.Path, err))
			continue
		}
		if !bytes.Equal(old, files[o.Path]) {
			stale = append(stale, fmt.Sprintf("%s differs from what %s writes from %s, %s", o.Path, Regenerate, OpenAPIPath, firstDiff(old, files[o.Path])))
		}
	}
	return stale, nil
}

// firstDiff describes the first line where have and want differ.
func firstDiff(have, want []byte) string {
	h := strings.Split(string(have), "\n")
	w := strings.Split(string(want), "\n")
	for i := 0; i < len(h) || i < len(w); i++ {
		var hl, wl string
		if i < len(h) {
			hl = h[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if hl != wl {
			return fmt.Sprintf("first at line %d:\n  committed: %q\n  generated: %q", i+1, hl, wl)
		}
	}
	return "in its line endings"
}

// TestGeneratedTypesUpToDate fails while a client's generated types differ
// from the OpenAPI document: a field the server's document gained and a
// client lacks, or one removed or edited by hand in a client.
func TestGeneratedTypesUpToDate(t *testing.T) {
	stale, err := Stale(root(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stale {
		t.Errorf("%s\nRegenerate the clients' types from the repository root: %s", s, Regenerate)
	}
}

// TestStaleFindsAnEditedClient shows that a field removed from one
// client's types is found.
func TestStaleFindsAnEditedClient(t *testing.T) {
	r := root(t)
	dir := t.TempDir()
	doc, err := os.ReadFile(filepath.Join(r, OpenAPIPath))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(r)
	if err != nil {
		t.Fatal(err)
	}
	write := func(p string, b []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", []byte("module example.com/x\n"))
	write(OpenAPIPath, doc)
	for p, b := range files {
		write(p, b)
	}
	if stale, err := Stale(dir); err != nil || len(stale) != 0 {
		t.Fatalf("fresh copy: %v %v", stale, err)
	}
	ts := files["clients/typescript/src/types.ts"]
	edited := bytes.Replace(ts, []byte("  needsReview: boolean;\n"), nil, 1)
	if bytes.Equal(edited, ts) {
		t.Fatal("types.ts has no Report.needsReview to remove")
	}
	write("clients/typescript/src/types.ts", edited)
	stale, err := Stale(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) != 1 || !strings.Contains(stale[0], "clients/typescript/src/types.ts") || !strings.Contains(stale[0], Regenerate) {
		t.Errorf("stale = %q", stale)
	}
}

// TestClientsCallEveryOperation fails while an operation of the API (but
// the operational ones) is called by neither client's code, or by only one.
func TestClientsCallEveryOperation(t *testing.T) {
	r := root(t)
	doc, err := os.ReadFile(filepath.Join(r, OpenAPIPath))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Build(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range clientSources {
		src, err := os.ReadFile(filepath.Join(r, c.path))
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range m.Operations {
			if operational[op.ID] {
				continue
			}
			if !c.call(op.ID).Match(src) {
				t.Errorf("%s calls no operation %s (%s %s)", c.path, op.ID, op.Method, op.Path)
			}
		}
	}
}

// sample is an OpenAPI document with each construct the generator reads.
const sample = `{
 "openapi": "3.1.0",
 "info": {"title": "t", "version": "v9"},
 "components": {
  "parameters": {"ID": {"in": "path", "name": "id", "required": true, "schema": {"type": "string"}}},
  "schemas": {
   "Error": {"type": "object", "properties": {"error": {"type": "string"}}},
   "List": {"type": "object", "properties": {"items": {"type": "array", "items": {"$ref": "#/components/schemas/Thing"}}}},
   "Thing": {
    "type": "object",
    "description": "A thing.",
    "required": ["kind", "score"],
    "$defs": {
     "warning": {"type": "object", "properties": {"code": {"type": "string"}}},
     "part": {"type": "object", "additionalProperties": true, "properties": {"not": {"type": "boolean"}, "class": {"type": "string"}}},
     "unit": {"type": "number", "minimum": 0},
     "level": {"enum": ["low", "high"]}
    },
    "properties": {
     "kind": {"enum": ["a", "b"]},
     "score": {"$ref": "#/$defs/unit"},
     "maybe": {"type": ["number", "null"]},
     "apiVersion": {"const": "v9"},
     "warnings": {"type": "array", "items": {"$ref": "#/$defs/warning"}},
     "parts": {"type": "object", "additionalProperties": {"$ref": "#/$defs/part"}},
     "level": {"$ref": "#/$defs/level"},
     "entries": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}},
     "free": {"type": "object"},
     "any": {},
     "createdAt": {"type": "string", "format": "date-time"}
    }
   }
  }
 },
 "paths": {
  "/things/{id}": {"get": {
   "operationId": "getThing",
   "parameters": [{"$ref": "#/components/parameters/ID"}, {"in": "query", "name": "since", "schema": {"type": "string", "format": "date-time"}}, {"in": "query", "name": "view", "schema": {"enum": ["full", "brief"]}}],
   "responses": {"200": {"content": {"application/json": {"schema": {"allOf": [{"$ref": "#/components/schemas/Thing"}], "properties": {"extra": {"type": "integer"}}}}}}}
  }}
 }
}`

// TestBuildAndRender reads a small document with each construct the
// generator knows and checks what it writes in both languages.
func TestBuildAndRender(t *testing.T) {
	m, err := Build([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	py := string(Python(m))
	ts := string(TypeScript(m))
	for _, want := range []string{
		`class ErrorBody:`,                    // renamed: shadows Python's and JS's Error
		`class VerificationList:`,             // renamed: shadows typing.List
		`class ThingWarning:`,                 // a $defs name that shadows a builtin takes its component's
		`class Part:`,                         // a $defs object is a class
		`class GetThingResponse(Thing):`,      // allOf of one $ref extends it
		`class GetThingParams:`,               // query parameters; the path one is not among them
		`class ThingEntry:`,                   // an inline item, named in the singular
		`ThingKind = t.Literal["a", "b"]`,     // an inline enum
		`Level = t.Literal["low", "high"]`,    // a $defs enum
		`    kind: ThingKind`,                 // required: no default
		`    score: float`,                    // a primitive $def is inlined
		`    maybe: t.Optional[float] = None`, // nullable and optional
		`api_version: t.Optional[t.Literal["v9"]] = field(`,
		`    not_: t.Optional[bool] = field(`, // a keyword, its JSON name kept
		`    class_: t.Optional[str] = field(`,
		`    extra: t.Dict[str, t.Any] = field(`, // additionalProperties: true
		`    parts: t.Optional[t.Dict[str, Part]] = None`,
		`    free: t.Optional[t.Dict[str, t.Any]] = None`,
		`    any: t.Any = None`,
		`    since: t.Optional[t.Union[str, datetime.datetime]] = None`,
		`    "getThing": ("GET", "/things/{id}"),`,
	} {
		if !strings.Contains(py, want) {
			t.Errorf("Python lacks %q", want)
		}
	}
	for _, want := range []string{
		`export interface ErrorBody {`,
		`export interface GetThingResponse extends Thing {`,
		`export type ThingKind = "a" | "b";`,
		`  kind: ThingKind;`,
		`  score: number;`,
		`  maybe?: number | null;`,
		`  apiVersion?: "v9";`,
		`  not?: boolean;`,
		`  [member: string]: unknown;`,
		`  parts?: Record<string, Part>;`,
		`  warnings?: ThingWarning[];`,
		`  any?: unknown;`,
		`  since?: string | Date;`,
		`  createdAt?: string;`,
		`  getThing: { method: "GET", path: "/things/{id}" },`,
	} {
		if !strings.Contains(ts, want) {
			t.Errorf("TypeScript lacks %q", want)
		}
	}
	if strings.Contains(py, "class GetThingParams:\n") && strings.Contains(py, "    id: ") {
		t.Error("a path parameter is among the query parameters")
	}
}

// TestBuildRefusesWhatItCannotRead checks that a document the generator
// cannot read whole is an error, never a partial output.
func TestBuildRefusesWhatItCannotRead(t *testing.T) {
	for _, doc := range []string{
		`not json`,
		`{"components": {"schemas": {"A": {"type": "object", "properties": {"b": {"$ref": "#/components/schemas/Missing"}}}}}}`,
		`{"components": {"schemas": {"A": {"type": "string"}}}}`,
		`{"paths": {"/a": {"get": {}}}}`,
	} {
		if _, err := Build([]byte(doc)); err == nil {
			t.Errorf("Build(%s): no error", doc)
		}
	}
}

// TestNames checks the names the generator makes of JSON names.
func TestNames(t *testing.T) {
	for in, want := range map[string]string{
		"apiVersion": "api_version", "task_description": "task_description", "needsReview": "needs_review",
		"HTTPStatus": "http_status", "$schema": "schema", "x-y": "x_y", "3d": "f_3d",
	} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"checkResult": "CheckResult", "criteria_scores": "CriteriaScores", "get-thing": "GetThing", "9": "T9",
	} {
		if got := pascal(in); got != want {
			t.Errorf("pascal(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"AlertReportAlerts": "AlertReportAlert", "FooEntries": "FooEntry", "FooClass": "FooClassItem", "FooHistogram": "FooHistogramItem",
	} {
		if got := itemName(in); got != want {
			t.Errorf("itemName(%q) = %q, want %q", in, got, want)
		}
	}
}
