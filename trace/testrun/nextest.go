package testrun

import "strings"

func init() {
	register(runner{
		name: "nextest",
		cmds: []string{"cargo nextest run", "cargo nextest r", "cargo-nextest nextest run"},
		match: func(argv []string) int {
			if n := cargoToolchain(argv, "nextest"); n > 0 && len(argv) > 3 && (argv[3] == "run" || argv[3] == "r") {
				return 4
			}
			return 0
		},
		programs: []string{"cargo"},
		noRun:    []string{"--no-run", "--list"},
		result:   func(l string) bool { _, ok := nextestSummary(l); return ok },
		read:     readNextest,
		args: argSpec{
			values: append([]string{"-E", "--filter-expr", "--partition", "--retries", "--test-threads", "-P",
				"--profile", "--failure-output", "--success-output", "--status-level", "--final-status-level",
				"--max-fail"}, cargoArgs.values...),
			pass: append([]string{"--retries", "--test-threads", "-P", "--profile", "--failure-output",
				"--success-output", "--status-level", "--final-status-level", "--no-fail-fast", "--fail-fast",
				"--max-fail", "--hide-progress-bar", "--no-capture", "--nocapture", "--cargo-quiet",
				"--cargo-verbose"}, cargoArgs.pass...),
		},
	})
}

// nextestWords are the words of nextest's summary, by the name Run
// counts them by.
var nextestWords = map[string]string{"passed": "passed", "failed": "failed", "skipped": "skipped",
	"timed out": "timedout", "leaky": "leaky", "flaky": "flaky", "exec fail": "errors"}

// nextestSummary reads nextest's summary, "Summary [   1.234s] 10 tests
// run: 9 passed, 1 failed, 0 skipped" (counts may carry a note: "9 passed
// (1 slow)"); ok is false for any other line.
func nextestSummary(l string) (tally, bool) {
	s, ok := strings.CutPrefix(strings.TrimSpace(l), "Summary [")
	if !ok {
		return nil, false
	}
	_, s, ok = strings.Cut(s, "] ")
	if !ok {
		return nil, false
	}
	head, rest, ok := strings.Cut(s, ": ")
	n, w, ok2 := count(head)
	if !ok || !ok2 || w != "tests run" && w != "test run" {
		return nil, false
	}
	var its []item
	for _, part := range strings.Split(rest, ", ") {
		if i := strings.Index(part, " ("); i >= 0 {
			part = part[:i]
		}
		c, w, ok := count(strings.TrimSpace(part))
		if !ok {
			return nil, false
		}
		its = append(its, item{c, w})
	}
	t, _ := tallyOf(its, nextestWords)
	t["run"] = n
	return t, true
}

// readNextest reads cargo nextest's output: its summary decides (failed,
// timed-out or unrunnable tests are Failed; no test run is NotRun);
// without one, cargo's build and fetch errors do (see readCargo).
func readNextest(o *output, r *Run) {
	var sum tally
	var sumLine, noTests string
	for _, l := range o.lines {
		if t, ok := nextestSummary(l); ok {
			sum, sumLine = t, l
		} else if strings.HasPrefix(l, "error: no tests to run") {
			noTests = l
		}
	}
	switch {
	case sum != nil:
		r.set(sum["passed"], sum["failed"]+sum["timedout"], sum["errors"], sum["skipped"])
		r.Why = sumLine
		switch {
		case sum["failed"]+sum["timedout"]+sum["errors"] > 0:
			r.Status = Failed
		case sum["run"] == 0 || sum["passed"] == 0:
			r.Status = NotRun
		default:
			r.Status = Passed
		}
	case noTests != "":
		r.Status, r.Why = NotRun, noTests
	default:
		readCargo(o, r)
	}
}
