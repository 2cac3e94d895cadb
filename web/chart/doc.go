// Package chart draws the dashboard's charts as inline SVG, on the
// server, from plain data: stacked bars over time, histograms, reliability
// diagrams, curves against a threshold, and horizontal bars (diverging
// when some values are negative).
//
// Every chart is a value with two methods: SVG returns the chart as an
// <svg> element ready to put in a page, and Table returns the same data as
// a [Table], the alternative a page shows to whoever cannot see the chart
// (a screen reader, a print, a copy into a spreadsheet).
//
// The SVG is safe by construction: every piece of text (titles, labels,
// series names) is escaped as XML text and attribute values, characters
// XML cannot hold are replaced, and numbers are formatted here, never
// taken as text from the caller. It carries no script and no style
// attribute: colours are presentation attributes (fill, stroke) and
// everything else a page may restyle has a class, so the charts hold
// under a Content-Security-Policy of style-src 'self'.
//
// Each chart says what it shows without colour: role="img" with an
// aria-label summarising the data, a <title>, axis labels and ticks, a
// legend where there is more than one series, and series told apart by
// fill pattern, line dash and marker shape as well as by colour. The
// colours ([Tone]) have a contrast of at least 3:1 against white.
//
// Missing figures are NaN (see [Value]): a NaN point or bar is skipped,
// never drawn as 0. A chart with nothing to show draws its frame with a
// "no data" message (or the chart's Empty text) rather than empty axes.
package chart
