// Package yamldoc reads one YAML document into a node tree, the first step
// of every YAML input vouch accepts (requests and policies), with errors
// that give the line of the problem and never a crash.
package yamldoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/vouchgate/vouch"
)

// Parse parses data as exactly one YAML document and returns its root node
// (the document node unwrapped), or nil for an empty document. what names
// the input in the error about a second document ("a request").
func Parse(data []byte, what string) (root *yaml.Node, verr *vouch.Error) {
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
		return nil, SyntaxError(err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, SyntaxError(err)
	default:
		// The position is where the second document starts.
		return nil, &vouch.Error{Code: vouch.ErrSyntax, Message: what + " is one YAML document; found a second", Line: extra.Line, Column: extra.Column}
	}
	if doc.Kind != yaml.DocumentNode {
		return &doc, nil
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

var lineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// SyntaxError turns a yaml.v3 error into a syntax error with its line.
func SyntaxError(err error) *vouch.Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	e := &vouch.Error{Code: vouch.ErrSyntax, Err: err}
	if m := lineRE.FindStringSubmatch(err.Error()); m != nil {
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
