package store

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSegments(t *testing.T) {
	d := func(day, h, m int) time.Time { return time.Date(2026, 11, day, h, m, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name         string
		since, until time.Time
		want         []segment
	}{
		{"within an hour", d(3, 9, 10), d(3, 9, 50), []segment{{0, d(3, 9, 10), d(3, 9, 50)}}},
		{"across an hour, no whole one", d(3, 9, 10), d(3, 10, 50), []segment{{0, d(3, 9, 10), d(3, 10, 50)}}},
		{"whole hours", d(3, 9, 0), d(3, 12, 0), []segment{{hourly, d(3, 9, 0), d(3, 12, 0)}}},
		{"days and hours", d(3, 9, 30), d(6, 2, 15), []segment{
			{0, d(3, 9, 30), d(3, 10, 0)}, {hourly, d(3, 10, 0), d(4, 0, 0)}, {daily, d(4, 0, 0), d(6, 0, 0)},
			{hourly, d(6, 0, 0), d(6, 2, 0)}, {0, d(6, 2, 0), d(6, 2, 15)}}},
		{"whole days", d(3, 0, 0), d(5, 0, 0), []segment{{daily, d(3, 0, 0), d(5, 0, 0)}}},
	} {
		got := segments(tc.since, tc.until)
		if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(segment{})); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.name, diff)
		}
		// The segments tile the window.
		if got[0].from != tc.since || got[len(got)-1].to != tc.until {
			t.Errorf("%s: segments do not span the window", tc.name)
		}
		for i := 1; i < len(got); i++ {
			if got[i].from != got[i-1].to {
				t.Errorf("%s: gap or overlap between %v and %v", tc.name, got[i-1], got[i])
			}
		}
	}
}
