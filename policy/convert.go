package policy

import (
	stdjson "encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"go.yaml.in/yaml/v3"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/jsonerr"
)

// The Go types the converter treats specially.
var (
	policyType   = reflect.TypeFor[vouch.Policy]()
	durationType = reflect.TypeFor[vouch.Duration]()
	rawType      = reflect.TypeFor[stdjson.RawMessage]()
	ruleType     = reflect.TypeFor[vouch.CommandRule]()
	wordsType    = reflect.TypeFor[[]string]()
)

// fields maps a struct type's JSON names to its fields, in struct order.
type fields struct {
	byName map[string]reflect.StructField
	names  []string
}

var fieldCache sync.Map // reflect.Type -> *fields

func structFields(t reflect.Type) *fields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*fields)
	}
	fs := &fields{byName: make(map[string]reflect.StructField)}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs.byName[name] = f
		fs.names = append(fs.names, name)
	}
	f, _ := fieldCache.LoadOrStore(t, fs)
	return f.(*fields)
}

// converter walks a document's node tree against the Go type it must
// decode into, reports every problem with its position, and writes the
// document as JSON, aliases resolved and merge keys applied.
type converter struct {
	buf    []byte
	pos    map[string]position
	errs   vouch.Errors
	nodes  int
	active map[*yaml.Node]bool
	// abort stops the walk once a limit is hit.
	abort bool
}

func newConverter() *converter {
	return &converter{pos: make(map[string]position), active: make(map[*yaml.Node]bool)}
}

// maxErrors bounds the problems reported for one document: past it, the
// rest are noise.
const maxErrors = 100

