package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/schema"
)

// refDir is where the reference pages are written, from this package's
// directory.
const refDir = "../../docs/reference"

// TestReferenceDocs holds docs/reference to the code it is made from:
// the CLI (cobra's commands and flags), the code catalogue, the check
// types and analyzers of the registry, and the request and report
// schemas. go test ./cmd/vouch -run ReferenceDocs -update writes them.
func TestReferenceDocs(t *testing.T) {
	pages := map[string][]byte{
		"cli.md":         cliReference(newRoot(Streams{})),
		"codes.md":       codesReference(),
		"check-types.md": checkTypesReference(),
		"request.md":     schemaReference("The request", "vouch schema request", schema.Request()),
		"report.md":      schemaReference("The report", "vouch schema report", schema.Report()),
	}
	for name, want := range pages {
		path := filepath.Join(refDir, name)
		if *update {
			if err := os.MkdirAll(refDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v (go test ./cmd/vouch -run ReferenceDocs -update writes it)", err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("docs/reference/%s is out of date with the code: go test ./cmd/vouch -run ReferenceDocs -update", name)
		}
	}
}

// generated is the header of every reference page.
func generated(title, from string) *bytes.Buffer {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n<!-- Generated from %s by go test ./cmd/vouch -run ReferenceDocs -update; do not edit. -->\n\n", title, from)
	return &b
}

// cliReference is every command's usage, help and flags.
func cliReference(root *cobra.Command) []byte {
	b := generated("The command line", "the commands' own help (cmd/vouch)")
	var walk func(c *cobra.Command, depth int)
	walk = func(c *cobra.Command, depth int) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		fmt.Fprintf(b, "%s %s\n\n", strings.Repeat("#", min(depth+2, 4)), c.CommandPath())
		fmt.Fprintf(b, "%s\n\n", c.Short)
		fmt.Fprintf(b, "```\n%s\n```\n\n", c.UseLine())
		if c.Long != "" && c.Long != c.Short {
			fmt.Fprintf(b, "```text\n%s\n```\n\n", strings.TrimRight(c.Long, "\n"))
		}
		if fs := c.NonInheritedFlags(); fs.HasAvailableFlags() {
			var flags pflag.FlagSet
			fs.VisitAll(func(f *pflag.Flag) {
				if f.Name != "help" {
					flags.AddFlag(f)
				}
			})
			if flags.HasAvailableFlags() {
				fmt.Fprintf(b, "Flags:\n\n```\n%s```\n\n", flags.FlagUsages())
			}
		}
		for _, sub := range c.Commands() {
			walk(sub, depth+1)
		}
	}
	walk(root, 0)
	return b.Bytes()
}

// codesReference is the code catalogue.
func codesReference() []byte {
	b := generated("Codes", "the code catalogue (codes.go)")
	b.WriteString("Every code a report or an error carries, with what it means. A check's code is in its evidence (`evidence.code`) when it failed or stayed undecided; a warning's in `warnings[].code`; an input error's in `error.code`. `vouch codes` prints the same.\n")
	var last vouch.CodeKind
	for _, c := range vouch.Codes() {
		if c.Kind != last {
			fmt.Fprintf(b, "\n## %s codes\n\n| code | meaning |\n|---|---|\n", c.Kind)
			last = c.Kind
		}
		fmt.Fprintf(b, "| `%s` | %s |\n", c.Code, cell(c.Meaning))
	}
	return b.Bytes()
}

