package store_test

import (
	"testing"

	"github.com/vouchgate/vouch/store"
)

func TestComplexityBins(t *testing.T) {
	for c, want := range map[int]int{0: 0, 1: 1, 2: 2, 3: 2, 4: 3, 7: 3, 8: 4, 1000: 4, -1: 0} {
		if got := store.ComplexityBin(c); got != want {
			t.Errorf("ComplexityBin(%d) = %d, want %d", c, got, want)
		}
	}
	// The ranges tile the integers from 0, each bin holding its range.
	next := 0
	for b := range store.ComplexityBins {
		from, to := store.ComplexityRange(b)
		if from != next {
			t.Errorf("bin %d starts at %d, want %d", b, from, next)
		}
		if store.ComplexityBin(from) != b {
			t.Errorf("ComplexityBin(%d) = %d, want its bin %d", from, store.ComplexityBin(from), b)
		}
		if b == store.ComplexityBins-1 {
			if to != -1 {
				t.Errorf("the last bin ends at %d, want -1 (open)", to)
			}
			break
		}
		if store.ComplexityBin(to) != b {
			t.Errorf("ComplexityBin(%d) = %d, want its bin %d", to, store.ComplexityBin(to), b)
		}
		next = to + 1
	}
}
