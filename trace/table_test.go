package trace

import (
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

func TestOpsMatchPolicy(t *testing.T) {
	ours := []Op{OpRead, OpList, OpWrite, OpExec, OpSearch, OpFetch, OpAgent, OpControl, OpPlugin}
	if len(ours) != len(vouch.ToolOps) {
		t.Fatalf("%d ops, vouch.ToolOps has %d", len(ours), len(vouch.ToolOps))
	}
	for _, op := range ours {
		if !slices.Contains(vouch.ToolOps, string(op)) {
			t.Errorf("op %q is not in vouch.ToolOps", op)
		}
		if !op.Valid() {
			t.Errorf("op %q not valid", op)
		}
	}
	if Op("delete").Valid() || Op("").Valid() {
		t.Error("unknown ops must be invalid")
	}
}

func TestTableOp(t *testing.T) {
	want := map[Op][]string{
		OpRead: {"fs:read", "Read", "read_file", "view", "cat", "NotebookRead", "READ_FILE", "mcp__filesystem__read_file",
			"fs:cat", "fs:readFile", "FS:Read", "fs:stat", "fs:whatever", "code:read"},
		OpWrite: {"Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "edit_file", "str_replace_based_edit_tool",
			"fs:write", "fs:edit", "fs:create_file", "fs:delete", "fs:rm", "fs:move", "mcp__fs__edit_file", "apply_patch",
			"WRITE", "edit", "code:edit"},
		OpExec: {"Bash", "bash", "shell:exec", "run_terminal_cmd", "execute_command", "run_command", "terminal", "exec",
			"shell", "shell:run", "Shell:anything", "mcp__desktop__execute_command"},
		OpList: {"Glob", "LS", "list_dir", "list_files", "fs:list", "fs:ls", "fs:glob", "fs:list_directory", "glob",
			"mcp__filesystem__list_directory"},
		OpSearch: {"Grep", "search_files", "grep_search", "codebase_search", "code:search", "WebSearch", "code:symbols",
			"code:find_references", "code:anything", "fs:search", "fs:grep", "web:search", "Web:Query"},
		OpFetch:   {"WebFetch", "fetch", "web_fetch", "mcp__web__fetch", "web:fetch", "web:get", "web:open", "web:browse"},
		OpAgent:   {"Task", "Agent", "task"},
		OpControl: {"TodoWrite", "todowrite", "ExitPlanMode", "AskUserQuestion", "TaskOutput", "Skill", "KillShell"},
		OpPlugin: {"mind:rag-query", "mcp__mind__rag_query", "mcp__server__", "jira_create_ticket", "x", "mcp__",
			"mcpx__a__read_file", "Readme", "filesystem:read"},
	}
	for op, tools := range want {
		for _, tool := range tools {
			if got := Builtin().Op(tool); got != op {
				t.Errorf("Op(%q) = %q, want %q", tool, got, op)
			}
		}
	}
	if got := Builtin().Op(""); got != "" {
		t.Errorf(`Op("") = %q, want ""`, got)
	}
	var nilTable *Table
	if got := nilTable.Op("Read"); got != OpRead {
		t.Errorf("nil table: Op(Read) = %q", got)
	}
	long := strings.Repeat("X", 80) + "_read"
	if got := Builtin().Op(long); got != OpPlugin {
		t.Errorf("long unknown name: %q", got)
	}
}

func TestTableOverrides(t *testing.T) {
	tbl := NewTable(map[string]string{
		"mind:rag-query": "search", // a plugin becomes a search
		"Bash":           "plugin", // an exact override of a built-in
		"todowrite":      "write",  // case-folded override
		"Deploy":         "exec",
		"read_file":      "bogus", // invalid: ignored, built-in kept
		"":               "read",
	})
	for _, tt := range []struct {
		tool string
		want Op
	}{
		{"mind:rag-query", OpSearch},
		{"Bash", OpPlugin},
		{"bash", OpExec}, // the built-in exact name wins over the folded extra
		{"TodoWrite", OpControl},
		{"todowrite", OpWrite},
		{"deploy", OpExec},
		{"DEPLOY", OpExec},
		{"mcp__ops__Deploy", OpExec},
		{"read_file", OpRead},
		{"Read", OpRead},
		{"other:tool", OpPlugin},
	} {
		if got := tbl.Op(tt.tool); got != tt.want {
			t.Errorf("Op(%q) = %q, want %q", tt.tool, got, tt.want)
		}
	}
	if NewTable(nil) != Builtin() || NewTable(map[string]string{}) != Builtin() {
		t.Error("an empty extra map should give the shared built-in table")
	}
	if !tbl.IsPlugin("Bash") || tbl.IsPlugin("Read") || tbl.IsPlugin("") {
		t.Error("IsPlugin")
	}
}

func TestCallOp(t *testing.T) {
	tbl := Builtin()
	for _, tt := range []struct {
		tool  string
		input map[string]any
		want  Op
	}{
		{"str_replace_based_edit_tool", map[string]any{"command": "view", "path": "a.go"}, OpRead},
		{"str_replace_based_edit_tool", map[string]any{"command": "str_replace", "path": "a.go"}, OpWrite},
		{"str_replace_editor", map[string]any{"command": "create", "path": "a.go"}, OpWrite},
		{"Edit", nil, OpWrite},
		{"Bash", map[string]any{"command": "view"}, OpExec},
	} {
		if got := tbl.CallOp(tt.tool, tt.input); got != tt.want {
			t.Errorf("CallOp(%q, %v) = %q, want %q", tt.tool, tt.input, got, tt.want)
		}
	}
}

func TestTableOpDoesNotAllocate(t *testing.T) {
	tbl := NewTable(map[string]string{"mind:rag-query": "search"})
	names := []string{"Read", "bash", "BASH", "mcp__fs__Read_File", "fs:write", "code:search", "shell:exec",
		"mind:rag-query", "Mind:Rag-Query", "unknown_tool", "TodoWrite", "Some_Long_Plugin_Name_That_Is_Unknown"}
	allocs := testing.AllocsPerRun(100, func() {
		for _, n := range names {
			_ = tbl.Op(n)
		}
	})
	if allocs != 0 {
		t.Errorf("Op allocates %.1f times a run", allocs)
	}
}

func BenchmarkTableOp(b *testing.B) {
	tbl := NewTable(map[string]string{"mind:rag-query": "search"})
	names := []string{"Read", "bash", "mcp__fs__read_file", "fs:write", "mind:rag-query", "unknown_tool"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = tbl.Op(names[i%len(names)])
	}
}
