package wire

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"go.yaml.in/yaml/v3"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/yamldoc"
)

// YAML requests are parsed into a yaml.Node tree, converted to JSON and
// decoded by the JSON path, so both formats obey exactly the same rules.
// Errors found on the JSON are then located in the node tree by their
// path, so they report the YAML line and column.

const (
	// yamlMaxDepth bounds the nesting of a YAML document, aliases
	// included. (JSON nesting is bounded by the decoder, at 10000.)
	yamlMaxDepth = 1000
	// yamlMaxNodes bounds the number of values in a YAML document after
	// aliases are expanded, unless the document is larger in bytes (every
	// value takes at least a byte or two without aliases).
	yamlMaxNodes = 1 << 20
	// yamlExpansion bounds the JSON a YAML document converts to, as a
	// multiple of the size limit: escaping can triple a string's length;
	// more than that is alias expansion.
	yamlExpansion = 4
)

// decodeYAML parses data (body is data without its byte order mark) as a
// YAML request.
func decodeYAML(data, body []byte, limit int64) (req *vouch.Request, err error) {
	root, err := parseYAML(body)
	if err != nil {
		return nil, err
	}
	js, err := yamlToJSON(root, len(body), limit)
	if err != nil {
		return nil, err
	}
	req, err = decodeJSON(js, yamlLocator{root})
	if err != nil {
		return nil, err
	}
	finish(req, data)
	return req, nil
}

// yamlToJSON converts the tree of a YAML document of size bytes, under the
// size limit limit, to JSON.
func yamlToJSON(root *yaml.Node, size int, limit int64) ([]byte, error) {
	c := yamlConverter{
		buf:      make([]byte, 0, size+size/4),
		maxBytes: int(min(limit*yamlExpansion, math.MaxInt32)),
		maxNodes: max(yamlMaxNodes, size),
	}
	if err := c.value(root, 0); err != nil {
		return nil, err
	}
	return c.buf, nil
}

// parseYAML parses the single document in data and returns its root, which
// must be a mapping.
func parseYAML(data []byte) (*yaml.Node, error) {
	root, err := yamldoc.Parse(data, "a request")
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, &vouch.Error{Code: vouch.ErrSyntax, Message: "empty request: want a JSON object or a YAML mapping"}
	}
	if n := deref(root); n.Kind != yaml.MappingNode {
		return nil, &vouch.Error{Code: vouch.ErrType, Message: "a request must be a mapping (object), got " + yamlKindName(n), Line: root.Line, Column: root.Column}
	}
	return root, nil
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func yamlKindName(n *yaml.Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return "null"
		}
		return "a scalar"
	}
	return "nothing"
}

// yamlConverter writes a yaml.Node tree as JSON.
type yamlConverter struct {
	buf      []byte
	nodes    int
	maxNodes int
	maxBytes int
	path     []pathSegment // where the converter is, for errors
	aliases  []*yaml.Node  // the anchored nodes being expanded, to catch cycles
	// outer is the outermost alias being expanded and outerDepth the length
	// of path there: errors about expansion size are reported at it.
	outer      *yaml.Node
	outerDepth int
}

// tooLarge reports an expansion limit, at the outermost alias being
// expanded if there is one: that is the place to look at.
func (c *yamlConverter) tooLarge(n *yaml.Node, msg string) *vouch.Error {
	if c.outer != nil {
		d := *c
		d.path = c.path[:c.outerDepth]
		return d.fail(c.outer, vouch.ErrTooLarge, msg+" (expanding alias *"+c.outer.Value+")")
	}
	return c.fail(n, vouch.ErrTooLarge, msg)
}

func (c *yamlConverter) fail(n *yaml.Node, code vouch.ErrorCode, msg string) *vouch.Error {
	path := ""
	for _, s := range c.path {
		if s.idx >= 0 {
			path = at(path, s.idx)
		} else {
			path = vouch.JoinPath(path, s.key)
		}
	}
	e := &vouch.Error{Code: code, Path: path, Message: msg}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	return e
}

