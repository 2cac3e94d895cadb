package chart

import (
	"html/template"
	"math"
	"strings"
)

// HBar is one bar of [HBars].
type HBar struct {
	// Label names the bar, left of it.
	Label string
	// Value is the bar's length; NaN leaves the bar out (its label stays,
	// with "n/a").
	Value float64
	// Note, when set, is added to the bar's tooltip and its table row
	// (what a failure code means, how many a bias rests on).
	Note string
}

// HBars draws horizontal bars, one row each, labelled on the left and
// with their value at the end: failure codes by count, say. When some
// value is negative the bars diverge from a zero line in the middle
// (Neg and Pos name the two sides), positive ones in Tone to the right,
// negative ones in NegTone and hatched to the left, each with its signed
// value. The view box grows with the number of bars.
type HBars struct {
	// ID names the chart's definitions in the page; see StackedBars.ID.
	ID string
	// Title is the chart's title.
	Title string
	// XLabel names the values' axis; Category names the labels' column in
	// the table.
	XLabel, Category string
	Bars             []HBar
	// Tone colours the bars (the positive ones when they diverge);
	// NegTone the negative ones.
	Tone, NegTone Tone
	// Neg and Pos say what a negative and a positive value mean, written
	// over each half of a diverging chart ("underconfident",
	// "overconfident").
	Neg, Pos string
	// Width sizes the view box; 0 means 640.
	Width float64
	// Empty is the message when there is nothing to draw.
	Empty string
}

// Layout of HBars.
const (
	hbarRow    = 24
	hbarHeight = 15
	hbarTop    = 30
	hbarBottom = 44
	hbarLabel  = 30 // runes of a label shown
)

func (c *HBars) scan() (maxAbs float64, diverging, any bool) {
	for _, b := range c.Bars {
		if !ok(b.Value) {
			continue
		}
		any = true
		maxAbs = math.Max(maxAbs, math.Abs(b.Value))
		if b.Value < 0 {
			diverging = true
		}
	}
	return maxAbs, diverging, any
}

// SVG returns the chart.
func (c HBars) SVG() template.HTML {
	w, _ := size(c.Width, 1)
	rows := max(len(c.Bars), 3)
	h := float64(hbarTop + rows*hbarRow + hbarBottom)
	widest := 0.0
	for _, b := range c.Bars {
		widest = math.Max(widest, textWidth(clip(b.Label, hbarLabel)))
	}
	left := math.Min(math.Max(widest+16, 60), w/2)
	f := frame{left, hbarTop, w - 56, h - hbarBottom}
	keys := []string{"hbars", c.Title}
	for _, b := range c.Bars {
		keys = append(keys, b.Label)
	}
	s := begin(chartID(c.ID, keys...), w, h, "chart-hbars", c.Title, c.summary())
	maxAbs, diverging, any := c.scan()
	if !any || maxAbs == 0 {
		s.empty(frame{marginLeft, hbarTop, w - marginRight, h - hbarBottom}, c.Empty)
		return s.end()
	}
	if diverging {
		s.defs([]Tone{c.Tone, c.NegTone})
	}
	whole := true
	for _, b := range c.Bars {
		if ok(b.Value) && b.Value != math.Trunc(b.Value) {
			whole = false
		}
	}
	top, step := niceScale(maxAbs, 4, whole)
	lo := 0.0
	format := Num
	if diverging {
		lo = -top
		format = signed
	}
	xOf := func(v float64) float64 { return f.x0 + (v-lo)/(top-lo)*f.w() }
	s.xAxis(f, lo, top, step, true, format)
	s.xTitle(f, h, c.XLabel)
	zero := xOf(0)
	if diverging {
		s.el("line", "x1", coord(zero), "x2", coord(zero), "y1", coord(f.y0-4), "y2", coord(f.y1), "class", "chart-zero", "stroke", axisColour)
		if c.Neg != "" {
			s.label(zero-6, f.y0-10, "end", "chart-side", "← "+c.Neg)
		}
		if c.Pos != "" {
			s.label(zero+6, f.y0-10, "start", "chart-side", c.Pos+" →")
		}
	} else {
		s.el("line", "x1", coord(zero), "x2", coord(zero), "y1", coord(f.y0), "y2", coord(f.y1), "stroke", axisColour)
	}

	s.open("g", "class", "chart-bars")
	for i, b := range c.Bars {
		cy := f.y0 + (float64(i)+0.5)*hbarRow
		s.label(f.x0-8, cy+4, "end", "chart-category", clip(b.Label, hbarLabel))
		if !ok(b.Value) {
			s.label(zero+6, cy+4, "start", "chart-value", "n/a")
			continue
		}
		x := xOf(b.Value)
		x0, x1 := math.Min(zero, x), math.Max(zero, x)
		tone, fill := c.Tone, c.Tone.Colour()
		val := Num(b.Value)
		if diverging {
			val = signed(b.Value)
			if b.Value < 0 {
				tone, fill = c.NegTone, s.patternFill(1, c.NegTone)
			}
		}
		if x1 > x0 {
			tip := b.Label + ": " + val
			if b.Note != "" {
				tip += " — " + b.Note
			}
			s.open("rect", "x", coord(x0), "y", coord(cy-hbarHeight/2), "width", coord(x1-x0), "height", coord(hbarHeight),
				"class", "chart-bar chart-"+tone.name(), "fill", fill, "stroke", tone.Colour())
			s.tip(tip)
			s.close("rect")
		}
		if b.Value < 0 {
			s.label(x0-5, cy+4, "end", "chart-value", val)
		} else {
			s.label(x1+5, cy+4, "start", "chart-value", val)
		}
	}
	s.close("g")
	return s.end()
}

func (c *HBars) summary() string {
	var b strings.Builder
	b.WriteString(c.Title)
	maxAbs, diverging, any := c.scan()
	if !any || maxAbs == 0 {
		b.WriteString(": no data")
		return b.String()
	}
	b.WriteString(": " + Num(float64(len(c.Bars))) + " bars; ")
	shown := 0
	for _, bar := range c.Bars {
		if !ok(bar.Value) {
			continue
		}
		if shown == 6 {
			b.WriteString(", …")
			break
		}
		if shown > 0 {
			b.WriteString(", ")
		}
		v := Num(bar.Value)
		if diverging {
			v = signed(bar.Value)
		}
		b.WriteString(bar.Label + " " + v)
		shown++
	}
	if diverging && (c.Neg != "" || c.Pos != "") {
		b.WriteString("; negative means " + c.Neg + ", positive " + c.Pos)
	}
	b.WriteString(".")
	return b.String()
}

// Table returns the chart's data: one row per bar, its value and note.
func (c HBars) Table() Table {
	_, diverging, _ := c.scan()
	cat := c.Category
	if cat == "" {
		cat = "label"
	}
	val := c.XLabel
	if val == "" {
		val = "value"
	}
	t := Table{Caption: c.Title, Columns: []string{cat, val}}
	notes := false
	for _, b := range c.Bars {
		if b.Note != "" {
			notes = true
		}
	}
	if notes {
		t.Columns = append(t.Columns, "note")
	}
	for _, b := range c.Bars {
		v := Num(b.Value)
		if diverging && ok(b.Value) {
			v = signed(b.Value)
		}
		row := []string{b.Label, v}
		if notes {
			row = append(row, b.Note)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
