package trace

import (
	"path"
	"regexp"
	"strings"
)

// ShellWrites returns the files a shell command line writes, as far as its
// text and its output show: redirections ("> f", ">> f", "&> f"), tee, an
// in-place sed (-i) or perl (-i), the destination of cp, mv and install,
// the files git checkout and git restore put back ("git checkout -- f",
// "git restore f"), a file ed or ex writes, the literal paths a Python
// script given with -c or on standard input opens for writing
// (open("f", "w"), Path("f").write_text, also through a variable set to a
// literal), the files a patch says it patches ("patching file f"), and
// the "+++ b/f" headers of a diff fed to git apply or patch in a heredoc.
// /dev/null, other devices and descriptors are not files, nor are paths
// that expand ($VAR, globs, `cmd`). Paths are as written, each once, in
// order.
func ShellWrites(cmd, output string) []string {
	return shellWrites(parseShell(cmd), output)
}

// shellWrites is ShellWrites for a parsed command line.
func shellWrites(stages []shellStage, output string) []string {
	var out []string
	var seen map[string]bool // past a few paths
	add := func(p string) {
		p = strings.TrimSpace(p)
		if p == "" || strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "&") || strings.ContainsAny(p, "$`*?") {
			return
		}
		if seen != nil {
			if seen[p] {
				return
			}
			seen[p] = true
		} else {
			for _, q := range out {
				if q == p {
					return
				}
			}
			if len(out) == 16 {
				seen = make(map[string]bool, 64)
				for _, q := range out {
					seen[q] = true
				}
				seen[p] = true
			}
		}
		out = append(out, p)
	}
	patching := false
	for i := range stages {
		st := &stages[i]
		for _, r := range st.redirs {
			if r.writesOutput() {
				add(r.target.s)
			}
		}
		args := st.program()
		if len(args) == 0 {
			continue
		}
		switch prog := path.Base(args[0].s); {
		case prog == "tee":
			for _, a := range args[1:] {
				if !strings.HasPrefix(a.s, "-") && !a.expands {
					add(a.s)
				}
			}
		case prog == "sed":
			if s := parseSedArgs(args); s.inPlace {
				for _, f := range s.files {
					add(f)
				}
			}
		case prog == "perl":
			if p := parsePerlArgs(args); p.inPlace {
				for _, f := range p.files {
					add(f)
				}
			}
		case isPython(prog):
			if code, ok := pythonCode(st, args); ok {
				for _, f := range pythonWrites(code) {
					add(f)
				}
			}
		case prog == "cp" || prog == "mv" || prog == "install":
			for _, c := range parseCopy(args) {
				add(c.dst)
			}
		case prog == "ed" || prog == "ex":
			if f, ok := edFile(st, args); ok {
				add(f)
			}
		case prog == "patch":
			if !hasArg(args, "--dry-run") {
				patching = true
			}
		case prog == "git":
			g := gitArgs(args)
			switch {
			case len(g) > 0 && g[0].s == "apply" && gitApplies(g):
				patching = true
			case len(g) > 0 && (g[0].s == "checkout" || g[0].s == "restore"):
				paths, _ := gitRestorePaths(g, output)
				for _, p := range paths {
					if !isDirArg(p) {
						add(p)
					}
				}
			}
		}
	}
	if patching {
		for i := range stages {
			if d := stages[i].doc; d != nil {
				for _, f := range diffFiles(d.body) {
					if !f.deleted {
						add(f.path)
					}
				}
			}
		}
		for line := range strings.Lines(output) {
			if p, ok := strings.CutPrefix(strings.TrimSpace(line), "patching file "); ok {
				add(strings.Trim(p, "'\""))
			}
		}
	}
	return out
}

// shellWord is one word of a command line, quotes taken off.
type shellWord struct {
	s string
	// expands is set when the word holds an expansion the shell fills in
	// ($VAR, $(cmd), `cmd`) or an unquoted glob character: its text is
	// not what the command received.
	expands bool
}

// shellRedir is an output redirection.
type shellRedir struct {
	fd     int // 1 (">"), 2 ("2>"), -1 for both ("&>"), or the number written
	append bool
	target shellWord
}

// writesOutput reports a redirection of the standard output (">",
// "1>", "&>") to a file the command line names as written.
func (r shellRedir) writesOutput() bool {
	return (r.fd == 1 || r.fd == -1) && !r.target.expands && !strings.HasPrefix(r.target.s, "/dev/")
}

// heredoc is the body of a here-document.
type heredoc struct {
	body string
	// literal is set when the marker was quoted: the shell does not
	// expand the body. A body with nothing to expand is literal too.
	literal bool
}

