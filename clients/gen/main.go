// Command gen writes the types of the Python and TypeScript clients from
// the OpenAPI document of `vouch serve` (server/openapi.json):
//
//	go run ./clients/gen
//
// run from anywhere in the repository. It writes
// clients/python/vouch/types.py (dataclasses) and
// clients/typescript/src/types.ts (interfaces): one class per object
// schema (the components, their $defs, the inline objects of their
// members, the query parameters and inline answers of the operations),
// one alias per enumeration, and the table of operations. Names are the
// same in both languages. Its test fails while the committed files differ
// from what it writes, so a field the server gains or a client loses
// fails CI until this command is run again.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// OpenAPIPath is the OpenAPI document, relative to the repository root.
const OpenAPIPath = "server/openapi.json"

// Regenerate is the command that rewrites the generated files.
const Regenerate = "go run ./clients/gen"

// Output is one generated file.
type Output struct {
	// Path is relative to the repository root.
	Path string
	// Render writes the file from the model.
	Render func(*Model) []byte
}

// Outputs are the files the generator writes.
var Outputs = []Output{
	{Path: "clients/python/vouch/types.py", Render: Python},
	{Path: "clients/typescript/src/types.ts", Render: TypeScript},
}

// Generate reads the OpenAPI document under root and returns each
// output's path (relative to root) and content.
func Generate(root string) (map[string][]byte, error) {
	doc, err := os.ReadFile(filepath.Join(root, OpenAPIPath))
	if err != nil {
		return nil, err
	}
	m, err := Build(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpenAPIPath, err)
	}
	out := map[string][]byte{}
	for _, o := range Outputs {
		out[o.Path] = o.Render(m)
	}
	return out, nil
}

// FindRoot returns the repository root: the nearest directory above dir
// (or dir itself) that holds the OpenAPI document and a go.mod.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if isFile(filepath.Join(dir, "go.mod")) && isFile(filepath.Join(dir, OpenAPIPath)) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no repository root (a go.mod beside " + OpenAPIPath + ") above the working directory")
		}
		dir = parent
	}
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func main() {
	root := flag.String("root", "", "the repository root (default: found above the working directory)")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	if root == "" {
		var err error
		if root, err = FindRoot("."); err != nil {
			return err
		}
	}
	files, err := Generate(root)
	if err != nil {
		return err
	}
	for _, o := range Outputs {
		p := filepath.Join(root, o.Path)
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, files[o.Path]) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[o.Path], 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", o.Path)
	}
	return nil
}
