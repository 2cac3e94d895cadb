package chart

import (
	"fmt"
	"hash/fnv"
	"html/template"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Tone is the colour of a series, named for what it means. Every tone
// has a contrast of at least 3:1 against white.
type Tone int

// The tones.
const (
	// ToneInfo is blue: a neutral quantity.
	ToneInfo Tone = iota
	// ToneGood is green: a pass, a good outcome.
	ToneGood
	// ToneWarn is amber: a retry, something to look at.
	ToneWarn
	// ToneBad is red: a failure, a false alarm.
	ToneBad
	// ToneAlt is purple: a second neutral quantity.
	ToneAlt
	// ToneMuted is grey: a reference.
	ToneMuted
)

// Colour returns the tone's colour as #rrggbb.
func (t Tone) Colour() string {
	switch t {
	case ToneGood:
		return "#1a7f37"
	case ToneWarn:
		return "#9a6700"
	case ToneBad:
		return "#cf222e"
	case ToneAlt:
		return "#8250df"
	case ToneMuted:
		return "#59636e"
	}
	return "#0969da"
}

// name is the tone's class suffix.
func (t Tone) name() string {
	switch t {
	case ToneGood:
		return "good"
	case ToneWarn:
		return "warn"
	case ToneBad:
		return "bad"
	case ToneAlt:
		return "alt"
	case ToneMuted:
		return "muted"
	}
	return "info"
}

// Colours of what is not data.
const (
	inkColour  = "#1f2328" // text
	axisColour = "#59636e" // axes and ticks
	gridColour = "#d1d9e0" // grid lines (decoration only)
)

// halo are the attributes of a label drawn over lines: a white outline
// under its glyphs keeps it legible.
var halo = []string{"stroke", "#ffffff", "stroke-width", "3", "paint-order", "stroke"}

// Value returns *p, or NaN when p is nil: the way a missing figure (a
// rate over nothing) enters a chart.
func Value(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// ok reports whether x is a figure to draw.
func ok(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Default sizes of a chart's view box.
const (
	defaultWidth  = 640
	defaultHeight = 300
)

// size returns w and h, or the defaults for values that are not positive.
func size(w, h float64) (float64, float64) {
	if !(w > 0) || math.IsInf(w, 0) {
		w = defaultWidth
	}
	if !(h > 0) || math.IsInf(h, 0) {
		h = defaultHeight
	}
	return w, h
}

// svg writes an SVG document.
type svg struct {
	b strings.Builder
	// id prefixes the ids of the chart's definitions (patterns), so that
	// several charts share a page.
	id string
}

// begin opens an <svg> of w × h user units with its accessible name
// (label) and title, and a <desc>.
func begin(id string, w, h float64, class, title, label string) *svg {
	s := &svg{id: id}
	s.open("svg", "xmlns", "http://www.w3.org/2000/svg", "viewBox", "0 0 "+coord(w)+" "+coord(h),
		"class", "chart "+class, "role", "img", "aria-label", label,
		"font-family", "sans-serif", "font-size", "12", "fill", inkColour)
	s.open("title")
	s.text(title)
	s.close("title")
	s.open("desc")
	s.text(label)
	s.close("desc")
	return s
}

// open writes a start tag with attributes given as name, value pairs.
func (s *svg) open(name string, attrs ...string) {
	s.tag(name, attrs)
	s.b.WriteByte('>')
}

// el writes an empty element.
func (s *svg) el(name string, attrs ...string) {
	s.tag(name, attrs)
	s.b.WriteString("/>")
}

func (s *svg) tag(name string, attrs []string) {
	if len(attrs)%2 != 0 {
		panic("chart: odd attribute list for <" + name + ">")
	}
	s.b.WriteByte('<')
	s.b.WriteString(name)
	for i := 0; i < len(attrs); i += 2 {
		s.b.WriteByte(' ')
		s.b.WriteString(attrs[i])
		s.b.WriteString(`="`)
		s.b.WriteString(escape(attrs[i+1]))
		s.b.WriteByte('"')
	}
}

// close writes an end tag.
func (s *svg) close(name string) {
	s.b.WriteString("</")
	s.b.WriteString(name)
	s.b.WriteByte('>')
}

// text writes escaped character data.
func (s *svg) text(t string) { s.b.WriteString(escape(t)) }

// label writes a <text> element at (x, y).
func (s *svg) label(x, y float64, anchor, class, t string, attrs ...string) {
	s.open("text", append([]string{"x", coord(x), "y", coord(y), "text-anchor", anchor, "class", class}, attrs...)...)
	s.text(t)
	s.close("text")
}

// tip writes a <title> child: the tooltip of the element it is in.
func (s *svg) tip(t string) {
	s.open("title")
	s.text(t)
	s.close("title")
}

// end closes the document and returns it.
func (s *svg) end() template.HTML {
	s.close("svg")
	// The whole document was built from escaped text and attributes.
	return template.HTML(s.b.String())
}

// escape makes t safe as XML (and HTML) character data or a quoted
// attribute value: invalid UTF-8 and characters XML 1.0 cannot hold
// become U+FFFD, and the five special characters are escaped.
func escape(t string) string {
	t = strings.ToValidUTF8(t, "\uFFFD")
	t = strings.Map(func(r rune) rune {
		if xmlChar(r) {
			return r
		}
		return '\uFFFD'
	}, t)
	return template.HTMLEscapeString(t)
}

// xmlChar reports whether XML 1.0 allows r in a document.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

// clip shortens t to at most n runes, ending it with an ellipsis when it
// was cut.
func clip(t string, n int) string {
	if utf8.RuneCountInString(t) <= n {
		return t
	}
	r := []rune(t)
	return string(r[:n-1]) + "…"
}

// coord formats a coordinate: at most one decimal, no trailing zeros.
func coord(x float64) string {
	if !ok(x) {
		x = 0
	}
	x = math.Round(x*10) / 10
	if x == 0 {
		x = 0 // no "-0"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// Num formats a figure for a label: a whole number with thousands
// separators, else at most two decimals without trailing zeros; "n/a"
// for NaN.
func Num(x float64) string {
	if !ok(x) {
		return "n/a"
	}
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return group(strconv.FormatInt(int64(x), 10))
	}
	t := strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64)
	if t == "-0" {
		t = "0"
	}
	whole, frac, _ := strings.Cut(t, ".")
	if frac != "" {
		return group(whole) + "." + frac
	}
	return group(whole)
}

// group inserts thousands separators into a whole number.
func group(d string) string {
	sign := ""
	if strings.HasPrefix(d, "-") {
		sign, d = "-", d[1:]
	}
	if len(d) <= 3 {
		return sign + d
	}
	var b strings.Builder
	head := len(d) % 3
	if head > 0 {
		b.WriteString(d[:head])
	}
	for i := head; i < len(d); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(d[i : i+3])
	}
	return sign + b.String()
}

// signed formats x with its sign, "+0.12" or "-0.05".
func signed(x float64) string {
	if x > 0 {
		return "+" + Num(x)
	}
	return Num(x)
}

// niceScale returns the top of an axis from 0 that holds max, and its
// tick step: 1, 2 or 5 times a power of ten, about n ticks. With whole
// true the step is at least 1 (counts).
func niceScale(max float64, n int, whole bool) (top, step float64) {
	if !(max > 0) || !ok(max) {
		return 1, 1
	}
	raw := max / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step = 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if raw <= m*mag*(1+1e-9) {
			step = m * mag
			break
		}
	}
	if whole && step < 1 {
		step = 1
	}
	top = math.Ceil(max/step-1e-9) * step
	return top, step
}

// chartID returns a stable id prefix for a chart's definitions: the
// caller's, else a hash of what the chart shows.
func chartID(given string, parts ...string) string {
	if given != "" {
		var b strings.Builder
		for _, r := range given {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
				b.WriteRune(r)
			}
		}
		if b.Len() > 0 {
			return "chart-" + b.String()
		}
	}
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("chart-%x", h.Sum64())
}

