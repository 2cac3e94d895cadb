package testrun

import "strings"

func init() {
	register(runner{
		name:   "deno",
		cmds:   []string{"deno test"},
		result: func(l string) bool { _, _, ok := denoSummary(l); return ok },
		read:   readDeno,
		args: argSpec{
			values: []string{"--filter", "--config", "-c", "--import-map", "--reporter", "--junit-path", "--seed",
				"--location", "--lock", "--cert", "--ignore"},
			pass: with("-A", "--allow-*", "--deny-*", "--no-check*", "--check", "--parallel", "--fail-fast",
				"--reporter", "--junit-path", "--coverage*", "--unstable*", "--no-prompt", "--trace-*", "--doc",
				"--permit-no-files", "--clean", "--config", "-c", "--import-map", "--lock", "--no-lock", "--frozen*",
				"--cached-only", "--shuffle*", "--seed", "--no-remote", "--no-npm", "--node-modules-dir*", "--env*",
				"--cert", "--location", "--hide-stacktraces", "--quiet", "-q"),
		},
	})
}

// denoSummary reads deno test's summary, "ok | 10 passed | 0 failed
// (1s)", "FAILED | 9 passed | 1 failed (1s)", "ok | 3 passed (5 steps) | 0
// failed | 2 ignored (12ms)"; ok is false for any other line.
func denoSummary(l string) (t tally, failed, ok bool) {
	s := strings.TrimSpace(l)
	word, s, found := strings.Cut(s, " | ")
	if !found || word != "ok" && word != "FAILED" {
		return nil, false, false
	}
	t = tally{}
	for _, part := range strings.Split(s, " | ") {
		if i := strings.Index(part, " ("); i >= 0 {
			part = part[:i]
		}
		n, w, ok := count(strings.TrimSpace(part))
		if !ok {
			return nil, false, false
		}
		t[w] += n
	}
	return t, word == "FAILED", true
}

// readDeno reads deno test's summary: a failed test is Failed, no test
// ("0 passed | 0 failed", "No test modules found") is NotRun; code that
// does not type-check ("Type checking failed", "TS2304 [ERROR]") is
// Failed, like a build that fails.
func readDeno(o *output, r *Run) {
	var sum tally
	var failed bool
	var sumLine, noTests, checkLine string
	for _, l := range o.lines {
		if t, f, ok := denoSummary(l); ok {
			sum, failed, sumLine = t, f, l
			continue
		}
		switch {
		case strings.Contains(l, "No test modules found"):
			noTests = l
		case strings.Contains(l, "Type checking failed") || strings.Contains(l, " [ERROR]") && strings.HasPrefix(strings.TrimSpace(l), "TS"):
			checkLine = firstOf(checkLine, l)
		}
	}
	switch {
	case sum != nil:
		r.set(sum["passed"], sum["failed"], 0, sum["ignored"])
		r.Why = sumLine
		switch {
		case failed || sum["failed"] > 0:
			r.Status = Failed
		case sum["passed"] == 0:
			r.Status = NotRun
		default:
			r.Status = Passed
		}
	case checkLine != "":
		r.Status, r.Why = Failed, checkLine
	case noTests != "":
		r.Status, r.Why = NotRun, noTests
	}
}