func (c *yamlConverter) value(n *yaml.Node, depth int) error {
	if depth > yamlMaxDepth {
		return c.tooLarge(n, fmt.Sprintf("YAML nested more than %d levels deep", yamlMaxDepth))
	}
	c.nodes++
	if c.nodes > c.maxNodes {
		return c.tooLarge(n, fmt.Sprintf("YAML holds more than %d values once aliases are expanded", c.maxNodes))
	}
	if len(c.buf) > c.maxBytes {
		return c.tooLarge(n, fmt.Sprintf("YAML expands to more than %d bytes of JSON once aliases are expanded", c.maxBytes))
	}
	switch n.Kind {
	case yaml.AliasNode:
		for _, a := range c.aliases {
			if a == n.Alias {
				return c.fail(n, vouch.ErrInvalid, "alias *"+n.Value+" refers to a node that contains it")
			}
		}
		if n.Alias == nil {
			return c.fail(n, vouch.ErrSyntax, "unknown anchor *"+n.Value)
		}
		if c.outer == nil {
			c.outer, c.outerDepth = n, len(c.path)
			defer func() { c.outer = nil }()
		}
		c.aliases = append(c.aliases, n.Alias)
		err := c.value(n.Alias, depth+1)
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
			c.path = append(c.path, pathSegment{idx: i})
			if err := c.value(e, depth+1); err != nil {
				return err
			}
			c.path = c.path[:len(c.path)-1]
		}
		c.buf = append(c.buf, ']')
		return nil
	case yaml.ScalarNode:
		return c.scalar(n)
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return c.value(n.Content[0], depth+1)
		}
	}
	return c.fail(n, vouch.ErrSyntax, "unexpected YAML node")
}

// member is one key and value of a mapping, merged keys included.
type member struct {
	key, value *yaml.Node
}

func (c *yamlConverter) mapping(n *yaml.Node, depth int) error {
	members, err := c.members(n, depth, nil)
	if err != nil {
		return err
	}
	c.buf = append(c.buf, '{')
	for i, m := range members {
		if i > 0 {
			c.buf = append(c.buf, ',')
		}
		c.buf, err = jsontext.AppendQuote(c.buf, m.key.Value)
		if err != nil {
			return c.fail(m.key, vouch.ErrSyntax, "mapping key is not valid UTF-8")
		}
		c.buf = append(c.buf, ':')
		c.path = append(c.path, pathSegment{key: m.key.Value, idx: -1})
		if err := c.value(m.value, depth+1); err != nil {
			return err
		}
		c.path = c.path[:len(c.path)-1]
	}
	c.buf = append(c.buf, '}')
	return nil
}

// members lists the members of mapping n: its own keys first (a duplicate is
// an error), then the keys merged in with "<<" that it does not have, in
// merge order (YAML merge key semantics).
func (c *yamlConverter) members(n *yaml.Node, depth int, out []member) ([]member, error) {
	own := len(out)
	// Small mappings (the common case) are searched linearly; large ones
	// through an index, so that checking keys stays linear.
	var index map[string]*yaml.Node
	if len(n.Content) > 32 {
		index = make(map[string]*yaml.Node, len(n.Content)/2)
	}
	find := func(key string) *yaml.Node {
		if index != nil {
			return index[key]
		}
		for _, m := range out[own:] {
			if m.key.Value == key {
				return m.key
			}
		}
		return nil
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		dk := deref(k)
		if dk == nil || dk.Kind != yaml.ScalarNode {
			return nil, c.fail(k, vouch.ErrType, "mapping keys must be strings")
		}
		if dk.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if first := find(dk.Value); first != nil {
			return nil, c.withKey(dk.Value).fail(dk, vouch.ErrInvalid, fmt.Sprintf("duplicate key (first at line %d)", first.Line))
		}
		out = append(out, member{dk, v})
		if index != nil {
			index[dk.Value] = dk
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
			return nil, c.fail(m, vouch.ErrType, "a merge key (<<) takes a mapping or a list of mappings")
		}
		for _, s := range sources {
			ds := deref(s)
			if ds == nil || ds.Kind != yaml.MappingNode {
				return nil, c.fail(s, vouch.ErrType, "a merge key (<<) takes a mapping or a list of mappings")
			}
			if depth > yamlMaxDepth {
				return nil, c.tooLarge(s, fmt.Sprintf("YAML nested more than %d levels deep", yamlMaxDepth))
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
					index[m.key.Value] = m.key
				}
			}
			for _, mm := range merged {
				if find(mm.key.Value) != nil {
					continue
				}
				out = append(out, mm)
				if index != nil {
					index[mm.key.Value] = mm.key
				}
			}
		}
	}
	return out, nil
}

