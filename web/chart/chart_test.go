package chart

import (
	"encoding/xml"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
)

// node is an element of a parsed chart.
type node struct {
	name     string
	attrs    map[string]string
	children []*node
	text     string
}

// parse decodes a chart as strict XML into a tree, failing the test when
// it is not well-formed.
func parse(t *testing.T, h template.HTML) *node {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(string(h)))
	d.Strict = true
	var stack []*node
	var root *node
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, h)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &node{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			} else if root != nil {
				t.Fatalf("more than one root element")
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(tok)
			}
		}
	}
	if root == nil {
		t.Fatal("no element")
	}
	return root
}

// all returns the elements under n (n included) that match.
func (n *node) all(match func(*node) bool) []*node {
	var out []*node
	var walk func(*node)
	walk = func(m *node) {
		if match(m) {
			out = append(out, m)
		}
		for _, c := range m.children {
			walk(c)
		}
	}
	walk(n)
	return out
}

func named(name string) func(*node) bool { return func(n *node) bool { return n.name == name } }

func withClass(name, class string) func(*node) bool {
	return func(n *node) bool {
		return n.name == name && strings.Contains(" "+n.attrs["class"]+" ", " "+class+" ")
	}
}

// texts returns the text of every <text> element.
func (n *node) texts() []string {
	var out []string
	for _, e := range n.all(named("text")) {
		out = append(out, e.text)
	}
	return out
}

func num(t *testing.T, n *node, attr string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(n.attrs[attr], 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", n.name, attr, n.attrs[attr], err)
	}
	return v
}

func near(a, b float64) bool { return math.Abs(a-b) < 0.051 }

// checkFrame checks what every chart carries: an accessible name and a
// title, and nothing a strict Content-Security-Policy would block.
func checkFrame(t *testing.T, root *node, title string) {
	t.Helper()
	if root.name != "svg" || root.attrs["role"] != "img" || root.attrs["viewBox"] == "" {
		t.Errorf("root: <%s role=%q viewBox=%q>", root.name, root.attrs["role"], root.attrs["viewBox"])
	}
	if !strings.HasPrefix(root.attrs["aria-label"], title) {
		t.Errorf("aria-label %q does not start with the title %q", root.attrs["aria-label"], title)
	}
	if len(root.children) == 0 || root.children[0].name != "title" || root.children[0].text != title {
		t.Errorf("the first child is not <title>%s</title>", title)
	}
	for _, n := range root.all(func(*node) bool { return true }) {
		switch n.name {
		case "script", "style", "foreignObject", "image", "use":
			t.Errorf("chart holds <%s>", n.name)
		}
		for a, v := range n.attrs {
			if a == "style" || strings.HasPrefix(a, "on") || a == "href" {
				t.Errorf("<%s> has attribute %s=%q", n.name, a, v)
			}
		}
	}
}

func verdictSeries() []Series {
	return []Series{{"pass", ToneGood}, {"retry", ToneWarn}, {"fail", ToneBad}}
}

