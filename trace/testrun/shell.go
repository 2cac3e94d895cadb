package testrun

import (
	"strings"

	cmdrunner "github.com/vouchgate/vouch/internal/runner"
)

// maxCommand bounds the bytes of a command line that are read.
const maxCommand = 64 << 10

// stage is one stage of a shell line: a command of a pipeline or of a
// list joined by &&, || or ;.
type stage struct {
	// argv is the command's words, unquoted, without leading VAR=value
	// assignments, wrappers (timeout, env, nice, uv run...) and
	// redirections.
	argv []string
	// assigned is true when the stage set variables or ran its command
	// under a wrapper that changes its environment (env, sudo, uv run):
	// its argv alone may not run the same.
	assigned bool
	// input is true when the stage reads a redirected input (< file, a
	// here-document).
	input bool
	// sepBefore is the separator before the stage: "", "&&", "||", "|"
	// or ";" (a newline is ";").
	sepBefore string
}

// stages splits a shell line into its stages with runner.Stages, after
// dropping the bodies of here-documents and reading parentheses and
// backquotes as separators (a subshell's or a command substitution's
// commands are stages too). Stages with no command are dropped. The
// script of "bash -c '...'" (sh, zsh, dash) is read as the stages it
// holds, one level deep.
func stages(line string) []stage {
	return splitStages(line, true)
}

func splitStages(line string, nested bool) []stage {
	if len(line) > maxCommand {
		line = line[:maxCommand]
	}
	line = unparen(dropHeredocs(line))
	var out []stage
	cur := 0
	sep := ""
	for _, text := range cmdrunner.Stages(line) {
		// The text between two stages holds only separators.
		start := cur
		for cur < len(line) && !strings.HasPrefix(line[cur:], text) && strings.IndexByte("&|;\n", line[cur]) >= 0 {
			cur++
		}
		if !strings.HasPrefix(line[cur:], text) {
			if k := strings.Index(line[cur:], text); k >= 0 {
				cur += k
			}
		}
		if s := separator(line[start:cur]); s != "" && (sep == "" || s != ";") {
			sep = s
		}
		cur += len(text)
		st := clean(words(text))
		if len(st.argv) == 0 {
			continue
		}
		if len(out) > 0 {
			st.sepBefore = sep
		}
		if p := program(st.argv); nested && len(st.argv) > 2 && st.argv[1] == "-c" && (p == "bash" || p == "sh" || p == "zsh" || p == "dash") {
			if inner := splitStages(st.argv[2], false); len(inner) > 0 {
				inner[0].sepBefore = st.sepBefore
				for i := range inner {
					inner[i].assigned = inner[i].assigned || st.assigned
				}
				out = append(out, inner...)
				sep = ""
				continue
			}
		}
		out = append(out, st)
		sep = ""
	}
	return out
}

// unparen turns the parentheses and backquotes of a line that are
// outside quotes into ";": a subshell's or a command substitution's
// commands are stages of their own. Quoted ones are text ("-k 'a and
// (b or c)'", "-E 'test(foo)'").
func unparen(line string) string {
	if !strings.ContainsAny(line, "()`") {
		return line
	}
	b := []byte(line)
	var quote byte
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '\\':
			i++
		case c == '(' || c == ')' || c == '`':
			b[i] = ';'
		}
	}
	return string(b)
}

// separator names the separator a gap between two stages holds.
func separator(gap string) string {
	switch {
	case strings.Contains(gap, "&&"):
		return "&&"
	case strings.Contains(gap, "||"):
		return "||"
	case strings.Contains(gap, "|"):
		return "|"
	case gap != "":
		return ";"
	}
	return ""
}

