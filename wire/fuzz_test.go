package wire

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vouchgate/vouch"
)

// rawAsValue compares raw JSON by meaning, not spelling: encoding/json
// compacts raw messages and escapes <, > and & when it re-encodes them.
// Numbers keep their text (json.Number), so no precision is lost.
var rawAsValue = cmp.Transformer("rawAsValue", func(m json.RawMessage) any {
	if m == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(m))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "invalid: " + string(m)
	}
	return v
})

// equateEmpty treats nil and empty lists and maps alike (encoding/json
// omits empty ones), except raw JSON, which rawAsValue compares.
var equateEmpty = cmp.FilterPath(func(p cmp.Path) bool {
	return p.Last().Type() != reflect.TypeFor[json.RawMessage]()
}, cmpopts.EquateEmpty())

// FuzzDecodeRequest checks that DecodeRequest never panics, that every
// error it returns is an input error (never internal), and that a request
// it accepts survives a round trip: encoded with encoding/json (through
// the root types' own tags and CheckSpec.MarshalJSON) and decoded again,
// it is the same request. Ids assigned on the first decode (content hash,
// c<N>) are written out and so kept by the second.
func FuzzDecodeRequest(f *testing.F) {
	entries, err := os.ReadDir(requestsDir)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".err" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(requestsDir, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add(benchRequest)
	f.Add(benchRequestYAML)
	for _, s := range []string{
		minimal,
		`{"task":{"criteria":[{"check":{"type":"x","not":true,"p":[{"type":1}]}}]},"output":{"summary":"<&>"}}`,
		`{"task":{},"output":{"summary":"","metadata":{"n":1e308,"m":-0,"s":"\u2028"}}}`,
		"task: {}\noutput: {summary: x, metadata: {a: &a [1, 2], b: *a}}\n",
		"task: {}\noutput:\n  summary: |\n    line\n  <<: {created: [a]}\n",
		`{"task":{"policy":{}},"output":{"summary":""},"context":{"sources":[null,1,"x",{}]}}`,
		"{\"task\":{},\"output\":{\"summary\":\"\xff\"}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := DecodeRequest(data, Options{MaxBytes: 1 << 16, Name: "fuzz"})
		if err != nil {
			if req != nil {
				t.Fatal("a request returned with an error")
			}
			list := vouch.ErrorList(err)
			if len(list) == 0 {
				t.Fatalf("empty error list for %v", err)
			}
			for _, e := range list {
				if e.Code == vouch.ErrInternal || e.Code == "" {
					t.Fatalf("error with code %q: %v", e.Code, err)
				}
				if e.File != "fuzz" {
					t.Fatalf("error without the input's name: %v", e)
				}
			}
			return
		}
		if req.ID == "" {
			t.Fatal("request without an id")
		}
		for i, c := range req.Task.Criteria {
			if c.ID == "" {
				t.Fatalf("criterion %d without an id", i)
			}
			if c.Check != nil && (c.Check.Type == "" || !json.Valid(c.Check.Raw)) {
				t.Fatalf("criterion %d: check %+v", i, c.Check)
			}
		}
		enc, err := json.Marshal(req)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		again, err := DecodeRequest(enc, Options{})
		if err != nil {
			t.Fatalf("decode of the re-encoded request: %v\n%s", err, enc)
		}
		if diff := cmp.Diff(req, again, equateEmpty, rawAsValue); diff != "" {
			t.Fatalf("round trip changed the request (-first +second):\n%s\n%s", diff, enc)
		}
	})
}
