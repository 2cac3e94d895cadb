package policy

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/strict"
)

// Limits on one policy document. A policy is a page of settings; anything
// near these limits is a mistake or an attack (a YAML alias bomb).
const (
	// maxInputBytes bounds the size of a policy file or a task.policy.
	maxInputBytes = 1 << 20
	// maxJSONBytes bounds the JSON a YAML document expands to, aliases
	// resolved.
	maxJSONBytes = 1 << 20
	// maxNodes bounds the values (and merged keys) a YAML document expands
	// to, aliases resolved.
	maxNodes = 10000
)

// readOptions are how a policy document is read; a request's task.policy
// is JSON only.
func readOptions(jsonOnly bool) strict.Options {
	return strict.Options{What: "policy", MaxBytes: maxInputBytes, MaxNodes: maxNodes, MaxJSONBytes: maxJSONBytes, JSON: jsonOnly}
}

// policyType is the Go type a policy document decodes into.
var policyType = reflect.TypeFor[vouch.Policy]()

// plainRule is a command rule in its mapping form, without the list form
// vouch.CommandRule also reads.
type plainRule vouch.CommandRule

// schema is the shape of a policy document, built once. Type errors speak
// YAML (a policy is written by people), and documents are decoded in their
// canonical form: a layer's JSON reads the same whatever its source's
// spelling, and [Show] writes it back to the same policy.
var schema = sync.OnceValue(func() *strict.Schema {
	return strict.NewSchema(policyType, strict.SchemaOptions{
		YAMLWords: true,
		NullHint:  " (leave the key out to keep the value in force)",
		Canonical: true,
		Rules: map[reflect.Type]strict.Rule{
			reflect.TypeFor[vouch.Duration](): durationRule,
			reflect.TypeFor[vouch.CommandRule](): {
				Want:  "list or mapping",
				Forms: map[jsontext.Kind]reflect.Type{'[': reflect.TypeFor[[]string](), '{': reflect.TypeFor[plainRule]()},
				Check: checkRuleList,
			},
			// A plugin's schema (pluginSchemas.*): a JSON Schema is an
			// object or a boolean.
			reflect.TypeFor[stdjson.RawMessage](): {
				Want:  "a JSON Schema (a mapping or a boolean)",
				Forms: map[jsontext.Kind]reflect.Type{'{': nil, 't': nil},
			},
		},
	})
})

// durationRule reads a [vouch.Duration]: a Go duration string or a number
// of seconds.
var durationRule = strict.Rule{
	Want:  `duration (e.g. "30s")`,
	Forms: map[jsontext.Kind]reflect.Type{'"': reflect.TypeFor[string](), '0': reflect.TypeFor[float64]()},
	Check: checkDuration,
}

// policyKeys are the top-level keys of a policy, in the order of
// [vouch.Policy]'s fields.
var policyKeys = sync.OnceValue(func() []string {
	var keys []string
	for i := range policyType.NumField() {
		name, _, _ := strings.Cut(policyType.Field(i).Tag.Get("json"), ",")
		keys = append(keys, name)
	}
	return keys
})

// maxDurationSeconds bounds a duration written as a number of seconds.
// (9e9 s, about 285 years, keeps seconds × 1e9 inside an int64).
const maxDurationSeconds = 9e9

// checkDuration checks a duration: a Go duration string or a number of
// seconds.
func checkDuration(v jsontext.Value) []strict.Problem {
	switch v.Kind() {
	case '"':
		s := unquote(v)
		if _, err := time.ParseDuration(s); err != nil {
			return []strict.Problem{{Code: vouch.ErrInvalid, Message: fmt.Sprintf("invalid duration %q (want e.g. \"30s\", \"1m30s\")", truncate(s, 40))}}
		}
	case '0':
		if f, err := strconv.ParseFloat(string(v), 64); err != nil || math.Abs(f) > maxDurationSeconds {
			return []strict.Problem{{Code: vouch.ErrInvalid, Message: fmt.Sprintf("invalid duration %s (want e.g. \"30s\", or a number of seconds)", truncate(string(v), 40))}}
		}
	}
	return nil
}