// dropHeredocs removes the bodies of here-documents ("cat <<'EOF' >
// x.py", its lines, "EOF"): they are a file's text, not commands.
func dropHeredocs(line string) string {
	if !strings.Contains(line, "<<") {
		return line
	}
	var b strings.Builder
	delim := ""
	for len(line) > 0 {
		l, rest, _ := strings.Cut(line, "\n")
		line = rest
		if delim != "" {
			if strings.TrimSpace(l) == delim {
				delim = ""
			}
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
		delim = heredoc(l)
	}
	return b.String()
}

// heredoc returns the delimiter of the first here-document a line
// starts, or "".
func heredoc(l string) string {
	for {
		i := strings.Index(l, "<<")
		if i < 0 {
			return ""
		}
		l = l[i+2:]
		if strings.HasPrefix(l, "<") { // a here-string, <<<
			l = l[1:]
			continue
		}
		l = strings.TrimLeft(strings.TrimPrefix(l, "-"), " \t")
		quote := byte(0)
		if l != "" && (l[0] == '\'' || l[0] == '"') {
			quote, l = l[0], l[1:]
		}
		end := 0
		for end < len(l) && (l[end] == '_' || l[end] == '-' || l[end] == '.' || isAlnum(l[end])) {
			end++
		}
		if end == 0 {
			continue
		}
		d := l[:end]
		if quote != 0 && (end >= len(l) || l[end] != quote) {
			continue
		}
		return d
	}
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// words splits a stage into words as a shell would, without expanding
// anything: quotes group and are removed, a backslash keeps the next
// character. An unclosed quote runs to the end (runner.Stages may have cut
// a quoted string at a separator inside it).
func words(s string) []string {
	var out []string
	var w strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			if in {
				out = append(out, w.String())
				w.Reset()
				in = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`"\$`+"`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			in = true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			in = true
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, w.String())
	}
	return out
}

// keywords may stand before a command without being it.
var keywords = map[string]bool{"&": true, "{": true, "}": true, "!": true, "then": true, "do": true, "else": true,
	"elif": true, "if": true, "while": true, "until": true, "time": true, "exec": true, "command": true,
	"builtin": true, "nohup": true, "unbuffer": true, "$": true}

// clean drops from a stage's words what does not name the command it
// runs: keywords, VAR=value assignments, wrappers that run the command
// (timeout, env, nice, stdbuf, sudo, xvfb-run, uv run, poetry run...) and
// redirections with their targets.
func clean(w []string) stage {
	var st stage
lead:
	for len(w) > 0 {
		switch a := w[0]; {
		case keywords[a]:
			w = w[1:]
		case isAssignment(a):
			w, st.assigned = w[1:], true
		case a == "timeout":
			w = skipFlags(w[1:], "-s", "-k", "--signal", "--kill-after")
			if len(w) > 0 {
				w = w[1:] // the duration
			}
		case a == "nice" || a == "stdbuf" || a == "xvfb-run":
			w = skipFlags(w[1:], "-n", "-s", "-e", "-f", "-w", "-p")
		case a == "env" || a == "sudo":
			w, st.assigned = skipFlags(w[1:], "-u", "-C", "-g", "-S", "--unset", "--chdir"), true
		case (a == "uv" || a == "poetry" || a == "pipenv" || a == "pdm" || a == "rye" || a == "conda") && len(w) > 1 && w[1] == "run":
			w, st.assigned = skipFlags(w[2:], "--with", "--python", "-p", "--extra", "--group", "--package",
				"--directory", "--project", "--env-file", "-n", "--name", "--prefix"), true
		default:
			break lead
		}
	}
	argv := make([]string, 0, len(w))
	for i := 0; i < len(w); i++ {
		a := w[i]
		switch {
		case a == "&":
		case a == ">" || a == ">>" || a == "1>" || a == "2>" || a == "&>" || a == "1>>" || a == "2>>" || a == "&>>" || a == ">|":
			i++ // its target
		case a == "<" || a == "<<" || a == "<<<" || a == "<<-":
			i++
			st.input = true
		case strings.HasPrefix(a, "<"):
			st.input = true
		case strings.HasPrefix(a, ">") || strings.HasPrefix(a, "1>") || strings.HasPrefix(a, "2>") || strings.HasPrefix(a, "&>"):
		default:
			argv = append(argv, a)
		}
	}
	st.argv = argv
	return st
}

// skipFlags drops the flags at the start of w, and the value after each
// flag of valued.
func skipFlags(w []string, valued ...string) []string {
	for len(w) > 0 && isFlag(w[0]) {
		f := w[0]
		w = w[1:]
		if !strings.Contains(f, "=") && matchFlag(valued, f) && len(w) > 0 {
			w = w[1:]
		}
	}
	for len(w) > 0 && isAssignment(w[0]) {
		w = w[1:]
	}
	return w
}

// isAssignment reports a VAR=value word.
func isAssignment(w string) bool {
	i := strings.IndexByte(w, '=')
	if i <= 0 {
		return false
	}
	for k := 0; k < i; k++ {
		c := w[k]
		if c != '_' && !isAlnum(c) || k == 0 && c >= '0' && c <= '9' {
			return false
		}
	}
	return true
}

// program returns the base name of a stage's command.
func program(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	return argv[0][strings.LastIndexByte(argv[0], '/')+1:]
}

// setupCommands change the directory or the environment of a line, or
// make its files: they cannot fail in a test command's place, and do not
// print a test run.
var setupCommands = map[string]bool{"cd": true, "pushd": true, "popd": true, "export": true, "source": true,
	".": true, "set": true, "unset": true, "true": true, ":": true, "echo": true, "printf": true, "sleep": true,
	"clear": true, "ulimit": true, "alias": true, "activate": true, "mkdir": true, "touch": true}

// trivial reports a stage that cannot fail in a test command's place
// (cd, export, source, conda activate).
func trivial(argv []string) bool {
	p := program(argv)
	return setupCommands[p] || p == "conda" && len(argv) > 1 && argv[1] == "activate"
}

// inspectCommands print files or text that a run may have written before
// (a log, a test file): what they print is not a run.
var inspectCommands = map[string]bool{"cat": true, "head": true, "tail": true, "grep": true, "egrep": true,
	"fgrep": true, "rg": true, "ag": true, "sed": true, "awk": true, "nl": true, "less": true, "more": true,
	"ls": true, "find": true, "wc": true, "sort": true, "uniq": true, "cut": true, "diff": true, "jq": true,
	"xxd": true, "od": true, "file": true, "stat": true, "tree": true, "column": true, "strings": true,
	"tr": true, "pwd": true, "which": true, "type": true, "realpath": true, "readlink": true, "basename": true,
	"dirname": true, "du": true, "df": true, "bat": true, "view": true, "vi": true, "vim": true, "nano": true}

// gitShows are the git subcommands that only show what is stored (unlike
// commit or push, whose hooks may run the tests).
var gitShows = map[string]bool{"show": true, "log": true, "diff": true, "status": true, "blame": true,
	"grep": true, "ls-files": true, "rev-parse": true, "branch": true, "cat-file": true, "stash": true}

// inspectOnly reports a line every stage of which only shows files or
// text, or sets up the line.
func inspectOnly(st []stage) bool {
	for _, s := range st {
		p := program(s.argv)
		switch {
		case inspectCommands[p] || setupCommands[p]:
		case p == "git" && len(s.argv) > 1 && gitShows[s.argv[1]]:
		default:
			return false
		}
	}
	return true
}

// mainStage returns the stage that most likely printed a run found by
// its output: the first that does not set up the line or only show text,
// else the first; -1 for no stage.
func mainStage(st []stage) int {
	for i, s := range st {
		p := program(s.argv)
		if !setupCommands[p] && !inspectCommands[p] && p != "git" && p != "pip" && p != "pip3" {
			return i
		}
	}
	if len(st) > 0 {
		return 0
	}
	return -1
}