func TestStackedBarsPositions(t *testing.T) {
	c := StackedBars{Title: "Verdicts per day", XLabel: "day", YLabel: "verifications", Series: verdictSeries()[:2],
		Bars: []Bar{{"11-01", []float64{3, 1}}, {"11-02", []float64{0, 2}}}}
	root := parse(t, c.SVG())
	checkFrame(t, root, "Verdicts per day")
	if root.attrs["viewBox"] != "0 0 640 300" {
		t.Errorf("viewBox %q", root.attrs["viewBox"])
	}
	// Plot area x 56..624, y 36..254; the scale tops at 4 (step 1); each
	// bar takes 80% of its 284-wide band.
	segs := root.all(withClass("rect", "chart-seg"))
	want := []struct{ x, y, w, h float64 }{
		{84.4, 90.5, 227.2, 163.5}, // 11-01 pass 3
		{84.4, 36, 227.2, 54.5},    // 11-01 retry 1 on top
		{368.4, 145, 227.2, 109},   // 11-02 retry 2 (pass 0 is not drawn)
	}
	if len(segs) != len(want) {
		t.Fatalf("%d segments, want %d", len(segs), len(want))
	}
	for i, w := range want {
		s := segs[i]
		if !near(num(t, s, "x"), w.x) || !near(num(t, s, "y"), w.y) || !near(num(t, s, "width"), w.w) || !near(num(t, s, "height"), w.h) {
			t.Errorf("segment %d: x=%s y=%s w=%s h=%s, want %v", i, s.attrs["x"], s.attrs["y"], s.attrs["width"], s.attrs["height"], w)
		}
	}
	if segs[0].attrs["fill"] != ToneGood.Colour() || !strings.HasPrefix(segs[1].attrs["fill"], "url(#") {
		t.Errorf("fills %q, %q: want the pass colour, then a pattern", segs[0].attrs["fill"], segs[1].attrs["fill"])
	}
	if len(segs[0].children) != 1 || segs[0].children[0].text != "11-01: pass 3" {
		t.Errorf("segment tooltip: %+v", segs[0].children)
	}
	// The pattern the retry segment names is defined in the chart.
	id := strings.TrimSuffix(strings.TrimPrefix(segs[1].attrs["fill"], "url(#"), ")")
	if len(root.all(func(n *node) bool { return n.name == "pattern" && n.attrs["id"] == id })) != 1 {
		t.Errorf("pattern %q is not defined", id)
	}
	texts := strings.Join(root.texts(), "|")
	for _, w := range []string{"pass", "retry", "11-01", "11-02", "day", "verifications", "|0|1|2|3|4|"} {
		if !strings.Contains("|"+texts+"|", w) {
			t.Errorf("texts %q lack %q", texts, w)
		}
	}
	label := root.attrs["aria-label"]
	if !strings.Contains(label, "2 bars, from 11-01 to 11-02") || !strings.Contains(label, "pass 3 (solid), retry 3 (hatched)") ||
		!strings.Contains(label, "the highest bar 11-01 with 4") {
		t.Errorf("aria-label %q", label)
	}
}

func TestStackedBarsThinsTicks(t *testing.T) {
	c := StackedBars{Title: "t", Series: verdictSeries()}
	for i := range 30 {
		c.Bars = append(c.Bars, Bar{Label: "2026-11-" + strconv.Itoa(10+i), Values: []float64{1, 1, 1}})
	}
	root := parse(t, c.SVG())
	ticks := root.all(func(n *node) bool {
		return n.name == "text" && n.attrs["class"] == "chart-tick" && strings.HasPrefix(n.text, "2026")
	})
	// A 10-rune label is about 68 units wide, 76 with its gap; bands are
	// 568/30 ≈ 18.9, so every 5th bar is labelled.
	if len(ticks) != 6 {
		t.Errorf("%d day ticks, want 6", len(ticks))
	}
	if len(root.all(withClass("rect", "chart-seg"))) != 90 {
		t.Errorf("want 90 segments")
	}
}

func TestStackedBarsSkipsNaN(t *testing.T) {
	c := StackedBars{Title: "t", Series: verdictSeries(),
		Bars: []Bar{{"a", []float64{math.NaN(), 2, math.Inf(1)}}, {"b", []float64{1, -3}}}}
	root := parse(t, c.SVG())
	segs := root.all(withClass("rect", "chart-seg"))
	if len(segs) != 2 {
		t.Fatalf("%d segments, want 2 (retry of a, pass of b)", len(segs))
	}
	tab := c.Table()
	if got := strings.Join(tab.Rows[0], ","); got != "a,n/a,2,n/a,2" {
		t.Errorf("row a: %s", got)
	}
	if got := strings.Join(tab.Rows[1], ","); got != "b,1,-3,n/a,1" {
		t.Errorf("row b: %s", got)
	}
}

