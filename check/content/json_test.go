package content

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

func TestJSON(t *testing.T) {
	cases := []tc{
		{name: "object", spec: `{"type":"json"}`, summary: `{"a": [1, 2, {"b": null}]}`,
			status: vouch.StatusPass, reason: "output.summary is valid JSON", evidence: map[string]any{"source": "whole text"}},
		{name: "surrounding whitespace", spec: `{"type":"json"}`, summary: "\n\n  [1,2]  \n",
			status: vouch.StatusPass},
		{name: "scalar", spec: `{"type":"json"}`, summary: `"just a string"`, status: vouch.StatusPass},
		{name: "fenced block with prose", spec: `{"type":"json"}`, summary: "Here is the result:\n\n```json\n{\"ok\": true}\n```\n\nDone.",
			status: vouch.StatusPass, reason: "the fenced block at line 3 of output.summary is valid JSON",
			evidence: map[string]any{"source": "fenced block at line 3"}},
		{name: "untagged fence", spec: `{"type":"json"}`, summary: "```\n[1]\n```", status: vouch.StatusPass},
		{name: "JSON fence tag any case", spec: `{"type":"json"}`, summary: "~~~ JSON\n[1]\n~~~", status: vouch.StatusPass},
		{name: "non-json fence skipped", spec: `{"type":"json"}`, summary: "```bash\nls -l\n```\nthen\n```json\n{}\n```",
			status: vouch.StatusPass, evidence: map[string]any{"source": "fenced block at line 5"}},
		{name: "invalid whole text", spec: `{"type":"json"}`, summary: "{\n  \"a\": 1,\n  \"b\": }",
			status: vouch.StatusFail, code: vouch.CodeJSONInvalid, reason: "output.summary is not valid JSON",
			evidence: map[string]any{"source": "whole text", "line": 3, "column": 8}},
		{name: "invalid fenced block", spec: `{"type":"json"}`, summary: "Result:\n```json\n{\n  \"a\": tru\n}\n```",
			status: vouch.StatusFail, code: vouch.CodeJSONInvalid, reason: "the fenced block at line 2 of output.summary is not valid JSON",
			evidence: map[string]any{"source": "fenced block at line 2", "line": 4, "column": 11}},
		{name: "prose only", spec: `{"type":"json"}`, summary: "no json here",
			status: vouch.StatusFail, code: vouch.CodeJSONInvalid, evidence: map[string]any{"line": 1, "column": 2}},
		{name: "empty", spec: `{"type":"json"}`, summary: "",
			status: vouch.StatusFail, code: vouch.CodeJSONInvalid, evidence: map[string]any{"error": "the text is empty"}},
		{name: "trailing data", spec: `{"type":"json"}`, summary: `{} {}`, status: vouch.StatusFail, code: vouch.CodeJSONInvalid},
		{name: "duplicate names", spec: `{"type":"json"}`, summary: `{"a":1,"a":2}`, status: vouch.StatusFail, code: vouch.CodeJSONInvalid,
			evidence: map[string]any{"error": "duplicate key"}},
		{name: "invalid utf8", spec: `{"type":"json"}`, summary: "\"\xff\"", status: vouch.StatusFail, code: vouch.CodeJSONInvalid},
		{name: "file target", spec: `{"type":"json","target":"out/data.json"}`,
			files: map[string]string{"out/data.json": `{"x": 1}`}, status: vouch.StatusPass,
			evidence: map[string]any{"target": "out/data.json"}},
	}
	cases = append(cases, targetCases("json", ``)...)
	runCases(t, cases)
}

func TestJSONCompileErrors(t *testing.T) {
	runErrCases(t, commonErrCases("json", ``))
}

func TestFirstJSONBlock(t *testing.T) {
	for _, c := range []struct {
		text string
		body string
		line int
		ok   bool
	}{
		{"```json\n{}\n```", "{}\n", 2, true},
		{"x\n```\n[1]\n```", "[1]\n", 3, true},
		{"```go\nx\n```", "", 0, false},
		{"```json\n{\"open\": 1}", "{\"open\": 1}", 2, true},
		{"````json\n```\n````", "```\n", 2, true},
		{"  ```json\r\n{}\r\n  ```\r\n", "{}\r\n", 2, true},
		{"    ```json\n{}\n```", "", 4, true}, // indented code, then an unclosed empty fence
		{"no fences", "", 0, false},
	} {
		body, line, ok := firstJSONBlock(c.text)
		if body != c.body || line != c.line || ok != c.ok {
			t.Errorf("firstJSONBlock(%q) = %q, %d, %v; want %q, %d, %v", c.text, body, line, ok, c.body, c.line, c.ok)
		}
	}
}