// Fill patterns tell the series of a stacked or grouped chart apart
// without colour: solid, hatched, dotted, cross-hatched.
const nPatterns = 4

// patternFill returns the fill attribute value of series i in tone t:
// its colour, or a pattern [svg.defs] wrote.
func (s *svg) patternFill(i int, t Tone) string {
	if i%nPatterns == 0 {
		return t.Colour()
	}
	return "url(#" + s.id + "-p" + strconv.Itoa(i) + ")"
}

// defs writes the patterns of the series (tones by series).
func (s *svg) defs(tones []Tone) {
	if len(tones) <= 1 {
		return
	}
	s.open("defs")
	for i, t := range tones {
		if i%nPatterns == 0 {
			continue
		}
		c := t.Colour()
		s.open("pattern", "id", s.id+"-p"+strconv.Itoa(i), "patternUnits", "userSpaceOnUse", "width", "6", "height", "6")
		s.el("rect", "width", "6", "height", "6", "fill", c)
		switch i % nPatterns {
		case 1: // hatched
			s.el("path", "d", "M-1,1 l2,-2 M0,6 l6,-6 M5,7 l2,-2", "stroke", "#ffffff", "stroke-width", "1.5")
		case 2: // dotted
			s.el("circle", "cx", "3", "cy", "3", "r", "1.3", "fill", "#ffffff")
		case 3: // cross-hatched
			s.el("path", "d", "M0,3 h6 M3,0 v6", "stroke", "#ffffff", "stroke-width", "1.2")
		}
		s.close("pattern")
	}
	s.close("defs")
}

