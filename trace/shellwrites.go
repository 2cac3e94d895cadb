package trace

import (
	"strings"
)

// ShellWrites returns the files a shell command line writes, as far as its
// text and its output show: redirections ("> f", ">> f", "&> f"), tee, an
// in-place sed (-i), the files a patch says it patches ("patching file
// f"), and the "+++ b/f" headers of a diff fed to git apply or patch in a
// heredoc. /dev/null and descriptors are not files. Paths are as written,
// each once, in order.
func ShellWrites(cmd, output string) []string {
	var out []string
	add := func(p string) {
		p = strings.TrimSpace(p)
		if p == "" || p == "/dev/null" || strings.HasPrefix(p, "&") || strings.ContainsAny(p, "$`*?") {
			return
		}
		for _, q := range out {
			if q == p {
				return
			}
		}
		out = append(out, p)
	}
	text, bodies := splitHeredocs(cmd)
	patching := false
	for _, stage := range shellStages(text) {
		w := shellWords(stage)
		for len(w) > 0 && strings.Contains(w[0], "=") && !strings.HasPrefix(w[0], "-") {
			w = w[1:] // VAR=value
		}
		var args []string
		for i := 0; i < len(w); i++ {
			a := w[i]
			switch {
			case a == ">" || a == ">>" || a == "&>" || a == "1>" || a == "1>>":
				if i+1 < len(w) {
					add(w[i+1])
					i++
				}
				continue
			case strings.HasPrefix(a, "2>") || a == "<" || strings.HasPrefix(a, "<<"):
				if a == "2>" || a == "<" || a == "<<" {
					i++
				}
				continue
			case strings.HasPrefix(a, ">>"):
				add(a[2:])
				continue
			case strings.HasPrefix(a, ">"), strings.HasPrefix(a, "&>"), strings.HasPrefix(a, "1>"):
				add(strings.TrimLeft(a, "&1>"))
				continue
			}
			args = append(args, a)
		}
		if len(args) == 0 {
			continue
		}
		switch args[0] {
		case "tee":
			for _, a := range args[1:] {
				if !strings.HasPrefix(a, "-") {
					add(a)
				}
			}
		case "sed":
			inPlace, script := false, false
			var files []string
			for j := 1; j < len(args); j++ {
				a := args[j]
				switch {
				case a == "-i" || strings.HasPrefix(a, "-i") || a == "--in-place" || strings.HasPrefix(a, "--in-place="):
					inPlace = true
				case a == "-e" || a == "-f" || a == "--expression" || a == "--file":
					script = true
					j++
				case strings.HasPrefix(a, "-"):
				case !script:
					script = true // the first operand is the script
				default:
					files = append(files, a)
				}
			}
			if inPlace {
				for _, f := range files {
					add(f)
				}
			}
		case "patch":
			patching = true
		case "git":
			if len(args) > 1 && args[1] == "apply" {
				patching = true
			}
		}
	}
	if patching {
		for _, b := range bodies {
			for line := range strings.Lines(b) {
				if p, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "+++ "); ok {
					p, _, _ = strings.Cut(p, "\t")
					if p != "/dev/null" {
						add(strings.TrimPrefix(p, "b/"))
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

// splitHeredocs returns the command with the bodies of its heredocs taken
// out, and the bodies.
func splitHeredocs(cmd string) (string, []string) {
	var text strings.Builder
	var bodies []string
	lines := strings.SplitAfter(cmd, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		text.WriteString(line)
		k := strings.Index(line, "<<")
		if k < 0 || strings.HasPrefix(line[k:], "<<<") {
			continue
		}
		marker := strings.TrimLeft(line[k+2:], "-~ ")
		if f := strings.Fields(marker); len(f) > 0 {
			marker = strings.Trim(f[0], `'"`)
		} else {
			continue
		}
		var body strings.Builder
		for i++; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) == marker {
				break
			}
			body.WriteString(lines[i])
		}
		bodies = append(bodies, body.String())
	}
	return text.String(), bodies
}

// shellStages splits a command line into the simple commands of its lists
// and pipelines, outside quotes.
func shellStages(s string) []string {
	var out []string
	var cur strings.Builder
	var quote byte
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, t)
		}
		cur.Reset()
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == ';' || c == '\n' || c == '(' || c == ')':
			flush()
			continue
		case c == '|' || c == '&' && i+1 < len(s) && s[i+1] == '&':
			flush()
			if i+1 < len(s) && (s[i+1] == '|' || s[i+1] == '&') {
				i++
			}
			continue
		}
		cur.WriteByte(c)
	}
	flush()
	return out
}

// shellWords splits a simple command into words, taking quotes off.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
				continue
			}
		case c == '\'' || c == '"':
			quote, in = c, true
			continue
		case c == ' ' || c == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
			continue
		}
		cur.WriteByte(c)
		in = true
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
