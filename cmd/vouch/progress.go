package main

import (
	"fmt"
	"io"
	"strings"
)

// progress draws a one-line progress bar on a terminal. It redraws at most
// once per percent, so a large batch does not flood the terminal.
type progress struct {
	w     io.Writer
	total int
	done  int
	drawn int // last drawn per-mille
}

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, total: total, drawn: -1}
	p.draw()
	return p
}

func (p *progress) add(n int) {
	p.done += n
	p.draw()
}

func (p *progress) draw() {
	if p.total <= 0 {
		return
	}
	per := p.done * 100 / p.total
	if per > 100 {
		per = 100
	}
	if per == p.drawn {
		return
	}
	p.drawn = per
	const width = 30
	fill := per * width / 100
	fmt.Fprintf(p.w, "\r[%s%s] %3d%% %d/%d", strings.Repeat("=", fill), strings.Repeat(" ", width-fill), per, p.done, p.total)
}

// finish clears the bar's line.
func (p *progress) finish() {
	fmt.Fprint(p.w, "\r\033[K")
}