// patternName says in words how series i is filled, for the legend's
// tooltip and the summary.
func patternName(i int) string {
	switch i % nPatterns {
	case 1:
		return "hatched"
	case 2:
		return "dotted"
	case 3:
		return "cross-hatched"
	}
	return "solid"
}

// frame is the plot area of a chart in user units.
type frame struct {
	x0, y0, x1, y1 float64
}

func (f frame) w() float64 { return f.x1 - f.x0 }
func (f frame) h() float64 { return f.y1 - f.y0 }

// empty writes the message of a chart with nothing to show, centred in
// its frame, over the frame's outline.
func (s *svg) empty(f frame, msg string) {
	if msg == "" {
		msg = "No data"
	}
	s.el("rect", "x", coord(f.x0), "y", coord(f.y0), "width", coord(f.w()), "height", coord(f.h()),
		"class", "chart-frame", "fill", "none", "stroke", gridColour)
	s.label((f.x0+f.x1)/2, (f.y0+f.y1)/2, "middle", "chart-empty", msg, "font-size", "14")
}

// yAxis writes the y axis of f from 0 to top by step, with grid lines and
// tick labels formatted by format, and the axis label.
func (s *svg) yAxis(f frame, top, step float64, format func(float64) string, title string) {
	s.open("g", "class", "chart-axis chart-y")
	n := int(math.Round(top / step))
	for k := 0; k <= n; k++ {
		v := float64(k) * step
		y := f.y1 - v/top*f.h()
		if k > 0 {
			s.el("line", "x1", coord(f.x0), "x2", coord(f.x1), "y1", coord(y), "y2", coord(y), "class", "chart-grid", "stroke", gridColour)
		}
		s.el("line", "x1", coord(f.x0-4), "x2", coord(f.x0), "y1", coord(y), "y2", coord(y), "stroke", axisColour)
		s.label(f.x0-7, y+4, "end", "chart-tick", format(v))
	}
	s.el("line", "x1", coord(f.x0), "x2", coord(f.x0), "y1", coord(f.y0), "y2", coord(f.y1), "stroke", axisColour)
	if title != "" {
		cx, cy := 14.0, (f.y0+f.y1)/2
		s.label(cx, cy, "middle", "chart-axis-label", title, "transform", "rotate(-90 "+coord(cx)+" "+coord(cy)+")")
	}
	s.close("g")
}

// xTitle writes the x axis's label under the chart.
func (s *svg) xTitle(f frame, h float64, title string) {
	if title != "" {
		s.label((f.x0+f.x1)/2, h-8, "middle", "chart-axis-label", title)
	}
}

// legendItem is one entry of a legend.
type legendItem struct {
	name string
	// swatch draws the item's key at (x, y), its top left, 12 × 12.
	swatch func(x, y float64)
}

