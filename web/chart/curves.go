package chart

import (
	"html/template"
	"math"
	"slices"
	"strings"
)

// Point is a point of a [Line]; a NaN Y is a gap in the line.
type Point struct {
	X, Y float64
}

// Line is one line of [Curves]: its name, shown in the legend, its tone,
// and its points in order of X.
type Line struct {
	Name   string
	Tone   Tone
	Points []Point
}

// Mark is a vertical line across [Curves] at X, labelled: a threshold in
// force, a suggested one.
type Mark struct {
	X     float64
	Label string
}

// Curves draws lines of rates against a threshold, both axes from 0 to
// 1: the trade-off of catch rate and false-alarm rate as passAt moves,
// with the current and the suggested thresholds marked. The lines are
// told apart by colour, dash (solid, dashed, dotted, dash-dotted) and
// marker shape (circle, square, triangle, diamond), and named in a
// legend. Points with a NaN coordinate are gaps.
type Curves struct {
	// ID names the chart's definitions in the page; see StackedBars.ID.
	ID string
	// Title is the chart's title.
	Title string
	// XLabel and YLabel name the axes.
	XLabel, YLabel string
	Lines          []Line
	Marks          []Mark
	// Width and Height size the view box; 0 means 640 × 300.
	Width, Height float64
	// Empty is the message when there is nothing to draw.
	Empty string
}

func (p Point) drawn() bool { return ok(p.X) && ok(p.Y) }

func (c *Curves) hasData() bool {
	for _, l := range c.Lines {
		for _, p := range l.Points {
			if p.drawn() {
				return true
			}
		}
	}
	return false
}

// SVG returns the chart.
func (c Curves) SVG() template.HTML {
	w, h := size(c.Width, c.Height)
	f := frame{marginLeft, marginTop, w - marginRight, h - marginBottom}
	keys := []string{"curves", c.Title}
	for _, l := range c.Lines {
		keys = append(keys, l.Name)
	}
	s := begin(chartID(c.ID, keys...), w, h, "chart-curves", c.Title, c.summary())
	if !c.hasData() {
		s.empty(f, c.Empty)
		return s.end()
	}
	s.yAxis(f, 1, 0.2, Num, c.YLabel)
	s.xAxis(f, 0, 1, 0.1, true, Num)
	s.xTitle(f, h, c.XLabel)
	px := func(x float64) float64 { return f.x0 + clamp01(x)*f.w() }
	py := func(y float64) float64 { return f.y1 - clamp01(y)*f.h() }

	s.open("g", "class", "chart-marks")
	for j, m := range c.Marks {
		if !ok(m.X) {
			continue
		}
		x := px(m.X)
		s.el("line", "x1", coord(x), "x2", coord(x), "y1", coord(f.y0), "y2", coord(f.y1),
			"class", "chart-mark", "stroke", inkColour, "stroke-width", "1", "stroke-dasharray", "1 2")
		label := clip(m.Label, 40)
		y := f.y0 + 12 + 14*float64(j)
		if x+4+textWidth(label) > f.x1 {
			s.label(x-4, y, "end", "chart-mark-label", label, halo...)
		} else {
			s.label(x+4, y, "start", "chart-mark-label", label, halo...)
		}
	}
	s.close("g")

	items := make([]legendItem, len(c.Lines))
	s.open("g", "class", "chart-lines")
	for i, l := range c.Lines {
		col := l.Tone.Colour()
		cls := "chart-line chart-" + l.Tone.name()
		var segs []string
		var cur strings.Builder
		n := 0
		flush := func() {
			if n > 1 {
				segs = append(segs, cur.String())
			}
			cur.Reset()
			n = 0
		}
		for _, p := range l.Points {
			if !p.drawn() {
				flush()
				continue
			}
			if n > 0 {
				cur.WriteByte(' ')
			}
			cur.WriteString(coord(px(p.X)) + "," + coord(py(p.Y)))
			n++
		}
		flush()
		for _, sg := range segs {
			attrs := []string{"points", sg, "fill", "none", "stroke", col, "stroke-width", "2", "class", cls}
			if dashes[i%len(dashes)] != "" {
				attrs = append(attrs, "stroke-dasharray", dashes[i%len(dashes)])
			}
			s.el("polyline", attrs...)
		}
		for _, p := range l.Points {
			if p.drawn() {
				s.marker(i, px(p.X), py(p.Y), 3, col, cls, l.Name+" at "+Num(p.X)+": "+Num(p.Y))
			}
		}
		dash := dashes[i%len(dashes)]
		items[i] = legendItem{name: l.Name, swatch: func(x, y float64) {
			attrs := []string{"x1", coord(x - 2), "x2", coord(x + 14), "y1", coord(y + 6), "y2", coord(y + 6), "stroke", col, "stroke-width", "2"}
			if dash != "" {
				attrs = append(attrs, "stroke-dasharray", "4 2")
			}
			s.el("line", attrs...)
			s.marker(i, x+6, y+6, 3, col, cls, "")
		}}
	}
	s.close("g")
	s.legend(f.x0, 10, items)
	return s.end()
}

func (c *Curves) summary() string {
	var b strings.Builder
	b.WriteString(c.Title)
	if !c.hasData() {
		b.WriteString(": no data")
		return b.String()
	}
	b.WriteString(":")
	for i, l := range c.Lines {
		var first, last *Point
		for k := range l.Points {
			if p := &l.Points[k]; p.drawn() {
				if first == nil {
					first = p
				}
				last = p
			}
		}
		if first == nil {
			continue
		}
		if i > 0 {
			b.WriteString(";")
		}
		b.WriteString(" " + l.Name + " (" + lineStyle(i) + ") from " + Num(first.Y) + " at " + Num(first.X) +
			" to " + Num(last.Y) + " at " + Num(last.X))
	}
	var marks []string
	for _, m := range c.Marks {
		if ok(m.X) {
			marks = append(marks, m.Label)
		}
	}
	if len(marks) > 0 {
		b.WriteString("; marked: " + strings.Join(marks, ", "))
	}
	b.WriteString(".")
	return b.String()
}

// Table returns the chart's data: one row per X of any line, a column
// per line; the marks are named in the caption.
func (c Curves) Table() Table {
	t := Table{Caption: c.Title, Columns: []string{c.XLabel}}
	var xs []float64
	for _, l := range c.Lines {
		t.Columns = append(t.Columns, l.Name)
		for _, p := range l.Points {
			if ok(p.X) && !slices.ContainsFunc(xs, func(x float64) bool { return math.Abs(x-p.X) < 1e-9 }) {
				xs = append(xs, p.X)
			}
		}
	}
	slices.Sort(xs)
	var marks []string
	for _, m := range c.Marks {
		if ok(m.X) {
			marks = append(marks, m.Label)
		}
	}
	if len(marks) > 0 {
		t.Caption += " (marked: " + strings.Join(marks, ", ") + ")"
	}
	for _, x := range xs {
		row := []string{Num(x)}
		for _, l := range c.Lines {
			y := math.NaN()
			for _, p := range l.Points {
				if math.Abs(p.X-x) < 1e-9 {
					y = p.Y
				}
			}
			row = append(row, Num(y))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
