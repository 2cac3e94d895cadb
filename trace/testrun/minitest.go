package testrun

import "strings"

func init() {
	register(runner{
		name: "minitest",
		cmds: []string{"rake test", "bundle exec rake test", "rails test", "bin/rails test", "bundle exec rails test",
			"rake test:units", "bin/rake test"},
		match:    rubyTest,
		programs: []string{"ruby", "bundle"},
		result:   func(l string) bool { _, ok := minitestSummary(l); return ok },
		read:     readMinitest,
		args: argSpec{
			values: []string{"-n", "--name", "-e", "--exclude", "-s", "--seed", "-I"},
			pass:   with("-s", "--seed", "-I*", "-w", "-W*", "--pride", "-b", "--backtrace", "-p", "--profile", "-d", "--defer-output", "-c", "--color"),
		},
	})
}

// rubyTest matches "ruby -Itest test/x_test.rb" and "bundle exec ruby
// -Itest ...": it returns how many words name the runner with its -I
// flag, or 0.
func rubyTest(argv []string) int {
	n := 0
	if len(argv) > 2 && argv[0] == "bundle" && argv[1] == "exec" {
		n = 2
	}
	if len(argv) > n+1 && program(argv[n:]) == "ruby" && strings.HasPrefix(argv[n+1], "-I") {
		return n + 2
	}
	return 0
}

// minitestWords are the words of the summaries of minitest and
// test-unit, by the name Run counts them by.
var minitestWords = map[string]string{"runs": "runs", "run": "runs", "tests": "runs", "test": "runs",
	"assertions": "assertions", "assertion": "assertions", "failures": "failures", "failure": "failures",
	"errors": "errors", "error": "errors", "skips": "skips", "skip": "skips", "pendings": "skips",
	"pending": "skips", "omissions": "omissions", "omission": "omissions", "notifications": "notifications",
	"notification": "notifications"}

// minitestSummary reads minitest's summary, "10 runs, 20 assertions, 0
// failures, 0 errors, 0 skips", or test-unit's, "10 tests, 20
// assertions, 0 failures, 0 errors, 0 pendings, 0 omissions, 0
// notifications" (then "100% passed"); ok is false for any other line.
func minitestSummary(l string) (tally, bool) {
	s := strings.TrimSpace(l)
	its, ok := items(s, ", ")
	if !ok || len(its) < 4 || its[1].word != "assertions" && its[1].word != "assertion" {
		return nil, false
	}
	for _, it := range its {
		if _, known := minitestWords[it.word]; !known {
			return nil, false
		}
	}
	t, _ := tallyOf(its, minitestWords)
	return t, true
}

// readMinitest reads the summary of minitest or test-unit: failures or
// errors are Failed; no run is NotRun.
func readMinitest(o *output, r *Run) {
	var sum tally
	var sumLine string
	for _, l := range o.lines {
		if t, ok := minitestSummary(l); ok {
			sum, sumLine = t, l
		}
	}
	if sum == nil {
		return
	}
	r.set(sum["runs"]-sum["failures"]-sum["errors"]-sum["skips"]-sum["omissions"], sum["failures"], sum["errors"], sum["skips"]+sum["omissions"])
	r.Why = sumLine
	switch {
	case sum["failures"]+sum["errors"] > 0:
		r.Status = Failed
	case r.Passed == 0:
		r.Status = NotRun
	default:
		r.Status = Passed
	}
}