func (c *converter) fail(code vouch.ErrorCode, n *yaml.Node, path, format string, args ...any) {
	if c.abort {
		return
	}
	e := &vouch.Error{Code: code, Path: path, Message: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	if len(c.errs) == maxErrors {
		e = &vouch.Error{Code: vouch.ErrTooLarge, Line: e.Line, Column: e.Column, Message: fmt.Sprintf("more than %d problems; the rest are not reported", maxErrors)}
		c.abort = true
	}
	c.errs = append(c.errs, e)
}

// count counts one more value of the expansion and stops the walk past the
// limits.
func (c *converter) count(n *yaml.Node) bool {
	if c.abort {
		return false
	}
	c.nodes++
	switch {
	case c.nodes > maxNodes:
		c.fail(vouch.ErrTooLarge, n, "", "the policy expands to more than %d values (YAML aliases?)", maxNodes)
	case len(c.buf) > maxJSONBytes:
		c.fail(vouch.ErrTooLarge, n, "", "the policy expands to more than %d bytes of JSON (YAML aliases?)", maxJSONBytes)
	default:
		return !c.abort
	}
	c.abort = true
	return false
}

// deref resolves an alias to the node it names. It returns nil, after
// reporting the problem, when the alias refers to a node that contains it.
// release must be called when the caller is done with the node.
func (c *converter) deref(n *yaml.Node, path string) (target *yaml.Node, release func()) {
	if n.Kind != yaml.AliasNode {
		return n, func() {}
	}
	t := n.Alias
	if t == nil || c.active[t] {
		c.fail(vouch.ErrInvalid, n, path, "alias *%s refers to a value that contains it", n.Value)
		return nil, nil
	}
	c.active[t] = true
	return t, func() { delete(c.active, t) }
}

// want describes what a Go type must be written as.
func want(t reflect.Type) string {
	switch {
	case t == nil || t == rawType:
		return "JSON value"
	case t == durationType:
		return "duration"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "mapping"
	case reflect.Slice:
		return "list"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	}
	return t.String()
}

// scalarKind names a scalar's YAML type as a JSON type, or "" for a tag that
// has no JSON form.
func scalarKind(n *yaml.Node) string {
	switch n.ShortTag() {
	case "!!null":
		return "null"
	case "!!bool":
		return "boolean"
	case "!!int", "!!float":
		return "number"
	case "!!str", "!!timestamp", "!!merge":
		return "string"
	}
	return ""
}

// got describes a node for a type error.
func got(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		k := scalarKind(n)
		if k == "string" {
			return fmt.Sprintf("string %q", truncate(n.Value, 40))
		}
		if k == "number" || k == "boolean" {
			return fmt.Sprintf("%s %s", k, truncate(n.Value, 40))
		}
		if k == "" {
			return "value tagged " + n.Tag
		}
		return k
	}
	return "value"
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

// value converts node n, which must fit Go type t (nil: any JSON value),
// at path.
func (c *converter) value(n *yaml.Node, t reflect.Type, path string, top bool) {
	if !c.count(n) {
		return
	}
	if n.Kind == yaml.AliasNode {
		target, release := c.deref(n, path)
		if target == nil {
			return
		}
		defer release()
		c.value(target, t, path, top)
		return
	}
	if t == rawType {
		// A plugin's schema: a JSON Schema is an object or a boolean.
		if top && n.Kind != yaml.MappingNode && !(n.Kind == yaml.ScalarNode && scalarKind(n) == "boolean") {
			c.fail(vouch.ErrType, n, path, "got %s, want a JSON Schema (a mapping or a boolean)", got(n))
			return
		}
		t = nil
	}
	if t == nil {
		c.free(n, path)
		return
	}
	if n.Kind == yaml.ScalarNode && scalarKind(n) == "null" {
		c.fail(vouch.ErrType, n, path, "got null, want %s (leave the key out to keep the value in force)", want(t))
		return
	}
	if t == durationType {
		c.duration(n, path)
		return
	}
	if t == ruleType && n.Kind == yaml.SequenceNode {
		c.ruleList(n, path)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			c.fail(vouch.ErrType, n, path, "got %s, want mapping", got(n))
			return
		}
		fs := structFields(t)
		c.buf = append(c.buf, '{')
		first := true
		for _, kv := range c.pairs(n, path) {
			f, ok := fs.byName[kv.name]
			if !ok {
				c.fail(vouch.ErrUnknownField, kv.key, jsonerr.JoinKey(path, kv.name), "unknown field%s", suggest(kv.name, fs.names))
				continue
			}
			c.member(kv, f.Type, path, &first)
		}
		c.buf = append(c.buf, '}')
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			c.fail(vouch.ErrType, n, path, "got %s, want mapping", got(n))
			return
		}
		c.buf = append(c.buf, '{')
		first := true
		for _, kv := range c.pairs(n, path) {
			c.member(kv, t.Elem(), path, &first)
		}
		c.buf = append(c.buf, '}')
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			c.fail(vouch.ErrType, n, path, "got %s, want list", got(n))
			return
		}
		c.buf = append(c.buf, '[')
		for i, e := range n.Content {
			if i > 0 {
				c.buf = append(c.buf, ',')
			}
			p := path + "[" + strconv.Itoa(i) + "]"
			c.pos[p] = position{e.Line, e.Column, e.Line, e.Column}
			c.value(e, t.Elem(), p, true)
		}
		c.buf = append(c.buf, ']')
	default:
		c.scalar(n, t, path)
	}
}

// ruleList converts a command rule in its list form: the program's words,
// then only flags.
func (c *converter) ruleList(n *yaml.Node, path string) {
	flags := false
	for i, e := range n.Content {
		if e.Kind != yaml.ScalarNode {
			continue // reported by the conversion below
		}
		isFlag := i > 0 && strings.HasPrefix(e.Value, "-")
		if flags && !isFlag {
			c.fail(vouch.ErrInvalid, e, path+"["+strconv.Itoa(i)+"]",
				"%q follows a flag: in a rule's list form the program's words come first, then only flags (write {run, flags, args} for more)", truncate(e.Value, 40))
		}
		flags = flags || isFlag
	}
	c.value(n, wordsType, path, true)
}

// member writes one key and its value of a mapping.
func (c *converter) member(kv pair, t reflect.Type, path string, first *bool) {
	p := jsonerr.JoinKey(path, kv.name)
	c.pos[p] = position{kv.key.Line, kv.key.Column, kv.val.Line, kv.val.Column}
	if !*first {
		c.buf = append(c.buf, ',')
	}
	*first = false
	c.buf, _ = jsontext.AppendQuote(c.buf, kv.name) // names are checked in pairs
	c.buf = append(c.buf, ':')
	c.value(kv.val, t, p, true)
}

