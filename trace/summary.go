package trace

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/trace/internal/agentlog"
)

// ExcerptBytes caps the excerpt of a plugin result kept in a [Summary].
const ExcerptBytes = 300

// Summary is what a trace shows an agent did, by kind of call. Every record
// carries Index, the position of its entry in the trace, and whether the
// call failed. Records are in trace order. Calls of [OpControl] tools are
// left out.
type Summary struct {
	Reads    []File       // files read; a failed read is no evidence the file exists
	Listings []Listing    // directories listed and file names matched
	Writes   []File       // files written, created or edited (by shell commands too: see ShellWrites)
	Commands []CommandRun // commands run, with their exit status
	Searches []Search     // searches of contents, code or the web
	Fetches  []Fetch      // URLs fetched
	Agents   []Delegation // tasks delegated to other agents
	Plugins  []PluginCall // calls of plugin tools
	// Seen are the paths that appeared in the output of successful
	// listings and searches (a Glob's matches, a Grep's matching files,
	// ls names, find results), each once, with the first entry that showed
	// it: the agent saw these files exist.
	Seen []SeenPath
	// Versions replays the writes: what each file held after each call,
	// as far as the trace shows it (see [Versions.Compare]).
	Versions *Versions
}

// File is a file one call read or wrote.
type File struct {
	Path    string
	Tool    string
	Index   int
	IsError bool
	// HasResult reports whether the trace holds a result for the call: an
	// output or an error flag. A call without one may never have run.
	HasResult bool
}

// Listing is one call that listed a directory or matched file names.
type Listing struct {
	Dir     string // the directory listed; "" for the tool's working directory
	Pattern string // the glob matched, if any
	Tool    string
	Index   int
	IsError bool
}

// CommandRun is one run of a command.
type CommandRun struct {
	Command string
	Tool    string
	Index   int
	// ExitCode is the exit status when the trace states it: "Exit code N"
	// at the start of the output (Claude Code), <returncode>N</returncode>
	// (mini-swe-agent), or an exitCode, exit_code, returncode or exitcode
	// member of an output that is a JSON object. For a command started in
	// the background it is the task's status, when a later call that
	// polled the task reported one.
	ExitCode *int
	// IsError is the tool's own error flag.
	IsError bool
	// HasResult reports whether the trace holds a result for the call: an
	// output or an error flag. A call without one may never have run.
	HasResult bool
	// Background is set when the command was started in the background
	// (its output only names the task).
	Background bool
}

// Failed reports whether the run failed: the tool reported an error or the
// exit status is not 0.
func (c *CommandRun) Failed() bool { return c.IsError || (c.ExitCode != nil && *c.ExitCode != 0) }

// Search is one search.
type Search struct {
	Query   string
	Dir     string // where the search looked; "" when unsaid
	Tool    string
	Index   int
	IsError bool
}

// Fetch is one fetched URL.
type Fetch struct {
	URL     string
	Tool    string
	Index   int
	IsError bool
}

// Delegation is one task handed to another agent.
type Delegation struct {
	Tool string
	// Description is the input's "description", else the first line of
	// its "prompt", capped.
	Description string
	Index       int
	IsError     bool
}

// PluginCall is one call of a plugin tool.
type PluginCall struct {
	Tool    string
	Index   int
	IsError bool
	// Excerpt is the start of the output, at most [ExcerptBytes] bytes cut
	// at a UTF-8 boundary.
	Excerpt string
}

// SeenPath is a path that appeared in the output of a listing or a search.
type SeenPath struct {
	Path  string
	Index int
}

