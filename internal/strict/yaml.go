package strict

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"go.yaml.in/yaml/v3"

	"github.com/vouchgate/vouch"
)

// A YAML document is parsed into a yaml.Node tree, then written as JSON,
// each value's offset tied to its node (Doc.spans): the JSON takes the same
// path as a JSON document, and what is found on it points into the YAML.

// readYAML parses d.input as one YAML document and converts it.
func (d *Doc) readYAML() *vouch.Error {
	root, err := parseYAML(d.input, d.opt.What)
	if err != nil {
		return err
	}
	d.yaml, d.json, d.spans, d.kind = true, nil, nil, 0
	if root == nil {
		return nil
	}
	size := len(d.input)
	c := converter{
		d:        d,
		buf:      make([]byte, 0, size+size/4),
		maxNodes: d.opt.MaxNodes,
		maxDepth: cmp.Or(d.opt.MaxDepth, DefaultMaxDepth),
		maxBytes: d.opt.MaxJSONBytes,
	}
	if c.maxNodes == 0 {
		c.maxNodes = max(DefaultMaxNodes, size)
	}
	if c.maxBytes == 0 {
		c.maxBytes = int(min(d.opt.MaxBytes*expansion, math.MaxInt32))
	}
	c.spans = make([]span, 0, size/16)
	if err := c.value(root, 0, true); err != nil {
		return err
	}
	d.json, d.spans = c.buf, c.spans
	d.kind = kindOf(jsontext.Value(c.buf).Kind())
	return nil
}

