package chart

import (
	"html/template"
	"math"
	"strings"
)

// Bin is one bar of a [Histogram]: the count of values in [From, To).
type Bin struct {
	From, To float64
	Count    float64
}

// Histogram draws counts by bins of a figure (confidence, score), each
// bar labelled with its count. Bins whose bounds or count are NaN,
// infinite or negative counts are not drawn; the x axis spans the bins'
// bounds.
type Histogram struct {
	// ID names the chart's definitions in the page; see StackedBars.ID.
	ID string
	// Title is the chart's title.
	Title string
	// XLabel and YLabel name the axes.
	XLabel, YLabel string
	Bins           []Bin
	// Tone is the bars' colour.
	Tone Tone
	// Width and Height size the view box; 0 means 640 × 300.
	Width, Height float64
	// Empty is the message when there is nothing to draw.
	Empty string
}

func (b *Bin) drawn() bool {
	return ok(b.From) && ok(b.To) && b.To > b.From && ok(b.Count) && b.Count >= 0
}

// domain returns the span of the drawn bins, and whether any bin is
// drawn with a count above 0.
func (c *Histogram) domain() (lo, hi float64, any bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range c.Bins {
		b := &c.Bins[i]
		if !b.drawn() {
			continue
		}
		lo, hi = math.Min(lo, b.From), math.Max(hi, b.To)
		if b.Count > 0 {
			any = true
		}
	}
	return lo, hi, any
}

// SVG returns the chart.
func (c Histogram) SVG() template.HTML {
	w, h := size(c.Width, c.Height)
	f := frame{marginLeft, marginTop - 16, w - marginRight, h - marginBottom}
	s := begin(chartID(c.ID, "histogram", c.Title), w, h, "chart-histogram", c.Title, c.summary())
	lo, hi, any := c.domain()
	if !any {
		s.empty(f, c.Empty)
		return s.end()
	}
	max := 0.0
	for i := range c.Bins {
		if c.Bins[i].drawn() {
			max = math.Max(max, c.Bins[i].Count)
		}
	}
	top, step := niceScale(max, 5, true)
	s.yAxis(f, top, step, Num, c.YLabel)
	xOf := func(v float64) float64 { return f.x0 + (v-lo)/(hi-lo)*f.w() }

	s.open("g", "class", "chart-bars")
	for i := range c.Bins {
		b := &c.Bins[i]
		if !b.drawn() {
			continue
		}
		x0, x1 := xOf(b.From)+1, xOf(b.To)-1
		bh := b.Count / top * f.h()
		if b.Count > 0 {
			s.open("rect", "x", coord(x0), "y", coord(f.y1-bh), "width", coord(x1-x0), "height", coord(bh),
				"class", "chart-bar chart-"+c.Tone.name(), "fill", c.Tone.Colour())
			s.tip(Num(b.From) + " to " + Num(b.To) + ": " + Num(b.Count))
			s.close("rect")
		}
		s.label((x0+x1)/2, f.y1-bh-4, "middle", "chart-value", Num(b.Count))
	}
	s.close("g")

	// x ticks at the bins' edges, thinned out when they would crowd.
	edges := c.edges()
	widest := 0.0
	for _, e := range edges {
		widest = math.Max(widest, textWidth(Num(e)))
	}
	k := 1
	if len(edges) > 1 {
		k = max1(int(math.Ceil((widest + 6) / (f.w() / float64(len(edges)-1)))))
	}
	s.open("g", "class", "chart-axis chart-x")
	s.el("line", "x1", coord(f.x0), "x2", coord(f.x1), "y1", coord(f.y1), "y2", coord(f.y1), "stroke", axisColour)
	for i := 0; i < len(edges); i += k {
		x := xOf(edges[i])
		s.el("line", "x1", coord(x), "x2", coord(x), "y1", coord(f.y1), "y2", coord(f.y1+4), "stroke", axisColour)
		s.label(x, f.y1+17, "middle", "chart-tick", Num(edges[i]))
	}
	s.close("g")
	s.xTitle(f, h, c.XLabel)
	return s.end()
}

// edges returns the distinct bounds of the drawn bins, ascending.
func (c *Histogram) edges() []float64 {
	var out []float64
	for i := range c.Bins {
		b := &c.Bins[i]
		if !b.drawn() {
			continue
		}
		for _, e := range []float64{b.From, b.To} {
			dup := false
			for _, o := range out {
				if math.Abs(o-e) < 1e-9 {
					dup = true
				}
			}
			if !dup {
				out = append(out, e)
			}
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func (c *Histogram) summary() string {
	var b strings.Builder
	b.WriteString(c.Title)
	lo, hi, any := c.domain()
	if !any {
		b.WriteString(": no data")
		return b.String()
	}
	total, top := 0.0, -1
	n := 0
	for i := range c.Bins {
		bn := &c.Bins[i]
		if !bn.drawn() {
			continue
		}
		n++
		total += bn.Count
		if top < 0 || bn.Count > c.Bins[top].Count {
			top = i
		}
	}
	t := &c.Bins[top]
	b.WriteString(": " + Num(total) + " in " + Num(float64(n)) + " bins from " + Num(lo) + " to " + Num(hi) +
		"; the largest bin " + Num(t.From) + " to " + Num(t.To) + " with " + Num(t.Count) + ".")
	return b.String()
}

// Table returns the chart's data: one row per bin, its range and count.
func (c Histogram) Table() Table {
	t := Table{Caption: c.Title, Columns: []string{c.XLabel, "count"}}
	if c.XLabel == "" {
		t.Columns[0] = "bin"
	}
	for _, b := range c.Bins {
		t.Rows = append(t.Rows, []string{Num(b.From) + " to " + Num(b.To), Num(b.Count)})
	}
	return t
}