// Summarize reads a trace with table t (nil: the built-in table).
func Summarize(entries []vouch.TraceEntry, t *Table) *Summary {
	s := &Summary{Versions: newVersions()}
	var seen map[string]bool
	addSeen := func(p string, i int) {
		if seen == nil {
			seen = make(map[string]bool)
		}
		if !seen[p] {
			seen[p] = true
			s.Seen = append(s.Seen, SeenPath{Path: p, Index: i})
		}
	}
	var pending map[string]int // background task id -> index in s.Commands
	for i := range entries {
		e := &entries[i]
		op := t.CallOp(e.Tool, e.Input)
		if len(pending) > 0 && (op == OpControl || op == OpExec) {
			resolveBackground(e, s, pending)
		}
		switch op {
		case OpRead:
			if p := FilePath(e.Input); p != "" {
				s.Reads = append(s.Reads, File{Path: p, Tool: e.Tool, Index: i, IsError: e.IsError, HasResult: hasResult(e)})
			}
		case OpWrite:
			first := len(s.Writes)
			if p := FilePath(e.Input); p != "" {
				s.Writes = append(s.Writes, File{Path: p, Tool: e.Tool, Index: i, IsError: e.IsError, HasResult: hasResult(e)})
			} else {
				for _, p := range patchFiles(e.Input) {
					s.Writes = append(s.Writes, File{Path: p, Tool: e.Tool, Index: i, IsError: e.IsError, HasResult: hasResult(e)})
				}
			}
			s.Versions.editCall(i, e, s.Writes[first:])
		case OpList:
			dir := DirPath(e.Input)
			s.Listings = append(s.Listings, Listing{Dir: dir, Pattern: Query(e.Input), Tool: e.Tool, Index: i, IsError: e.IsError})
			if !e.IsError {
				outputPaths(e.OutputText(), modeListing, dir, "", func(p string) { addSeen(p, i) })
			}
		case OpSearch:
			dir := DirPath(e.Input)
			s.Searches = append(s.Searches, Search{Query: Query(e.Input), Dir: dir, Tool: e.Tool, Index: i, IsError: e.IsError})
			if !e.IsError && !containsFold(e.Tool, "web") {
				outputPaths(e.OutputText(), modeSearch, "", "", func(p string) { addSeen(p, i) })
			}
		case OpExec:
			c := CommandRun{Command: Command(e.Input), Tool: e.Tool, Index: i, IsError: e.IsError, HasResult: hasResult(e)}
			if code, ok := ExitCode(e); ok {
				c.ExitCode = &code
			}
			if id := BackgroundID(e); id != "" {
				c.Background = true
				if pending == nil {
					pending = make(map[string]int)
				}
				pending[id] = len(s.Commands)
			}
			s.Commands = append(s.Commands, c)
			if !c.Background {
				stages := parseShell(c.Command)
				out := e.OutputText()
				written := shellWrites(stages, out)
				for _, p := range written {
					s.Writes = append(s.Writes, File{Path: p, Tool: e.Tool, Index: i, IsError: c.Failed(), HasResult: c.HasResult})
				}
				s.Versions.shellCall(i, stages, written, c.Failed(), out)
			}
			if !c.Failed() && !c.Background {
				if mode, dir, base, ok := listingCommand(c.Command); ok {
					outputPaths(observationBody(e.OutputText()), mode, dir, base, func(p string) { addSeen(p, i) })
				}
			}
		case OpFetch:
			s.Fetches = append(s.Fetches, Fetch{URL: URL(e.Input), Tool: e.Tool, Index: i, IsError: e.IsError})
		case OpAgent:
			s.Agents = append(s.Agents, Delegation{Tool: e.Tool, Description: delegation(e.Input), Index: i, IsError: e.IsError})
		case OpPlugin:
			s.Plugins = append(s.Plugins, PluginCall{Tool: e.Tool, Index: i, IsError: e.IsError, Excerpt: Excerpt(outputHead(e, 4*ExcerptBytes), ExcerptBytes)})
		}
	}
	return s
}

// Paths returns every path the trace shows to exist, each once, in trace
// order: files read or written by calls that have a result and did not
// fail, and the paths seen in listings and searches.
func (s *Summary) Paths() []string {
	type at struct {
		p string
		i int
	}
	var all []at
	for _, list := range [][]File{s.Reads, s.Writes} {
		for _, f := range list {
			if f.HasResult && !f.IsError {
				all = append(all, at{f.Path, f.Index})
			}
		}
	}
	for _, p := range s.Seen {
		all = append(all, at{p.Path, p.Index})
	}
	// A stable sort keeps reads before writes of one entry.
	slices.SortStableFunc(all, func(a, b at) int { return a.i - b.i })
	out := make([]string, 0, len(all))
	done := make(map[string]bool, len(all))
	for _, a := range all {
		if !done[a.p] {
			done[a.p] = true
			out = append(out, a.p)
		}
	}
	return out
}

// hasResult reports whether the trace holds a result for e.
func hasResult(e *vouch.TraceEntry) bool { return e.IsError || len(e.Output) > 0 }

// outputHead returns about the first n bytes of e's output as text,
// without unquoting the rest of a long string.
func outputHead(e *vouch.TraceEntry, n int) string {
	raw := bytes.TrimLeft(e.Output, " \t\r\n")
	if len(raw) > 0 && raw[0] == '"' {
		return string(unquoteHead(make([]byte, 0, n), raw))
	}
	if len(raw) > n {
		raw = raw[:n]
	}
	return string(raw)
}

// Excerpt returns the start of text, trimmed of surrounding white space, at
// most max bytes long and cut at a UTF-8 boundary; "…" ends a text that was
// cut (within the max).
func Excerpt(text string, max int) string {
	text = strings.TrimSpace(text)
	if len(text) <= max {
		return text
	}
	const ell = "…"
	if max < len(ell) {
		return ""
	}
	cut := max - len(ell)
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return strings.TrimRightFunc(text[:cut], isSpace) + ell
}

func isSpace(r rune) bool { return r == ' ' || r == '\n' || r == '\t' || r == '\r' }

// delegation describes a delegated task from its input.
func delegation(in map[string]any) string {
	if d, ok := in["description"].(string); ok && strings.TrimSpace(d) != "" {
		return Excerpt(d, 200)
	}
	for _, k := range []string{"prompt", "task", "message"} {
		if p, ok := in[k].(string); ok {
			line, _, _ := strings.Cut(strings.TrimSpace(p), "\n")
			if line != "" {
				return Excerpt(line, 200)
			}
		}
	}
	return ""
}

