package trace

import "strings"

// Op is what a tool call does, as the summary and grounding read it. The
// values are those of vouch.ToolOps, the ops a policy's tools map may name.
type Op string

// The ops.
const (
	OpRead   Op = "read"   // read a file
	OpList   Op = "list"   // list a directory or match file names (glob)
	OpWrite  Op = "write"  // write, create or edit a file
	OpExec   Op = "exec"   // run a command
	OpSearch Op = "search" // search file contents, code or the web
	OpFetch  Op = "fetch"  // fetch a URL
	OpAgent  Op = "agent"  // delegate to another agent
	OpPlugin Op = "plugin" // anything else: a black box vouch cannot re-run

	// OpControl marks tools that steer the agent's own session rather than
	// act on the world: a todo list (TodoWrite), plan mode, a question to
	// the user, polling a background task, loading a skill. Their calls are
	// neither evidence about the workspace nor plugin work whose results
	// could be checked, so the summary leaves them out and the plugin
	// checks skip them.
	OpControl Op = "control"
)

// Valid reports whether op is one of the ops.
func (op Op) Valid() bool {
	switch op {
	case OpRead, OpList, OpWrite, OpExec, OpSearch, OpFetch, OpAgent, OpPlugin, OpControl:
		return true
	}
	return false
}

// builtin maps tool names of common agent frameworks to their ops. Names
// are matched as written first, then without regard to case.
var builtin = map[string]Op{
	// Reads.
	"fs:read": OpRead, "Read": OpRead, "read_file": OpRead, "view": OpRead, "View": OpRead,
	"cat": OpRead, "NotebookRead": OpRead, "read_many_files": OpRead, "open_file": OpRead,
	"readFile": OpRead, "view_file": OpRead,

	// Writes and edits.
	"fs:write": OpWrite, "fs:edit": OpWrite, "Write": OpWrite, "Edit": OpWrite,
	"MultiEdit": OpWrite, "NotebookEdit": OpWrite, "write_file": OpWrite, "edit_file": OpWrite,
	"str_replace_based_edit_tool": OpWrite, "str_replace_editor": OpWrite, "create_file": OpWrite,
	"replace": OpWrite, "apply_patch": OpWrite, "search_replace": OpWrite, "delete_file": OpWrite,
	"writeFile": OpWrite, "edit": OpWrite,

	// Commands.
	"shell:exec": OpExec, "Bash": OpExec, "bash": OpExec, "shell": OpExec, "run_terminal_cmd": OpExec,
	"execute_command": OpExec, "run_command": OpExec, "terminal": OpExec, "exec": OpExec,
	"run_shell_command": OpExec, "execute_bash": OpExec, "local_shell": OpExec,

	// Listings and file-name matches.
	"fs:list": OpList, "Glob": OpList, "LS": OpList, "list_dir": OpList, "list_files": OpList,
	"list_directory": OpList, "glob": OpList, "ls": OpList, "file_search": OpList, "find_file": OpList,

	// Searches of contents, code or the web.
	"code:search": OpSearch, "Grep": OpSearch, "search_files": OpSearch, "grep_search": OpSearch,
	"codebase_search": OpSearch, "grep": OpSearch, "search_file_content": OpSearch,
	"search_dir": OpSearch, "search_file": OpSearch, "WebSearch": OpSearch, "web_search": OpSearch,
	"google_web_search": OpSearch, "ToolSearch": OpSearch,

	// Fetches.
	"WebFetch": OpFetch, "fetch": OpFetch, "web_fetch": OpFetch, "fetch_url": OpFetch,

	// Delegation.
	"Task": OpAgent, "Agent": OpAgent, "dispatch_agent": OpAgent, "spawn_agent": OpAgent,

	// Session control: not evidence, not plugin work (see OpControl).
	"TodoWrite": OpControl, "TodoRead": OpControl, "todo_write": OpControl, "update_plan": OpControl,
	"ExitPlanMode": OpControl, "EnterPlanMode": OpControl, "AskUserQuestion": OpControl,
	"TaskOutput": OpControl, "BashOutput": OpControl, "KillShell": OpControl, "KillBash": OpControl,
	"TaskStop": OpControl, "Skill": OpControl, "SlashCommand": OpControl, "TaskCreate": OpControl,
	"TaskUpdate": OpControl, "TaskList": OpControl, "TaskGet": OpControl, "think": OpControl,
}

// builtinFolded is builtin keyed by lower-cased names. Where two names
// differ only in case they have the same op.
var builtinFolded = fold(builtin)

func fold(m map[string]Op) map[string]Op {
	out := make(map[string]Op, len(m))
	for k, v := range m {
		out[strings.ToLower(k)] = v
	}
	return out
}

// Table maps tool names to ops: the built-in names of common agent
// frameworks with a policy's own names on top. It is immutable once built
// and safe for concurrent use. A nil *Table is the built-in table.
type Table struct {
	exact  map[string]Op // the policy's names as written
	folded map[string]Op // the policy's names lower-cased
}

// defaultTable is the built-in table, shared by every NewTable without
// extra names.
var defaultTable = &Table{}

// Builtin returns the built-in table.
func Builtin() *Table { return defaultTable }

// NewTable returns the built-in table with extra on top: extra maps tool
// names to ops (a policy's tools map). Entries whose op is not a valid [Op]
// are ignored, so those tools keep their built-in op. Without extra names
// the shared built-in table is returned.
func NewTable(extra map[string]string) *Table {
	if len(extra) == 0 {
		return defaultTable
	}
	t := &Table{exact: make(map[string]Op, len(extra)), folded: make(map[string]Op, len(extra))}
	for name, op := range extra {
		if o := Op(op); name != "" && o.Valid() {
			t.exact[name] = o
			t.folded[strings.ToLower(name)] = o
		}
	}
	return t
}

