package main

import (
	"slices"
	"testing"
)

func TestParseCPUs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		text string
	}{
		{"0", []int{0}, "0"},
		{"0-3,8", []int{0, 1, 2, 3, 8}, "0-3,8"},
		{"3,1,1, 2", []int{1, 2, 3}, "1-3"},
		{"8-9,0,2-3", []int{0, 2, 3, 8, 9}, "0,2-3,8-9"},
		{"5-5", []int{5}, "5"},
	} {
		got, err := parseCPUs(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("parseCPUs(%q) = %v, %v; want %v", c.in, got, err, c.want)
			continue
		}
		if s := formatCPUs(got); s != c.text {
			t.Errorf("formatCPUs(%v) = %q, want %q", got, s, c.text)
		}
	}
	for _, bad := range []string{"", "a", "3-1", "-1", "1-", "1,,2", "0-x", "1024", "0-100000000"} {
		if got, err := parseCPUs(bad); err == nil {
			t.Errorf("parseCPUs(%q) = %v, want an error", bad, got)
		}
	}
}
