package grounding

import "testing"

func TestManifests(t *testing.T) {
	tests := []struct {
		file, text string
		has        []string
		hasNot     []string
	}{
		{"package.json", `{"name": "my-app", "dependencies": {"lodash": "^4.17.21", "@tanstack/react-query": "5.0.0"}, "devDependencies": {"vitest": "^1.0.0"}}`,
			[]string{"lodash", "lodash/fp", "@tanstack/react-query", "vitest", "my-app"}, []string{"react", "@tanstack/query", "express"}},
		{"package.json", "     1→{\n     2→  \"dependencies\": {\n     3→    \"express\": \"^4.18.0\",\n", []string{"express"}, []string{"dependencies"}},
		{"go.mod", "module github.com/acme/svc\n\ngo 1.22\n\nrequire (\n\tgithub.com/spf13/cobra v1.8.0 // indirect\n\tgolang.org/x/sync v0.7.0\n)\nrequire github.com/google/go-cmp v0.6.0\n",
			[]string{"github.com/spf13/cobra", "golang.org/x/sync/errgroup", "github.com/google/go-cmp/cmp", "github.com/acme/svc/internal/db"}, []string{"github.com/spf13/viper", "golang.org/x/net"}},
		{"requirements.txt", "# deps\nrequests>=2.31\nPyYAML==6.0 ; python_version > '3'\n-r dev.txt\nscikit_learn\n", []string{"requests", "yaml", "pyyaml", "sklearn", "scikit-learn"}, []string{"dev.txt", "numpy"}},
		{"pyproject.toml", "[project]\nname = \"tool\"\ndependencies = [\n  \"httpx>=0.27\",\n  \"rich[jupyter]\",\n]\n[tool.poetry.dependencies]\npython = \"^3.11\"\npydantic = \"^2\"\n", []string{"httpx", "rich", "pydantic", "tool"}, []string{"python", "jupyter"}},
		{"mix.exs", "  defp deps do\n    [\n      {:phoenix, \"~> 1.7\"},\n      {:ecto_sql, \"~> 3.10\"}\n    ]\n", []string{"phoenix", "ecto_sql"}, []string{"deps"}},
	}
	for _, tt := range tests {
		ps := packageSet{}
		ps.addManifest(tt.file, stripLineNumbers(tt.text), tt.file)
		for _, n := range tt.has {
			if _, ok := ps.has(n); !ok {
				t.Errorf("%s: %q not found in %v", tt.file, n, ps)
			}
		}
		for _, n := range tt.hasNot {
			if _, ok := ps.has(n); ok {
				t.Errorf("%s: %q found in %v", tt.file, n, ps)
			}
		}
	}
}

func TestImports(t *testing.T) {
	src := `import { z } from "zod";
import React from 'react'
const fs = require("node:fs")
const x = await import("@scope/lib/sub")
import "./local"
from numpy.linalg import norm
import os, json
import pandas as pd
	"github.com/spf13/cobra"
	yaml "go.yaml.in/yaml/v3"
`
	ps := packageSet{}
	ps.addImports(src, "read a.ts")
	for _, n := range []string{"zod", "react", "node:fs", "@scope/lib", "numpy", "numpy.linalg", "os", "json", "pandas", "github.com/spf13/cobra", "go.yaml.in/yaml/v3"} {
		if _, ok := ps.has(n); !ok {
			t.Errorf("import %q not found in %v", n, ps)
		}
	}
	for _, n := range []string{"./local", "local", "norm", "pd"} {
		if _, ok := ps.has(n); ok {
			t.Errorf("%q found in %v", n, ps)
		}
	}
}

func TestStdlib(t *testing.T) {
	for name, want := range map[string]bool{
		"fmt": true, "encoding/json": true, "os.path": true, "node:fs": true, "child_process": true,
		"lodash": false, "github.com/x/y": false, "numpy": false, "requests": false,
	} {
		if got := isStdlib(name); got != want {
			t.Errorf("isStdlib(%q) = %v, want %v", name, got, want)
		}
	}
}
