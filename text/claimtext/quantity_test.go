package claimtext

import (
	"strings"
	"testing"
)

func TestCountAt(t *testing.T) {
	tests := []struct {
		s, at string // at: the text where the count starts
		want  string // "Text|Number|Total|Noun|Head", or "" for none
	}{
		{"Added JSDoc to all 4 methods.", "4", "4 methods|4|0|method|methods"},
		{"Documented all four exported functions", "four", "four exported functions|4|0|function|functions"},
		{"Wrote a dozen tests", "a dozen", "a dozen tests|12|0|test|tests"},
		{"Changed both files", "both", "both files|2|0|file|files"},
		{"Changed both of the files.", "both", "both of the files|2|0|file|files"},
		{"all three test areas pass", "three", ""},
		{"12/12 tests pass", "12", "12/12 tests|12|12|test|tests"},
		{"documented 1 of the 4 methods", "1", "1 of the 4 methods|1|4|method|methods"},
		{"Added 9 renderer edge cases + 12 tests", "9", "9 renderer edge cases|9|0|test|edge cases"},
		{"all 15 SessionLive tests pass", "15", "15 SessionLive tests|15|0|test|tests"},
		{"3 handlers were added", "3", "3 handlers|3|0|function|handlers"},
		{"about 10 files changed", "10", "10 files|10|0|file|files"},
		{"87 tests, 0 failures", "0", "0 failures|0|0|test|failures"},
		{"see line 4 of the file", "4", ""},
		{"on Python 3 files", "3", ""},
		{"half of the 8 tests", "8", ""},
		{"the 404 errors are gone", "404", ""},
		{"it took 3 seconds", "3", ""},
		{"we have 50 users", "50", ""},
		{"3 people edited files", "3", ""},
		{"3 of them", "3", ""},
		{"v4 files", "v4", ""},
		{"1.5 files", "1.5", ""},
		{"the 4th test", "4th", ""},
		{"Fixed a bug", "a", ""},
	}
	for _, tt := range tests {
		i := strings.Index(tt.s, tt.at)
		nc, ok := CountAt(tt.s, i)
		got := ""
		if ok {
			got = strings.Join([]string{tt.s[nc.Start:nc.End], itoa(nc.Number), itoa(nc.Total), nc.Noun, nc.Head}, "|")
		}
		if got != tt.want {
			t.Errorf("CountAt(%q, %d) = %q, want %q", tt.s, i, got, tt.want)
		}
	}
	for _, i := range []int{-1, 100} {
		if _, ok := CountAt("4 tests", i); ok {
			t.Errorf("CountAt out of range %d: ok", i)
		}
	}
}

func TestCountAtWindow(t *testing.T) {
	long := strings.Repeat("word ", 40) + "Python 3 files and then " + strings.Repeat("x ", 100)
	i := strings.Index(long, "3 files")
	if _, ok := CountAt(long, i); ok {
		t.Error("label before the window start not seen")
	}
	j := strings.Index(long, "files")
	if _, ok := CountAt(long, j); ok {
		t.Error("count at a noun")
	}
	s := strings.Repeat("x", 60) + " 4 methods"
	if nc, ok := CountAt(s, 61); !ok || s[nc.Start:nc.End] != "4 methods" {
		t.Errorf("CountAt after a long word = %+v %v", nc, ok)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}