// Op returns what a call of tool does. It tries, in order, the first match
// winning:
//
//  1. the table's extra names, as written;
//  2. the built-in names, as written;
//  3. the extra names, then the built-in names, without regard to case;
//  4. for an MCP tool ("mcp__server__read_file"), steps 1–3 on the last
//     segment ("read_file");
//  5. the namespaces: "shell:*" runs commands; "fs:*" and "code:*" go by
//     their suffix ("fs:write" writes, "fs:glob" lists, "code:grep"
//     searches), fs:* reading and code:* searching when the suffix says
//     nothing else; "web:*" fetches a page, but for a search
//     ("web:search");
//  6. [OpPlugin].
//
// An empty name has no op: Op returns "". Op does not allocate.
func (t *Table) Op(tool string) Op {
	if tool == "" {
		return ""
	}
	if t == nil {
		t = defaultTable
	}
	if op, ok := t.lookup(tool); ok {
		return op
	}
	if strings.HasPrefix(tool, "mcp__") {
		if i := strings.LastIndex(tool, "__"); i > len("mcp_") {
			if op, ok := t.lookup(tool[i+2:]); ok {
				return op
			}
		}
	}
	if op, ok := namespaceOp(tool); ok {
		return op
	}
	return OpPlugin
}

// IsPlugin reports whether tool is a plugin tool: one no built-in or extra
// name or namespace covers.
func (t *Table) IsPlugin(tool string) bool { return t.Op(tool) == OpPlugin }

// CallOp returns what one call does, looking at its input where the tool
// does several things: an editor tool that takes a command
// (str_replace_based_edit_tool, str_replace_editor) reads with "view" and
// writes with "create", "str_replace", "insert" and "undo_edit". For other
// tools it is [Table.Op].
func (t *Table) CallOp(tool string, input map[string]any) Op {
	op := t.Op(tool)
	if op != OpWrite || input == nil {
		return op
	}
	if c, ok := input["command"].(string); ok && c == "view" {
		return OpRead
	}
	return op
}

// lookup tries the exact and case-folded names.
func (t *Table) lookup(tool string) (Op, bool) {
	if op, ok := t.exact[tool]; ok {
		return op, true
	}
	if op, ok := builtin[tool]; ok {
		return op, true
	}
	if len(t.folded) > 0 {
		if op, ok := foldedLookup(t.folded, tool); ok {
			return op, true
		}
	}
	return foldedLookup(builtinFolded, tool)
}

// foldedLookup looks s up in a map keyed by lower-cased names without
// allocating for names of up to 64 bytes.
func foldedLookup(m map[string]Op, s string) (Op, bool) {
	upper := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			upper = true
			break
		}
	}
	if !upper {
		op, ok := m[s]
		return op, ok
	}
	if len(s) > 64 {
		op, ok := m[strings.ToLower(s)]
		return op, ok
	}
	var buf [64]byte
	b := buf[:len(s)]
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	op, ok := m[string(b)]
	return op, ok
}

// namespaceOp applies the rules of the built-in namespaces.
func namespaceOp(tool string) (Op, bool) {
	ns, suffix, ok := strings.Cut(tool, ":")
	if !ok {
		return "", false
	}
	switch {
	case strings.EqualFold(ns, "shell"):
		return OpExec, true
	case strings.EqualFold(ns, "fs"):
		return suffixOp(suffix, OpRead), true
	case strings.EqualFold(ns, "code"):
		return suffixOp(suffix, OpSearch), true
	case strings.EqualFold(ns, "web"):
		// web:search searches; anything else (fetch, get, open, browse)
		// fetches a page.
		if suffixOp(suffix, OpFetch) == OpSearch {
			return OpSearch, true
		}
		return OpFetch, true
	}
	return "", false
}

// suffixOps are whole suffixes of fs:* and code:* tools.
var suffixOps = map[string]Op{
	"ls": OpList, "cat": OpRead, "rm": OpWrite, "mv": OpWrite, "cp": OpWrite, "get": OpRead,
	"find": OpList, "run": OpExec, "exec": OpExec,
}

// suffixWords are words a suffix may contain, in order of precedence.
var suffixWords = []struct {
	word string
	op   Op
}{
	{"write", OpWrite}, {"edit", OpWrite}, {"creat", OpWrite}, {"delet", OpWrite}, {"remov", OpWrite},
	{"renam", OpWrite}, {"move", OpWrite}, {"mkdir", OpWrite}, {"patch", OpWrite}, {"append", OpWrite},
	{"insert", OpWrite}, {"replac", OpWrite}, {"copy", OpWrite},
	{"list", OpList}, {"glob", OpList}, {"tree", OpList}, {"readdir", OpList},
	{"search", OpSearch}, {"grep", OpSearch}, {"query", OpSearch}, {"symbol", OpSearch},
	{"refer", OpSearch}, {"defin", OpSearch},
	{"read", OpRead}, {"view", OpRead}, {"open", OpRead}, {"stat", OpRead},
}

// suffixOp reads the op a namespaced tool's suffix names, def when it
// names none.
func suffixOp(suffix string, def Op) Op {
	if op, ok := foldedLookup(suffixOps, suffix); ok {
		return op
	}
	for _, w := range suffixWords {
		if containsFold(suffix, w.word) {
			return w.op
		}
	}
	return def
}

// containsFold reports whether s contains the lower-case ASCII word,
// ignoring the case of s.
func containsFold(s, word string) bool {
	n := len(word)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for ; j < n; j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != word[j] {
				break
			}
		}
		if j == n {
			return true
		}
	}
	return false
}
