package testrun

import (
	"strings"
	"unicode/utf8"
)

// maxLine bounds the bytes of a line that are read: result lines are
// short, and a line of megabytes is read no further.
const maxLine = 1024

// output is the text of one run, cut into lines.
type output struct {
	// lines are the output's lines: terminal colour codes removed, what a
	// carriage return overwrote dropped, each cut to maxLine bytes.
	lines []string
	// blank is true when the output holds no text at all.
	blank bool
}

func newOutput(s string) *output {
	o := &output{blank: strings.TrimSpace(s) == ""}
	if o.blank {
		return o
	}
	o.lines = make([]string, 0, strings.Count(s, "\n")+1)
	for len(s) > 0 {
		l, rest, _ := strings.Cut(s, "\n")
		s = rest
		l = strings.TrimRight(l, "\r")
		if i := strings.LastIndexByte(l, '\r'); i >= 0 && i+1 < len(l) {
			l = l[i+1:] // what the terminal shows after a carriage return
		}
		if len(l) > maxLine {
			l = l[:maxLine]
		}
		if strings.IndexByte(l, 0x1b) >= 0 {
			l = stripEscapes(l)
		}
		o.lines = append(o.lines, l)
	}
	return o
}

// stripEscapes removes terminal escape sequences (colours: ESC [ ... m).
func stripEscapes(l string) string {
	var b strings.Builder
	b.Grow(len(l))
	for i := 0; i < len(l); i++ {
		c := l[i]
		if c != 0x1b {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(l) && l[i+1] == '[' {
			i += 2
			for i < len(l) && (l[i] < 0x40 || l[i] > 0x7e) {
				i++
			}
			continue
		}
		i++ // ESC and one character
	}
	return b.String()
}

// byOutput returns the runner whose result line is the last one of the
// output, or nil. Wrappers are never found so: their lines say nothing of
// the tests without the runner inside.
func (o *output) byOutput() *runner {
	for i := len(o.lines) - 1; i >= 0; i-- {
		l := o.lines[i]
		if !hasDigit(l) && !strings.HasPrefix(l, "ok") {
			continue // every result line strict enough holds a count, but go test's "ok pkg (cached)"
		}
		for _, r := range ordered {
			if r.result != nil && !r.wraps && r.result(l) {
				return r
			}
		}
	}
	return nil
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			return true
		}
	}
	return false
}

// maxEchoed bounds the echoed commands read as commands, from the end.
const maxEchoed = 100

// echoed returns the runner of the last command the wrapper w echoed in
// the output that runs a runner, or nil. It reads lines from the end, and
// no more than maxEchoed of those that start with a runner's program.
func (o *output) echoed(w *runner) *runner {
	if w.echo == nil {
		return nil
	}
	tries := 0
	for i := len(o.lines) - 1; i >= 0 && tries < maxEchoed; i-- {
		cmd, ok := w.echo(o.lines[i])
		if w := firstWord(cmd); !ok || !firstWords[w] && !isPython(w) {
			continue
		}
		tries++
		if _, rn, _ := find(stages(cmd)); rn != nil && !rn.wraps {
			return rn
		}
	}
	return nil
}

// firstWords are the first words of every runner's command shapes, base
// names of programs ("pytest", "go", "python", "npx"), for a cheap look at
// a line before it is read as a command.
var firstWords = map[string]bool{}

// firstWord returns the base name of the first word of a line.
func firstWord(l string) string {
	w, _, _ := strings.Cut(strings.TrimSpace(l), " ")
	return w[strings.LastIndexByte(w, '/')+1:]
}

// framing are the lines an agent framework wraps a command's output in.
func framing(l string) bool {
	switch l {
	case "<output>", "</output>", "</returncode>", "The output of the command was:":
		return true
	}
	return strings.HasPrefix(l, "<returncode>") || strings.HasPrefix(l, "Please try another command")
}

// stopped returns the line that says the run was stopped before it
// ended: an agent's note that the command timed out and was killed, or a
// last line "Killed" or "Terminated" (the shell's word for a process
// ended by a signal) or "(timed out)". It returns "" for a run that ended.
func (o *output) stopped() string {
	for _, l := range o.lines {
		if strings.Contains(l, "timed out and has been killed") || strings.HasPrefix(strings.TrimSpace(l), "Command timed out after ") {
			return l
		}
	}
	for i := len(o.lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(o.lines[i])
		if l == "" || framing(l) {
			continue
		}
		s := l
		// "bash: line 1:  4242 Killed   pytest"
		if _, after, ok := strings.Cut(s, ": line "); ok {
			s = after
			if k := strings.IndexByte(s, ':'); k >= 0 {
				s = s[k+1:]
			}
		}
		s = strings.TrimLeft(s, " 0123456789")
		if strings.HasPrefix(s, "Killed") || strings.HasPrefix(s, "Terminated") || l == "(timed out)" {
			return l
		}
		return ""
	}
	return ""
}

