package storetest

import "testing"

// BenchSize is n, the rows a benchmark fills a store with, or a fiftieth
// of it with -short: CI runs every benchmark once, to see that it runs,
// not to measure it.
func BenchSize(n int) int {
	if testing.Short() {
		return n / 50
	}
	return n
}
