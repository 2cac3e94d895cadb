package web

import (
	"fmt"
	"html/template"

	"github.com/vouchgate/vouch/web/chart"
)

// The view boxes of a chart that spans the page: wide for a wide screen,
// narrow for a narrow one, so that its text is drawn at about its own
// size on either (an SVG scales with its box).
const (
	wideChart   = 1200
	narrowChart = 640
)

// spanning draws a chart that spans the page's width twice, wide and
// narrow, each in a box the style sheet shows on screens of its size
// (the other is not displayed, and so not read either). The narrow copy's
// ids are suffixed so that the page's ids stay unique. The markup is the
// chart package's own, which escapes every text it draws.
func spanning(c any) (template.HTML, error) {
	var wide, narrow template.HTML
	switch c := c.(type) {
	case chart.StackedBars:
		w, n := c, c
		w.Width, w.Height = wideChart, 340
		n.Width, n.Height, n.ID = narrowChart, 300, c.ID+"-narrow"
		wide, narrow = w.SVG(), n.SVG()
	case chart.Curves:
		w, n := c, c
		w.Width, w.Height = wideChart, 380
		n.Width, n.Height, n.ID = narrowChart, 340, c.ID+"-narrow"
		wide, narrow = w.SVG(), n.SVG()
	case chart.Reliability:
		w, n := c, c
		w.Width, w.Height = wideChart, 420
		n.Width, n.Height, n.ID = narrowChart, 380, c.ID+"-narrow"
		wide, narrow = w.SVG(), n.SVG()
	case chart.HBars:
		w, n := c, c
		w.Width = wideChart
		n.Width, n.ID = narrowChart, c.ID+"-narrow"
		wide, narrow = w.SVG(), n.SVG()
	default:
		return "", fmt.Errorf("web: spanning: %T is not a chart that spans the page", c)
	}
	return `<div class="span-wide">` + wide + `</div><div class="span-narrow">` + narrow + `</div>`, nil
}
