package trace

import (
	"path"
	"strconv"
	"strings"
)

// maxItemBytes caps one command, query or description in [Summary.Text].
const maxItemBytes = 160

// Text returns the summary as compact, deterministic text, one kind of call
// a line, for a judge prompt or a report:
//
//	root: /home/u/proj
//	read: a.go, b.go
//	read failed: c.go
//	listed: src (*.go)
//	searched: "TODO" in src
//	wrote: a.go
//	ran: go test ./... (exit 1)
//	ran: go test ./... (exit 0)
//	fetched: https://example.com/doc
//	delegated: explore the parser
//	plugin mind:rag-query: {"hits": 3}
//	seen: src/a.go, src/b.go
//
// A file read or written several times is named once; a call that failed
// is listed as "read failed" or "write failed", one the trace holds no
// result for as "read (no result)" or "wrote (no result)". A command's
// status is "exit N", "failed" (an error without an exit status),
// "background" (started in the background, never polled), "no result" or
// "ok" (a result, no error, no status). Absolute paths under the directory
// whose prefix is the most worth leaving out ("root") are written relative
// to it. Commands, queries and descriptions are cut to their first line and
// 160 bytes. With maxBytes > 0 the text is at most maxBytes long: it stops
// before the first item that does not fit and ends with "… N more", N
// counting the items left out (a note that does not fit either is left
// out). An empty summary gives "".
func (s *Summary) Text(maxBytes int) string {
	items := s.items()
	full := render(items, 0)
	if maxBytes <= 0 || len(full) <= maxBytes {
		return full
	}
	return render(items, maxBytes)
}

// textItem is one item of the text: a label and its text. Items with the
// same label in a row share a line unless the label is alone.
type textItem struct {
	label string
	text  string
	alone bool // one line per item
}

// render writes items, within max bytes when max > 0.
func render(items []textItem, max int) string {
	var b strings.Builder
	reserve := 0
	if max > 0 {
		reserve = len("\n… ") + len(strconv.Itoa(len(items))) + len(" more")
	}
	last := ""
	for n, it := range items {
		var piece string
		switch {
		case it.label == last && !it.alone:
			piece = ", " + it.text
		case b.Len() == 0:
			piece = it.label + ": " + it.text
		default:
			piece = "\n" + it.label + ": " + it.text
		}
		if max > 0 && b.Len()+len(piece)+reserve > max {
			note := "… " + strconv.Itoa(len(items)-n) + " more"
			if b.Len() > 0 {
				note = "\n" + note
			}
			if b.Len()+len(note) <= max {
				b.WriteString(note)
			}
			return b.String()
		}
		b.WriteString(piece)
		last = it.label
	}
	return b.String()
}

// items lists the text's items in order.
func (s *Summary) items() []textItem {
	root := s.root()
	rel := func(p string) string {
		if root == "" {
			return p
		}
		if p == root {
			return "."
		}
		if r, ok := strings.CutPrefix(p, root+"/"); ok {
			return r
		}
		return p
	}
	var items []textItem
	add := func(label, text string, alone bool) {
		items = append(items, textItem{label, text, alone})
	}
	if root != "" {
		add("root", root, true)
	}
	files := func(list []File, label, failedLabel string) {
		done := map[string]bool{}
		for _, f := range list {
			if !f.IsError && f.HasResult && !done[f.Path] {
				done[f.Path] = true
				add(label, rel(f.Path), false)
			}
		}
		for _, kind := range []struct {
			label string
			match func(File) bool
		}{
			{failedLabel, func(f File) bool { return f.IsError }},
			{label + " (no result)", func(f File) bool { return !f.IsError && !f.HasResult }},
		} {
			shown := map[string]bool{}
			for _, f := range list {
				if kind.match(f) && !done[f.Path] && !shown[f.Path] {
					shown[f.Path] = true
					add(kind.label, rel(f.Path), false)
				}
			}
		}
	}
	files(s.Reads, "read", "read failed")
	for _, l := range s.Listings {
		t := "."
		if l.Dir != "" {
			t = rel(l.Dir)
		}
		if l.Pattern != "" {
			t += " (" + oneLine(l.Pattern) + ")"
		}
		if l.IsError {
			t += " (failed)"
		}
		add("listed", t, false)
	}
	for _, q := range s.Searches {
		t := strconv.Quote(oneLine(q.Query))
		if q.Dir != "" {
			t += " in " + rel(q.Dir)
		}
		if q.IsError {
			t += " (failed)"
		}
		add("searched", t, false)
	}
	files(s.Writes, "wrote", "write failed")
	for i := range s.Commands {
		c := &s.Commands[i]
		add("ran", oneLine(c.Command)+" ("+c.status()+")", true)
	}
	for _, f := range s.Fetches {
		t := oneLine(f.URL)
		if f.IsError {
			t += " (failed)"
		}
		add("fetched", t, false)
	}
	for _, a := range s.Agents {
		t := oneLine(a.Description)
		if t == "" {
			t = a.Tool
		}
		if a.IsError {
			t += " (failed)"
		}
		add("delegated", t, true)
	}
	for _, p := range s.Plugins {
		label := "plugin " + p.Tool
		if p.IsError {
			label += " failed"
		}
		add(label, strings.Join(strings.Fields(p.Excerpt), " "), true)
	}
	shown := map[string]bool{}
	for _, p := range s.Seen {
		if r := rel(p.Path); !shown[r] {
			shown[r] = true
			add("seen", r, false)
		}
	}
	return items
}

// status describes how a run ended.
func (c *CommandRun) status() string {
	switch {
	case c.ExitCode != nil:
		return "exit " + strconv.Itoa(*c.ExitCode)
	case c.Background:
		return "background"
	case c.IsError:
		return "failed"
	case !c.HasResult:
		return "no result"
	}
	return "ok"
}

// oneLine returns the first non-blank line of s, capped.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	line, rest, more := strings.Cut(s, "\n")
	line = strings.TrimSpace(line)
	if more && strings.TrimSpace(rest) != "" {
		line += " …"
	}
	return Excerpt(line, maxItemBytes)
}

// root returns the directory, at least two levels deep, whose prefix would
// save the most bytes on the summary's absolute paths (files, listed and
// searched directories, seen paths); "" when none would save any.
func (s *Summary) root() string {
	counts := map[string]int{}
	visit := func(p string, isDir bool) {
		if !path.IsAbs(p) {
			return
		}
		d := path.Clean(p)
		if !isDir {
			d = path.Dir(d)
		}
		for ; strings.Count(d, "/") >= 2; d = path.Dir(d) {
			counts[d]++
		}
	}
	for _, f := range s.Reads {
		visit(f.Path, false)
	}
	for _, f := range s.Writes {
		visit(f.Path, false)
	}
	for _, l := range s.Listings {
		if l.Dir != "" {
			visit(l.Dir, true)
		}
	}
	for _, q := range s.Searches {
		if q.Dir != "" {
			visit(q.Dir, true)
		}
	}
	for _, p := range s.Seen {
		visit(p.Path, false)
	}
	best, saved := "", 0
	for d, c := range counts {
		if c < 2 {
			continue
		}
		// The bytes the root saves: its prefix on each path under it, less
		// its own line.
		if v := c*(len(d)+1) - len("\nroot: ") - len(d); v > saved || v == saved && v > 0 && d < best {
			best, saved = d, v
		}
	}
	return best
}
