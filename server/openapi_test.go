package server

import (
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch/schema"
)

var update = flag.Bool("update", false, "rewrite openapi.json's Request and Report schemas from package schema")

// TestOpenAPI checks the document against the server: the request and
// report schemas are the ones `vouch schema` prints, and every route is
// described (and nothing else).
func TestOpenAPI(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["openapi"] != "3.1.0" {
		t.Errorf("openapi %v", doc["openapi"])
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	stale := false
	for name, src := range map[string][]byte{"Request": schema.Request(), "Report": schema.Report()} {
		var want map[string]any
		if err := json.Unmarshal(src, &want); err != nil {
			t.Fatal(err)
		}
		delete(want, "$schema") // the document's dialect is OpenAPI 3.1's
		if !reflect.DeepEqual(schemas[name], want) {
			stale = true
			schemas[name] = want
		}
	}
	if stale && *update {
		b, err := json.MarshalIndent(doc, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("openapi.json", append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if stale {
		t.Error("openapi.json's Request or Report schema differs from package schema: go test ./server -run TestOpenAPI -update")
	}

	var described []string
	for path, ops := range doc["paths"].(map[string]any) {
		for method := range ops.(map[string]any) {
			described = append(described, strings.ToUpper(method)+" "+path)
		}
	}
	var served []string
	for _, rt := range (&Server{}).routeTable(http.NotFoundHandler()) {
		served = append(served, rt.pattern)
	}
	slices.Sort(described)
	slices.Sort(served)
	if !slices.Equal(described, served) {
		t.Errorf("routes and openapi.json differ:\nserved    %v\ndescribed %v", served, described)
	}
	// Every $ref inside the document resolves.
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok && strings.HasPrefix(ref, "#/components/") {
				parts := strings.Split(strings.TrimPrefix(ref, "#/"), "/")
				var cur any = doc
				for _, p := range parts {
					m, _ := cur.(map[string]any)
					cur = m[p]
				}
				if cur == nil {
					t.Errorf("unresolved $ref %s", ref)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
}
