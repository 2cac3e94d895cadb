package git

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// entry is one file pair of a diff: its raw record and what its patch
// showed.
type entry struct {
	status   byte   // raw status letter: A, C, D, M, R, T, U
	src, dst string // paths; equal unless renamed or copied
	want     int    // patch sections the pair produces
	got      int    // patch sections seen
	hunks    []Hunk // of the last section
	binary   bool   // of the last section
}

// diffArgs are the arguments of the diff that Read parses: the raw records
// (exact paths, -z) followed by a patch without context (the hunks).
// --no-ext-diff and --no-textconv keep diff.external and the diff drivers'
// command and textconv from running; --ignore-submodules=dirty keeps git
// from running "git status" inside each submodule (see submoduleArg).
func diffArgs(from string) []string {
	return []string{
		"diff", "--raw", "--patch", "-z",
		"--unified=0", "--inter-hunk-context=0",
		"--no-color", "--no-ext-diff", "--no-textconv",
		"--src-prefix=a/", "--dst-prefix=b/",
		"--submodule=short", submoduleArg,
		"--diff-algorithm=myers", "--indent-heuristic",
		"--find-renames", "--relative",
		from, "--", ".",
	}
}

// errMalformed wraps every problem with git's diff output.
var errMalformed = errors.New("git: unexpected diff output")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errMalformed, fmt.Sprintf(format, args...))
}

// parseDiff reads the output of a diff run with diffArgs.
//
// The raw part comes first: records ":srcmode dstmode srcsha dstsha
// status", each followed by its path (two for a rename), all NUL-terminated,
// then an empty field. The patch part follows as lines, one section per
// pair in the same order, opened by "diff --git a/X b/Y" (a type change,
// file to symlink, opens two: a deletion, then a creation). Paths are taken
// from the raw part, which -z leaves unquoted; each section's header is
// checked against the path of the record it is matched with, so output that
// does not line up is an error, never a misattributed hunk.
func parseDiff(r io.Reader) ([]*entry, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var entries []*entry
	for {
		tok, err := br.ReadString(0)
		if err == io.EOF && tok == "" && len(entries) == 0 {
			return nil, nil // no changes
		}
		if err != nil {
			return nil, malformed("raw records: %v", err)
		}
		tok = tok[:len(tok)-1]
		if tok == "" {
			break // the separator before the patch
		}
		e, err := parseRaw(tok)
		if err != nil {
			return nil, err
		}
		if e.src, err = readPath(br); err != nil {
			return nil, err
		}
		e.dst = e.src
		if e.status == 'R' || e.status == 'C' {
			if e.dst, err = readPath(br); err != nil {
				return nil, err
			}
		}
		entries = append(entries, e)
	}

	idx := -1
	var cur *entry
	inHeader := false
	for {
		c, err := br.Peek(1)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, malformed("patch: %v", err)
		}
		switch c[0] {
		case '+', '-', ' ', '\\':
			// Content, "\ No newline at end of file", and the ---/+++
			// lines of the header: nothing to read there.
			if err := skipLine(br); err != nil {
				return nil, err
			}
			continue
		}
		line, err := readLine(br)
		if err != nil {
			return nil, err
		}
		switch {
		case strings.HasPrefix(line, "diff --git ") || strings.HasPrefix(line, "* Unmerged path "):
			if cur == nil || cur.got == cur.want {
				idx++
				if idx >= len(entries) {
					return nil, malformed("more patch sections than records: %q", line)
				}
				cur = entries[idx]
			}
			if !cur.header(line) {
				return nil, malformed("patch section %q does not match record %q", line, cur.dst)
			}
			cur.got++
			cur.hunks, cur.binary = nil, false
			inHeader = true
		case cur == nil:
			return nil, malformed("patch text before a section header: %q", line)
		case strings.HasPrefix(line, "@@ "):
			h, err := parseHunk(line)
			if err != nil {
				return nil, err
			}
			cur.hunks = append(cur.hunks, h)
			inHeader = false
		case inHeader && strings.HasPrefix(line, "Binary files "):
			cur.binary = true
		}
	}
	if len(entries) > 0 && (idx != len(entries)-1 || cur.got != cur.want) {
		return nil, malformed("%d records but patch sections for %d", len(entries), idx+1)
	}
	return entries, nil
}

// parseRaw parses the fields of a raw record up to its status.
func parseRaw(tok string) (*entry, error) {
	f := strings.Fields(tok)
	if len(f) != 5 || !strings.HasPrefix(f[0], ":") || f[4] == "" {
		return nil, malformed("raw record %q", tok)
	}
	e := &entry{status: f[4][0], want: 1}
	switch e.status {
	case 'A', 'C', 'D', 'M', 'R', 'U':
	case 'T':
		e.want = 2
	default:
		return nil, malformed("raw record %q: unknown status", tok)
	}
	return e, nil
}

