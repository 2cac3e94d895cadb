// Package evalstat scores a detector against labels: the confusion counts
// of flagged rows against their labels, and the rates read from them. The
// benchmarks and the evaluation tests score the same way through it.
package evalstat

import "fmt"

// Confusion counts outcomes against labels, the bad label (a
// hallucination, a faulty output) being the positive class.
type Confusion struct{ TP, FP, TN, FN int }

// Add counts one row: whether it was flagged, and whether it is bad.
func (c *Confusion) Add(flagged, bad bool) {
	switch {
	case flagged && bad:
		c.TP++
	case flagged:
		c.FP++
	case bad:
		c.FN++
	default:
		c.TN++
	}
}

// Precision is the share of flagged rows that are bad (0 when none was
// flagged).
func (c Confusion) Precision() float64 { return ratio(c.TP, c.TP+c.FP) }

// Recall is the share of bad rows flagged (0 when there is none).
func (c Confusion) Recall() float64 { return ratio(c.TP, c.TP+c.FN) }

// Specificity is the share of good rows not flagged (0 when there is
// none).
func (c Confusion) Specificity() float64 { return ratio(c.TN, c.TN+c.FP) }

// Balanced is the balanced accuracy: the mean of recall and specificity.
func (c Confusion) Balanced() float64 { return (c.Recall() + c.Specificity()) / 2 }

// String gives the rates and the counts.
func (c Confusion) String() string {
	return fmt.Sprintf("precision %.3f recall %.3f specificity %.3f balanced accuracy %.3f (tp %d fp %d tn %d fn %d)",
		c.Precision(), c.Recall(), c.Specificity(), c.Balanced(), c.TP, c.FP, c.TN, c.FN)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
