package testrun

import "strings"

func init() {
	register(runner{
		name:   "rspec",
		cmds:   []string{"rspec", "bundle exec rspec", "bin/rspec", "ruby -S rspec"},
		noRun:  []string{"--dry-run", "--init"},
		result: func(l string) bool { _, ok := rspecSummary(l); return ok },
		read:   readRspec,
		args: argSpec{
			values: []string{"-e", "--example", "-E", "--example-matches", "-t", "--tag", "-f", "--format", "-o", "--out",
				"--seed", "--order", "-r", "--require", "-I", "--pattern", "-P", "--exclude-pattern", "--default-path"},
			pass: with("-f", "--format", "-o", "--out", "--seed", "--order", "-r", "--require", "-I*", "--fail-fast*",
				"--force-color", "-b", "--backtrace", "--profile", "-p", "--warnings", "-w", "--deprecation-out"),
		},
	})
}

// rspecSummary reads RSpec's summary, "10 examples, 0 failures", "10
// examples, 2 failures, 1 pending", "0 examples, 0 failures, 1 error
// occurred outside of examples"; ok is false for any other line.
func rspecSummary(l string) (tally, bool) {
	s := strings.TrimSpace(l)
	if _, w, ok := count(s); !ok || !strings.HasPrefix(w, "example") {
		return nil, false
	}
	t := tally{}
	for i, part := range strings.Split(s, ", ") {
		n, w, ok := count(part)
		if !ok {
			return nil, false
		}
		switch {
		case i == 0 && (w == "examples" || w == "example"):
			t["examples"] = n
		case i == 1 && (w == "failures" || w == "failure"):
			t["failures"] = n
		case i > 1 && w == "pending":
			t["pending"] = n
		case i > 1 && strings.HasPrefix(w, "error") && strings.HasSuffix(w, "outside of examples"):
			t["errors"] = n
		default:
			return nil, false
		}
	}
	_, ok := t["failures"]
	return t, ok
}

// readRspec reads RSpec's summary: failures are Failed; no example run
// (an error loading the specs, "No examples found.") is NotRun; errors
// outside of examples beside examples that ran are Failed.
func readRspec(o *output, r *Run) {
	var sum tally
	var sumLine, noTests string
	for _, l := range o.lines {
		if t, ok := rspecSummary(l); ok {
			sum, sumLine = t, l
		} else if strings.HasPrefix(strings.TrimSpace(l), "No examples found") {
			noTests = l
		}
	}
	switch {
	case sum != nil:
		r.set(sum["examples"]-sum["failures"]-sum["pending"], sum["failures"], sum["errors"], sum["pending"])
		r.Why = sumLine
		switch {
		case sum["failures"] > 0:
			r.Status = Failed
		case sum["examples"] == 0 || sum["examples"] == sum["pending"]:
			r.Status = NotRun
		case sum["errors"] > 0:
			r.Status = Failed
		default:
			r.Status = Passed
		}
	case noTests != "":
		r.Status, r.Why = NotRun, noTests
	}
}
