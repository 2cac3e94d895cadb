package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// showProgress reports whether a command shows its progress on standard
// error while it works for long (verify --batch, reverify, calibrate,
// serve --demo's fill): only on a terminal, and not when the command
// prints JSON; a pipe or a log gets no redrawn lines. The line is cleared
// when the work ends, so what the command prints next starts on a clean
// line.
func (s Streams) showProgress(json bool) bool {
	return !json && s.terminal(s.Err)
}

// progress draws a one-line progress bar on a terminal. It redraws at most
// once per percent, so a large batch does not flood the terminal. A nil
// *progress draws nothing, so that callers need not check.
type progress struct {
	w     io.Writer
	label string // what is counted, before the bar; may be empty
	total int
	done  int
	drawn int // last drawn percent
}

func newProgress(w io.Writer, total int) *progress {
	return newLabelledProgress(w, "", total)
}

// newLabelledProgress is newProgress with a label before the bar.
func newLabelledProgress(w io.Writer, label string, total int) *progress {
	p := &progress{w: w, label: label, total: total, drawn: -1}
	p.draw()
	return p
}

func (p *progress) add(n int) {
	if p == nil {
		return
	}
	p.done += n
	p.draw()
}

// set sets the count done (and the total, when it is positive).
func (p *progress) set(done, total int) {
	if p == nil {
		return
	}
	if total > 0 && total != p.total {
		p.total, p.drawn = total, -1
	}
	p.done = done
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
	label := ""
	if p.label != "" {
		label = p.label + " "
	}
	fmt.Fprintf(p.w, "\r%s[%s%s] %3d%% %d/%d", label, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), per, p.done, p.total)
}

// finish clears the bar's line.
func (p *progress) finish() {
	if p == nil {
		return
	}
	fmt.Fprint(p.w, "\r\033[K")
}

// activity shows a step of unknown length on a terminal: what it does,
// at once, then with the seconds it has taken, redrawn every second,
// until stop clears the line. A nil *activity shows nothing.
type activity struct {
	w     io.Writer
	label string
	start time.Time
	quit  chan struct{}
	done  chan struct{}
}

// startActivity shows label on w until stop, when show is set; it returns
// nil otherwise.
func startActivity(show bool, w io.Writer, label string) *activity {
	if !show {
		return nil
	}
	a := &activity{w: w, label: label, start: time.Now(), quit: make(chan struct{}), done: make(chan struct{})}
	fmt.Fprintf(w, "\r\033[K%s...", label)
	go a.tick()
	return a
}

func (a *activity) tick() {
	defer close(a.done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-a.quit:
			return
		case now := <-t.C:
			fmt.Fprintf(a.w, "\r\033[K%s... %ds", a.label, int(now.Sub(a.start).Seconds()))
		}
	}
}

// stop ends the activity and clears its line; it returns once nothing
// more will be drawn.
func (a *activity) stop() {
	if a == nil {
		return
	}
	select {
	case <-a.quit:
		return // stopped already
	default:
	}
	close(a.quit)
	<-a.done // the ticker draws no more
	fmt.Fprint(a.w, "\r\033[K")
}