func TestHistogram(t *testing.T) {
	c := Histogram{Title: "Confidence", XLabel: "confidence", YLabel: "verifications"}
	for i := range 10 {
		c.Bins = append(c.Bins, Bin{float64(i) / 10, float64(i+1) / 10, float64(i)})
	}
	c.Bins[3].Count = math.NaN()
	root := parse(t, c.SVG())
	checkFrame(t, root, "Confidence")
	bars := root.all(withClass("rect", "chart-bar"))
	// Bins 0 (count 0) and 3 (NaN) have no bar.
	if len(bars) != 8 {
		t.Fatalf("%d bars, want 8", len(bars))
	}
	// Plot x 56..624 over [0, 1]: bin 9 spans 567.2..624, less 1 each side;
	// the y scale tops at 10 over 20..254.
	last := bars[len(bars)-1]
	if !near(num(t, last, "x"), 568.2) || !near(num(t, last, "width"), 54.8) ||
		!near(num(t, last, "y"), 43.4) || !near(num(t, last, "height"), 210.6) {
		t.Errorf("bin 9: %v", last.attrs)
	}
	texts := "|" + strings.Join(root.texts(), "|") + "|"
	for _, w := range []string{"|0.1|", "|0.5|", "|1|", "|9|", "|confidence|"} {
		if !strings.Contains(texts, w) {
			t.Errorf("texts %s lack %s", texts, w)
		}
	}
	if l := root.attrs["aria-label"]; !strings.Contains(l, "42 in 9 bins from 0 to 1; the largest bin 0.9 to 1 with 9") {
		t.Errorf("aria-label %q", l)
	}
	tab := c.Table()
	if len(tab.Rows) != 10 || strings.Join(tab.Rows[3], ",") != "0.3 to 0.4,n/a" {
		t.Errorf("table: %v", tab.Rows)
	}
}

func TestReliability(t *testing.T) {
	c := Reliability{Title: "Reliability", XLabel: "confidence", YLabel: "agreed"}
	for i := range 10 {
		p := ReliabilityPoint{Low: float64(i) / 10, High: float64(i+1) / 10, Predicted: math.NaN(), Observed: math.NaN()}
		if i == 5 || i == 9 {
			p.Predicted, p.Observed, p.N = float64(i)/10+0.05, 0.5, 4*i
		}
		c.Points = append(c.Points, p)
	}
	root := parse(t, c.SVG())
	checkFrame(t, root, "Reliability")
	pts := root.all(withClass("circle", "chart-point"))
	if len(pts) != 2 {
		t.Fatalf("%d points, want 2", len(pts))
	}
	// (0.55, 0.5) in the plot x 56..624, y 36..254.
	if !near(num(t, pts[0], "cx"), 368.4) || !near(num(t, pts[0], "cy"), 145) {
		t.Errorf("point 0 at %s,%s", pts[0].attrs["cx"], pts[0].attrs["cy"])
	}
	if r0, r1 := num(t, pts[0], "r"), num(t, pts[1], "r"); !(r0 < r1) || !near(r1, 8) {
		t.Errorf("radii %v, %v: want the larger n larger, the largest 8", r0, r1)
	}
	diag := root.all(withClass("line", "chart-diagonal"))
	if len(diag) != 1 || diag[0].attrs["x1"] != "56" || diag[0].attrs["y1"] != "254" || diag[0].attrs["x2"] != "624" || diag[0].attrs["y2"] != "36" {
		t.Errorf("diagonal: %+v", diag)
	}
	texts := strings.Join(root.texts(), "|")
	if !strings.Contains(texts, "n=20") || !strings.Contains(texts, "n=36") || !strings.Contains(texts, "perfectly calibrated") {
		t.Errorf("texts %s", texts)
	}
	if l := root.attrs["aria-label"]; !strings.Contains(l, "at confidence 0.55 observed 0.5 (n=20); at confidence 0.95 observed 0.5 (n=36)") {
		t.Errorf("aria-label %q", l)
	}
	if tab := c.Table(); strings.Join(tab.Rows[0], ",") != "0 to 0.1,n/a,n/a,0" || strings.Join(tab.Rows[5], ",") != "0.5 to 0.6,0.55,0.5,20" {
		t.Errorf("table %v", tab.Rows)
	}
}

