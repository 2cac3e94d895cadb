package mcpserver

import (
	"encoding/json"
	"fmt"
)

// inputSchema is the tools' argument schema: the request's fields without
// apiVersion and kind, kept short, since a host puts every tool's schema
// in its model's context. The nested objects name their main members and
// are checked in full by the request decoder, whose errors name the
// member at fault (`vouch schema request` prints the whole schema).
func inputSchema(workspace string) (json.RawMessage, error) {
	if workspace == "" {
		workspace = "Where the agent worked, so the files and git history can be checked."
	}
	s := map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"task", "output"},
		"properties": map[string]any{
			"task": map[string]any{
				"type":        "object",
				"description": "What the agent was asked to do.",
				"properties": map[string]any{
					"goal": str("The task as given to the agent."),
					"criteria": map[string]any{
						"type":        "array",
						"description": "Success criteria: {text, must?, check?: {kind, ...}}; a criterion with no check is inferred or left to the judge.",
						"items":       map[string]any{"type": "object"},
					},
					"id":          str("The task's id in the orchestrator."),
					"executor":    obj("The agent that did the work: {model, provider, costUsd}."),
					"criticality": map[string]any{"type": "string", "enum": []string{"low", "normal", "high"}},
				},
			},
			"output": map[string]any{
				"type":        "object",
				"description": "What the agent returned and said it did.",
				"required":    []string{"summary"},
				"properties": map[string]any{
					"summary":    str("The agent's report or answer, exactly as it would be given."),
					"created":    strs("Files it says it created."),
					"modified":   strs("Files it says it changed."),
					"deleted":    strs("Files it says it deleted."),
					"commands":   strs("Commands it says it ran."),
					"toolCalls":  strs("Tools it says it used."),
					"testResult": map[string]any{"type": "string", "enum": []string{"", "passed", "failed", "skipped"}, "description": "What it says the tests did; empty: no claim."},
					"artifacts":  obj("Details: fileEdits [{file, editedRegion: {start, end}}], commandResults [{command, exitCode}], filesCreated."),
					"metadata":   obj("Free-form; a plan goes in metadata.plan."),
				},
			},
			"trace": map[string]any{
				"type":        "array",
				"description": "The tool calls the agent made, in order, with their results: {tool, input, output, isError}. The evidence its claims are held against.",
				"items":       map[string]any{"type": "object"},
			},
			"context":       obj("What the output rests on: sources (answer), outputs (synthesis), plan and agents (plan), discussion (moderation)."),
			"workspace":     str(workspace),
			"base":          str("The git commit the agent started from; the changes since it are checked against the claims."),
			"attempt":       map[string]any{"type": "integer", "minimum": 0, "description": "1 for the first try; raise it on each retry."},
			"id":            str("The request's id; a retry keeps it and raises attempt."),
			"interactionId": str("The orchestrator's run this belongs to."),
			"target":        str("What is verified within the run: an agent name, a tool call id."),
		},
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: input schema: %w", err)
	}
	return b, nil
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
func obj(desc string) map[string]any { return map[string]any{"type": "object", "description": desc} }
func strs(desc string) map[string]any {
	return map[string]any{"type": "array", "description": desc, "items": map[string]any{"type": "string"}}
}

// outputSchema describes the structured content: the report, of which it
// names the members a caller acts on (`vouch schema report` prints the
// whole schema).
var outputSchema = json.RawMessage(`{"type":"object","required":["id","verdict","action","confidence","checks","feedback"],"properties":{` +
	`"id":{"type":"string"},` +
	`"attempt":{"type":"integer"},` +
	`"verdict":{"type":"string","enum":["pass","retry","fail","unverified"]},` +
	`"action":{"type":"string","enum":["accept","retry","reformulate","follow_up","escalate"]},` +
	`"reason":{"type":"string"},` +
	`"score":{"type":["number","null"]},` +
	`"confidence":{"type":"number"},` +
	`"needsReview":{"type":"boolean"},` +
	`"claims":{"type":"array","items":{"type":"object"}},` +
	`"coverage":{"type":["number","null"]},` +
	`"checks":{"type":"array","items":{"type":"object"}},` +
	`"criteria":{"type":"array","items":{"type":"object"}},` +
	`"feedback":{"type":"string"}}}`)
