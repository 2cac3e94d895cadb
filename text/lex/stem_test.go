package lex

import "testing"

func TestStem(t *testing.T) {
	for _, group := range [][]string{
		{"flush", "flushes", "flushing", "flushed"},
		{"propose", "proposed", "proposes", "proposing"},
		{"stop", "stops", "stopped", "stopping"},
		{"tide", "tides"},
		{"copy", "copies", "copied"},
	} {
		want := Stem(group[0])
		for _, w := range group[1:] {
			if got := Stem(w); got != want {
				t.Errorf("Stem(%q) = %q, want %q as for %q", w, got, want, group[0])
			}
		}
	}
	for _, w := range []string{"class", "status", "this", "bus"} {
		if got := Stem(w); got != w {
			t.Errorf("Stem(%q) = %q, want it whole", w, got)
		}
	}
}