func TestCurves(t *testing.T) {
	c := Curves{Title: "Trade-off", XLabel: "passAt", YLabel: "rate",
		Lines: []Line{
			{Name: "catch rate", Tone: ToneInfo, Points: []Point{{0, 0}, {0.5, 0.6}, {0.6, math.NaN()}, {0.7, 0.8}, {1, 1}}},
			{Name: "false-alarm rate", Tone: ToneBad, Points: []Point{{0, 0}, {0.5, 0.1}, {1, 0.9}}},
		},
		Marks: []Mark{{0.7, "current 0.7"}, {0.75, "suggested 0.75"}, {math.NaN(), "nowhere"}}}
	root := parse(t, c.SVG())
	checkFrame(t, root, "Trade-off")
	lines := root.all(named("polyline"))
	// The catch rate's NaN splits it in two.
	if len(lines) != 3 {
		t.Fatalf("%d polylines, want 3", len(lines))
	}
	if lines[0].attrs["points"] != "56,254 340,123.2" || lines[1].attrs["points"] != "453.6,79.6 624,36" {
		t.Errorf("catch rate: %q, %q", lines[0].attrs["points"], lines[1].attrs["points"])
	}
	if lines[0].attrs["stroke-dasharray"] != "" || lines[2].attrs["stroke-dasharray"] == "" {
		t.Errorf("the two lines must differ by dash")
	}
	marks := root.all(withClass("line", "chart-mark"))
	if len(marks) != 2 || marks[0].attrs["x1"] != "453.6" || marks[1].attrs["x1"] != "482" {
		t.Errorf("marks: %+v", marks)
	}
	// Markers: circles for the first line, squares for the second.
	if n := len(root.all(withClass("circle", "chart-line"))); n != 4+1 {
		t.Errorf("%d circles, want 4 (+1 in the legend)", n)
	}
	if n := len(root.all(withClass("rect", "chart-line"))); n != 3+1 {
		t.Errorf("%d squares, want 3 (+1 in the legend)", n)
	}
	texts := strings.Join(root.texts(), "|")
	for _, w := range []string{"current 0.7", "suggested 0.75", "catch rate", "false-alarm rate", "passAt"} {
		if !strings.Contains(texts, w) {
			t.Errorf("texts %s lack %q", texts, w)
		}
	}
	if strings.Contains(texts, "nowhere") {
		t.Error("a mark at NaN was drawn")
	}
	if l := root.attrs["aria-label"]; !strings.Contains(l, "catch rate (solid with circles) from 0 at 0 to 1 at 1") ||
		!strings.Contains(l, "marked: current 0.7, suggested 0.75") {
		t.Errorf("aria-label %q", l)
	}
	tab := c.Table()
	if len(tab.Rows) != 5 || strings.Join(tab.Rows[2], ",") != "0.6,n/a,n/a" || !strings.Contains(tab.Caption, "current 0.7") {
		t.Errorf("table %q %v", tab.Caption, tab.Rows)
	}
}

