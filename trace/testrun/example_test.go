package testrun_test

import (
	"fmt"

	"github.com/vouchgate/vouch/trace/testrun"
)

func ExampleRead() {
	exit := 1
	out := `============================= test session starts ==============================
collected 13 items

tests/test_calc.py ..F.......FF.                                         [100%]

=========================== short test summary info ============================
FAILED tests/test_calc.py::test_div - ZeroDivisionError: division by zero
========================= 3 failed, 10 passed in 1.20s =========================
`
	r, ok := testrun.Read("cd /repo && python -m pytest tests/test_calc.py -q 2>&1 | tail -20", &exit, false, out)
	fmt.Println(ok, r.Runner, r.Status, r.Passed, r.Failed)
	fmt.Println(r.Why)
	fmt.Println(r.Args(), r.Alone)
	// Output:
	// true pytest failed 10 3
	// 3 failed, 10 passed in 1.20s
	// [tests/test_calc.py -q] false
}

func ExampleRead_byOutput() {
	exit := 0
	out := "...\n----------------------------------------------------------------------\nRan 3 tests in 0.004s\n\nOK\n"
	r, _ := testrun.Read("python reproduce.py", &exit, false, out)
	fmt.Println(r.Runner, r.ByOutput, r.Status, r.Why)
	// Output:
	// unittest true passed Ran 3 tests in 0.004s: OK
}

func ExampleCovers() {
	all, _ := testrun.Command("go test -race ./...")
	one, _ := testrun.Command("go test -run TestX ./pkg/")
	fmt.Println(testrun.Covers(all, one), testrun.Covers(one, all))
	fmt.Println(one.Scope)
	// Output:
	// true false
	// [./pkg/ -run TestX]
}