// shellStage is one simple command of a command line.
type shellStage struct {
	args   []shellWord
	redirs []shellRedir
	doc    *heredoc   // the here-document on its standard input, if any
	stdin  *shellWord // the file on its standard input ("< f"), if any
}

// program returns the stage's words from the program on: variable
// assignments and wrappers that run the rest (env, sudo, time, nohup,
// command, exec, timeout N, a group's "{") are skipped.
func (st *shellStage) program() []shellWord {
	a := st.args
	for len(a) > 0 {
		w := a[0].s
		switch {
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "="):
			a = a[1:] // VAR=value
		case w == "env" || w == "sudo" || w == "time" || w == "nohup" || w == "command" || w == "exec" ||
			w == "{" || w == "!" || w == "if" || w == "elif" || w == "then" || w == "do" || w == "else" || w == "while" || w == "until":
			a = a[1:]
		case w == "timeout":
			a = a[1:]
			for len(a) > 0 && strings.HasPrefix(a[0].s, "-") {
				a = a[1:]
			}
			if len(a) > 0 {
				a = a[1:] // the duration
			}
		default:
			return a
		}
	}
	return nil
}

// shellToken is a word or an operator of a command line.
type shellToken struct {
	op  string // "" for a word
	fd  int    // for a redirection: the descriptor written before it, -1 if none
	w   shellWord
	doc *heredoc // for "<<" and "<<-": the body, read at the end of its line
}

// parseShell splits a command line into its simple commands, in order:
// those of its lists, pipelines and subshells. It reads the quoting,
// escapes, comments, redirections and here-documents of a POSIX shell;
// it does not expand anything. It runs in time linear in len(cmd).
func parseShell(cmd string) []shellStage {
	toks := tokenizeShell(cmd)
	var out []shellStage
	var cur shellStage
	flush := func() {
		if len(cur.args) > 0 || len(cur.redirs) > 0 || cur.doc != nil {
			out = append(out, cur)
		}
		cur = shellStage{}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.op {
		case "":
			cur.args = append(cur.args, t.w)
		case ";", "\n", "|", "||", "&&", "&", "(", ")":
			flush()
		case "<<", "<<-":
			cur.doc = t.doc
			i++ // the marker
		case "<", "<>", "<<<":
			if i+1 < len(toks) && toks[i+1].op == "" {
				if t.op == "<" {
					w := toks[i+1].w
					cur.stdin = &w
				}
				i++
			}
		case ">", ">>", ">|", "&>", "&>>", ">&":
			if i+1 >= len(toks) || toks[i+1].op != "" {
				continue
			}
			i++
			w := toks[i].w
			fd := t.fd
			switch {
			case t.op == ">&" && (w.s == "-" || isDigits(w.s)):
				continue // a duplicated descriptor
			case t.op == "&>" || t.op == "&>>" || t.op == ">&":
				fd = -1
			case fd < 0:
				fd = 1
			}
			cur.redirs = append(cur.redirs, shellRedir{fd: fd, append: strings.HasSuffix(t.op, ">>"), target: w})
		}
	}
	flush()
	return out
}