const personSchema = `{"type":"object","required":["name","age"],"properties":{` +
	`"name":{"type":"string","minLength":1},` +
	`"age":{"type":"integer","minimum":0},` +
	`"email":{"type":"string","format":"email"},` +
	`"tags":{"type":"array","items":{"type":"string"}}},` +
	`"additionalProperties":false}`

func TestJSONSchema(t *testing.T) {
	inline := `{"type":"json_schema","schema":` + personSchema + `}`
	cases := []tc{
		{name: "valid", spec: inline, summary: `{"name":"Ada","age":36,"tags":["x"]}`,
			status: vouch.StatusPass, reason: "the JSON of output.summary is valid against the inline schema",
			evidence: map[string]any{"schema": "inline schema", "source": "whole text"}},
		{name: "valid in fence", spec: inline, summary: "Result:\n```json\n{\"name\":\"Ada\",\"age\":36}\n```",
			status: vouch.StatusPass, evidence: map[string]any{"source": "fenced block at line 2"}},
		{name: "violations", spec: inline, summary: `{"name":"","age":"old","tags":["ok",3],"extra":true,"email":"nope"}`,
			status: vouch.StatusFail, code: vouch.CodeSchemaViolation, reason: "5 violations, first",
			evidence: map[string]any{"violations": []map[string]any{
				{"path": "", "message": "additional properties 'extra' not allowed"},
				{"path": "/age", "message": "got string, want integer"},
				{"path": "/email", "message": "'nope' is not valid email: missing @"},
				{"path": "/name", "message": "minLength: got 0, want 1"},
				{"path": "/tags/1", "message": "got number, want string"},
			}},
			fix: []string{
				"(root): additional properties 'extra' not allowed",
				"/age: got string, want integer",
				"/email: 'nope' is not valid email: missing @",
				"/name: minLength: got 0, want 1",
				"/tags/1: got number, want string",
			}},
		{name: "missing property", spec: inline, summary: `{"name":"Ada"}`,
			status: vouch.StatusFail, code: vouch.CodeSchemaViolation,
			evidence: map[string]any{"violations": []map[string]any{{"path": "", "message": "missing property 'age'"}}}},
		{name: "big integer keeps precision", spec: `{"type":"json_schema","schema":{"maximum":9007199254740993}}`,
			summary: `9007199254740994`, status: vouch.StatusFail, code: vouch.CodeSchemaViolation},
		{name: "pointer escaping", spec: `{"type":"json_schema","schema":{"properties":{"a/b":{"type":"string"},"c~d":{"type":"string"}}}}`,
			summary: `{"a/b":1,"c~d":2}`, status: vouch.StatusFail, code: vouch.CodeSchemaViolation,
			fix: []string{"/a~1b: got number, want string", "/c~0d: got number, want string"}},
		{name: "invalid json", spec: inline, summary: `{"name":`,
			status: vouch.StatusFail, code: vouch.CodeJSONInvalid},
		{name: "file target", spec: `{"type":"json_schema","schema":{"type":"array"},"target":"a.json"}`,
			files: map[string]string{"a.json": `[1]`}, status: vouch.StatusPass},
	}
	cases = append(cases, targetCases("json_schema", `,"schema":{}`)...)
	runCases(t, cases)
}

func TestJSONSchemaFile(t *testing.T) {
	env := check.Env{Files: testFS}
	c := mustCompile(t, `{"type":"json_schema","schemaFile":"person.json"}`, env)
	for _, x := range []struct {
		summary string
		status  vouch.Status
	}{
		{`{"name":"Ada","address":{"city":"London"}}`, vouch.StatusPass},
		{`{"name":"Ada","address":{}}`, vouch.StatusFail},
	} {
		s := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{Summary: x.summary}}}
		o := c.Check(context.Background(), s)
		if o.Status != x.status {
			t.Errorf("%s: got %s (%s), want %s", x.summary, o.Status, o.Reason, x.status)
		}
		if o.Evidence["schema"] != "person.json" {
			t.Errorf("evidence schema = %v", o.Evidence["schema"])
		}
		if x.status == vouch.StatusFail && (len(o.Fix) != 1 || o.Fix[0] != "/address: missing property 'city'") {
			t.Errorf("fix = %q", o.Fix)
		}
	}
}

