package chart

import (
	"html/template"
	"math"
	"strings"
)

// ReliabilityPoint is one confidence bin of a [Reliability] diagram.
type ReliabilityPoint struct {
	// Low and High bound the bin's confidence.
	Low, High float64
	// Predicted is the bin's mean confidence; NaN puts the point at the
	// bin's middle.
	Predicted float64
	// Observed is how often the verdict agreed with the label in the bin;
	// NaN (no labels in the bin) leaves the point out.
	Observed float64
	// N counts the labelled verifications in the bin.
	N int
}

// Reliability draws a reliability diagram: for each confidence bin, the
// observed rate (of agreement, of good outcomes) against the confidence
// predicted, each point sized and labelled by how many verifications it
// rests on, beside the diagonal a perfectly calibrated gate would follow.
// Both axes run from 0 to 1.
type Reliability struct {
	// ID names the chart's definitions in the page; see StackedBars.ID.
	ID string
	// Title is the chart's title.
	Title string
	// XLabel and YLabel name the axes.
	XLabel, YLabel string
	Points         []ReliabilityPoint
	// Width and Height size the view box; 0 means 640 × 300.
	Width, Height float64
	// Empty is the message when there is nothing to draw.
	Empty string
}

// at returns where p is drawn, and whether it is.
func (p *ReliabilityPoint) at() (x, y float64, drawn bool) {
	x = p.Predicted
	if !ok(x) {
		x = (p.Low + p.High) / 2
	}
	if !ok(x) || !ok(p.Observed) || p.N <= 0 {
		return 0, 0, false
	}
	return clamp01(x), clamp01(p.Observed), true
}

func clamp01(x float64) float64 { return math.Min(math.Max(x, 0), 1) }

// SVG returns the chart.
func (c Reliability) SVG() template.HTML {
	w, h := size(c.Width, c.Height)
	f := frame{marginLeft, marginTop, w - marginRight, h - marginBottom}
	s := begin(chartID(c.ID, "reliability", c.Title), w, h, "chart-reliability", c.Title, c.summary())
	type pt struct {
		x, y float64
		p    *ReliabilityPoint
	}
	var pts []pt
	maxN := 0
	for i := range c.Points {
		p := &c.Points[i]
		if x, y, drawn := p.at(); drawn {
			pts = append(pts, pt{x, y, p})
			maxN = max(maxN, p.N)
		}
	}
	if len(pts) == 0 {
		s.empty(f, c.Empty)
		return s.end()
	}
	for i := 1; i < len(pts); i++ {
		for j := i; j > 0 && pts[j].x < pts[j-1].x; j-- {
			pts[j], pts[j-1] = pts[j-1], pts[j]
		}
	}
	s.yAxis(f, 1, 0.2, Num, c.YLabel)
	s.xAxis(f, 0, 1, 0.1, false, Num)
	s.xTitle(f, h, c.XLabel)
	px := func(x float64) float64 { return f.x0 + x*f.w() }
	py := func(y float64) float64 { return f.y1 - y*f.h() }

	s.el("line", "x1", coord(px(0)), "y1", coord(py(0)), "x2", coord(px(1)), "y2", coord(py(1)),
		"class", "chart-diagonal", "stroke", ToneMuted.Colour(), "stroke-dasharray", dashes[1], "stroke-width", "1.5")
	var d strings.Builder
	for i, p := range pts {
		if i > 0 {
			d.WriteByte(' ')
		}
		d.WriteString(coord(px(p.x)) + "," + coord(py(p.y)))
	}
	col := ToneInfo.Colour()
	s.open("g", "class", "chart-points")
	if len(pts) > 1 {
		s.el("polyline", "points", d.String(), "fill", "none", "stroke", col, "stroke-width", "2", "class", "chart-line chart-info")
	}
	for _, p := range pts {
		r := 3 + 5*math.Sqrt(float64(p.p.N)/float64(maxN))
		x, y := px(p.x), py(p.y)
		s.marker(0, x, y, r, col, "chart-point chart-info",
			"confidence "+Num(p.p.Low)+" to "+Num(p.p.High)+" (mean "+Num(p.x)+"): observed "+Num(p.y)+", n="+Num(float64(p.p.N)))
		// The count beside the point, above it or below it when the point
		// is near the top.
		ly := y - r - 4
		if ly < f.y0+10 {
			ly = y + r + 13
		}
		s.label(x, ly, "middle", "chart-value", "n="+Num(float64(p.p.N)), append([]string{"font-size", "11"}, halo...)...)
	}
	s.close("g")

	s.legend(f.x0, 10, []legendItem{
		{name: "observed (n: labels in the bin)", swatch: func(x, y float64) {
			s.el("line", "x1", coord(x), "x2", coord(x+12), "y1", coord(y+6), "y2", coord(y+6), "stroke", col, "stroke-width", "2")
			s.el("circle", "cx", coord(x+6), "cy", coord(y+6), "r", "3.5", "fill", col)
		}},
		{name: "perfectly calibrated", swatch: func(x, y float64) {
			s.el("line", "x1", coord(x), "x2", coord(x+12), "y1", coord(y+12), "y2", coord(y), "stroke", ToneMuted.Colour(),
				"stroke-dasharray", "3 2", "stroke-width", "1.5")
		}},
	})
	return s.end()
}

func (c *Reliability) summary() string {
	var b strings.Builder
	b.WriteString(c.Title)
	n := 0
	for i := range c.Points {
		p := &c.Points[i]
		x, y, drawn := p.at()
		if !drawn {
			continue
		}
		if n == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		n++
		b.WriteString("at confidence " + Num(x) + " observed " + Num(y) + " (n=" + Num(float64(p.N)) + ")")
	}
	if n == 0 {
		b.WriteString(": no data")
		return b.String()
	}
	b.WriteString("; a perfectly calibrated gate would follow the dashed diagonal.")
	return b.String()
}

// Table returns the chart's data: one row per bin, with its mean
// confidence, observed rate and count.
func (c Reliability) Table() Table {
	xl := c.XLabel
	if xl == "" {
		xl = "confidence"
	}
	yl := c.YLabel
	if yl == "" {
		yl = "observed"
	}
	t := Table{Caption: c.Title, Columns: []string{xl, "mean confidence", yl, "n"}}
	for _, p := range c.Points {
		t.Rows = append(t.Rows, []string{Num(p.Low) + " to " + Num(p.High), Num(p.Predicted), Num(p.Observed), Num(float64(p.N))})
	}
	return t
}