// tokenizeShell splits a command line into words and operators. A word
// written without quotes or escapes is a substring of s; others are
// built.
func tokenizeShell(s string) []shellToken {
	toks := make([]shellToken, 0, 8+len(s)/16)
	var buf []byte // the word, once it is not a substring of s
	inWord, plain, expands, quoted := false, false, false, false
	wstart := 0
	var pending []*heredoc // here-documents whose bodies start on the next line
	var markers []string
	var strip []bool
	// begin notes that s[i] starts or continues the current word.
	begin := func(i int) {
		if !inWord {
			inWord, plain, wstart, buf = true, true, i, buf[:0]
		}
	}
	// unplain copies the word so far into buf: what follows is not s as
	// written.
	unplain := func(i int) {
		if inWord && plain {
			buf = append(buf[:0], s[wstart:i]...)
		}
		plain = false
	}
	endWord := func(i int) {
		if inWord {
			text := string(buf)
			if plain {
				text = s[wstart:i]
			}
			toks = append(toks, shellToken{w: shellWord{s: text, expands: expands}})
			if n := len(toks); n > 1 && (toks[n-2].op == "<<" || toks[n-2].op == "<<-") {
				toks[n-2].doc.literal = quoted
				pending = append(pending, toks[n-2].doc)
				markers = append(markers, text)
				strip = append(strip, toks[n-2].op == "<<-")
			}
		}
		inWord, plain, expands, quoted = false, false, false, false
	}
	op := func(o string, fd, i int) {
		endWord(i)
		t := shellToken{op: o, fd: fd}
		if o == "<<" || o == "<<-" {
			t.doc = &heredoc{}
		}
		toks = append(toks, t)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\r':
			endWord(i)
		case '\n':
			op("\n", -1, i)
			for k, d := range pending {
				i = readHeredoc(s, i+1, markers[k], strip[k], d) - 1
			}
			pending, markers, strip = pending[:0], markers[:0], strip[:0]
		case '#':
			if inWord {
				if !plain {
					buf = append(buf, c)
				}
				continue
			}
			for i+1 < len(s) && s[i+1] != '\n' {
				i++
			}
		case '\'':
			begin(i)
			unplain(i)
			quoted = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				buf = append(buf, s[i+1:]...)
				i = len(s)
				continue
			}
			buf = append(buf, s[i+1:i+1+j]...)
			i += j + 1
		case '"':
			begin(i)
			unplain(i)
			quoted = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				switch s[i] {
				case '\\':
					if i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
						i++
						if s[i] != '\n' {
							buf = append(buf, s[i])
						}
						continue
					}
				case '$', '`':
					expands = true
				}
				buf = append(buf, s[i])
			}
		case '\\':
			if i+1 < len(s) {
				if s[i+1] == '\n' {
					// A line continuation joins the lines.
					if inWord {
						unplain(i)
					}
					i++
					continue
				}
				begin(i)
				unplain(i)
				i++
				buf = append(buf, s[i])
			}
		case '$', '`':
			begin(i)
			expands = true
			end := skipExpansion(s, i)
			if !plain {
				buf = append(buf, s[i:end]...)
			}
			i = end - 1
		case '*', '?', '[':
			begin(i)
			expands = true
			if !plain {
				buf = append(buf, c)
			}
		case ';', '(', ')':
			op(string(c), -1, i)
		case '|':
			if i+1 < len(s) && s[i+1] == '|' {
				op("||", -1, i)
				i++
				continue
			}
			op("|", -1, i)
			if i+1 < len(s) && s[i+1] == '&' {
				i++ // |&
			}
		case '&':
			switch {
			case i+1 < len(s) && s[i+1] == '&':
				op("&&", -1, i)
				i++
			case i+2 < len(s) && s[i+1] == '>' && s[i+2] == '>':
				op("&>>", -1, i)
				i += 2
			case i+1 < len(s) && s[i+1] == '>':
				op("&>", -1, i)
				i++
			default:
				op("&", -1, i)
			}
		case '<', '>':
			fd := -1
			if inWord && plain && !expands && i-wstart <= 2 && isDigits(s[wstart:i]) {
				fd = int(s[wstart] - '0')
				if i-wstart == 2 {
					fd = fd*10 + int(s[wstart+1]-'0')
				}
				inWord = false
			}
			o := redirectOp(s[i:])
			if o == "<" || o == ">" {
				if i+1 < len(s) && s[i+1] == '(' {
					// A process substitution is a word.
					endWord(i)
					end := skipExpansion(s, i)
					toks = append(toks, shellToken{w: shellWord{s: s[i:end], expands: true}})
					i = end - 1
					continue
				}
			}
			op(o, fd, i)
			i += len(o) - 1
		case '{', '~':
			// A brace expansion (f{,.bak}) or a home directory (~/f)
			// is not the word the program gets.
			if c == '~' && !inWord || c == '{' && i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\t' && s[i+1] != '\n' {
				expands = true
			}
			begin(i)
			if !plain {
				buf = append(buf, c)
			}
		default:
			begin(i)
			if !plain {
				buf = append(buf, c)
			}
		}
	}
	endWord(len(s))
	return toks
}

// readHeredoc reads the body of a here-document from s[i:], up to the
// line that holds only marker (leading tabs stripped for "<<-"), into d,
// and returns the index after that line.
func readHeredoc(s string, i int, marker string, stripTabs bool, d *heredoc) int {
	start := i
	for i < len(s) {
		end := strings.IndexByte(s[i:], '\n')
		line := s[i:]
		next := len(s)
		if end >= 0 {
			line, next = s[i:i+end], i+end+1
		}
		l := strings.TrimRight(line, "\r")
		if stripTabs {
			l = strings.TrimLeft(l, "\t")
		}
		if l == marker || strings.TrimSpace(l) == marker {
			d.body = s[start:i]
			if !d.literal && !strings.ContainsAny(d.body, "$`\\") {
				d.literal = true
			}
			return next
		}
		i = next
	}
	d.body = s[start:]
	if !d.literal && !strings.ContainsAny(d.body, "$`\\") {
		d.literal = true
	}
	return len(s)
}

