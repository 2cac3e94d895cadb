//go:build !cgo

package treesitter

// Available reports whether this build has the tree-sitter parsers. It is
// false: the package was built without cgo, registers no parser, and
// TypeScript, JavaScript and Python files give code.ErrUnsupported.
const Available = false