// scalar converts a scalar that must fit a number, integer, boolean or
// string type.
func (c *converter) scalar(n *yaml.Node, t reflect.Type, path string) {
	w := want(t)
	if n.Kind != yaml.ScalarNode {
		c.fail(vouch.ErrType, n, path, "got %s, want %s", got(n), w)
		return
	}
	k := scalarKind(n)
	ok := false
	switch w {
	case "number":
		ok = k == "number"
	case "integer":
		ok = k == "number"
		var f float64
		if ok && n.Decode(&f) == nil {
			if f != math.Trunc(f) {
				ok = false
			} else if math.Abs(f) > maxInteger {
				c.fail(vouch.ErrInvalid, n, path, "%s is out of range", truncate(n.Value, 40))
				return
			}
		}
	case "boolean", "string":
		ok = k == w
	}
	if !ok {
		hint := ""
		if w == "string" && k != "" {
			hint = fmt.Sprintf(` (quote it: "%s")`, truncate(n.Value, 40))
		}
		c.fail(vouch.ErrType, n, path, "got %s, want %s%s", got(n), w, hint)
		return
	}
	c.free(n, path)
}

// maxInteger bounds integers: well inside an int on 64-bit platforms, and
// far beyond any count a policy needs.
const maxInteger = 1 << 53

// maxDurationSeconds bounds a duration written as a number of seconds.
// (9e9 s, about 285 years, keeps seconds × 1e9 inside an int64).
const maxDurationSeconds = 9e9

// duration converts a duration: a Go duration string or a number of
// seconds.
func (c *converter) duration(n *yaml.Node, path string) {
	if n.Kind == yaml.ScalarNode {
		switch scalarKind(n) {
		case "string":
			if _, err := time.ParseDuration(n.Value); err != nil {
				c.fail(vouch.ErrInvalid, n, path, "invalid duration %q (want e.g. \"30s\", \"1m30s\")", truncate(n.Value, 40))
				return
			}
			c.free(n, path)
			return
		case "number":
			var f float64
			if err := n.Decode(&f); err != nil || math.IsNaN(f) || math.Abs(f) > maxDurationSeconds {
				c.fail(vouch.ErrInvalid, n, path, "invalid duration %s (want e.g. \"30s\", or a number of seconds)", truncate(n.Value, 40))
				return
			}
			c.free(n, path)
			return
		}
	}
	c.fail(vouch.ErrType, n, path, "got %s, want duration (e.g. \"30s\")", got(n))
}

// free converts any value to JSON.
func (c *converter) free(n *yaml.Node, path string) {
	switch n.Kind {
	case yaml.AliasNode:
		c.value(n, nil, path, false)
	case yaml.MappingNode:
		c.buf = append(c.buf, '{')
		first := true
		for _, kv := range c.pairs(n, path) {
			c.member(kv, nil, path, &first)
		}
		c.buf = append(c.buf, '}')
	case yaml.SequenceNode:
		c.buf = append(c.buf, '[')
		for i, e := range n.Content {
			if i > 0 {
				c.buf = append(c.buf, ',')
			}
			p := path + "[" + strconv.Itoa(i) + "]"
			c.pos[p] = position{e.Line, e.Column, e.Line, e.Column}
			c.value(e, nil, p, false)
		}
		c.buf = append(c.buf, ']')
	case yaml.ScalarNode:
		c.scalarJSON(n, path)
	default:
		c.fail(vouch.ErrType, n, path, "got %s, want a JSON value", got(n))
	}
}

// scalarJSON writes a scalar as JSON.
func (c *converter) scalarJSON(n *yaml.Node, path string) {
	switch tag := n.ShortTag(); tag {
	case "!!null":
		c.buf = append(c.buf, "null"...)
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			c.fail(vouch.ErrType, n, path, "%q is not a boolean", truncate(n.Value, 40))
			return
		}
		c.buf = strconv.AppendBool(c.buf, b)
	case "!!int":
		var v any
		if err := n.Decode(&v); err != nil {
			c.fail(vouch.ErrType, n, path, "%q is not an integer", truncate(n.Value, 40))
			return
		}
		switch v := v.(type) {
		case int:
			c.buf = strconv.AppendInt(c.buf, int64(v), 10)
		case int64:
			c.buf = strconv.AppendInt(c.buf, v, 10)
		case uint64:
			c.buf = strconv.AppendUint(c.buf, v, 10)
		case float64:
			c.float(n, path, v)
		default:
			c.fail(vouch.ErrType, n, path, "%q is not an integer", truncate(n.Value, 40))
		}
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			c.fail(vouch.ErrType, n, path, "%q is not a number", truncate(n.Value, 40))
			return
		}
		c.float(n, path, f)
	case "!!str", "!!timestamp", "!!merge":
		b, err := jsontext.AppendQuote(c.buf, n.Value)
		if err != nil {
			c.fail(vouch.ErrInvalid, n, path, "the string is not valid UTF-8")
			return
		}
		c.buf = b
	default:
		c.fail(vouch.ErrType, n, path, "unsupported YAML tag %s (want a JSON value)", n.Tag)
	}
}