// parseYAML parses data as exactly one YAML document and returns its root
// node (the document node unwrapped), or nil for an empty document. what
// names the input in the error about a second document.
func parseYAML(data []byte, what string) (root *yaml.Node, verr *vouch.Error) {
	defer func() {
		// yaml.v3 reports some malformed input by panicking with errors it
		// does not recover itself; untrusted input must not crash.
		if r := recover(); r != nil {
			root, verr = nil, &vouch.Error{Code: vouch.ErrSyntax, Message: fmt.Sprintf("malformed YAML: %v", r)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, yamlSyntaxError(err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, yamlSyntaxError(err)
	default:
		// The position is where the second document starts.
		return nil, &vouch.Error{Code: vouch.ErrSyntax, Message: fmt.Sprintf("a %s is one YAML document; found a second", what), Line: extra.Line, Column: extra.Column}
	}
	if doc.Kind != yaml.DocumentNode {
		return &doc, nil
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlSyntaxError turns a yaml.v3 error into a syntax error with its line.
func yamlSyntaxError(err error) *vouch.Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	e := &vouch.Error{Code: vouch.ErrSyntax, Err: err}
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		msg = m[2]
		if isParserProblem(msg) {
			// The YAML parser (unlike its scanner) reports 0-based lines:
			// the line where the unfinished list or mapping starts, or of
			// the problem.
			e.Line++
		}
	}
	e.Message = "malformed YAML: " + msg
	return e
}

// isParserProblem reports whether a YAML error message comes from the
// parser rather than the scanner.
func isParserProblem(msg string) bool {
	for _, p := range []string{"did not find expected", "found undefined tag handle", "found duplicate %", "found incompatible YAML document"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// converter writes a yaml.Node tree as JSON. A value that has no JSON form
// is reported and written as null; a key that cannot be one is reported and
// its member left out; a limit hit ends the conversion.
type converter struct {
	d        *Doc
	buf      []byte
	spans    []span
	nodes    int
	maxNodes int
	maxDepth int
	maxBytes int
	path     []seg        // where the converter is, for problems
	aliases  []*yaml.Node // the anchored nodes being expanded, to catch cycles
	// outer is the outermost alias being expanded and outerDepth the length
	// of path there: a limit hit is reported at it.
	outer      *yaml.Node
	outerDepth int
}

// seg is one step of a path: a key, or an index when key is nil.
type seg struct {
	key []byte // a key as written in JSON, quotes included
	idx int
}

// formatPath writes a path as a dotted string.
func formatPath(segs []seg) string {
	var b strings.Builder
	for _, s := range segs {
		if s.key == nil {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.idx))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(unquote(s.key))
	}
	return b.String()
}

// unquote returns the text of a JSON string.
func unquote(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 && len(raw) >= 2 {
		return string(raw[1 : len(raw)-1])
	}
	u, err := jsontext.AppendUnquote(nil, raw)
	if err != nil {
		return string(raw)
	}
	return string(u)
}

// problem reports a problem at node n, at the converter's path.
func (c *converter) problem(n *yaml.Node, code vouch.ErrorCode, msg string, covers bool) {
	if c.d.full() {
		c.d.more++
		return
	}
	c.d.add(&vouch.Error{Code: code, Path: formatPath(c.path), Message: msg, Line: n.Line, Column: n.Column}, -1, covers)
}

// tooLarge returns a limit error, at the outermost alias being expanded if
// there is one: that is the place to look at.
func (c *converter) tooLarge(n *yaml.Node, msg string) *vouch.Error {
	path := c.path
	if c.outer != nil {
		n, path = c.outer, c.path[:c.outerDepth]
		msg += " (expanding alias *" + c.outer.Value + ")"
	}
	return &vouch.Error{Code: vouch.ErrTooLarge, Path: formatPath(path), Message: msg, Line: n.Line, Column: n.Column}
}

// null writes null for a value that has no JSON form.
func (c *converter) null() { c.buf = append(c.buf, "null"...) }

// value writes node n; with record, its offset is tied to it (an alias's
// target is not: the alias stands where the value is).
func (c *converter) value(n *yaml.Node, depth int, record bool) *vouch.Error {
	if depth > c.maxDepth {
		return c.tooLarge(n, fmt.Sprintf("YAML nested more than %d levels deep", c.maxDepth))
	}
	c.nodes++
	if c.nodes > c.maxNodes {
		return c.tooLarge(n, fmt.Sprintf("YAML holds more than %d values once aliases are expanded", c.maxNodes))
	}
	if len(c.buf) > c.maxBytes {
		return c.tooLarge(n, fmt.Sprintf("YAML expands to more than %d bytes of JSON once aliases are expanded", c.maxBytes))
	}
	if record {
		c.spans = append(c.spans, span{len(c.buf), n})
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			c.problem(n, vouch.ErrSyntax, "unknown anchor *"+n.Value, true)
			c.null()
			return nil
		}
		for _, a := range c.aliases {
			if a == n.Alias {
				c.problem(n, vouch.ErrInvalid, "alias *"+n.Value+" refers to a value that contains it", true)
				c.null()
				return nil
			}
		}
		if c.outer == nil {
			c.outer, c.outerDepth = n, len(c.path)
			defer func() { c.outer = nil }()
		}
		c.aliases = append(c.aliases, n.Alias)
		err := c.value(n.Alias, depth+1, false)
		c.aliases = c.aliases[:len(c.aliases)-1]
		return err
	case yaml.MappingNode:
		return c.mapping(n, depth)
	case yaml.SequenceNode:
		c.buf = append(c.buf, '[')
		for i, e := range n.Content {
			if i > 0 {
				c.buf = append(c.buf, ',')
			}
			c.path = append(c.path, seg{idx: i})
			if err := c.value(e, depth+1, true); err != nil {
				return err
			}
			c.path = c.path[:len(c.path)-1]
		}
		c.buf = append(c.buf, ']')
		return nil
	case yaml.ScalarNode:
		c.scalar(n)
		return nil
	}
	c.problem(n, vouch.ErrSyntax, "unexpected YAML node", true)
	c.null()
	return nil
}

// member is one key and value of a mapping, merged keys included.
type member struct {
	name       string
	key, value *yaml.Node
}

func (c *converter) mapping(n *yaml.Node, depth int) *vouch.Error {
	members, err := c.members(n, depth, nil)
	if err != nil {
		return err
	}
	c.buf = append(c.buf, '{')
	for i, m := range members {
		if i > 0 {
			c.buf = append(c.buf, ',')
		}
		c.spans = append(c.spans, span{len(c.buf), m.key})
		start := len(c.buf)
		c.buf, _ = jsontext.AppendQuote(c.buf, m.name) // names are checked in members
		c.buf = append(c.buf, ':')
		c.path = append(c.path, seg{key: c.buf[start : len(c.buf)-1 : len(c.buf)-1]})
		if err := c.value(m.value, depth+1, true); err != nil {
			return err
		}
		c.path = c.path[:len(c.path)-1]
	}
	c.buf = append(c.buf, '}')
	return nil
}

// members lists the members of mapping n: its own keys first (a duplicate
// is reported and left out), then the keys merged in with "<<" that it does
// not have, in merge order (YAML merge key semantics).
func (c *converter) members(n *yaml.Node, depth int, out []member) ([]member, *vouch.Error) {
	own := len(out)
	if out == nil {
		out = make([]member, 0, len(n.Content)/2)
	}
	// Small mappings (the common case) are searched linearly; large ones
	// through an index, so that checking keys stays linear.
	var index map[string]*yaml.Node
	if len(n.Content) > 32 {
		index = make(map[string]*yaml.Node, len(n.Content)/2)
	}
	find := func(name string) *yaml.Node {
		if index != nil {
			return index[name]
		}
		for _, m := range out[own:] {
			if m.name == name {
				return m.key
			}
		}
		return nil
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		dk := deref(k)
		if dk != nil && dk.Kind == yaml.ScalarNode && dk.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		name, ok := c.keyName(k, dk)
		if !ok {
			continue
		}
		if first := find(name); first != nil {
			c.path = append(c.path, seg{key: quote(name)})
			c.problem(k, vouch.ErrInvalid, fmt.Sprintf("duplicate key (first at line %d)", first.Line), false)
			c.path = c.path[:len(c.path)-1]
			continue
		}
		out = append(out, member{name, k, v})
		if index != nil {
			index[name] = k
		}
	}
	for _, m := range merges {
		src := deref(m)
		var sources []*yaml.Node
		switch {
		case src != nil && src.Kind == yaml.MappingNode:
			sources = []*yaml.Node{m}
		case src != nil && src.Kind == yaml.SequenceNode:
			sources = src.Content
		default:
			c.problem(m, vouch.ErrType, "a merge key (<<) takes a mapping or a list of mappings, got "+yamlKind(src), false)
			continue
		}
		for _, s := range sources {
			ds := deref(s)
			if ds == nil || ds.Kind != yaml.MappingNode {
				c.problem(s, vouch.ErrType, "a merge key (<<) takes a mapping or a list of mappings, got "+yamlKind(ds)+" in the list", false)
				continue
			}
			if depth > c.maxDepth {
				return nil, c.tooLarge(s, fmt.Sprintf("YAML nested more than %d levels deep", c.maxDepth))
			}
			c.nodes += len(ds.Content)
			if c.nodes > c.maxNodes {
				return nil, c.tooLarge(s, fmt.Sprintf("YAML holds more than %d values once aliases are expanded", c.maxNodes))
			}
			merged, err := c.members(ds, depth+1, nil)
			if err != nil {
				return nil, err
			}
			if index == nil && len(out)-own+len(merged) > 32 {
				index = make(map[string]*yaml.Node, len(out)-own+len(merged))
				for _, m := range out[own:] {
					index[m.name] = m.key
				}
			}
			for _, mm := range merged {
				if find(mm.name) != nil {
					continue
				}
				out = append(out, mm)
				if index != nil {
					index[mm.name] = mm.key
				}
			}
		}
	}
	return out, nil
}

// keyName returns the name key k (dk once aliases are resolved) stands for,
// or reports why it cannot be one.
func (c *converter) keyName(k, dk *yaml.Node) (string, bool) {
	if dk == nil || dk.Kind != yaml.ScalarNode || !jsonTag(dk.ShortTag()) {
		c.problem(k, vouch.ErrType, "got "+yamlKind(dk)+" as a key, want a string", false)
		return "", false
	}
	if !utf8.ValidString(dk.Value) {
		c.problem(k, vouch.ErrInvalid, "a key is not valid UTF-8", false)
		return "", false
	}
	return dk.Value, true
}

// jsonTag reports whether a scalar of the tag has a JSON form.
func jsonTag(tag string) bool {
	switch tag {
	case "!!str", "!!timestamp", "!!binary", "!!merge", "!!null", "!!bool", "!!int", "!!float":
		return true
	}
	return false
}

func quote(s string) []byte {
	b, _ := jsontext.AppendQuote(nil, s)
	return b
}

// deref resolves aliases (at most 100 deep: anchors cannot nest deeper
// than the document).
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// yamlKind names what a node is, as a YAML reader says it.
func yamlKind(n *yaml.Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!bool":
			return "boolean"
		case "!!int", "!!float":
			return "number"
		case "!!str", "!!timestamp", "!!binary", "!!merge":
			return "string"
		}
		return "a value tagged " + n.Tag
	}
	return "nothing"
}

// scalar writes a scalar as JSON. Strings, timestamps and binary data are
// written as their text, as is "<<" where it is a value.
func (c *converter) scalar(n *yaml.Node) {
	v := n.Value
	switch tag := n.ShortTag(); tag {
	case "!!str", "!!timestamp", "!!binary", "!!merge":
		b, err := jsontext.AppendQuote(c.buf, v)
		if err != nil {
			c.problem(n, vouch.ErrInvalid, "string is not valid UTF-8", true)
			c.null()
			return
		}
		c.buf = b
	case "!!null":
		c.null()
	case "!!bool":
		switch v {
		case "true", "True", "TRUE":
			c.buf = append(c.buf, "true"...)
		case "false", "False", "FALSE":
			c.buf = append(c.buf, "false"...)
		default:
			c.problem(n, vouch.ErrType, fmt.Sprintf("%q is not a boolean", truncate(v, 40)), true)
			c.null()
		}
	case "!!int":
		plain := strings.ReplaceAll(v, "_", "")
		if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
			c.buf = strconv.AppendInt(c.buf, i, 10)
		} else if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
			c.buf = strconv.AppendUint(c.buf, u, 10)
		} else {
			c.problem(n, vouch.ErrInvalid, fmt.Sprintf("%q is not an integer that fits in 64 bits", truncate(v, 40)), true)
			c.null()
		}
	case "!!float":
		f, err := strconv.ParseFloat(strings.ReplaceAll(v, "_", ""), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			c.problem(n, vouch.ErrInvalid, fmt.Sprintf("%q is not a finite number", truncate(v, 40)), true)
			c.null()
			return
		}
		c.buf = appendFloat(c.buf, f)
	default:
		c.problem(n, vouch.ErrType, "unsupported YAML tag "+tag+" (want a JSON value)", true)
		c.null()
	}
}

// appendFloat writes f as the shortest JSON number that reads back as f
// (integers without a fraction or an exponent, never -0).
func appendFloat(b []byte, f float64) []byte {
	if f == 0 {
		f = 0 // no negative zero
	}
	return jsontext.AppendFloat(b, f, 64)
}