// checkTypesReference is the registry's check types and analyzers.
func checkTypesReference() []byte {
	b := generated("Check types and analyzers", "the check registry (check.All, check.Analyzers)")
	b.WriteString("## Check types\n\nA criterion's `check.type`, with its parameters and how strongly its result counts.\n\n| type | parameters | strength | what it decides |\n|---|---|---|---|\n")
	for _, k := range check.All() {
		fmt.Fprintf(b, "| `%s` | `%s` | %s | %s |\n", k.Name, k.Params, k.Strength, cell(k.Doc))
	}
	b.WriteString("| `llm` | `{rubric}` | judge | left to the judge; undecided without one |\n")
	b.WriteString("\n## Analyzers\n\nThe checks every request of their kinds gets, whatever its criteria.\n\n| analyzer | level | kinds |\n|---|---|---|\n")
	for _, a := range check.Analyzers() {
		kinds := make([]string, len(a.Kinds))
		for i, k := range a.Kinds {
			kinds[i] = string(k)
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", a.Name, a.Level, strings.Join(kinds, ", "))
	}
	return b.Bytes()
}

// schemaReference is a JSON Schema as tables: the top-level object, then
// each definition, one row a property.
func schemaReference(title, command string, src []byte) []byte {
	var s map[string]any
	if err := json.Unmarshal(src, &s); err != nil {
		panic(err)
	}
	b := generated(title, "its JSON Schema (package schema; `"+command+"` prints it)")
	if d, ok := s["description"].(string); ok {
		fmt.Fprintf(b, "%s\n\n", d)
	}
	object := func(name string, o map[string]any) {
		props, _ := o["properties"].(map[string]any)
		if len(props) == 0 {
			// A definition that is no object: its type, under a heading
			// the tables' links reach.
			if name != "Top level" {
				fmt.Fprintf(b, "## %s\n\n%s", name, schemaType(o))
				if d, ok := o["description"].(string); ok {
					fmt.Fprintf(b, ": %s", cell(d))
				}
				b.WriteString("\n\n")
			}
			return
		}
		fmt.Fprintf(b, "## %s\n\n", name)
		if d, ok := o["description"].(string); ok && name != "Top level" {
			fmt.Fprintf(b, "%s\n\n", d)
		}
		required := map[string]bool{}
		if r, ok := o["required"].([]any); ok {
			for _, x := range r {
				required[fmt.Sprint(x)] = true
			}
		}
		b.WriteString("| field | type | required | description |\n|---|---|---|---|\n")
		for _, p := range slices.Sorted(func(yield func(string) bool) {
			for k := range props {
				if !yield(k) {
					return
				}
			}
		}) {
			ps, _ := props[p].(map[string]any)
			req := ""
			if required[p] {
				req = "yes"
			}
			desc, _ := ps["description"].(string)
			fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", p, schemaType(ps), req, cell(desc))
		}
		b.WriteString("\n")
	}
	object("Top level", s)
	defs, _ := s["$defs"].(map[string]any)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range defs {
			if !yield(k) {
				return
			}
		}
	}) {
		if o, ok := defs[name].(map[string]any); ok {
			object(name, o)
		}
	}
	return b.Bytes()
}

// schemaType says a property's type: a definition it refers to, an array
// of something, an enumeration, or its JSON type.
func schemaType(s map[string]any) string {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		return "[" + name + "](#" + strings.ToLower(name) + ")"
	}
	if c, ok := s["const"]; ok {
		return fmt.Sprintf("`%q`", c)
	}
	if e, ok := s["enum"].([]any); ok {
		vals := make([]string, len(e))
		for i, v := range e {
			vals[i] = fmt.Sprintf("`%q`", v)
		}
		return "one of " + strings.Join(vals, ", ")
	}
	switch t := s["type"].(type) {
	case string:
		if t == "array" {
			if items, ok := s["items"].(map[string]any); ok {
				return "list of " + schemaType(items)
			}
		}
		return t
	case []any:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = fmt.Sprint(x)
		}
		return strings.Join(parts, " or ")
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if alts, ok := s[k].([]any); ok {
			var parts []string
			for _, a := range alts {
				if m, ok := a.(map[string]any); ok {
					parts = append(parts, schemaType(m))
				}
			}
			return strings.Join(parts, " or ")
		}
	}
	return "any"
}

// cell makes text fit a table cell: one line, pipes escaped.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}