// environmentLines are what a run prints when its environment, not the
// tests, stopped it: the program is missing, its module is not installed,
// the network is not there, it timed out.
var environmentLines = []string{": command not found", "can't open file", "can't cd to",
	"No module named pytest", "No module named 'pytest'", "No module named _pytest",
	"No module named tox", "No module named 'tox'", "No module named nox", "No module named 'nox'",
	"No module named nose", "No module named 'django'", "No module named django",
	"Could not resolve host", "Temporary failure in name resolution", "Name or service not known",
	"Network is unreachable", "getaddrinfo ENOTFOUND", "getaddrinfo EAI_AGAIN",
	"No matching distribution found", "Could not find a version that satisfies the requirement",
	"timed out"}

// shells are the prefixes of a shell's own error lines.
var shells = []string{"bash: ", "sh: ", "/bin/sh: ", "/bin/bash: ", "/usr/bin/bash: ", "zsh: ", "dash: ",
	"env: ", "/usr/bin/env: ", "xargs: "}

// environment returns the first line that shows the environment stopped
// the run, or "".
func (o *output) environment() string {
	for _, l := range o.lines {
		for _, e := range environmentLines {
			if strings.Contains(l, e) {
				return l
			}
		}
		for _, sh := range shells {
			if strings.HasPrefix(l, sh) && (strings.Contains(l, "not found") || strings.Contains(l, "No such file or directory") ||
				strings.Contains(l, "Permission denied") || strings.Contains(l, "cannot execute")) {
				return l
			}
		}
		// "/usr/bin/python3: No module named pytest": python -m of a
		// module that is not installed.
		if i := strings.Index(l, ": No module named "); i > 0 && isPython(l[:i]) {
			return l
		}
	}
	return ""
}

// why trims a line to quote it in a report: spaces and the frames runners
// draw around their result lines ("=== 3 passed in 0.1s ===") removed,
// cut to WhyBytes bytes on a character boundary.
func why(l string) string {
	l = strings.TrimSpace(l)
	if t := strings.TrimSpace(strings.Trim(l, "=")); t != "" {
		l = t
	}
	if len(l) <= WhyBytes {
		return l
	}
	cut := WhyBytes
	for cut > 0 && !utf8.RuneStart(l[cut]) {
		cut--
	}
	return l[:cut]
}

// item is one "N word" of a result line: "3 failed".
type item struct {
	n    int
	word string
}

// items reads a list of counts ("3 failed, 10 passed, 1 warning" with sep
// ", "); ok is false when a part is not a count followed by words.
func items(s, sep string) ([]item, bool) {
	var out []item
	for s != "" {
		part, rest, _ := strings.Cut(s, sep)
		s = rest
		part = strings.TrimSpace(part)
		n, w, ok := count(part)
		if !ok {
			return nil, false
		}
		out = append(out, item{n, w})
	}
	return out, len(out) > 0
}

// count reads "N words" into N and the words; ok is false when s does
// not start with a number and a space.
func count(s string) (n int, words string, ok bool) {
	n, rest, ok := leadingInt(s)
	if !ok || rest == "" || rest[0] != ' ' {
		return 0, "", false
	}
	return n, strings.TrimSpace(rest), true
}

// leadingInt reads the number s starts with; ok is false when s does not
// start with a digit or the number has more than 9 digits.
func leadingInt(s string) (n int, rest string, ok bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if i == 9 {
			return 0, s, false
		}
		n = n*10 + int(s[i]-'0')
		i++
	}
	return n, s[i:], i > 0
}

// atoi reads s, all digits (spaces around it ignored); ok is false for
// anything else.
func atoi(s string) (int, bool) {
	n, rest, ok := leadingInt(strings.TrimSpace(s))
	return n, ok && rest == ""
}

// tally adds up items by word: the words each count is known by.
type tally map[string]int

// tallyOf returns the counts of items by word, with every word of names
// mapped to its name ("error" and "errors" to "errors").
func tallyOf(its []item, names map[string]string) (tally, bool) {
	t := tally{}
	known := false
	for _, it := range its {
		name, ok := names[it.word]
		if !ok {
			continue
		}
		t[name] += it.n
		known = true
	}
	return t, known
}

// firstOf returns s when it is not "", else t.
func firstOf(s, t string) string {
	if s != "" {
		return s
	}
	return t
}

// hasPrefixes reports whether s starts with one of the prefixes.
func hasPrefixes(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// containsAny reports whether s contains one of the substrings.
func containsAny(s string, subs ...string) bool {
	for _, p := range subs {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// set sets the counts of r from a result line.
func (r *Run) set(passed, failed, errors, skipped int) {
	r.Passed, r.Failed, r.Errors, r.Skipped, r.Counted = max(passed, 0), failed, errors, skipped, true
}
