package check

import (
	"fmt"
	"strings"
)

// List joins names with ", ", naming at most n of them and counting the
// rest ("a, b and 3 more"), so that a report stays readable and small
// whatever the input.
func List(names []string, n int) string {
	if len(names) > n {
		return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
	}
	return strings.Join(names, ", ")
}

// Cap returns at most n of names, the last replaced by "… and K more" when
// some are left out.
func Cap(names []string, n int) []string {
	if len(names) <= n || n < 1 {
		return names
	}
	out := append([]string(nil), names[:n-1]...)
	return append(out, fmt.Sprintf("… and %d more", len(names)-n+1))
}
