package trace

import (
	"bytes"
	"encoding/json"
	"iter"
	"strings"

	"github.com/vouchgate/vouch"
)

// The input keys that hold each kind of argument, in order of preference.
var (
	pathKeys    = []string{"path", "file_path", "filePath", "file", "filename", "notebook_path", "target_file"}
	dirKeys     = []string{"path", "dir", "directory", "dir_path", "target_directory", "relative_workspace_path"}
	commandKeys = []string{"command", "cmd", "script"}
	queryKeys   = []string{"query", "pattern", "q", "regex", "search", "glob", "search_term"}
	urlKeys     = []string{"url", "uri"}
	writtenKeys = []string{"content", "new_string", "newString", "text", "file_text", "new_str"}
)

// FilePath returns the file a tool call's input names: the first non-empty
// string among "path", "file_path", "filePath", "file", "filename",
// "notebook_path" and "target_file"; "" when there is none.
func FilePath(input map[string]any) string { return firstString(input, pathKeys) }

// DirPath returns the directory a listing's input names: the first
// non-empty string among "path", "dir", "directory", "dir_path",
// "target_directory" and "relative_workspace_path"; "" when there is none
// (the tool's working directory).
func DirPath(input map[string]any) string { return firstString(input, dirKeys) }

// Query returns the query or pattern a search's input names: the first
// non-empty string among "query", "pattern", "q", "regex", "search", "glob"
// and "search_term".
func Query(input map[string]any) string { return firstString(input, queryKeys) }

// URL returns the URL a fetch's input names ("url", then "uri").
func URL(input map[string]any) string { return firstString(input, urlKeys) }

// Command returns the command a call's input holds: the first of "command",
// "cmd" and "script" that is a non-empty string, or a list whose string
// items are joined by spaces (an argv).
func Command(input map[string]any) string {
	for _, k := range commandKeys {
		switch v := input[k].(type) {
		case string:
			if v != "" {
				return v
			}
		case []any:
			var b strings.Builder
			for _, p := range v {
				if s, ok := p.(string); ok {
					if b.Len() > 0 {
						b.WriteByte(' ')
					}
					b.WriteString(s)
				}
			}
			if b.Len() > 0 {
				return b.String()
			}
		case []string:
			if len(v) > 0 {
				return strings.Join(v, " ")
			}
		}
	}
	return ""
}

// Written yields the text a write call's input holds, that the call put
// into its file: every non-empty string among "content" (Write, write_file),
// "new_string" and "newString" (Edit), "text", "file_text" (a create) and
// "new_str" (str_replace), in that order. The text an edit replaces is not
// among them, nor the per-edit texts of a list of edits (MultiEdit's
// "edits").
func Written(input map[string]any) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, k := range writtenKeys {
			if s, ok := input[k].(string); ok && s != "" && !yield(s) {
				return
			}
		}
	}
}

func firstString(input map[string]any, keys []string) string {
	for _, k := range keys {
		if s, ok := input[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// streamKeys are the members of a command's JSON output that hold what
// it printed.
var streamKeys = []string{"stdout", "output", "stderr"}

// CommandOutput returns what a command printed, as its trace entry holds
// it: the text of a string output, or, for an output that is a JSON
// object ({"exitCode": 0, "stdout": "...", "stderr": "..."}), its stdout,
// output and stderr members joined by newlines; else the output as it is.
func CommandOutput(e *vouch.TraceEntry) string {
	raw := bytes.TrimSpace(e.Output)
	if len(raw) == 0 || raw[0] != '{' {
		return e.OutputText()
	}
	var obj map[string]any
	if json.Unmarshal(raw, &obj) != nil {
		return e.OutputText()
	}
	var parts []string
	for _, k := range streamKeys {
		if s, ok := obj[k].(string); ok && s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return e.OutputText()
	}
	return strings.Join(parts, "\n")
}
