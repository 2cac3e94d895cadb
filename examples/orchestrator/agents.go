package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/judge/fake"
	"github.com/vouchgate/vouch/loop"
)

// The scripted agents. Each acts only on what its input tells it, as a
// real agent given vouch's feedback would.

// calc is calc.go with Parse and Format documented or not.
func calc(parse, format bool) string {
	var b strings.Builder
	b.WriteString("package calc\n\n")
	if parse {
		b.WriteString("// Parse reads a number.\n")
	}
	b.WriteString("func Parse(s string) int { return len(s) }\n\n")
	if format {
		b.WriteString("// Format writes a number.\n")
	}
	b.WriteString("func Format(n int) string { return \"\" }\n")
	return b.String()
}

// docsAgent documents Parse only and claims both, mentioning a helpers.go
// it never saw; told what is missing, it documents Format too and drops
// what it made up.
func docsAgent(ws string) func(in *loop.Input) (*loop.Reply, error) {
	return func(in *loop.Input) (*loop.Reply, error) {
		fixed := in.Feedback != nil && strings.Contains(in.Feedback.Verifier, "Format")
		body := calc(true, fixed)
		if err := os.WriteFile(filepath.Join(ws, "calc.go"), []byte(body), 0o644); err != nil {
			return nil, err
		}
		summary := "Added doc comments to both exported functions, Parse and Format, in calc.go, following the style of helpers.go."
		if fixed {
			summary = "Added doc comments to both exported functions, Parse and Format, in calc.go."
		}
		return &loop.Reply{Output: vouch.Output{Summary: summary, Modified: []string{"calc.go"},
			SelfAssessment: &vouch.SelfAssessment{Confidence: ptr(0.95)}}, Trace: readEdit("calc.go", body)}, nil
	}
}

// notesTask adds the release notes' criteria, decided by rule.
func notesTask(t loop.Task) loop.Task {
	spec := func(typ string, p map[string]any) *vouch.CheckSpec { s := vouch.NewCheckSpec(typ, false, p); return &s }
	t.Request.Workspace = ""
	t.Request.Task.Criteria = []vouch.Criterion{
		{ID: "version", Text: "Names the version v2.3", Check: spec("regex", map[string]any{"pattern": `v2\.3`})},
		{ID: "sections", Text: "Has the sections Breaking changes, Highlights and Upgrade", Check: spec("sections", map[string]any{"required": []string{"Breaking changes", "Highlights", "Upgrade"}})},
		{ID: "compat", Text: "Says to use --mode=compat instead of --legacy", Check: spec("contains", map[string]any{"value": "--mode=compat"})},
		{ID: "length", Text: "At least 30 words", Check: spec("length", map[string]any{"minWords": 30})},
	}
	return t
}

const (
	notesThin = "Release notes for v2.3 are ready."
	notesFull = "# Release notes for v2.3\n\n## Breaking changes\n- The --legacy flag is gone: use --mode=compat instead.\n\n" +
		"## Highlights\n- Startup is twice as fast.\n\n## Upgrade\nReplace --legacy with --mode=compat in your scripts, then run the tool once to migrate the config."
)

// notesAgent writes one line until the task is restated with steps.
func notesAgent(in *loop.Input) (*loop.Reply, error) {
	if in.Reformulation != nil && len(in.Reformulation.Steps) > 0 {
		return &loop.Reply{Output: vouch.Output{Summary: notesFull}}, nil
	}
	return &loop.Reply{Output: vouch.Output{Summary: notesThin}}, nil
}