// skipExpansion returns the index after the expansion or substitution
// that starts at s[i]: $(…), ${…}, $'…', `…`, <(…), >(…), or $NAME.
func skipExpansion(s string, i int) int {
	if s[i] == '`' {
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case '`':
				return j + 1
			}
		}
		return len(s)
	}
	if i+1 >= len(s) {
		return len(s)
	}
	switch open := s[i+1]; open {
	case '(', '{':
		closer := byte(')')
		if open == '{' {
			closer = '}'
		}
		depth := 0
		var q byte
		for j := i + 1; j < len(s); j++ {
			c := s[j]
			switch {
			case q != 0:
				if c == '\\' && q == '"' {
					j++
				} else if c == q {
					q = 0
				}
			case c == '\\':
				j++
			case c == '\'' || c == '"':
				q = c
			case c == open:
				depth++
			case c == closer:
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(s)
	case '\'':
		for j := i + 2; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case '\'':
				return j + 1
			}
		}
		return len(s)
	}
	j := i + 1
	for j < len(s) && (isAlnum(s[j]) || s[j] == '_') {
		j++
	}
	if j == i+1 && j < len(s) && strings.IndexByte("@*#?$!-0123456789", s[j]) >= 0 {
		j++
	}
	return j
}

// redirectOps are the redirection operators longer than one byte, the
// longest of a prefix first.
var redirectOps = []string{"<<<", "<<-", "<<", "<>", ">>", ">&", ">|"}