func TestHBars(t *testing.T) {
	c := HBars{Title: "Failure codes", XLabel: "verifications", Category: "code", Tone: ToneBad,
		Bars: []HBar{{"UNVERIFIED_FILE", 120, "a file named is nowhere"}, {"COUNT_MISMATCH", 60, ""}, {"GONE", math.NaN(), ""}}}
	root := parse(t, c.SVG())
	checkFrame(t, root, "Failure codes")
	bars := root.all(withClass("rect", "chart-bar"))
	if len(bars) != 2 {
		t.Fatalf("%d bars, want 2", len(bars))
	}
	// The longest label (14 capitals and an underscore ≈ 121.8) sets the
	// left edge at 137.8; the scale tops at 150 over 137.8..584.
	if !near(num(t, bars[0], "x"), 137.8) || !near(num(t, bars[0], "width"), 357) || !near(num(t, bars[1], "width"), 178.5) {
		t.Errorf("bars: %v / %v", bars[0].attrs, bars[1].attrs)
	}
	if bars[0].children[0].text != "UNVERIFIED_FILE: 120 — a file named is nowhere" {
		t.Errorf("tooltip %q", bars[0].children[0].text)
	}
	texts := strings.Join(root.texts(), "|")
	for _, w := range []string{"UNVERIFIED_FILE", "|120|", "GONE|n/a"} {
		if !strings.Contains("|"+texts+"|", w) {
			t.Errorf("texts %s lack %q", texts, w)
		}
	}
	// Three rows: 30 + 3×24 + 44.
	if root.attrs["viewBox"] != "0 0 640 146" {
		t.Errorf("viewBox %q", root.attrs["viewBox"])
	}
	if tab := c.Table(); len(tab.Columns) != 3 || strings.Join(tab.Rows[0], "|") != "UNVERIFIED_FILE|120|a file named is nowhere" {
		t.Errorf("table %v %v", tab.Columns, tab.Rows)
	}
}

func TestHBarsDiverging(t *testing.T) {
	c := HBars{Title: "Bias", Tone: ToneWarn, NegTone: ToneInfo, Neg: "underconfident", Pos: "overconfident",
		Bars: []HBar{{Label: "a", Value: 0.2}, {Label: "b", Value: -0.1}}}
	root := parse(t, c.SVG())
	bars := root.all(withClass("rect", "chart-bar"))
	zero := root.all(withClass("line", "chart-zero"))
	if len(bars) != 2 || len(zero) != 1 {
		t.Fatalf("%d bars, %d zero lines", len(bars), len(zero))
	}
	z := num(t, zero[0], "x1")
	// Left edge 60 (short labels), right 584: zero in the middle, 322.
	if !near(z, 322) {
		t.Errorf("zero at %v", z)
	}
	if !near(num(t, bars[0], "x"), z) || !near(num(t, bars[1], "x")+num(t, bars[1], "width"), z) {
		t.Errorf("bars do not start at zero: %v %v", bars[0].attrs, bars[1].attrs)
	}
	if !strings.HasPrefix(bars[1].attrs["fill"], "url(#") {
		t.Errorf("a negative bar is not hatched: %q", bars[1].attrs["fill"])
	}
	texts := strings.Join(root.texts(), "|")
	for _, w := range []string{"+0.2", "-0.1", "← underconfident", "overconfident →"} {
		if !strings.Contains(texts, w) {
			t.Errorf("texts %s lack %q", texts, w)
		}
	}
}

// charts returns one chart of each kind, with label as every piece of
// text it holds.
func charts(label string) map[string]interface {
	SVG() template.HTML
	Table() Table
} {
	return map[string]interface {
		SVG() template.HTML
		Table() Table
	}{
		"stacked": StackedBars{Title: label, XLabel: label, YLabel: label, Empty: label,
			Series: []Series{{label, ToneGood}, {label, ToneBad}}, Bars: []Bar{{label, []float64{1, 2}}}},
		"histogram":   Histogram{Title: label, XLabel: label, YLabel: label, Bins: []Bin{{0, 1, 3}}},
		"reliability": Reliability{Title: label, XLabel: label, YLabel: label, Points: []ReliabilityPoint{{0, 0.1, 0.05, 0.5, 3}}},
		"curves": Curves{Title: label, XLabel: label, YLabel: label, Lines: []Line{{Name: label, Points: []Point{{0, 0}, {1, 1}}}},
			Marks: []Mark{{0.5, label}}},
		"hbars":     HBars{Title: label, XLabel: label, Category: label, Bars: []HBar{{label, 2, label}, {label, -1, label}}, Neg: label, Pos: label},
		"stacked-0": StackedBars{Title: label, Empty: label, Series: []Series{{label, ToneGood}}},
	}
}

