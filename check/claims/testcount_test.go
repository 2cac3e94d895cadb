package claims

import "testing"

// TestPassedGoSubtests checks the count of go test -v's passing tests: a
// top-level test after a blank line is not a subtest.
func TestPassedGoSubtests(t *testing.T) {
	out := "=== RUN   TestA\n--- PASS: TestA (0.00s)\n\n--- PASS: TestB (0.00s)\n    --- PASS: TestB/sub (0.00s)\n\n--- PASS: TestC (0.00s)\nPASS\n"
	n, extra, what, ok := passed(out)
	if !ok || n != 3 || extra != 1 || what != "subtests" {
		t.Errorf("passed = %d, %d %s, %v; want 3, 1 subtests", n, extra, what, ok)
	}
}