// redirectOp returns the redirection operator s starts with ('<' or '>'
// alone when no longer one does).
func redirectOp(s string) string {
	for _, op := range redirectOps {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	return s[:1]
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func hasArg(args []shellWord, a string) bool {
	for _, w := range args {
		if w.s == a {
			return true
		}
	}
	return false
}

// isDirArg reports a path argument that names a directory: ".", "..",
// or one ending in "/".
func isDirArg(p string) bool {
	return p == "." || p == ".." || p == "./" || strings.HasSuffix(p, "/")
}

// sedCall is what an in-place sed reads from its arguments.
type sedCall struct {
	inPlace bool
	ere     bool     // -E, -r
	other   bool     // -n, -z or a script file (-f): vouch does not replay it
	scripts []string // -e scripts, or the first operand
	files   []string // literal file operands
	expands bool     // a script or a file operand expands
}

// parseSedArgs reads a sed command's options, scripts and files.
func parseSedArgs(args []shellWord) sedCall {
	var s sedCall
	haveScript := false
	for j := 1; j < len(args); j++ {
		a := args[j].s
		switch {
		case a == "--in-place" || strings.HasPrefix(a, "--in-place="):
			s.inPlace = true
		case a == "--regexp-extended":
			s.ere = true
		case a == "--expression" || a == "--file":
			haveScript = true
			if j+1 < len(args) {
				j++
				if a == "--file" {
					s.other = true
				} else {
					s.scripts = append(s.scripts, args[j].s)
					s.expands = s.expands || args[j].expands
				}
			}
		case strings.HasPrefix(a, "--expression="):
			haveScript = true
			s.scripts = append(s.scripts, strings.TrimPrefix(a, "--expression="))
		case strings.HasPrefix(a, "--"):
			if a == "--quiet" || a == "--silent" || a == "--null-data" || strings.HasPrefix(a, "--file=") {
				s.other = true
			}
			if strings.HasPrefix(a, "--file=") {
				haveScript = true
			}
		case len(a) > 1 && a[0] == '-':
		cluster:
			for k := 1; k < len(a); k++ {
				switch a[k] {
				case 'i':
					s.inPlace = true
					break cluster // the rest is the backup suffix
				case 'E', 'r':
					s.ere = true
				case 'n', 'z':
					s.other = true
				case 'e', 'f':
					haveScript = true
					v := a[k+1:]
					if v == "" && j+1 < len(args) {
						j++
						v = args[j].s
						s.expands = s.expands || args[j].expands
					}
					if a[k] == 'f' {
						s.other = true
					} else {
						s.scripts = append(s.scripts, v)
					}
					break cluster
				case 'l':
					if k+1 == len(a) {
						j++
					}
					break cluster
				}
			}
		case !haveScript:
			haveScript = true
			s.scripts = append(s.scripts, a)
			s.expands = s.expands || args[j].expands
		default:
			if args[j].expands {
				s.expands = true
			} else {
				s.files = append(s.files, a)
			}
		}
	}
	return s
}

// perlCall is what perl reads from its arguments.
type perlCall struct {
	inPlace bool
	code    string // the -e code, each on its own line
	opts    string // the switches, as written
	files   []string
	script  bool // the code is a script file, not -e
	expands bool
}

// parsePerlArgs reads a perl command's switches, code and files.
func parsePerlArgs(args []shellWord) perlCall {
	var p perlCall
	var code, opts strings.Builder
	haveCode := false
	for j := 1; j < len(args); j++ {
		a := args[j].s
		switch {
		case a == "--":
		case len(a) > 1 && a[0] == '-':
			opts.WriteString(a)
			opts.WriteByte(' ')
		cluster:
			for k := 1; k < len(a); k++ {
				switch a[k] {
				case 'i':
					p.inPlace = true
					break cluster
				case 'e', 'E':
					haveCode = true
					v := a[k+1:]
					if v == "" && j+1 < len(args) {
						j++
						v = args[j].s
						p.expands = p.expands || args[j].expands
					}
					code.WriteString(v)
					code.WriteByte('\n')
					break cluster
				case 'M', 'm', 'I', 'F', 'x', 'C', 'd', 'D':
					if k+1 == len(a) && (a[k] == 'M' || a[k] == 'I') && j+1 < len(args) {
						j++
						opts.WriteString(args[j].s)
						opts.WriteByte(' ')
					}
					break cluster
				}
			}
		case !haveCode:
			haveCode, p.script = true, true
		default:
			if args[j].expands {
				p.expands = true
			} else {
				p.files = append(p.files, a)
			}
		}
	}
	p.code, p.opts = code.String(), opts.String()
	return p
}

// isPython reports a Python interpreter's name: python, python3,
// python3.11.
func isPython(prog string) bool {
	rest, ok := strings.CutPrefix(prog, "python")
	if !ok {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if (rest[i] < '0' || rest[i] > '9') && rest[i] != '.' {
			return false
		}
	}
	return true
}

// pythonCode returns the code a Python stage runs when the command line
// holds it: the -c argument, or the here-document on its standard input
// ("python - <<EOF", "python <<EOF"). A script file or a module (-m) is
// not held.
func pythonCode(st *shellStage, args []shellWord) (string, bool) {
	for j := 1; j < len(args); j++ {
		a := args[j].s
		switch {
		case a == "-c":
			if j+1 < len(args) {
				return args[j+1].s, true
			}
			return "", false
		case strings.HasPrefix(a, "-c"):
			return a[2:], true
		case strings.HasPrefix(a, "-m"):
			return "", false
		case a == "-W" || a == "-X":
			j++
		case a == "-":
			j = len(args) // the script is standard input
		case strings.HasPrefix(a, "-"):
		default:
			return "", false // a script file
		}
	}
	if st.doc != nil {
		return st.doc.body, true
	}
	return "", false
}

var (
	// pyAssign matches "name = 'literal'" and "name = Path('literal')".
	pyAssign = regexp.MustCompile(`(?m)^[ \t]*([A-Za-z_]\w*)[ \t]*=[ \t]*(?:(?:pathlib\.)?Path\(\s*)?[rRbBuU]?(?:'([^'\n\\]+)'|"([^"\n\\]+)")`)
	// pyOpen matches open(x, "w"): x a literal or a name, the mode a
	// literal, as the second argument or mode=.
	pyOpen = regexp.MustCompile(`\bopen\(\s*(?:[rRuU]?'([^'\n\\]+)'|[rRuU]?"([^"\n\\]+)"|([A-Za-z_]\w*))\s*,\s*(?:mode\s*=\s*)?[rR]?['"]([rwaxbt+]+)['"]`)
	// pyOpenMode matches open(x, …, mode="w") with other arguments
	// between.
	pyOpenMode = regexp.MustCompile(`\bopen\(\s*(?:[rRuU]?'([^'\n\\]+)'|[rRuU]?"([^"\n\\]+)"|([A-Za-z_]\w*))\s*,[^()\n]*\bmode\s*=\s*['"]([rwaxbt+]+)['"]`)
	// pyPathWrite matches Path(x).write_text( and name.write_text(.
	pyPathWrite = regexp.MustCompile(`(?:\bPath\(\s*(?:[rRuU]?'([^'\n\\]+)'|[rRuU]?"([^"\n\\]+)"|([A-Za-z_]\w*))\s*\)|\b([A-Za-z_]\w*))\s*\.\s*write_(?:text|bytes)\(`)
	// pyMove matches shutil.copy, copyfile, copy2, move and os.rename,
	// os.replace: the destination is the second argument.
	pyMove = regexp.MustCompile(`\b(?:shutil\.(?:copy|copy2|copyfile|move)|os\.(?:rename|replace))\(\s*[^,()\n]+,\s*(?:[rRuU]?'([^'\n\\]+)'|[rRuU]?"([^"\n\\]+)"|([A-Za-z_]\w*))\s*\)`)
)

// pythonWrites returns the literal paths a Python script writes: files
// opened with a mode that writes ("w", "a", "x", "+"), Path.write_text and
// write_bytes, and the destinations of shutil's copies and moves and of
// os.rename, each named by a literal or by a variable the script sets to
// a literal once.
func pythonWrites(code string) []string {
	if !strings.Contains(code, "open(") && !strings.Contains(code, "write_") && !strings.Contains(code, "shutil.") && !strings.Contains(code, "os.re") {
		return nil
	}
	vars := map[string]string{}
	for _, m := range pyAssign.FindAllStringSubmatch(code, -1) {
		v := m[2] + m[3]
		if old, ok := vars[m[1]]; ok && old != v {
			vars[m[1]] = "" // set twice: not one literal
			continue
		}
		vars[m[1]] = v
	}
	var out []string
	name := func(lit1, lit2, ident string) {
		p := lit1 + lit2
		if ident != "" {
			p = vars[ident]
		}
		if p != "" && !strings.ContainsAny(p, "{}%") && !strings.HasPrefix(p, "/dev/") {
			out = append(out, p)
		}
	}
	for _, re := range []*regexp.Regexp{pyOpen, pyOpenMode} {
		for _, m := range re.FindAllStringSubmatch(code, -1) {
			if strings.ContainsAny(m[4], "wax+") {
				name(m[1], m[2], m[3])
			}
		}
	}
	for _, m := range pyPathWrite.FindAllStringSubmatch(code, -1) {
		name(m[1], m[2], m[3]+m[4])
	}
	for _, m := range pyMove.FindAllStringSubmatch(code, -1) {
		name(m[1], m[2], m[3])
	}
	return out
}

// copyCall is one file a cp, mv or install stage writes, and the file it
// copies.
type copyCall struct{ src, dst string }

// parseCopy returns the files a cp, mv or install stage writes, each with
// its source: the last operand, or that directory (ending in "/", ".",
// given with -t, or after several sources) joined with each source's
// name. A recursive copy of a directory and operands that expand are
// left out.
func parseCopy(args []shellWord) []copyCall {
	var ops []shellWord
	dir, recursive := "", false
	for j := 1; j < len(args); j++ {
		a := args[j].s
		switch {
		case a == "-t" || a == "--target-directory" || a == "-S" || a == "--suffix" || a == "-m" || a == "--mode" || a == "-o" || a == "-g":
			if j+1 < len(args) {
				j++
				if a == "-t" || a == "--target-directory" {
					dir = args[j].s
				}
			}
		case strings.HasPrefix(a, "--target-directory="):
			dir = strings.TrimPrefix(a, "--target-directory=")
		case a == "-r" || a == "-R" || a == "-a" || a == "--recursive" || a == "--archive":
			recursive = true
		case len(a) > 1 && a[0] == '-':
			if !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rRa") {
				recursive = true
			}
		default:
			ops = append(ops, args[j])
		}
	}
	if dir == "" {
		if len(ops) < 2 {
			return nil
		}
		last := ops[len(ops)-1]
		ops = ops[:len(ops)-1]
		if last.expands {
			return nil
		}
		if len(ops) > 1 || isDirArg(last.s) || last.s == "~" {
			dir = last.s
		} else {
			if ops[0].expands || recursive && path.Ext(ops[0].s) == "" {
				return nil
			}
			return []copyCall{{src: ops[0].s, dst: last.s}}
		}
	}
	var out []copyCall
	for _, o := range ops {
		if o.expands || recursive && path.Ext(o.s) == "" {
			continue
		}
		out = append(out, copyCall{src: o.s, dst: path.Join(dir, path.Base(o.s))})
	}
	return out
}

// edFile returns the file an ed or ex stage edits, when its script (a
// here-document) writes it back ("w", "wq", "x").
func edFile(st *shellStage, args []shellWord) (string, bool) {
	var file string
	for _, a := range args[1:] {
		if !strings.HasPrefix(a.s, "-") && !a.expands {
			file = a.s
		}
	}
	if file == "" || st.doc == nil {
		return "", false
	}
	for line := range strings.Lines(st.doc.body) {
		switch strings.TrimSpace(line) {
		case "w", "wq", "x", "w!", "wq!", "x!", ":w", ":wq", ":x":
			return file, true
		}
	}
	return "", false
}

// gitArgs returns a git stage's words from the subcommand on, global
// options (-C dir, -c k=v, --no-pager) skipped.
func gitArgs(args []shellWord) []shellWord {
	g := args[1:]
	for len(g) > 0 && strings.HasPrefix(g[0].s, "-") {
		if (g[0].s == "-C" || g[0].s == "-c") && len(g) > 1 {
			g = g[1:]
		}
		g = g[1:]
	}
	return g
}

// gitApplies reports whether a git apply writes the work tree: not with
// --check, --stat, --numstat or --summary alone, nor --cached.
func gitApplies(g []shellWord) bool {
	inspect := false
	for _, a := range g[1:] {
		switch a.s {
		case "--apply":
			return true
		case "--check", "--stat", "--numstat", "--summary", "--cached":
			inspect = true
		}
	}
	return !inspect
}

// gitRestorePaths returns the paths a git checkout or git restore puts
// back in the work tree, and whether it puts back what the index or HEAD
// holds (no other commit named): the paths after "--"; without "--", the
// arguments that look like paths (a dot in the name, "." itself), or all
// of them when the output says paths were updated. git restore --staged
// alone writes only the index. A branch switch, and -b, write no path
// this reads.
func gitRestorePaths(g []shellWord, output string) (paths []string, fromHead bool) {
	restore := g[0].s == "restore"
	var args []shellWord
	dashdash, staged, worktree := false, false, false
	source := ""
	for j := 1; j < len(g); j++ {
		a := g[j]
		switch {
		case dashdash:
			args = append(args, a)
		case a.s == "--":
			dashdash = true
			if !restore && len(args) > 0 {
				source = args[0].s // git checkout REV -- paths
			}
			args = args[:0]
		case a.s == "-b" || a.s == "-B" || a.s == "--orphan":
			if !restore {
				return nil, false
			}
		case a.s == "--staged" || a.s == "-S":
			staged = true
		case a.s == "--worktree" || a.s == "-W":
			worktree = true
		case a.s == "-s" || a.s == "--source":
			if j+1 < len(g) {
				j++
				source = g[j].s
			}
		case strings.HasPrefix(a.s, "--source="):
			source = strings.TrimPrefix(a.s, "--source=")
		case strings.HasPrefix(a.s, "-"):
		default:
			args = append(args, a)
		}
	}
	if restore && staged && !worktree {
		return nil, false
	}
	if !restore && !dashdash && len(args) > 0 {
		// Without "--" the first argument may be a commit or a branch.
		updated := strings.Contains(output, "Updated ") && strings.Contains(output, " path")
		if !updated && !looksLikePath(args[0].s) {
			source, args = args[0].s, args[1:]
		}
		kept := args[:0]
		for _, a := range args {
			if updated || looksLikePath(a.s) {
				kept = append(kept, a)
			}
		}
		args = kept
	}
	for _, a := range args {
		if !a.expands {
			paths = append(paths, a.s)
		}
	}
	return paths, source == "" || source == "HEAD" || source == "@"
}

// looksLikePath reports a git argument that names a path rather than a
// commit or a branch: ".", or a name with a dot (a file's extension) that
// is not a revision ("HEAD~1", "v1.2").
func looksLikePath(a string) bool {
	if a == "." || a == ".." || strings.HasSuffix(a, "/") {
		return true
	}
	if strings.HasPrefix(a, "HEAD") || strings.HasPrefix(a, "origin/") || strings.ContainsAny(a, "~^@:") {
		return false
	}
	b := path.Base(a)
	k := strings.LastIndexByte(b, '.')
	return k > 0 && k < len(b)-1 && !isDigits(b[k+1:])
}

// diffFile is one file of a diff, with its hunks.
type diffFile struct {
	path  string
	hunks []hunk
	// added and deleted are set for a file the diff creates or removes;
	// moved for one it renames.
	added, deleted, moved bool
}

// hunk is one hunk of a diff: the text it replaces and the text it puts.
type hunk struct{ old, new string }

// diffFiles reads the files and hunks of a unified diff ("--- a/f",
// "+++ b/f", "@@ -l,n +l,n @@") or of an apply_patch text ("*** Update
// File: f", "*** Add File: f", "*** Delete File: f", "@@" and lines
// starting with " ", "-" or "+"). Paths lose their "a/" and "b/"
// prefixes. A unified hunk is read by its line counts, so a removed line
// that starts with "-- " stays in it.
func diffFiles(text string) []diffFile {
	var out []diffFile
	cur := -1
	var old, nw strings.Builder
	inHunk := false          // reading a hunk's lines
	oldLeft, newLeft := 0, 0 // lines left in a unified hunk; -1 for an apply_patch hunk
	endHunk := func() {
		if cur >= 0 && inHunk && (old.Len() > 0 || nw.Len() > 0) {
			out[cur].hunks = append(out[cur].hunks, hunk{old.String(), nw.String()})
		}
		old.Reset()
		nw.Reset()
		inHunk = false
	}
	startFile := func(p string) {
		endHunk()
		out = append(out, diffFile{path: p})
		cur = len(out) - 1
	}
	from := "" // the path of the last "--- " line
	for line := range strings.Lines(text) {
		l := strings.TrimRight(line, "\r\n")
		if inHunk && oldLeft >= 0 {
			// A unified hunk: its header said how many lines it has.
			switch {
			case strings.HasPrefix(l, `\`):
				continue // "\ No newline at end of file"
			case strings.HasPrefix(l, "-") && oldLeft > 0:
				old.WriteString(l[1:] + "\n")
				oldLeft--
			case strings.HasPrefix(l, "+") && newLeft > 0:
				nw.WriteString(l[1:] + "\n")
				newLeft--
			case (strings.HasPrefix(l, " ") || l == "") && oldLeft > 0 && newLeft > 0:
				ctx := strings.TrimPrefix(l, " ")
				old.WriteString(ctx + "\n")
				nw.WriteString(ctx + "\n")
				oldLeft--
				newLeft--
			default:
				endHunk() // a hunk shorter than its header said
			}
			if inHunk && oldLeft == 0 && newLeft == 0 {
				endHunk()
			}
			if inHunk {
				continue
			}
		}
		switch {
		case strings.HasPrefix(l, "diff "):
			endHunk()
		case strings.HasPrefix(l, "--- "):
			endHunk()
			p, _, _ := strings.Cut(l[4:], "\t")
			from = strings.TrimPrefix(strings.TrimSpace(p), "a/")
		case strings.HasPrefix(l, "+++ "):
			p, _, _ := strings.Cut(l[4:], "\t")
			p = strings.TrimSpace(p)
			if p == "/dev/null" {
				if from == "" || from == "/dev/null" {
					endHunk()
					cur = -1
					continue
				}
				startFile(from) // a file the diff removes
				out[cur].deleted = true
				continue
			}
			startFile(strings.TrimPrefix(p, "b/"))
			out[cur].added = from == "/dev/null"
		case strings.HasPrefix(l, "*** Update File: ") || strings.HasPrefix(l, "*** Add File: ") || strings.HasPrefix(l, "*** Delete File: "):
			k := strings.Index(l, ": ")
			startFile(strings.TrimSpace(l[k+2:]))
			out[cur].added = strings.HasPrefix(l, "*** Add")
			out[cur].deleted = strings.HasPrefix(l, "*** Delete")
			if out[cur].added {
				inHunk, oldLeft = true, -1
			}
		case strings.HasPrefix(l, "*** Move to: "):
			if cur >= 0 {
				out[cur].moved = true
			}
		case strings.HasPrefix(l, "*** "):
			endHunk()
		case strings.HasPrefix(l, "@@"):
			endHunk()
			if cur < 0 {
				continue
			}
			inHunk = true
			if o, n, ok := hunkCounts(l); ok {
				oldLeft, newLeft = o, n
				if o == 0 && n == 0 {
					inHunk = false
				}
			} else {
				oldLeft = -1
			}
		case inHunk && oldLeft < 0:
			// An apply_patch hunk runs to the next header.
			switch {
			case strings.HasPrefix(l, "-"):
				old.WriteString(l[1:] + "\n")
			case strings.HasPrefix(l, "+"):
				nw.WriteString(l[1:] + "\n")
			case strings.HasPrefix(l, " ") || l == "":
				ctx := strings.TrimPrefix(l, " ")
				old.WriteString(ctx + "\n")
				nw.WriteString(ctx + "\n")
			default:
				endHunk()
			}
		}
	}
	endHunk()
	return out
}

// hunkCounts reads the line counts of a unified hunk header,
// "@@ -l,n +l,m @@" ("-l" alone counts one line).
func hunkCounts(h string) (old, new int, ok bool) {
	f := strings.Fields(h)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, false
	}
	count := func(r string) (int, bool) {
		_, n, found := strings.Cut(r[1:], ",")
		if !found {
			return 1, isDigits(r[1:])
		}
		if !isDigits(n) || len(n) > 9 {
			return 0, false
		}
		v := 0
		for i := 0; i < len(n); i++ {
			v = v*10 + int(n[i]-'0')
		}
		return v, true
	}
	o, ok1 := count(f[1])
	n, ok2 := count(f[2])
	return o, n, ok1 && ok2
}