func (c *converter) float(n *yaml.Node, path string, f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		c.fail(vouch.ErrType, n, path, "%s is not a finite number", truncate(n.Value, 40))
		return
	}
	if f == 0 {
		f = 0 // no negative zero: JSON texts stay canonical
	}
	c.buf = strconv.AppendFloat(c.buf, f, 'g', -1, 64)
}

// pair is one key and value of a mapping, merge keys applied.
type pair struct {
	name     string
	key, val *yaml.Node
}

// pairs returns the keys and values of mapping n: its own, then those merged
// in with "<<" that it does not set itself. Duplicate keys and keys that are
// not strings are reported.
func (c *converter) pairs(n *yaml.Node, path string) []pair {
	var out []pair
	seen := make(map[string]bool, len(n.Content)/2)
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !c.count(k) {
			return out
		}
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		name, ok := c.keyName(k, path)
		if !ok {
			continue
		}
		if seen[name] {
			c.fail(vouch.ErrInvalid, k, jsonerr.JoinKey(path, name), "duplicate key")
			continue
		}
		seen[name] = true
		out = append(out, pair{name, k, v})
	}
	for _, m := range merges {
		out = c.merge(m, path, seen, out)
	}
	return out
}

// keyName returns the name a mapping key stands for.
func (c *converter) keyName(k *yaml.Node, path string) (string, bool) {
	t, release := c.deref(k, path)
	if t == nil {
		return "", false
	}
	defer release()
	if t.Kind != yaml.ScalarNode || scalarKind(t) == "" {
		c.fail(vouch.ErrType, k, path, "got %s as a key, want a string", got(t))
		return "", false
	}
	if !utf8Valid(t.Value) {
		c.fail(vouch.ErrInvalid, k, path, "a key is not valid UTF-8")
		return "", false
	}
	return t.Value, true
}

func utf8Valid(s string) bool {
	_, err := jsontext.AppendQuote(nil, s)
	return err == nil
}

// merge adds the pairs of a merge key's value (a mapping or a list of
// mappings, often aliases) that are not in seen; earlier mappings win.
func (c *converter) merge(v *yaml.Node, path string, seen map[string]bool, out []pair) []pair {
	t, release := c.deref(v, path)
	if t == nil {
		return out
	}
	defer release()
	switch t.Kind {
	case yaml.MappingNode:
		for _, kv := range c.pairs(t, path) {
			if !seen[kv.name] {
				seen[kv.name] = true
				out = append(out, kv)
			}
		}
	case yaml.SequenceNode:
		for _, e := range t.Content {
			if !c.count(e) {
				return out
			}
			m, release := c.deref(e, path)
			if m == nil {
				continue
			}
			if m.Kind != yaml.MappingNode {
				c.fail(vouch.ErrType, e, path, "got %s in a merge (<<), want mapping", got(m))
			} else {
				out = c.merge(m, path, seen, out)
			}
			release()
		}
	default:
		c.fail(vouch.ErrType, v, path, "got %s in a merge (<<), want a mapping or a list of mappings", got(t))
	}
	return out
}

// suggest returns a hint naming the known key closest to name.
func suggest(name string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if strings.EqualFold(k, name) {
			return fmt.Sprintf(" (did you mean %q?)", k)
		}
		if d := editDistance(strings.ToLower(name), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	if best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return " (want one of " + strings.Join(known, ", ") + ")"
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// sortErrors orders errors by position, keeping the order of errors at the
// same position; a limit hit (which stopped the walk) comes last.
func sortErrors(errs vouch.Errors) {
	slices.SortStableFunc(errs, func(a, b *vouch.Error) int {
		if (a.Code == vouch.ErrTooLarge) != (b.Code == vouch.ErrTooLarge) {
			if a.Code == vouch.ErrTooLarge {
				return 1
			}
			return -1
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
}