func TestJSONSchemaCompileErrors(t *testing.T) {
	env := check.Env{Files: testFS}
	cases := []errCase{
		{name: "neither", spec: `{"type":"json_schema"}`, path: "schema", code: vouch.ErrCriterion, msg: "is required"},
		{name: "both", spec: `{"type":"json_schema","schema":{},"schemaFile":"person.json"}`, env: env, path: "schemaFile", code: vouch.ErrCriterion},
		{name: "schema not object", spec: `{"type":"json_schema","schema":"x"}`, path: "schema", code: vouch.ErrType, msg: "got string, want object"},
		{name: "schema array", spec: `{"type":"json_schema","schema":[1]}`, path: "schema", code: vouch.ErrType},
		{name: "bad schema", spec: `{"type":"json_schema","schema":{"type":"nonsense"}}`, path: "schema.type", code: vouch.ErrCriterion, msg: "is not a valid JSON Schema: got string, want array; value must be one of"},
		{name: "bad nested schema", spec: `{"type":"json_schema","schema":{"properties":{"a":{"minLength":-1}}}}`, path: "schema.properties.a.minLength", code: vouch.ErrCriterion, msg: "minimum: got -1, want 0"},
		{name: "bad schema two places", spec: `{"type":"json_schema","schema":{"minimum":"x","required":3}}`, path: "schema", code: vouch.ErrCriterion, msg: "/minimum: got string, want number; /required: got number, want array"},
		{name: "dangling ref", spec: `{"type":"json_schema","schema":{"$ref":"#/definitions/nope"}}`, path: "schema", code: vouch.ErrCriterion, msg: "not found"},
		{name: "bad schema pattern", spec: `{"type":"json_schema","schema":{"pattern":"a("}}`, path: "schema.pattern", code: vouch.ErrCriterion, msg: "is not valid regex"},
		{name: "inline ref to local file", spec: `{"type":"json_schema","schema":{"$ref":"file:///etc/passwd"}}`, path: "schema", code: vouch.ErrCriterion, msg: "may refer only"},
		{name: "inline relative ref", spec: `{"type":"json_schema","schema":{"$ref":"other.json"}}`, env: env, path: "schema", code: vouch.ErrCriterion},
		{name: "inline ref to schema files", spec: `{"type":"json_schema","schema":{"$ref":"vouch-files:///person.json"}}`, env: env, path: "schema", code: vouch.ErrCriterion, msg: "may refer only"},
		{name: "inline ref to network", spec: `{"type":"json_schema","schema":{"$ref":"https://example.com/s.json"}}`, path: "schema", code: vouch.ErrCriterion},
		{name: "schemaFile without files", spec: `{"type":"json_schema","schemaFile":"person.json"}`, path: "schemaFile", code: vouch.ErrCriterion, msg: "no schema files"},
		{name: "schemaFile missing", spec: `{"type":"json_schema","schemaFile":"nope.json"}`, env: env, path: "schemaFile", code: vouch.ErrCriterion, msg: "file does not exist"},
		{name: "schemaFile escapes", spec: `{"type":"json_schema","schemaFile":"../person.json"}`, env: env, path: "schemaFile", code: vouch.ErrCriterion},
		{name: "schemaFile absolute", spec: `{"type":"json_schema","schemaFile":"/etc/passwd"}`, env: env, path: "schemaFile", code: vouch.ErrCriterion},
		{name: "schemaFile malformed", spec: `{"type":"json_schema","schemaFile":"broken.json"}`, env: env, path: "schemaFile", code: vouch.ErrCriterion, msg: "line 3, column 1"},
		{name: "schemaFile bad schema", spec: `{"type":"json_schema","schemaFile":"badschema.json"}`, env: env, path: "schemaFile", code: vouch.ErrCriterion, msg: "is not a valid JSON Schema: /type: got string, want array; /type: value must be one of"},
		{name: "schemaFile ref to local file", spec: `{"type":"json_schema","schemaFile":"escape.json"}`, env: env, path: "schemaFile", code: vouch.ErrCriterion},
		{name: "schemaFile ref to network", spec: `{"type":"json_schema","schemaFile":"http.json"}`, env: env, path: "schemaFile", code: vouch.ErrCriterion},
		{name: "schemaFile ref upwards", spec: `{"type":"json_schema","schemaFile":"up.json"}`, env: env, path: "schemaFile", code: vouch.ErrCriterion},
		{name: "schemaFile wrong type", spec: `{"type":"json_schema","schemaFile":1}`, env: env, path: "schemaFile", code: vouch.ErrType},
	}
	cases = append(cases, commonErrCases("json_schema", `,"schema":{}`)...)
	runErrCases(t, cases)
}

// TestJSONSchemaConcurrent validates with one compiled schema from many
// goroutines; run with -race.
func TestJSONSchemaConcurrent(t *testing.T) {
	c := mustCompile(t, `{"type":"json_schema","schemaFile":"person.json"}`, check.Env{Files: fstest.MapFS(testFS)})
	done := make(chan vouch.Status)
	for i := range 8 {
		go func() {
			summary := `{"name":"Ada"}`
			if i%2 == 1 {
				summary = `{"name":1}`
			}
			s := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{Summary: summary}}}
			done <- c.Check(context.Background(), s).Status
		}()
	}
	pass := 0
	for range 8 {
		if <-done == vouch.StatusPass {
			pass++
		}
	}
	if pass != 4 {
		t.Errorf("%d of 8 passed, want 4", pass)
	}
}
