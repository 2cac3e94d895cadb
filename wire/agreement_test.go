package wire

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/strict"
	"github.com/vouchgate/vouch/schema"
)

var update = flag.Bool("update", false, "rewrite the .err golden files of testdata/requests")

const requestsDir = "../testdata/requests"

// schemaBlind lists the files on which the decoder and the JSON Schema are
// expected to disagree, because they break a rule a JSON Schema cannot
// express. For each, the decoder must reject and the schema accept.
var schemaBlind = map[string]string{
	"bad-region.json":       "editedRegion.start <= end compares two values of one object",
	"bad-duplicate-id.json": "criterion ids must be unique by one member; uniqueItems compares whole items",
	"bad-duplicate-key.json": "a repeated key disappears when the document is parsed for the validator " +
		"(the last one wins); the decoder rejects it",
}

// corpus returns the request files of testdata/requests (not the .err
// golden files), sorted.
func corpus(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir(requestsDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() || strings.HasSuffix(e.Name(), ".err") {
			continue
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if len(names) < 25 {
		t.Fatalf("only %d request files in %s", len(names), requestsDir)
	}
	return names
}

// schemaView returns data as the schema validator sees it: JSON parsed by
// the validator's own parser; YAML converted to JSON by internal/strict
// first. A document that cannot be read, or whose YAML has values with no
// JSON form, is an error (a rejection).
func schemaView(data []byte) (any, error) {
	body := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		doc, err := strict.Parse(body, strict.Options{What: "request", MaxBytes: DefaultMaxBytes})
		if err != nil {
			return nil, err
		}
		if doc.Problems() > 0 {
			return nil, doc.Errors()
		}
		body = doc.JSON()
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(body))
}

// TestAgreement decodes every request file with DecodeRequest and validates
// it against the request schema: both must accept or both reject, except
// for the files of schemaBlind. ok-* files must decode, bad-* files must
// fail with the errors of their .err golden file (go test -update rewrites
// them).
func TestAgreement(t *testing.T) {
	sch, err := schema.CompileRequest()
	if err != nil {
		t.Fatal(err)
	}
	seenBlind := map[string]bool{}
	for _, name := range corpus(t) {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(requestsDir, name))
			if err != nil {
				t.Fatal(err)
			}
			_, decErr := DecodeRequest(data, Options{Name: name})
			decodeOK := decErr == nil

			var schemaErr error
			v, err := schemaView(data)
			if err != nil {
				schemaErr = err
			} else {
				schemaErr = sch.Validate(v)
			}
			schemaOK := schemaErr == nil

			if reason, ok := schemaBlind[name]; ok {
				seenBlind[name] = true
				if decodeOK || !schemaOK {
					t.Errorf("listed as schema-blind (%s), want the decoder to reject and the schema to accept; decoder: %v; schema: %v", reason, decErr, schemaErr)
				}
			} else if decodeOK != schemaOK {
				t.Errorf("decoder and schema disagree:\ndecoder: %v\nschema: %v", orOK(decErr), orOK(schemaErr))
			}

			switch {
			case strings.HasPrefix(name, "ok-"):
				if !decodeOK {
					t.Errorf("want success, got:\n%v", decErr)
				}
			case strings.HasPrefix(name, "bad-"):
				if decodeOK {
					t.Fatal("want an error, got success")
				}
				checkGolden(t, filepath.Join(requestsDir, name+".err"), renderErrors(decErr))
			default:
				t.Errorf("file name must start with ok- or bad-")
			}
		})
	}
	for name, reason := range schemaBlind {
		if reason == "" {
			t.Errorf("schemaBlind: %s has no reason", name)
		}
		if !seenBlind[name] {
			t.Errorf("schemaBlind lists %s, which is not in %s", name, requestsDir)
		}
	}
}

func orOK(err error) string {
	if err == nil {
		return "accepted"
	}
	return err.Error()
}

// renderErrors writes one line per error: its code, then the error as the
// user sees it (file:line:col: path: message).
func renderErrors(err error) []byte {
	var b bytes.Buffer
	for _, e := range vouch.ErrorList(err) {
		fmt.Fprintf(&b, "%s %s\n", e.Code, e.Error())
	}
	return b.Bytes()
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("errors differ from %s (go test -update rewrites it):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// TestGoldenFilesHaveRequests catches .err files left behind by a renamed
// or deleted request file.
func TestGoldenFilesHaveRequests(t *testing.T) {
	entries, err := os.ReadDir(requestsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if req, ok := strings.CutSuffix(e.Name(), ".err"); ok {
			if _, err := os.Stat(filepath.Join(requestsDir, req)); err != nil {
				t.Errorf("%s has no request file", e.Name())
			}
		}
	}
}

// TestCorpusCoversContract checks that every field of the request contract
// is used by at least one ok-* file, and that every kind appears.
func TestCorpusCoversContract(t *testing.T) {
	want := map[string]bool{}
	contractPaths("", reflect.TypeFor[vouch.Request](), want)
	seen := map[string]bool{}
	kinds := map[string]bool{}
	for _, name := range corpus(t) {
		if !strings.HasPrefix(name, "ok-") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(requestsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		v, err := schemaView(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		usedPaths("", v, seen)
		req, err := DecodeRequest(data, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		kinds[string(req.EffectiveKind())] = true
	}
	var missing []string
	for p := range want {
		if !seen[p] {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no ok-* file uses: %s", strings.Join(missing, ", "))
	}
	for _, k := range vouch.Kinds {
		if !kinds[string(k)] {
			t.Errorf("no ok-* file is of kind %s", k)
		}
	}
}

// contractPaths lists the dotted paths ("task.criteria[].check.type") of
// the request contract, stopping at free-form values.
func contractPaths(prefix string, t reflect.Type, out map[string]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeFor[vouch.CheckSpec]():
		out[prefix+".type"] = true
		out[prefix+".not"] = true
		return
	case t == reflect.TypeFor[json.RawMessage]():
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			p := strings.TrimPrefix(prefix+"."+name, ".")
			out[p] = true
			contractPaths(p, f.Type, out)
		}
	case reflect.Slice:
		contractPaths(prefix+"[]", t.Elem(), out)
	}
}

func usedPaths(prefix string, v any, out map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := strings.TrimPrefix(prefix+"."+k, ".")
			out[p] = true
			usedPaths(p, x, out)
		}
	case []any:
		for _, x := range v {
			usedPaths(prefix+"[]", x, out)
		}
	}
}
