// Package deps pins the module's dependencies while the packages that use
// them are written. It is removed once every dependency has a user.
package deps

import (
	_ "cel.dev/cel-go/cel"
	_ "github.com/go-json-experiment/json"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "github.com/spf13/cobra"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/term"
)