// guideAgent writes the upgrade guide, and what a follow-up asks for.
func guideAgent(ws string) func(in *loop.Input) (*loop.Reply, error) {
	return func(in *loop.Input) (*loop.Reply, error) {
		file, body, summary := "docs/upgrade.md", "# Upgrading to v2.3\n\nReplace --legacy with --mode=compat.\n",
			"Wrote docs/upgrade.md: how to move from v2.2 to v2.3, replacing --legacy with --mode=compat."
		switch {
		case strings.Contains(in.Gap, "rollback"):
			file, body, summary = "docs/rollback.md", "# Rolling back to v2.2\n\nReinstall v2.2 and restore the config backup.\n",
				"Wrote docs/rollback.md: how to roll back to v2.2."
		case strings.Contains(in.Gap, "config"):
			file, body, summary = "docs/config-migration.md", "# Config migration\n\nThe tool rewrites the config on first run.\n",
				"Wrote docs/config-migration.md: what the config migration changes."
		}
		if err := writeFiles(ws, map[string]string{file: body}); err != nil {
			return nil, err
		}
		return &loop.Reply{Output: vouch.Output{Summary: summary, Created: []string{file}},
			Trace: []vouch.TraceEntry{{ID: "w", Tool: "Write", Input: map[string]any{"file_path": file}, Output: json.RawMessage(`"ok"`)}}}, nil
	}
}

// benchAgent claims results it never writes, whatever it is told.
func benchAgent(*loop.Input) (*loop.Reply, error) {
	return &loop.Reply{Output: vouch.Output{Summary: "Ran the benchmarks and wrote bench/results.md.", Created: []string{"bench/results.md"}}}, nil
}

// synthesizer writes the answer from the results it is given: a sentence
// of each reliable one, and what is still open.
func synthesizer(in *loop.Input) (*loop.Reply, error) {
	parts := []string{"Release v2.3 is ready."}
	for _, it := range in.Synthesis.Reliable {
		switch it.TaskID {
		case "docs":
			parts = append(parts, "Parse and Format in calc.go now have doc comments.")
		case "notes":
			parts = append(parts, "The --legacy flag is gone: use --mode=compat instead. Startup is twice as fast.")
		default:
			parts = append(parts, it.Output)
		}
	}
	if len(in.Synthesis.Gaps) > 0 {
		parts = append(parts, "The benchmark report is still missing.")
	}
	return &loop.Reply{Output: vouch.Output{Summary: strings.Join(parts, " ")}}, nil
}

func readEdit(file, body string) []vouch.TraceEntry {
	out, _ := json.Marshal(body)
	return []vouch.TraceEntry{
		{ID: "1", Tool: "Read", Input: map[string]any{"file_path": file}, Output: out},
		{ID: "2", Tool: "Edit", Input: map[string]any{"file_path": file}, Output: json.RawMessage(`"ok"`)},
	}
}

// fakeModel is the judge model: it restates a task that fell short, is
// unsure of the thin release notes, finds the upgrade guide incomplete,
// and scores the rest as the fake's scored
// responder does.
func fakeModel(r *fake.Request) fake.Reply {
	prompt := r.System
	for _, m := range r.Messages {
		prompt += "\n" + m.Content
	}
	switch {
	case r.Tool.Name == "submit_reformulation":
		return fake.Reply{Arguments: json.RawMessage(`{"reasoning": "the notes name the version and nothing else",
			"goal": "Write the v2.3 release notes in three sections, Breaking changes, Highlights and Upgrade, of at least 30 words in all.",
			"steps": ["Breaking changes: say that --legacy is replaced by --mode=compat", "Highlights: the faster startup", "Upgrade: the steps to move from v2.2"]}`)}
	case strings.Contains(prompt, "Follow-up to task"):
		return fake.Scored(0.9)(r)
	case strings.Contains(prompt, "Write docs/upgrade.md, the upgrade guide"):
		return fake.Reply{Arguments: json.RawMessage(`{"reasoning": "the guide covers the flag only", "criteria": [],
			"dimensions": {"completeness": {"reasoning": "two parts missing", "score": 0.5, "reason": "no rollback steps, no config migration"}},
			"completeness": 0.5, "confidence": 0.8, "gaps": ["no rollback steps to v2.2", "the config migration is not described"]}`)}
	case strings.Contains(prompt, notesThin):
		// Unsure what the notes were meant to be: confidence 0.3, below
		// 0.4, makes the verdict table reformulate rather than retry.
		return fake.Reply{Arguments: json.RawMessage(`{"reasoning": "a one-line placeholder; hard to tell what the notes should hold", "criteria": [],
			"dimensions": {"completeness": {"reasoning": "almost nothing", "score": 0.25, "reason": "the notes name the version and nothing else"}},
			"completeness": 0.25, "confidence": 0.3}`)}
	}
	return fake.Scored(0.9)(r)
}
