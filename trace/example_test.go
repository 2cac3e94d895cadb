package trace_test

import (
	"encoding/json"
	"fmt"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/trace"
)

func ExampleTable_Op() {
	t := trace.NewTable(map[string]string{"mind:rag-query": "search"})
	for _, tool := range []string{"Read", "str_replace_based_edit_tool", "mcp__github__search_code", "fs:list", "shell:exec", "mind:rag-query", "jira:create", "TodoWrite"} {
		fmt.Println(tool, t.Op(tool))
	}
	// Output:
	// Read read
	// str_replace_based_edit_tool write
	// mcp__github__search_code plugin
	// fs:list list
	// shell:exec exec
	// mind:rag-query search
	// jira:create plugin
	// TodoWrite control
}

func ExampleSummarize() {
	out := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	entries := []vouch.TraceEntry{
		{Tool: "Read", Input: map[string]any{"file_path": "src/parser.ts"}, Output: out("export function parse() {}")},
		{Tool: "Glob", Input: map[string]any{"pattern": "src/*.ts"}, Output: out("src/parser.ts\nsrc/lexer.ts")},
		{Tool: "Edit", Input: map[string]any{"file_path": "src/parser.ts"}, Output: out("ok")},
		{Tool: "Bash", Input: map[string]any{"command": "npm test"}, Output: out("Exit code 1\n1 failed"), IsError: true},
	}
	fmt.Println(trace.Summarize(entries, nil).Text(0))
	// Output:
	// read: src/parser.ts
	// listed: . (src/*.ts)
	// wrote: src/parser.ts
	// ran: npm test (exit 1)
	// seen: src/parser.ts, src/lexer.ts
}