// withKey returns c with key appended to its path, for an error about a key.
func (c *yamlConverter) withKey(key string) *yamlConverter {
	d := *c
	d.path = append(c.path[:len(c.path):len(c.path)], pathSegment{key: key, idx: -1})
	return &d
}

func (c *yamlConverter) scalar(n *yaml.Node) error {
	v := n.Value
	switch tag := n.ShortTag(); tag {
	case "!!str", "!!timestamp", "!!binary":
		var err error
		c.buf, err = jsontext.AppendQuote(c.buf, v)
		if err != nil {
			return c.fail(n, vouch.ErrSyntax, "string is not valid UTF-8")
		}
	case "!!null":
		c.buf = append(c.buf, "null"...)
	case "!!bool":
		switch v {
		case "true", "True", "TRUE":
			c.buf = append(c.buf, "true"...)
		case "false", "False", "FALSE":
			c.buf = append(c.buf, "false"...)
		default:
			return c.fail(n, vouch.ErrType, fmt.Sprintf("%q is not a boolean", v))
		}
	case "!!int":
		plain := strings.ReplaceAll(v, "_", "")
		if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
			c.buf = strconv.AppendInt(c.buf, i, 10)
		} else if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
			c.buf = strconv.AppendUint(c.buf, u, 10)
		} else {
			return c.fail(n, vouch.ErrInvalid, fmt.Sprintf("%q is not an integer that fits in 64 bits", v))
		}
	case "!!float":
		f, err := strconv.ParseFloat(strings.ReplaceAll(v, "_", ""), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return c.fail(n, vouch.ErrInvalid, fmt.Sprintf("%q is not a finite number", v))
		}
		c.buf = jsontext.AppendFloat(c.buf, f, 64)
	default:
		return c.fail(n, vouch.ErrType, "unsupported YAML tag "+tag)
	}
	return nil
}

// yamlLocator places errors found on the converted JSON in the YAML.
type yamlLocator struct{ root *yaml.Node }

func (l yamlLocator) locate(errs []*vouch.Error) {
	for _, e := range errs {
		if e.Path == "" {
			e.Line, e.Column = 0, 0 // a position in the converted JSON means nothing here
			continue
		}
		n := yamlFind(l.root, splitPath(e.Path), e.Code == vouch.ErrUnknownField)
		if n == nil {
			e.Line, e.Column = 0, 0
			continue
		}
		e.Line, e.Column = n.Line, n.Column
	}
}

// yamlFind returns the node at path, or the deepest node on the way to it
// when the path does not exist (a missing member). With key set, a path
// ending in a mapping key returns the key node rather than the value.
func yamlFind(n *yaml.Node, segs []pathSegment, key bool) *yaml.Node {
	for i, s := range segs {
		d := deref(n)
		if d == nil {
			return n
		}
		var next, keyNode *yaml.Node
		switch {
		case s.idx >= 0 && d.Kind == yaml.SequenceNode:
			if s.idx < len(d.Content) {
				next = d.Content[s.idx]
			}
		case s.idx < 0 && d.Kind == yaml.MappingNode:
			keyNode, next = lookupKey(d, s.key, 0)
		}
		if next == nil {
			return n
		}
		if key && i == len(segs)-1 && keyNode != nil {
			return keyNode
		}
		n = next
	}
	return n
}

// lookupKey finds key in mapping m, its own keys first, then merged ones.
func lookupKey(m *yaml.Node, key string, depth int) (k, v *yaml.Node) {
	if depth > 10 {
		return nil, nil
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		dk := deref(m.Content[i])
		if dk == nil {
			continue
		}
		if dk.ShortTag() == "!!merge" {
			merges = append(merges, m.Content[i+1])
			continue
		}
		if dk.Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	for _, mg := range merges {
		src := deref(mg)
		if src == nil {
			continue
		}
		sources := []*yaml.Node{src}
		if src.Kind == yaml.SequenceNode {
			sources = src.Content
		}
		for _, s := range sources {
			if ds := deref(s); ds != nil && ds.Kind == yaml.MappingNode {
				if k, v := lookupKey(ds, key, depth+1); v != nil {
					return k, v
				}
			}
		}
	}
	return nil, nil
}