// legend writes the items in a row from (x, y), the row's top left.
func (s *svg) legend(x, y float64, items []legendItem) {
	s.open("g", "class", "chart-legend")
	for _, it := range items {
		it.swatch(x, y)
		name := clip(it.name, 32)
		s.label(x+17, y+10, "start", "chart-legend-label", name)
		x += 17 + textWidth(name) + 16
	}
	s.close("g")
}

// textWidth estimates the width of t at 12 px in a sans-serif face: SVG
// text is measured by the browser, so layout works from glyph widths on
// the wide side (capitals and digits are wider than lower case).
func textWidth(t string) float64 {
	w := 0.0
	for _, r := range t {
		switch {
		case r == 'M' || r == 'W' || r == 'm' || r == 'w':
			w += 10.2
		case r >= 'A' && r <= 'Z':
			w += 8.2
		case r == 'i' || r == 'j' || r == 'l' || r == '.' || r == ',' || r == ':' || r == '\'' || r == '|' || r == ' ':
			w += 3.6
		case r >= 'a' && r <= 'z':
			w += 6.4
		case r < 0x80:
			w += 7
		default:
			w += 12 // a wide script, or an emoji
		}
	}
	return w
}

// xAxis writes a linear x axis of f from lo to hi with a tick every step
// (and vertical grid lines when grid is true).
func (s *svg) xAxis(f frame, lo, hi, step float64, grid bool, format func(float64) string) {
	s.open("g", "class", "chart-axis chart-x")
	n := int(math.Round((hi - lo) / step))
	for k := 0; k <= n; k++ {
		v := lo + float64(k)*step
		x := f.x0 + (v-lo)/(hi-lo)*f.w()
		if grid && k > 0 {
			s.el("line", "x1", coord(x), "x2", coord(x), "y1", coord(f.y0), "y2", coord(f.y1), "class", "chart-grid", "stroke", gridColour)
		}
		s.el("line", "x1", coord(x), "x2", coord(x), "y1", coord(f.y1), "y2", coord(f.y1+4), "stroke", axisColour)
		s.label(x, f.y1+17, "middle", "chart-tick", format(v))
	}
	s.el("line", "x1", coord(f.x0), "x2", coord(f.x1), "y1", coord(f.y1), "y2", coord(f.y1), "stroke", axisColour)
	s.close("g")
}

// Line styles tell the lines of a chart apart without colour.
var (
	dashes  = []string{"", "7 4", "2 3", "9 3 2 3"}
	markers = []string{"circle", "square", "triangle", "diamond"}
)

// marker writes marker shape i centred at (x, y), of radius r, with a
// tooltip when tip is not empty.
func (s *svg) marker(i int, x, y, r float64, fill, class, tip string) {
	var (
		name  string
		attrs []string
	)
	pt := func(dx, dy float64) string { return coord(x+dx*r) + "," + coord(y+dy*r) }
	switch markers[i%len(markers)] {
	case "square":
		name, attrs = "rect", []string{"x", coord(x - r), "y", coord(y - r), "width", coord(2 * r), "height", coord(2 * r)}
	case "triangle":
		name, attrs = "path", []string{"d", "M" + pt(0, -1.2) + " L" + pt(1.1, 0.8) + " L" + pt(-1.1, 0.8) + " Z"}
	case "diamond":
		name, attrs = "path", []string{"d", "M" + pt(0, -1.3) + " L" + pt(1.3, 0) + " L" + pt(0, 1.3) + " L" + pt(-1.3, 0) + " Z"}
	default:
		name, attrs = "circle", []string{"cx", coord(x), "cy", coord(y), "r", coord(r)}
	}
	attrs = append(attrs, "fill", fill, "class", class)
	if tip == "" {
		s.el(name, attrs...)
		return
	}
	s.open(name, attrs...)
	s.tip(tip)
	s.close(name)
}

// lineStyle says in words how line i is drawn.
func lineStyle(i int) string {
	d := [...]string{"solid", "dashed", "dotted", "dash-dotted"}[i%len(dashes)]
	return d + " with " + markers[i%len(markers)] + "s"
}
