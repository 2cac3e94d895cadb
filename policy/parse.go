package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"go.yaml.in/yaml/v3"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/jsonerr"
	"github.com/vouchgate/vouch/internal/yamldoc"
)

// Limits on one policy document. A policy is a page of settings; anything
// near these limits is a mistake or an attack (a YAML alias bomb).
const (
	// maxInputBytes bounds the size of a policy file or a task.policy.
	maxInputBytes = 1 << 20
	// maxJSONBytes bounds the JSON a document expands to, aliases resolved.
	maxJSONBytes = 1 << 20
	// maxNodes bounds the values (and merged keys) a document expands to,
	// aliases resolved.
	maxNodes = 10000
)

// position is where a value of a document stands.
type position struct {
	// keyLine and keyCol locate the key that sets the value (for a list
	// element, the element itself).
	keyLine, keyCol int
	// line and col locate the value.
	line, col int
}

// parseDoc turns a policy document into the root node of its tree: YAML,
// or JSON when the document is JSON (JSON escapes such as "\/" and surrogate
// pairs are not YAML). A nil node means an empty document.
func parseDoc(name string, data []byte) (*yaml.Node, *vouch.Error) {
	if len(data) > maxInputBytes {
		return nil, &vouch.Error{Code: vouch.ErrTooLarge, Message: fmt.Sprintf("the policy is %d bytes, over the limit of %d", len(data), maxInputBytes)}
	}
	// A byte order mark is not part of the text (and not JSON).
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if looksLikeJSON(data) {
		n, jerr := jsonNode(data, maxNodes)
		if jerr == nil {
			return n, nil
		}
		if jerr.Code == vouch.ErrTooLarge || strings.HasSuffix(strings.ToLower(name), ".json") {
			return nil, jerr
		}
		// Flow-style YAML ({passAt: 0.8}) is not JSON: read it as YAML.
	}
	return parseYAML(data)
}

// looksLikeJSON reports whether data starts, after white space, like a JSON
// object or array.
func looksLikeJSON(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && (data[0] == '{' || data[0] == '[')
}

// parseYAML parses one YAML document; a nil node means an empty document.
func parseYAML(data []byte) (*yaml.Node, *vouch.Error) {
	return yamldoc.Parse(data, "a policy")
}

// jsonNode parses a JSON document into a YAML node tree with the positions
// of its values. It refuses documents of more than limit values (limit <= 0
// means no limit).
func jsonNode(data []byte, limit int) (*yaml.Node, *vouch.Error) {
	p := jsonParser{data: data, dec: jsontext.NewDecoder(bytes.NewReader(data)), limit: limit, line: 1, col: 1}
	n, err := p.value()
	if err == nil {
		if _, err = p.dec.ReadToken(); err == nil {
			err = errors.New("unexpected data after the top-level value")
		} else if errors.Is(err, io.EOF) {
			err = nil
		}
	}
	if err != nil {
		var ve *vouch.Error
		if errors.As(err, &ve) {
			return nil, ve
		}
		var syn *jsontext.SyntacticError
		if errors.As(err, &syn) {
			line, col := jsonerr.LineCol(data, syn.ByteOffset)
			msg := "malformed JSON: " + syn.Err.Error()
			code := vouch.ErrSyntax
			if errors.Is(syn.Err, jsontext.ErrDuplicateName) {
				code, msg = vouch.ErrInvalid, "duplicate key"
			}
			return nil, &vouch.Error{Code: code, Path: jsonerr.PointerToPath(string(syn.JSONPointer)), Message: msg, Line: line, Column: col, Err: err}
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			line, col := jsonerr.LineCol(data, int64(len(data)))
			return nil, &vouch.Error{Code: vouch.ErrSyntax, Message: "malformed JSON: unexpected end of input", Line: line, Column: col, Err: err}
		}
		line, col := jsonerr.LineCol(data, p.dec.InputOffset())
		return nil, &vouch.Error{Code: vouch.ErrSyntax, Message: "malformed JSON: " + err.Error(), Line: line, Column: col, Err: err}
	}
	return n, nil
}

// jsonParser builds a node tree from JSON tokens, tracking line and column
// incrementally (offsets only grow).
type jsonParser struct {
	data  []byte
	dec   *jsontext.Decoder
	limit int
	nodes int
	// off is a byte offset whose line and column are line and col.
	off       int64
	line, col int
}

// next returns the line and column of the token the decoder reads next.
func (p *jsonParser) next() (int, int) {
	off := p.dec.InputOffset()
	for off < int64(len(p.data)) && strings.IndexByte(" \t\r\n,:", p.data[off]) >= 0 {
		off++
	}
	for ; p.off < off; p.off++ {
		if p.data[p.off] == '\n' {
			p.line, p.col = p.line+1, 1
		} else if p.data[p.off]&0xC0 != 0x80 {
			p.col++
		}
	}
	return p.line, p.col
}

func (p *jsonParser) value() (*yaml.Node, error) {
	p.nodes++
	if p.limit > 0 && p.nodes > p.limit {
		return nil, &vouch.Error{Code: vouch.ErrTooLarge, Message: fmt.Sprintf("the policy has more than %d values", p.limit)}
	}
	line, col := p.next()
	tok, err := p.dec.ReadToken()
	if err != nil {
		return nil, err
	}
	n := &yaml.Node{Line: line, Column: col}
	switch tok.Kind() {
	case '{':
		n.Kind, n.Tag = yaml.MappingNode, "!!map"
		for p.dec.PeekKind() != '}' {
			kl, kc := p.next()
			k, err := p.dec.ReadToken()
			if err != nil {
				return nil, err
			}
			key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k.String(), Line: kl, Column: kc}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, key, v)
		}
		if _, err := p.dec.ReadToken(); err != nil {
			return nil, err
		}
	case '[':
		n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
		for p.dec.PeekKind() != ']' {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, v)
		}
		if _, err := p.dec.ReadToken(); err != nil {
			return nil, err
		}
	case '"':
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!str", tok.String()
	case '0':
		n.Kind, n.Value = yaml.ScalarNode, tok.String()
		n.Tag = "!!int"
		if strings.ContainsAny(n.Value, ".eE") {
			n.Tag = "!!float"
		}
	case 't', 'f':
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", tok.String()
	case 'n':
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!null", "null"
	default:
		return nil, fmt.Errorf("unexpected token %v", tok)
	}
	return n, nil
}
