package evalstat

import (
	"math"
	"testing"
)

func TestConfusion(t *testing.T) {
	var c Confusion
	for _, r := range []struct{ flagged, bad bool }{{true, true}, {true, true}, {true, false}, {false, true}, {false, false}, {false, false}, {false, false}} {
		c.Add(r.flagged, r.bad)
	}
	if c != (Confusion{TP: 2, FP: 1, TN: 3, FN: 1}) {
		t.Fatalf("counts %+v", c)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if !near(c.Precision(), 2.0/3) || !near(c.Recall(), 2.0/3) || !near(c.Specificity(), 0.75) || !near(c.Balanced(), (2.0/3+0.75)/2) {
		t.Errorf("rates %s", c)
	}
	var empty Confusion
	if empty.Precision() != 0 || empty.Balanced() != 0 {
		t.Errorf("empty: %s", empty)
	}
}
