package chart

import (
	"html/template"
	"strings"
)

// Table is a chart's data as rows of text: the alternative a page shows
// beside the chart, or instead of it. A template can range over Columns
// and Rows itself, or put in [Table.HTML].
type Table struct {
	// Caption names the table (the chart's title).
	Caption string
	// Columns are the column headings.
	Columns []string
	// Rows are the cells, formatted; a missing figure is "n/a".
	Rows [][]string
}

// HTML returns the table as an HTML <table class="chart-table"> with a
// caption, a header row and one row per data row, every cell escaped.
// The first cell of a row is its header (th scope="row").
func (t Table) HTML() template.HTML {
	var b strings.Builder
	b.WriteString(`<table class="chart-table">`)
	if t.Caption != "" {
		b.WriteString("<caption>" + escape(t.Caption) + "</caption>")
	}
	b.WriteString("<thead><tr>")
	for _, c := range t.Columns {
		b.WriteString(`<th scope="col">` + escape(c) + "</th>")
	}
	b.WriteString("</tr></thead><tbody>")
	for _, r := range t.Rows {
		b.WriteString("<tr>")
		for i, c := range r {
			if i == 0 {
				b.WriteString(`<th scope="row">` + escape(c) + "</th>")
			} else {
				b.WriteString("<td>" + escape(c) + "</td>")
			}
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	// Every piece of text was escaped.
	return template.HTML(b.String())
}
