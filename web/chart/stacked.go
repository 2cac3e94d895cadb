package chart

import (
	"html/template"
	"math"
	"strings"
)

// Series is one series of a chart that has several: its name, shown in
// the legend, and its tone.
type Series struct {
	Name string
	Tone Tone
}

// Bar is one bar of [StackedBars]: its label on the x axis (a day, an
// hour) and one value per series, in the order of the chart's Series.
type Bar struct {
	Label  string
	Values []float64
}

// StackedBars draws one bar per category (time goes left to right), each
// the stack of its series' values from the bottom up: verdicts per day,
// say. The series are told apart by colour and fill (solid, hatched,
// dotted, cross-hatched) and named in a legend; each segment's tooltip
// gives its value. Values that are NaN, infinite or negative are not
// drawn (and count as nothing in the totals).
type StackedBars struct {
	// ID names the chart's definitions in the page (letters, digits, -
	// and _); empty, it is derived from the data.
	ID string
	// Title is the chart's title (its <title> and the table's caption).
	Title string
	// XLabel and YLabel name the axes.
	XLabel, YLabel string
	Series         []Series
	Bars           []Bar
	// Width and Height size the view box; 0 means 640 × 300.
	Width, Height float64
	// Empty is the message when there is nothing to draw; "" means "No
	// data".
	Empty string
}

// Layout of the charts with axes on the left and bottom.
const (
	marginLeft   = 56
	marginRight  = 16
	marginTop    = 36
	marginBottom = 46
)

// value returns a bar's value of series i, 0 for what is not drawn.
func (b *Bar) value(i int) float64 {
	if i >= len(b.Values) || !ok(b.Values[i]) || b.Values[i] < 0 {
		return 0
	}
	return b.Values[i]
}

func (c *StackedBars) total(b *Bar) float64 {
	t := 0.0
	for i := range c.Series {
		t += b.value(i)
	}
	return t
}

// SVG returns the chart.
func (c StackedBars) SVG() template.HTML {
	w, h := size(c.Width, c.Height)
	f := frame{marginLeft, marginTop, w - marginRight, h - marginBottom}
	var keys []string
	for _, sr := range c.Series {
		keys = append(keys, sr.Name)
	}
	for _, b := range c.Bars {
		keys = append(keys, b.Label)
	}
	s := begin(chartID(c.ID, append([]string{"stacked", c.Title}, keys...)...), w, h, "chart-stacked", c.Title, c.summary())
	max := 0.0
	for i := range c.Bars {
		max = math.Max(max, c.total(&c.Bars[i]))
	}
	if len(c.Series) == 0 || max == 0 {
		s.empty(f, c.Empty)
		return s.end()
	}
	tones := make([]Tone, len(c.Series))
	for i, sr := range c.Series {
		tones[i] = sr.Tone
	}
	s.defs(tones)
	top, step := niceScale(max, 5, true)
	s.yAxis(f, top, step, Num, c.YLabel)

	band := f.w() / float64(len(c.Bars))
	bw := band * 0.8
	s.open("g", "class", "chart-bars")
	for bi := range c.Bars {
		b := &c.Bars[bi]
		x := f.x0 + float64(bi)*band + (band-bw)/2
		base := f.y1
		for i, sr := range c.Series {
			v := b.value(i)
			if v == 0 {
				continue
			}
			bh := v / top * f.h()
			s.open("rect", "x", coord(x), "y", coord(base-bh), "width", coord(bw), "height", coord(bh),
				"class", "chart-seg chart-"+sr.Tone.name(), "fill", s.patternFill(i, sr.Tone))
			s.tip(b.Label + ": " + sr.Name + " " + Num(v))
			s.close("rect")
			base -= bh
		}
	}
	s.close("g")

	// x ticks: every k-th bar, so that labels do not overlap.
	widest := 0.0
	for _, b := range c.Bars {
		widest = math.Max(widest, textWidth(clip(b.Label, 12)))
	}
	k := max1(int(math.Ceil((widest + 8) / band)))
	s.open("g", "class", "chart-axis chart-x")
	s.el("line", "x1", coord(f.x0), "x2", coord(f.x1), "y1", coord(f.y1), "y2", coord(f.y1), "stroke", axisColour)
	for bi := 0; bi < len(c.Bars); bi += k {
		x := f.x0 + (float64(bi)+0.5)*band
		s.el("line", "x1", coord(x), "x2", coord(x), "y1", coord(f.y1), "y2", coord(f.y1+4), "stroke", axisColour)
		s.label(x, f.y1+17, "middle", "chart-tick", clip(c.Bars[bi].Label, 12))
	}
	s.close("g")
	s.xTitle(f, h, c.XLabel)

	items := make([]legendItem, len(c.Series))
	for i, sr := range c.Series {
		fill := s.patternFill(i, sr.Tone)
		col := sr.Tone.Colour()
		items[i] = legendItem{name: sr.Name, swatch: func(x, y float64) {
			s.el("rect", "x", coord(x), "y", coord(y), "width", "12", "height", "12", "fill", fill, "stroke", col,
				"class", "chart-swatch chart-"+sr.Tone.name())
		}}
	}
	s.legend(f.x0, 10, items)
	return s.end()
}

func max1(k int) int {
	if k < 1 {
		return 1
	}
	return k
}

// summary is the chart's accessible name: what it shows in a sentence.
func (c *StackedBars) summary() string {
	var b strings.Builder
	b.WriteString(c.Title)
	grand := 0.0
	totals := make([]float64, len(c.Series))
	hi, hiAt := 0.0, -1
	for bi := range c.Bars {
		t := c.total(&c.Bars[bi])
		for i := range c.Series {
			totals[i] += c.Bars[bi].value(i)
		}
		grand += t
		if t > hi {
			hi, hiAt = t, bi
		}
	}
	if len(c.Series) == 0 || grand == 0 {
		b.WriteString(": no data")
		return b.String()
	}
	b.WriteString(": " + Num(float64(len(c.Bars))) + " bars")
	if len(c.Bars) > 1 {
		b.WriteString(", from " + c.Bars[0].Label + " to " + c.Bars[len(c.Bars)-1].Label)
	}
	b.WriteString("; in all ")
	for i, sr := range c.Series {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(sr.Name + " " + Num(totals[i]) + " (" + patternName(i) + ")")
	}
	b.WriteString("; the highest bar " + c.Bars[hiAt].Label + " with " + Num(hi) + ".")
	return b.String()
}

// Table returns the chart's data: one row per bar, a column per series
// and the total.
func (c StackedBars) Table() Table {
	t := Table{Caption: c.Title, Columns: []string{c.XLabel}}
	for _, sr := range c.Series {
		t.Columns = append(t.Columns, sr.Name)
	}
	t.Columns = append(t.Columns, "total")
	for bi := range c.Bars {
		b := &c.Bars[bi]
		row := []string{b.Label}
		for i := range c.Series {
			v := math.NaN()
			if i < len(b.Values) {
				v = b.Values[i]
			}
			row = append(row, Num(v))
		}
		row = append(row, Num(c.total(b)))
		t.Rows = append(t.Rows, row)
	}
	return t
}
