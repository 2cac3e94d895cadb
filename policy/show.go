package policy

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.yaml.in/yaml/v3"

	"github.com/vouchgate/vouch"
)

// showOptions marshal a policy for [Show]: map keys sorted, durations as
// "60s".
var showOptions = json.JoinOptions(
	json.Deterministic(true),
	json.WithMarshalers(json.MarshalFunc(func(d vouch.Duration) ([]byte, error) {
		return jsontext.AppendQuote(nil, formatDuration(time.Duration(d)))
	})),
)

// Show returns p as a policy file: YAML with the keys in the order of
// [vouch.Policy]'s fields, map keys sorted, durations as strings ("60s",
// "1.5s"), every key written out. The output is deterministic.
//
// Loaded on its own (by [Load], or [Parse] then [Layer.Apply] onto
// [vouch.DefaultPolicy]) the output gives back p, for every policy whose
// maps hold at least the default keys, which includes every policy [Load]
// and [ApplyRequest] return. Show fails on values that have no JSON form
// (NaN, infinities, a schema that is not valid JSON).
func Show(p vouch.Policy) ([]byte, error) {
	data, err := json.Marshal(p, showOptions)
	if err != nil {
		return nil, fmt.Errorf("policy: show: %w", err)
	}
	root, err := yamlTree(jsontext.NewDecoder(bytes.NewReader(data)))
	if err != nil {
		return nil, fmt.Errorf("policy: show: %w", err)
	}
	flowArgv(root, false)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("policy: show: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("policy: show: %w", err)
	}
	return buf.Bytes(), nil
}

// yamlTree builds the YAML node tree of the JSON value dec reads next, for
// the YAML encoder. Strings are tagged as such (the encoder quotes those
// that would read as another type); numbers are left for the encoder to
// resolve, so that an integer too large for one reads back as the number
// it is.
func yamlTree(dec *jsontext.Decoder) (*yaml.Node, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	n := &yaml.Node{Kind: yaml.ScalarNode}
	switch tok.Kind() {
	case '{':
		n.Kind, n.Tag = yaml.MappingNode, "!!map"
		for dec.PeekKind() != '}' {
			k, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k.String()}
			v, err := yamlTree(dec)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, key, v)
		}
		_, err = dec.ReadToken()
	case '[':
		n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
		for dec.PeekKind() != ']' {
			v, err := yamlTree(dec)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, v)
		}
		_, err = dec.ReadToken()
	case '"':
		n.Tag, n.Value = "!!str", tok.String()
	case '0':
		n.Value = tok.String()
	case 't', 'f':
		n.Tag, n.Value = "!!bool", tok.String()
	default:
		n.Tag, n.Value = "!!null", "null"
	}
	return n, err
}

// formatDuration writes whole seconds as "60s" and other durations as
// [time.Duration.String] does ("1.5s", "250ms").
func formatDuration(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}

// flowArgv writes lists of scalars that stand inside a list on one line, as
// argv lists are written: allow: [[go, test], [go, vet]] reads best as
//
//	allow:
//	  - [go, test]
//	  - [go, vet]
func flowArgv(n *yaml.Node, inList bool) {
	if n.Kind == yaml.SequenceNode && inList {
		flat := true
		for _, c := range n.Content {
			flat = flat && c.Kind == yaml.ScalarNode
		}
		if flat {
			n.Style = yaml.FlowStyle
		}
	}
	for _, c := range n.Content {
		flowArgv(c, n.Kind == yaml.SequenceNode)
	}
}