// checkRuleList checks a command rule in its list form: the program's
// words, then only flags.
func checkRuleList(v jsontext.Value) []strict.Problem {
	if v.Kind() != '[' {
		return nil
	}
	var out []strict.Problem
	dec := jsontext.NewDecoder(bytes.NewReader(v))
	if _, err := dec.ReadToken(); err != nil {
		return nil
	}
	flags := false
	for i := 0; dec.PeekKind() != ']'; i++ {
		off := int(dec.InputOffset())
		for off < len(v) && strings.IndexByte(" \t\r\n,", v[off]) >= 0 {
			off++
		}
		e, err := dec.ReadValue()
		if err != nil {
			return out
		}
		if e.Kind() != '"' {
			continue // reported as a type error
		}
		word := unquote(e)
		isFlag := i > 0 && strings.HasPrefix(word, "-")
		if flags && !isFlag {
			out = append(out, strict.Problem{
				At: "[" + strconv.Itoa(i) + "]", Offset: off, Code: vouch.ErrInvalid,
				Message: fmt.Sprintf("%q follows a flag: in a rule's list form the program's words come first, then only flags (write {run, flags, args} for more)", truncate(word, 40)),
			})
		}
		flags = flags || isFlag
	}
	return out
}

func unquote(v jsontext.Value) string {
	u, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return string(v)
	}
	return string(u)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// kindWord names the kind of a document's root, as a YAML reader does.
func kindWord(k jsontext.Kind) string {
	switch k {
	case '[':
		return "list"
	case '"':
		return "string"
	case '0':
		return "number"
	case 't':
		return "boolean"
	}
	return "value"
}

// configSchemas caches the schema of each type [DecodeFile] decodes into.
var configSchemas sync.Map // reflect.Type -> *strict.Schema

// DecodeFile decodes a settings file other than a policy (a server's
// configuration) into v, a pointer to a struct, as strictly as a policy:
// YAML or JSON; unknown keys (with the key meant, when one is close),
// values of the wrong type, null values and duplicate keys are errors
// with their line, column and path; durations read as in a policy
// ("30s", or a number of seconds). Fields of v that the document leaves
// out keep their values, so v can hold the defaults.
func DecodeFile(name string, data []byte, v any) error {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return &vouch.Error{Code: vouch.ErrUsage, Message: "policy.DecodeFile: v must be a pointer to a struct"}
	}
	sc, ok := configSchemas.Load(t.Elem())
	if !ok {
		sc, _ = configSchemas.LoadOrStore(t.Elem(), strict.NewSchema(t.Elem(), strict.SchemaOptions{
			YAMLWords: true,
			NullHint:  " (leave the key out to keep the default)",
			Rules:     map[reflect.Type]strict.Rule{reflect.TypeFor[vouch.Duration](): durationRule},
		}))
	}
	doc, err := strict.Parse(data, strict.Options{What: "configuration", MaxBytes: maxInputBytes, MaxNodes: maxNodes, MaxJSONBytes: maxJSONBytes})
	if err != nil {
		return withFile(vouch.ErrorList(err), name)
	}
	switch k := doc.Kind(); k {
	case 0, 'n':
		return nil
	case '{':
	default:
		_, at, _ := doc.Lookup("")
		return &vouch.Error{Code: vouch.ErrType, File: name, Line: at.Line, Column: at.Column,
			Message: "got " + kindWord(k) + ", want a mapping"}
	}
	// Decode into a copy, so v keeps its defaults when the file is bad.
	tmp := reflect.New(t.Elem())
	tmp.Elem().Set(reflect.ValueOf(v).Elem())
	sc.(*strict.Schema).Decode(doc, tmp.Interface())
	if errs := doc.Errors(); errs != nil {
		return withFile(errs, name)
	}
	reflect.ValueOf(v).Elem().Set(tmp.Elem())
	return nil
}