// readPath reads one NUL-terminated path of the raw part.
func readPath(br *bufio.Reader) (string, error) {
	p, err := br.ReadString(0)
	if err != nil || len(p) < 2 {
		return "", malformed("raw record path: %v", err)
	}
	return p[:len(p)-1], nil
}

// header reports whether line opens a patch section of e, as git writes it.
func (e *entry) header(line string) bool {
	if rest, ok := strings.CutPrefix(line, "* Unmerged path "); ok {
		return e.status == 'U' && rest == e.dst
	}
	return line == "diff --git "+quoteTwo("a/", e.src)+" "+quoteTwo("b/", e.dst)
}

// maxLine bounds the part of a line that is kept; the rest is skipped.
// Header and hunk lines are far shorter.
const maxLine = 16 << 10

// readLine reads one line without its newline; a last line may lack it.
func readLine(br *bufio.Reader) (string, error) {
	b, err := br.ReadSlice('\n')
	switch {
	case err == nil:
		return string(b[:len(b)-1]), nil
	case err == io.EOF:
		return string(b), nil
	case errors.Is(err, bufio.ErrBufferFull):
		s := string(b[:min(len(b), maxLine)])
		return s, skipLine(br)
	}
	return "", malformed("patch: %v", err)
}

// skipLine discards the rest of the current line.
func skipLine(br *bufio.Reader) error {
	for {
		_, err := br.ReadSlice('\n')
		switch {
		case err == nil || err == io.EOF:
			return nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		}
		return malformed("patch: %v", err)
	}
}

// parseHunk parses a hunk header "@@ -a[,b] +c[,d] @@ ..." into the lines
// c..c+d-1 of the new file; d = 0 is a deletion after line c.
func parseHunk(line string) (Hunk, error) {
	bad := func() (Hunk, error) { return Hunk{}, malformed("hunk header %q", line) }
	rest, ok := strings.CutPrefix(line, "@@ -")
	if !ok {
		return bad()
	}
	_, rest, ok = strings.Cut(rest, " +")
	if !ok {
		return bad()
	}
	spec, _, ok := strings.Cut(rest, " @@")
	if !ok {
		return bad()
	}
	startS, countS, hasCount := strings.Cut(spec, ",")
	start, err := strconv.Atoi(startS)
	if err != nil || start < 0 {
		return bad()
	}
	count := 1
	if hasCount {
		if count, err = strconv.Atoi(countS); err != nil || count < 0 {
			return bad()
		}
	}
	if count == 0 {
		return Hunk{Start: start + 1, End: start}, nil
	}
	if start < 1 {
		return bad()
	}
	return Hunk{Start: start, End: start + count - 1}, nil
}

// quoteTwo writes prefix+name as git writes a path in a diff header: as is,
// or in double quotes with C escapes when it holds a control character, a
// double quote or a backslash (core.quotePath=false leaves other bytes
// alone).
func quoteTwo(prefix, name string) string {
	if !mustQuote(prefix) && !mustQuote(name) {
		return prefix + name
	}
	var b strings.Builder
	b.WriteByte('"')
	cquote(&b, prefix)
	cquote(&b, name)
	b.WriteByte('"')
	return b.String()
}

func mustQuote(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == 0x7f {
			return true
		}
	}
	return false
}

func cquote(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		esc := byte(0)
		switch c {
		case '\a':
			esc = 'a'
		case '\b':
			esc = 'b'
		case '\t':
			esc = 't'
		case '\n':
			esc = 'n'
		case '\v':
			esc = 'v'
		case '\f':
			esc = 'f'
		case '\r':
			esc = 'r'
		case '"', '\\':
			esc = c
		}
		switch {
		case esc != 0:
			b.WriteByte('\\')
			b.WriteByte(esc)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
}

// lineCounter counts lines as git does and applies git's binary rule (a
// NUL byte in the first 8000 bytes).
type lineCounter struct {
	newlines int
	size     int64
	last     byte
	binary   bool
	tooLarge bool // set by countFile: over maxCountSize, nothing counted
}

const binaryProbe = 8000

func (c *lineCounter) Write(p []byte) (int, error) {
	if c.size < binaryProbe {
		head := p[:min(int64(len(p)), binaryProbe-c.size)]
		if bytes.IndexByte(head, 0) >= 0 {
			c.binary = true
		}
	}
	c.newlines += bytes.Count(p, []byte{'\n'})
	c.size += int64(len(p))
	if len(p) > 0 {
		c.last = p[len(p)-1]
	}
	return len(p), nil
}

// lines returns the number of lines: newlines, plus a last line without
// one.
func (c *lineCounter) lines() int {
	if c.size > 0 && c.last != '\n' {
		return c.newlines + 1
	}
	return c.newlines
}
