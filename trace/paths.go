package trace

import (
	"path"
	"strings"

	"github.com/vouchgate/vouch/trace/internal/agentlog"
)

// outputMode says how to read the lines of an output for paths.
type outputMode int

const (
	// modeListing: one entry a line, bare names allowed (ls, Glob, find).
	modeListing outputMode = iota
	// modeSearch: "path:line:text", "path:count" or bare paths (grep).
	modeSearch
)

// maxPathLen bounds what is taken for a path.
const maxPathLen = 1024

// outputPaths calls fn with each path an output of a listing or a search
// shows. Bare names of a listing are joined to dir; other relative paths to
// base, the directory the command ran in when known. It is conservative: a
// line it cannot read as a path is skipped.
func outputPaths(text string, mode outputMode, dir, base string, fn func(string)) {
	emit := func(p string) {
		if base != "" && !path.IsAbs(p) {
			p = path.Join(base, p)
		}
		fn(p)
	}
	var tree treeState
	cur := dir
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || skipLine(trimmed) {
			continue
		}
		if mode == modeListing {
			// The LS tool's tree: "- /root/", "  - src/", "    - a.go".
			if p, ok := tree.line(line); ok {
				if p != "" {
					emit(p)
				}
				continue
			}
			// ls of several directories: "src:" heads each block.
			if h, ok := strings.CutSuffix(trimmed, ":"); ok && !strings.ContainsAny(h, " \t:") && h != "" {
				cur = h
				continue
			}
			if name, ok := longListingName(trimmed); ok {
				trimmed = name
			} else if name, ok := bracketName(trimmed); ok {
				trimmed = name
			}
			if p, ok := listingPath(trimmed, cur); ok {
				emit(p)
			}
			continue
		}
		if p, ok := searchPath(trimmed); ok {
			emit(p)
		}
	}
}

// skipLine reports lines that tools print around their results.
func skipLine(s string) bool {
	switch {
	case s == "No files found", s == "No matches found", strings.HasPrefix(s, "(Results are truncated"),
		strings.HasPrefix(s, "Found ") && (strings.HasSuffix(s, " files") || strings.HasSuffix(s, " file") ||
			strings.HasSuffix(s, " matches") || strings.HasSuffix(s, " match")),
		strings.HasPrefix(s, "total "), s == "--":
		return true
	}
	return false
}

// treeState follows the indentation of the LS tool's tree output.
type treeState struct {
	active bool
	dirs   []string // dirs[d] is the path of the directory at depth d
}

// line reads one line of a tree. It reports false when the line is not
// part of one; a true result with "" is a line that only opens a directory
// or names nothing.
func (t *treeState) line(line string) (string, bool) {
	indent := 0
	for indent < len(line) && line[indent] == ' ' {
		indent++
	}
	name, ok := strings.CutPrefix(line[indent:], "- ")
	if !ok || indent%2 != 0 {
		return "", false
	}
	depth := indent / 2
	name = strings.TrimSpace(name)
	if name == "" || strings.Contains(name, "://") {
		return "", false
	}
	isDir := strings.HasSuffix(name, "/")
	name = strings.TrimSuffix(name, "/")
	if depth == 0 {
		t.active = true
		t.dirs = append(t.dirs[:0], name)
		if isDir {
			return "", true
		}
		return cleanPath(name), true
	}
	if !t.active || depth > len(t.dirs) {
		return "", false
	}
	full := path.Join(t.dirs[depth-1], name)
	if isDir {
		t.dirs = append(t.dirs[:depth], full)
	} else {
		t.dirs = t.dirs[:depth]
	}
	return cleanPath(full), true
}

// longListingName returns the name of an "ls -l" line
// ("-rw-r--r-- 1 u g 12 Jan  1 10:00 a.go").
func longListingName(s string) (string, bool) {
	if len(s) < 11 || !strings.ContainsRune("-dlcbps", rune(s[0])) {
		return "", false
	}
	for i := 1; i < 10; i++ {
		if !strings.ContainsRune("rwxsStT-", rune(s[i])) {
			return "", false
		}
	}
	fields := strings.Fields(s)
	if len(fields) < 9 {
		return "", false
	}
	// The name is what follows the eighth field; it may hold spaces.
	rest := s
	for range 8 {
		rest = strings.TrimLeft(rest, " \t")
		i := strings.IndexAny(rest, " \t")
		if i < 0 {
			return "", false
		}
		rest = rest[i:]
	}
	name := strings.TrimSpace(rest)
	if s[0] == 'l' {
		name, _, _ = strings.Cut(name, " -> ")
	}
	return name, name != ""
}

// bracketName reads "[file] a.go (1.2KB, 40 lines)" and "[dir] src/".
func bracketName(s string) (string, bool) {
	for _, p := range []string{"[file] ", "[dir] ", "[DIR] ", "[FILE] "} {
		if name, ok := strings.CutPrefix(s, p); ok {
			name, _, _ = strings.Cut(name, " (")
			return strings.TrimSpace(name), true
		}
	}
	return "", false
}

// listingPath reads one entry of a listing, joining a bare name to dir.
func listingPath(s, dir string) (string, bool) {
	s = strings.TrimSuffix(s, "/")
	if s == "" || s == "." || s == ".." || len(s) > maxPathLen || strings.Contains(s, "://") ||
		strings.HasPrefix(s, "-") || strings.HasPrefix(s, "<") || !hasLetterOrDigit(s) {
		return "", false
	}
	// Names with blanks are taken only as whole paths.
	if strings.ContainsAny(s, " \t") && !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "./") {
		return "", false
	}
	if strings.ContainsAny(s, "*?|;<>\"'`$") {
		return "", false
	}
	if dir != "" && dir != "." && !strings.Contains(s, "/") {
		s = path.Join(dir, s)
	}
	return cleanPath(s), true
}