// patchFiles returns the files an apply_patch style input names
// ("*** Update File: a.go").
func patchFiles(in map[string]any) []string {
	var patch string
	for _, k := range []string{"input", "patch", "diff"} {
		if s, ok := in[k].(string); ok {
			patch = s
			break
		}
	}
	if patch == "" {
		return nil
	}
	var out []string
	for line := range strings.Lines(patch) {
		for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "+++ b/"} {
			if f, ok := strings.CutPrefix(line, p); ok {
				if f = strings.TrimSpace(f); f != "" && f != "/dev/null" {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// ExitCode returns the exit status a trace entry's output states, if any:
// "Exit code N" at the start (Claude Code; "Error: Exit code N" too;
// "Exit code: N", Codex),
// <returncode>N</returncode> at the start, after an optional
// <exception>…</exception> (mini-swe-agent), or a numeric exitCode,
// exit_code, returncode or exitcode member of an output that is a JSON
// object.
func ExitCode(e *vouch.TraceEntry) (int, bool) {
	raw := bytes.TrimLeft(e.Output, " \t\r\n")
	if len(raw) == 0 {
		return 0, false
	}
	switch raw[0] {
	case '"':
		var buf [2048]byte
		return agentlog.TextExitCode(unquoteHead(buf[:0], raw))
	case '{':
		return objectExitCode(raw)
	}
	return 0, false
}

// objectExitCode reads a top-level exit status member of a JSON object.
func objectExitCode(raw []byte) (int, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return 0, false
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return 0, false
		}
		switch name.String() {
		case "exitCode", "exit_code", "returncode", "exitcode", "returnCode":
			v, err := dec.ReadToken()
			if err != nil {
				return 0, false
			}
			if v.Kind() == '0' {
				if n, err := v.Int(); err == nil && n >= math.MinInt32 && n <= math.MaxInt32 {
					return int(n), true
				}
			}
			return 0, false
		default:
			if dec.SkipValue() != nil {
				return 0, false
			}
		}
	}
	return 0, false
}

// unquoteHead appends to dst the start of the JSON string raw, unescaped,
// up to dst's capacity. Invalid escapes end the head.
func unquoteHead(dst, raw []byte) []byte {
	for i := 1; i < len(raw) && len(dst) < cap(dst); i++ {
		c := raw[i]
		switch {
		case c == '"':
			return dst
		case c != '\\':
			dst = append(dst, c)
			continue
		}
		i++
		if i >= len(raw) {
			return dst
		}
		switch raw[i] {
		case 'n':
			dst = append(dst, '\n')
		case 't':
			dst = append(dst, '\t')
		case 'r':
			dst = append(dst, '\r')
		case 'b', 'f':
			dst = append(dst, ' ')
		case '"', '\\', '/':
			dst = append(dst, raw[i])
		case 'u':
			if i+4 >= len(raw) {
				return dst
			}
			v, err := strconv.ParseUint(string(raw[i+1:i+5]), 16, 32)
			if err != nil {
				return dst
			}
			if len(dst)+utf8.UTFMax > cap(dst) {
				return dst
			}
			dst = utf8.AppendRune(dst, rune(v))
			i += 4
		default:
			return dst
		}
	}
	return dst
}

// BackgroundID returns the task id of a command started in the background
// ("Command running in background with ID: b0be39e."), or "".
func BackgroundID(e *vouch.TraceEntry) string {
	var buf [256]byte
	head := unquoteHeadAny(buf[:0], e.Output)
	const marker = "running in background with ID: "
	i := bytes.Index(head, []byte(marker))
	if i < 0 {
		return ""
	}
	rest := head[i+len(marker):]
	end := 0
	for end < len(rest) && (isAlnum(rest[end]) || rest[end] == '-' || rest[end] == '_') {
		end++
	}
	return string(rest[:end])
}

// unquoteHeadAny is unquoteHead for an output that may not be a string.
func unquoteHeadAny(dst, raw []byte) []byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 || raw[0] != '"' {
		return dst
	}
	return unquoteHead(dst, raw)
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// resolveBackground sets the exit status of a background command from the
// output of a call that polled its task: <task_id>ID</task_id> with
// <exit_code>N</exit_code> before the task's <output>.
func resolveBackground(e *vouch.TraceEntry, s *Summary, pending map[string]int) {
	var buf [1024]byte
	head := unquoteHeadAny(buf[:0], e.Output)
	if i := bytes.Index(head, []byte("<output>")); i >= 0 {
		head = head[:i]
	}
	id := agentlog.TagValue(head, "task_id")
	if len(id) == 0 {
		return
	}
	k, ok := pending[string(id)]
	if !ok {
		return
	}
	code, ok := agentlog.LeadingInt(agentlog.TagValue(head, "exit_code"))
	if !ok {
		return
	}
	s.Commands[k].ExitCode = &code
	delete(pending, string(id))
}