func TestEscaping(t *testing.T) {
	const hostile = `<script>alert("x")</script> & 'q' ]]> ` + "\x00\x1b\xff\ufffe"
	for name, c := range charts(hostile) {
		t.Run(name, func(t *testing.T) {
			h := string(c.SVG())
			if strings.Contains(h, "<script") || strings.Contains(strings.ToLower(h), "<script") {
				t.Errorf("raw <script> in the chart:\n%s", h)
			}
			if !strings.Contains(h, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#39;q&#39; ]]&gt;") {
				t.Errorf("label not escaped as expected:\n%s", h)
			}
			root := parse(t, c.SVG())
			// The decoded text is the label, its impossible characters
			// replaced.
			want := `<script>alert("x")</script> & 'q' ]]> ` + "\ufffd\ufffd\ufffd\ufffd"
			if root.children[0].text != want {
				t.Errorf("title %q, want %q", root.children[0].text, want)
			}
			tab := string(c.Table().HTML())
			if strings.Contains(tab, "<script") || !strings.Contains(tab, "&lt;script&gt;") {
				t.Errorf("table not escaped:\n%s", tab)
			}
			parse(t, template.HTML(tab))
		})
	}
}

func TestEmpty(t *testing.T) {
	for name, c := range map[string]interface{ SVG() template.HTML }{
		"stacked-no-bars":    StackedBars{Title: "V", Series: verdictSeries()},
		"stacked-zero":       StackedBars{Title: "V", Series: verdictSeries(), Bars: []Bar{{"a", []float64{0, 0, 0}}}},
		"stacked-no-series":  StackedBars{Title: "V", Bars: []Bar{{"a", []float64{1}}}},
		"histogram-zero":     Histogram{Title: "V", Bins: []Bin{{0, 0.5, 0}, {0.5, 1, 0}}},
		"histogram-nan":      Histogram{Title: "V", Bins: []Bin{{0, 1, math.NaN()}}},
		"reliability-nan":    Reliability{Title: "V", Points: []ReliabilityPoint{{0, 0.1, math.NaN(), math.NaN(), 0}}},
		"reliability-none":   Reliability{Title: "V"},
		"curves-nan":         Curves{Title: "V", Lines: []Line{{Name: "a", Points: []Point{{0, math.NaN()}}}}},
		"curves-none":        Curves{Title: "V", Marks: []Mark{{0.5, "m"}}},
		"hbars-none":         HBars{Title: "V"},
		"hbars-zero-and-nan": HBars{Title: "V", Bars: []HBar{{"a", 0, ""}, {"b", math.NaN(), ""}}},
	} {
		t.Run(name, func(t *testing.T) {
			root := parse(t, c.SVG())
			checkFrame(t, root, "V")
			if got := root.attrs["aria-label"]; got != "V: no data" {
				t.Errorf("aria-label %q", got)
			}
			texts := root.texts()
			if len(texts) != 1 || texts[0] != "No data" {
				t.Errorf("texts %q, want only No data", texts)
			}
			if n := len(root.all(named("polyline"))) + len(root.all(named("circle"))) + len(root.all(withClass("rect", "chart-bar"))); n != 0 {
				t.Errorf("%d marks drawn", n)
			}
		})
	}
	root := parse(t, Histogram{Title: "V", Empty: "No verifications in this window"}.SVG())
	if texts := root.texts(); len(texts) != 1 || texts[0] != "No verifications in this window" {
		t.Errorf("custom empty message: %q", texts)
	}
}

