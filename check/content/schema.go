package content

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/internal/jsonerr"
	"github.com/vouchgate/vouch/internal/jsonschemax"
)

type schemaParams struct {
	check.Common `json:",inline"`
	check.Target `json:",inline"`
	Schema       jsontext.Value `json:"schema,omitempty"`
	SchemaFile   *string        `json:"schemaFile,omitempty"`
}

// URL schemes of compiled schemas. A schemaFile lives at
// vouch-files:///path, so that its relative $refs resolve to other files of
// check.Env.Files; an inline schema lives at vouch-inline:///schema.json
// and may not refer to anything outside itself.
const (
	filesScheme  = "vouch-files"
	inlineScheme = "vouch-inline"
)

// maxViolations bounds the violations listed in evidence and fixes.
const maxViolations = 20

// schemaChecker passes when the text's JSON (see findJSON) is valid against
// a JSON Schema. Schemas without $schema are read as draft 2020-12, and
// "format" is asserted, not only annotated: a gate should check what the
// schema says. Schemas may refer only to themselves and, for a schemaFile,
// to other files of check.Env.Files; never to the network or the local file
// system.
type schemaChecker struct {
	target string
	schema *jsonschema.Schema
	name   string // "inline schema" or the schema file
}

func newJSONSchema(spec vouch.CheckSpec, env check.Env) (vouch.Checker, error) {
	var p schemaParams
	if err := check.DecodeParams(spec, &p); err != nil {
		return nil, err
	}
	hasInline := len(p.Schema) > 0
	switch {
	case hasInline && p.SchemaFile != nil:
		return nil, check.Errorf("schemaFile", "cannot be given with schema: give one of them")
	case !hasInline && p.SchemaFile == nil:
		return nil, check.Errorf("schema", "is required (or schemaFile)")
	}
	c := &schemaChecker{target: p.Target.Target}
	var (
		doc  any
		loc  string
		path string // the parameter errors name
	)
	if hasInline {
		path, loc, c.name = "schema", inlineScheme+":///schema.json", "inline schema"
		if k := p.Schema.Kind(); k != '{' {
			return nil, &vouch.Error{Code: vouch.ErrType, Path: path,
				Message: fmt.Sprintf("got %s, want object", jsonerr.KindName(k))}
		}
		var err error
		if doc, err = jsonschema.UnmarshalJSON(strings.NewReader(string(p.Schema))); err != nil {
			return nil, check.Errorf(path, "%v", err)
		}
	} else {
		file := *p.SchemaFile
		path, c.name = "schemaFile", file
		if env.Files == nil {
			return nil, check.Errorf(path, "no schema files can be named here (no files were configured)")
		}
		if !fs.ValidPath(file) || file == "." {
			return nil, check.Errorf(path, "%q is not a relative slash-separated path inside the schema files", file)
		}
		data, err := readSchemaFile(env.Files, file)
		if err != nil {
			return nil, check.Errorf(path, "cannot read %q: %v", file, unwrapPathError(err))
		}
		if e := validJSON(string(data)); e != nil {
			return nil, check.Errorf(path, "%s is not valid JSON at line %d, column %d: %s", file, e.Line, e.Column, e.Message)
		}
		if doc, err = jsonschema.UnmarshalJSON(strings.NewReader(string(data))); err != nil {
			return nil, check.Errorf(path, "%s: %v", file, err)
		}
		loc = (&url.URL{Scheme: filesScheme, Path: "/" + file}).String()
	}

	// The compiler is created per compiled check, only when a json_schema
	// check is compiled: it is not safe for concurrent use, and a shared
	// one would keep every schema ever compiled.
	loader := filesLoader{} // an inline schema refers to nothing outside itself
	if !hasInline {
		loader.files = env.Files
	}
	comp := jsonschemax.NewCompiler(loader)
	if err := comp.AddResource(loc, doc); err != nil {
		return nil, check.Errorf(path, "%v", err)
	}
	sch, err := comp.Compile(loc)
	if err != nil {
		return nil, schemaCompileError(path, hasInline, err)
	}
	c.schema = sch
	return c, nil
}