// searchPath reads the path of one line of a search's output:
// "path:12:text", "path:3" (a count), or a bare path.
func searchPath(s string) (string, bool) {
	if n := leadingDigits(s); n > 0 && n < len(s) && (s[n] == ':' || s[n] == '-') {
		return "", false // "12:text": a line of a single file's matches
	}
	cand := s
	if i := strings.IndexByte(s, ':'); i > 0 {
		rest := s[i+1:]
		switch {
		case rest != "" && '0' <= rest[0] && rest[0] <= '9':
			cand = s[:i]
		case strings.ContainsAny(s, " \t"):
			// "path:text" without a line number: grep of several files.
			cand = s[:i]
		}
	}
	if !pathLike(cand) {
		return "", false
	}
	return cleanPath(cand), true
}

// pathLike reports whether s looks like a file path: no blanks, no URL, a
// slash or an extension.
func pathLike(s string) bool {
	if s == "" || len(s) > maxPathLen || strings.ContainsAny(s, " \t*?|;<>\"'`$(){}[],=") ||
		strings.Contains(s, "://") || strings.HasPrefix(s, "-") || !hasLetter(s) {
		return false
	}
	if strings.Contains(s, "/") {
		return true
	}
	dot := strings.LastIndexByte(s, '.')
	return dot > 0 && dot < len(s)-1
}

func leadingDigits(s string) int {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return n
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80 {
			return true
		}
	}
	return false
}

func hasLetterOrDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; isAlnum(c) || c >= 0x80 {
			return true
		}
	}
	return false
}

// cleanPath cleans a relative path ("./a/b" -> "a/b") and leaves absolute
// ones as written but cleaned.
func cleanPath(p string) string {
	c := path.Clean(p)
	if c == "." {
		return p
	}
	return c
}

// listingCommand reports whether a shell command lists or searches files,
// so that its output names paths: ls, find, fd, git ls-files, or a
// recursive grep, rg, ag, git grep, alone or piped through filters that
// keep lines whole (head, tail, sort, uniq, grep). "cd DIR &&" before it is
// allowed. dir is what bare names of the output are relative to, base what
// other relative paths are relative to (the DIR changed into).
func listingCommand(cmd string) (mode outputMode, dir, base string, ok bool) {
	var main string
	cd := ""
	for part := range splitSeq(cmd, "&&", ";", "||", "\n") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		f := strings.Fields(part)
		if f[0] == "cd" {
			if len(f) == 2 {
				cd = unquote(f[1])
			}
			continue
		}
		if main != "" {
			return 0, "", "", false
		}
		main = part
	}
	if main == "" {
		return 0, "", "", false
	}
	stages := strings.Split(main, "|")
	for _, st := range stages[1:] {
		f := strings.Fields(st)
		if len(f) == 0 {
			return 0, "", "", false
		}
		switch path.Base(f[0]) {
		case "head", "tail", "sort", "uniq", "grep", "egrep", "rg":
		default:
			return 0, "", "", false
		}
	}
	argv := strings.Fields(stages[0])
	for len(argv) > 0 && strings.Contains(argv[0], "=") && !strings.HasPrefix(argv[0], "-") {
		argv = argv[1:] // VAR=value
	}
	if len(argv) == 0 {
		return 0, "", "", false
	}
	var args []string // the operands, without flags and redirections
	for _, a := range argv[1:] {
		if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "2>") || strings.HasPrefix(a, ">") || strings.HasPrefix(a, "&>") {
			continue
		}
		args = append(args, unquote(a))
	}
	switch path.Base(argv[0]) {
	case "ls":
		dir := ""
		if len(args) == 1 {
			dir = args[0] // several operands: the output heads each block
		}
		return modeListing, dir, cd, true
	case "find", "fd", "fdfind":
		return modeListing, "", cd, true
	case "git":
		if len(argv) > 1 {
			switch argv[1] {
			case "ls-files":
				return modeListing, "", cd, true
			case "grep":
				return modeSearch, "", cd, true
			}
		}
	case "rg", "ag", "ack":
		return modeSearch, "", cd, true
	case "grep", "egrep":
		for _, a := range argv[1:] {
			if a == "--recursive" || a == "--files-with-matches" || a == "--count" ||
				strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rRlLc") {
				return modeSearch, "", cd, true
			}
		}
	}
	return 0, "", "", false
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// splitSeq splits s at every one of the separators.
func splitSeq(s string, seps ...string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for {
			at, n := -1, 0
			for _, sep := range seps {
				if i := strings.Index(s, sep); i >= 0 && (at < 0 || i < at) {
					at, n = i, len(sep)
				}
			}
			if at < 0 {
				yield(s)
				return
			}
			if !yield(s[:at]) {
				return
			}
			s = s[at+n:]
		}
	}
}

// observationBody returns the command output inside a mini-swe-agent
// observation (<returncode>N</returncode><output>…</output>), or text as
// it is when it is not one.
func observationBody(text string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "<returncode>") && !strings.HasPrefix(t, "<exception>") {
		return text
	}
	if body, ok := agentlog.Between(t, "<output>", "</output>"); ok {
		return body
	}
	head, _ := agentlog.Between(t, "<output_head>", "</output_head>")
	tail, _ := agentlog.Between(t, "<output_tail>", "</output_tail>")
	// The line cut by the elision on each side is dropped.
	head = strings.TrimSuffix(head, "\n")
	if i := strings.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	} else {
		head = ""
	}
	tail = strings.TrimPrefix(tail, "\n")
	if i := strings.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	} else {
		tail = ""
	}
	return head + "\n" + tail
}
