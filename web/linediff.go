package web

import (
	"strconv"
	"strings"
)

// Bounds of a line diff: the lines compared on each side (past the
// common start and end), the cells of the LCS table, and the lines
// shown.
const (
	maxDiffLines = 2000
	maxDiffCells = 1 << 20
	maxDiffShown = 400
	// diffContext is how many unchanged lines are kept around a change.
	diffContext = 2
)

// diffLine is one line of a line diff: kept (Op ' '), removed ('-') or
// added ('+'); a gap of unchanged lines left out is Op '…' with the
// count in Text.
type diffLine struct {
	Op   string
	Text string
}

// lineDiff is the result of comparing two texts by lines.
type lineDiff struct {
	Lines []diffLine
	// Added and Removed count the changed lines.
	Added, Removed int
	// Note says why the diff is partial or missing, when it is.
	Note string
}

// diffUnits splits a text into the units a diff compares: its lines,
// and a long line (a paragraph of prose) further at its sentences, so
// that a changed sentence shows as one.
func diffUnits(s string) []string {
	var out []string
	for line := range strings.Lines(strings.TrimRight(s, "\n")) {
		line = strings.TrimRight(line, "\r\n")
		if len(line) <= 100 {
			out = append(out, line)
			continue
		}
		for line != "" {
			i := sentenceEnd(line)
			out = append(out, line[:i])
			line = strings.TrimLeft(line[i:], " ")
		}
	}
	return out
}

// sentenceEnd returns the end of the first sentence of s (after its
// ". ", "! " or "? "), or len(s).
func sentenceEnd(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' && i > 0 {
			return i + 1
		}
	}
	return len(s)
}

// diffLines compares a and b line by line (a longest common
// subsequence): the lines of b not in a are added, those of a not in b
// removed. The common start and end are trimmed first; what is left is
// compared only within the bounds (maxDiffLines a side, maxDiffCells in
// all), else the diff says the texts are too long. Unchanged lines away
// from a change are folded into gaps, and at most maxDiffShown lines are
// shown.
func diffLines(a, b []string) lineDiff {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	var d lineDiff
	if len(ma) == 0 && len(mb) == 0 {
		d.Note = "The two texts are the same."
		return d
	}
	if len(ma) > maxDiffLines || len(mb) > maxDiffLines || (len(ma)+1)*(len(mb)+1) > maxDiffCells {
		d.Note = "The texts differ in " + strconv.Itoa(len(ma)) + " and " + strconv.Itoa(len(mb)) +
			" lines: too many to compare here."
		return d
	}
	// lcs[i][j] is the length of the longest common subsequence of
	// ma[i:] and mb[j:], in one slice.
	w := len(mb) + 1
	lcs := make([]int32, (len(ma)+1)*w)
	for i := len(ma) - 1; i >= 0; i-- {
		for j := len(mb) - 1; j >= 0; j-- {
			if ma[i] == mb[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	all := make([]diffLine, 0, len(a)+len(b))
	for _, l := range a[:pre] {
		all = append(all, diffLine{" ", l})
	}
	i, j := 0, 0
	for i < len(ma) || j < len(mb) {
		switch {
		case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
			all = append(all, diffLine{" ", ma[i]})
			i++
			j++
		case i < len(ma) && (j == len(mb) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
			all = append(all, diffLine{"-", ma[i]})
			d.Removed++
			i++
		default:
			all = append(all, diffLine{"+", mb[j]})
			d.Added++
			j++
		}
	}
	for _, l := range a[len(a)-suf:] {
		all = append(all, diffLine{" ", l})
	}
	d.Lines = fold(all)
	if len(d.Lines) > maxDiffShown {
		d.Lines = d.Lines[:maxDiffShown]
		d.Note = "The diff is cut after " + strconv.Itoa(maxDiffShown) + " lines."
	}
	return d
}

// fold keeps the changed lines and diffContext unchanged lines around
// each, and replaces longer runs of unchanged lines with a gap.
func fold(all []diffLine) []diffLine {
	near := make([]bool, len(all))
	for i, l := range all {
		if l.Op == " " {
			continue
		}
		for k := max(0, i-diffContext); k <= min(len(all)-1, i+diffContext); k++ {
			near[k] = true
		}
	}
	var out []diffLine
	for i := 0; i < len(all); {
		if near[i] {
			out = append(out, all[i])
			i++
			continue
		}
		j := i
		for j < len(all) && !near[j] {
			j++
		}
		n := j - i
		if n <= 2 {
			out = append(out, all[i:j]...)
			i = j
			continue
		}
		word := " unchanged lines"
		out = append(out, diffLine{"…", strconv.Itoa(n) + word})
		i = j
	}
	return out
}