func TestDeterministicIDs(t *testing.T) {
	a := StackedBars{Title: "a", Series: verdictSeries(), Bars: []Bar{{"x", []float64{1, 1, 1}}}}
	b := a
	b.Title = "b"
	if a.SVG() != a.SVG() {
		t.Error("the same chart twice differs")
	}
	idOf := func(h template.HTML) string {
		return parse(t, h).all(named("pattern"))[0].attrs["id"]
	}
	if idOf(a.SVG()) == idOf(b.SVG()) {
		t.Error("two charts share pattern ids")
	}
	a.ID = "verdicts <x>"
	if got := idOf(a.SVG()); got != "chart-verdictsx-p1" {
		t.Errorf("id %q", got)
	}
}

func TestNiceScale(t *testing.T) {
	for _, c := range []struct {
		max         float64
		n           int
		whole       bool
		top, step   float64
		description string
	}{
		{47, 5, true, 50, 10, "counts"},
		{4, 5, true, 4, 1, "small counts"},
		{1, 5, true, 1, 1, "one"},
		{0, 5, true, 1, 1, "nothing"},
		{math.NaN(), 5, true, 1, 1, "NaN"},
		{0.31, 4, false, 0.4, 0.1, "a bias"},
		{1234, 5, true, 1500, 500, "thousands"},
		{100, 5, true, 100, 20, "exact"},
	} {
		top, step := niceScale(c.max, c.n, c.whole)
		if math.Abs(top-c.top) > 1e-9 || math.Abs(step-c.step) > 1e-9 {
			t.Errorf("%s: niceScale(%v) = %v, %v; want %v, %v", c.description, c.max, top, step, c.top, c.step)
		}
	}
}

func TestNum(t *testing.T) {
	for x, want := range map[float64]string{
		0: "0", 3: "3", 1234: "1,234", 1234567: "1,234,567", -1500: "-1,500", 0.5: "0.5", 0.123: "0.12",
		0.005: "0.01", -0.004: "0", 1234.567: "1,234.57", math.NaN(): "n/a", math.Inf(1): "n/a",
	} {
		if got := Num(x); got != want {
			t.Errorf("Num(%v) = %q, want %q", x, got, want)
		}
	}
	if signed(0.1) != "+0.1" || signed(-0.1) != "-0.1" || signed(0) != "0" {
		t.Error("signed")
	}
	if coord(-0.01) != "0" || coord(12.345) != "12.3" || coord(math.NaN()) != "0" {
		t.Error("coord")
	}
}

// luminance is the relative luminance of #rrggbb (WCAG 2).
func luminance(t *testing.T, hex string) float64 {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	if err != nil || len(hex) != 7 {
		t.Fatalf("colour %q", hex)
	}
	lin := func(c uint64) float64 {
		s := float64(c) / 255
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(v>>16) + 0.7152*lin(v>>8&0xff) + 0.0722*lin(v&0xff)
}

func TestContrast(t *testing.T) {
	colours := map[string]string{"ink": inkColour, "axis": axisColour}
	for tone := ToneInfo; tone <= ToneMuted; tone++ {
		colours[tone.name()] = tone.Colour()
	}
	for name, c := range colours {
		ratio := 1.05 / (luminance(t, c) + 0.05)
		if ratio < 3 {
			t.Errorf("%s %s: contrast %.2f against white, want at least 3", name, c, ratio)
		}
	}
}

func TestTableHTML(t *testing.T) {
	tab := Table{Caption: "C", Columns: []string{"day", "n"}, Rows: [][]string{{"11-01", "3"}}}
	want := `<table class="chart-table"><caption>C</caption><thead><tr><th scope="col">day</th><th scope="col">n</th></tr></thead>` +
		`<tbody><tr><th scope="row">11-01</th><td>3</td></tr></tbody></table>`
	if got := string(tab.HTML()); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