// schemaCompileError describes why a schema does not compile, at path
// ("schema" or "schemaFile"). A schema that is not a valid JSON Schema is
// described by its violations of the metaschema, on one line; for an
// inline schema whose violations are all at one place, the error's path
// points there ("schema.properties.age.type").
func schemaCompileError(path string, inline bool, err error) error {
	var sve *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if !errors.As(err, &sve) || !errors.As(sve.Err, &ve) {
		return check.Errorf(path, "does not compile: %s", schemaErrorText(err))
	}
	vs := jsonschemax.Violations(ve)
	at := inline
	for _, v := range vs {
		at = at && v.Path == vs[0].Path
	}
	if at { // the error's path says where
		path = vouch.JoinPath(path, jsonerr.PointerToPath(vs[0].Path))
	}
	msgs := make([]string, len(vs))
	for i, v := range vs {
		msgs[i] = v.Message
		if !at {
			msgs[i] = v.Display() + ": " + v.Message
		}
	}
	return check.Errorf(path, "is not a valid JSON Schema: %s", strings.Join(msgs, "; "))
}

// schemaErrorText returns a compile error's text without the internal URLs
// this package gives schemas.
func schemaErrorText(err error) string {
	s := err.Error()
	s = strings.ReplaceAll(s, inlineScheme+":///schema.json", "schema")
	return strings.ReplaceAll(s, filesScheme+":///", "")
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// filesLoader loads the schemas a schema refers to, from check.Env.Files
// only.
type filesLoader struct {
	files fs.FS
}

// maxSchemaBytes bounds a schema file.
const maxSchemaBytes = 4 << 20

// readSchemaFile reads a schema file: a regular file (not a FIFO or a
// device) of at most maxSchemaBytes.
func readSchemaFile(fsys fs.FS, name string) ([]byte, error) {
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSchemaBytes+1))
	if err == nil && len(data) > maxSchemaBytes {
		err = fmt.Errorf("over %d bytes", maxSchemaBytes)
	}
	return data, err
}

// Load implements jsonschema.URLLoader.
func (l filesLoader) Load(loc string) (any, error) {
	u, err := url.Parse(loc)
	if err != nil || u.Scheme != filesScheme || l.files == nil {
		return nil, fmt.Errorf("refers to %s: schemas may refer only to other schema files", loc)
	}
	name := strings.TrimPrefix(u.Path, "/")
	if !fs.ValidPath(name) {
		return nil, fmt.Errorf("refers to %q, which is not inside the schema files", name)
	}
	data, err := readSchemaFile(l.files, name)
	if err != nil {
		return nil, fmt.Errorf("cannot read %q: %w", name, unwrapPathError(err))
	}
	return jsonschema.UnmarshalJSON(strings.NewReader(string(data)))
}

// instanceKey is the memo key of a target's decoded JSON, as the schema
// validator wants it (numbers as json.Number).
type instanceKey string

type instance struct {
	v   any
	err error
}

// Check implements vouch.Checker.
func (c *schemaChecker) Check(_ context.Context, s *vouch.Subject) vouch.Outcome {
	doc, out, ok := checkJSON(s, c.target)
	if !ok {
		return out
	}
	inst := s.Memo(instanceKey(c.target), func() any {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc.body))
		return instance{v, err}
	}).(instance)
	ev := map[string]any{
		"target": targetName(c.target),
		"source": doc.source,
		"schema": c.name,
	}
	subject := "the JSON of " + targetPhrase(c.target)
	if inst.err != nil { // validJSON accepted it; cannot happen
		o := vouch.Undecided(vouch.CodeJSONInvalid, fmt.Sprintf("cannot decode %s: %v", subject, inst.err))
		o.Evidence = ev
		return o
	}
	err := c.schema.Validate(inst.v)
	if err == nil {
		return vouch.Pass(fmt.Sprintf("%s is valid against the %s", subject, c.name), ev)
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		o := vouch.Undecided(vouch.CodeCheckUnavailable, fmt.Sprintf("cannot validate %s: %v", subject, err))
		o.Evidence = ev
		return o
	}
	vs := jsonschemax.Violations(ve)
	shown := vs[:min(len(vs), maxViolations)]
	list := make([]map[string]any, len(shown))
	fix := make([]string, len(shown))
	for i, v := range shown {
		list[i] = map[string]any{"path": v.Path, "message": v.Message}
		fix[i] = v.Display() + ": " + v.Message
	}
	ev["violations"] = list
	if len(vs) > len(shown) {
		ev["violationsOmitted"] = len(vs) - len(shown)
	}
	noun := "violation"
	if len(vs) > 1 {
		noun = "violations"
	}
	o := vouch.Fail(vouch.CodeSchemaViolation,
		fmt.Sprintf("%s is not valid against the %s: %d %s, first %s", subject, c.name, len(vs), noun, fix[0]), ev)
	o.Fix = fix
	return o
}
