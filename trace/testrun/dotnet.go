package testrun

import "strings"

func init() {
	register(runner{
		name:   "dotnet",
		cmds:   []string{"dotnet test"},
		noRun:  []string{"--list-tests", "-t"},
		result: func(l string) bool { _, _, ok := dotnetSummary(l); return ok },
		read:   readDotnet,
		args: argSpec{
			values: []string{"--filter", "-c", "--configuration", "-f", "--framework", "-l", "--logger", "-v", "--verbosity",
				"-s", "--settings", "-r", "--results-directory", "--collect", "-a", "--test-adapter-path", "--runtime",
				"--arch", "--os", "-o", "--output", "--diag", "-d", "--blame-hang-timeout", "--blame-crash-dump-type"},
			pass: with("--no-build", "--no-restore", "--nologo", "-c", "--configuration", "-f", "--framework", "-l",
				"--logger", "-v", "--verbosity", "-s", "--settings", "-r", "--results-directory", "--collect",
				"--blame*", "-a", "--test-adapter-path", "--runtime", "--arch", "--os", "-o", "--output", "--diag", "-d"),
		},
	})
}

// dotnetSummary reads the summary dotnet test prints for a test project,
// "Passed!  - Failed:     0, Passed:    10, Skipped:     0, Total:    10,
// Duration: 50 ms - Tests.dll (net8.0)" ("Failed!  - ..."); ok is false
// for any other line.
func dotnetSummary(l string) (t tally, failed, ok bool) {
	s := strings.TrimSpace(l)
	word, s, found := strings.Cut(s, "!")
	if !found || word != "Passed" && word != "Failed" {
		return nil, false, false
	}
	s, found = strings.CutPrefix(strings.TrimSpace(s), "- ")
	if !found {
		return nil, false, false
	}
	t = tally{}
	for _, part := range strings.Split(s, ", ") {
		k, v, found := strings.Cut(part, ":")
		if !found {
			break
		}
		if k == "Duration" {
			break
		}
		n, ok := atoi(v)
		if !ok {
			return nil, false, false
		}
		t[strings.ToLower(k)] = n
	}
	_, ok = t["total"]
	return t, word == "Failed", ok
}

// dotnetEnvironment are what dotnet prints when it could not restore or
// find what it builds.
var dotnetEnvironment = []string{"error NU1", "Unable to load the service index", "MSB1003", "MSB1009", "MSB1011",
	"No test is available in", "is not installed", "It was not possible to find any compatible framework version"}

// readDotnet reads dotnet test's output: the summary of every test
// project counts (VSTest's older "Total tests: 10" with "Passed: 9" and
// "Failed: 1" lines when there is none). Failed tests are Failed, as is
// code that does not compile ("error CS0103", "Build FAILED."); a restore
// that could not fetch packages, no project, or "No test is available"
// is NotRun; no test at all is NotRun.
func readDotnet(o *output, r *Run) {
	sum := tally{}
	seen, failed := false, false
	var line, failLine, build, env, verdict, totalLine string
	old := tally{}
	for _, l := range o.lines {
		if t, f, ok := dotnetSummary(l); ok {
			seen, line = true, l
			for k, v := range t {
				sum[k] += v
			}
			if f {
				failed = true
				failLine = firstOf(failLine, l)
			}
			continue
		}
		s := strings.TrimSpace(l)
		switch {
		case strings.Contains(s, ": error CS") || strings.HasPrefix(s, "Build FAILED"):
			build = firstOf(build, l)
		case containsAny(s, dotnetEnvironment...):
			env = firstOf(env, l)
		case s == "Test Run Successful." || s == "Test Run Failed.":
			verdict = l
		case hasPrefixes(s, "Total tests:", "Passed:", "Failed:", "Skipped:", "total:", "failed:", "succeeded:", "skipped:"):
			k, v, _ := strings.Cut(s, ":")
			if n, ok := atoi(v); ok {
				old[strings.ToLower(strings.TrimPrefix(k, "Total "))] = n
				if k == "Total tests" || k == "total" {
					totalLine = l
				}
			}
		}
	}
	if !seen && len(old) > 0 {
		sum = tally{"total": old["tests"] + old["total"], "passed": old["passed"] + old["succeeded"], "failed": old["failed"], "skipped": old["skipped"]}
		seen, line = true, firstOf(verdict, totalLine)
		failed = sum["failed"] > 0 || strings.TrimSpace(verdict) == "Test Run Failed."
		failLine = line
	}
	if seen {
		r.set(sum["passed"], sum["failed"], 0, sum["skipped"])
	}
	switch {
	case failed || sum["failed"] > 0:
		r.Status, r.Why = Failed, firstOf(failLine, line)
	case build != "":
		r.Status, r.Why = Failed, build
	case env != "":
		r.Status, r.Why = NotRun, env
	case seen && sum["passed"] == 0:
		r.Status, r.Why = NotRun, line
	case seen:
		r.Status, r.Why = Passed, line
	}
}
