package testrun

import "strings"

func init() {
	register(runner{
		name:     "maven",
		match:    mavenTest,
		programs: []string{"mvn", "mvnw"},
		noRun:    []string{"-DskipTests", "-DskipTests=true", "-Dmaven.test.skip", "-Dmaven.test.skip=true", "-v"},
		result:   func(l string) bool { _, _, ok := surefireCounts(l); return ok },
		read:     readMaven,
		args:     argSpec{custom: mavenArgs},
		target:   mavenTarget,
	})
}

// mavenPhases are the goals after which surefire has run the tests
// (failsafe too for verify, install and deploy).
var mavenPhases = map[string]bool{"test": true, "package": true, "integration-test": true, "verify": true,
	"install": true, "deploy": true, "surefire:test": true, "failsafe:integration-test": true}

// mavenTest matches mvn (or the wrapper mvnw) with a goal that runs the
// tests anywhere among its arguments: it returns 2 for "mvn test ...", 1
// when flags or other goals come first, 0 when no goal runs the tests.
func mavenTest(argv []string) int {
	if p := program(argv); p != "mvn" && p != "mvnw" && p != "mvnw.cmd" {
		return 0
	}
	for i, a := range argv[1:] {
		if mavenPhases[a] {
			if i == 0 {
				return 2
			}
			return 1
		}
	}
	return 0
}

// mavenTarget returns "verify" for a run that goes on to the
// integration tests (failsafe), else "test".
func mavenTarget(argv []string) string {
	for _, a := range argv {
		switch a {
		case "integration-test", "verify", "install", "deploy", "failsafe:integration-test":
			return "verify"
		}
	}
	return "test"
}

// mavenArgs reads mvn's arguments: goals are not paths; -Dtest=,
// -Dit.test=, -Dgroups=, -pl, -f and -rf narrow the tests run; other
// properties and the flags of output, speed and repository do not.
func mavenArgs(args []string) (paths, narrow []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, _ := strings.Cut(a, "=")
		switch {
		case !isFlag(a):
			// a goal or phase
		case hasPrefixes(a, "-Dtest", "-Dit.test", "-Dgroups", "-DexcludedGroups", "-Dsurefire.includes", "-Dsurefire.excludes"):
			narrow = append(narrow, a)
		case name == "-pl" || name == "--projects" || name == "-f" || name == "--file" || name == "-rf" || name == "--resume-from":
			if !strings.Contains(a, "=") && i+1 < len(args) {
				i++
				a += " " + args[i]
			}
			narrow = append(narrow, a)
		case name == "-T" || name == "--threads" || name == "-s" || name == "--settings" || name == "-P" || name == "--activate-profiles" ||
			name == "-gs" || name == "--global-settings" || name == "-l" || name == "--log-file":
			if !strings.Contains(a, "=") && i+1 < len(args) {
				i++
			}
		}
	}
	return nil, narrow
}

// surefireCounts reads surefire's (and failsafe's) counts, "Tests run:
// 10, Failures: 0, Errors: 0, Skipped: 0", after maven's "[INFO] " or
// "[ERROR] " prefix; perClass is true for a test class's line (it goes on
// with ", Time elapsed: ..."). ok is false for any other line.
func surefireCounts(l string) (t tally, perClass, ok bool) {
	s := mavenLine(l)
	if !strings.HasPrefix(s, "Tests run: ") {
		return nil, false, false
	}
	t = tally{}
	for _, part := range strings.Split(s, ", ") {
		k, v, found := strings.Cut(part, ": ")
		if !found {
			break
		}
		if k == "Time elapsed" {
			perClass = true
			break
		}
		n, _, ok := leadingInt(v)
		if !ok {
			return nil, false, false
		}
		t[k] = n
	}
	_, ok = t["Failures"]
	return t, perClass, ok
}

// mavenLine drops maven's "[INFO] " ("[ERROR] ", "[WARNING] ") prefix.
func mavenLine(l string) string {
	s := strings.TrimSpace(l)
	if strings.HasPrefix(s, "[") {
		if i := strings.Index(s, "] "); i > 0 && i < 10 {
			s = s[i+2:]
		}
	}
	return s
}

// mavenEnvironment are what maven prints when it could not fetch or find
// what it builds: not a failure of the tests.
var mavenEnvironment = []string{"Could not resolve dependencies", "Could not transfer artifact",
	"Could not find artifact", "Non-resolvable parent POM", "Non-resolvable import POM",
	"Unknown lifecycle phase", "No plugin found for prefix", "there is no POM in this directory",
	"Cannot access central", "offline mode", "Could not resolve plugin", "Plugin org.", "Unknown host",
	"Connection refused", "PluginResolutionException", "DependencyResolutionException"}

// readMaven reads maven's output. Surefire prints a count line per test
// class and, after "Results:", the module's totals; the totals of every
// module count (the per-class lines when the output holds no totals).
// Failures or errors, "There are test failures", or code that does not
// compile ("COMPILATION ERROR") are Failed; a build that failed because
// maven could not fetch a dependency or a plugin is NotRun, as are "No
// tests to run." and no test at all; "BUILD SUCCESS" is Passed; "BUILD
// FAILURE" for another reason is Failed.
func readMaven(o *output, r *Run) {
	totals, perClass := tally{}, tally{}
	seenTotals, seenClass := false, false
	var totalsLine, failLine, buildFailure, success, compile, env, noTests string
	for _, l := range o.lines {
		if t, per, ok := surefireCounts(l); ok {
			sum := totals
			if per {
				sum, seenClass = perClass, true
			} else {
				seenTotals, totalsLine = true, l
			}
			for k, v := range t {
				sum[k] += v
			}
			if t["Failures"]+t["Errors"] > 0 {
				failLine = firstOf(failLine, l)
			}
			continue
		}
		s := mavenLine(l)
		switch {
		case strings.HasPrefix(s, "There are test failures") || strings.HasPrefix(s, "There were test failures"):
			failLine = firstOf(failLine, l)
		case s == "BUILD FAILURE":
			buildFailure = l
		case s == "BUILD SUCCESS":
			success = l
		case strings.HasPrefix(s, "COMPILATION ERROR"):
			compile = firstOf(compile, l)
		case strings.HasPrefix(s, "No tests to run") || strings.HasPrefix(s, "No tests were executed") || strings.HasPrefix(s, "No tests matching"):
			noTests = firstOf(noTests, l)
		case containsAny(s, mavenEnvironment...):
			env = firstOf(env, l)
		}
	}
	t := totals
	if !seenTotals {
		t = perClass
	}
	if seenTotals || seenClass {
		r.set(t["Tests run"]-t["Failures"]-t["Errors"]-t["Skipped"], t["Failures"], t["Errors"], t["Skipped"])
	}
	switch {
	case t["Failures"]+t["Errors"] > 0 && seenTotals:
		r.Status, r.Why = Failed, totalsLine
	case t["Failures"]+t["Errors"] > 0 || failLine != "":
		r.Status, r.Why = Failed, firstOf(failLine, totalsLine)
	case compile != "":
		r.Status, r.Why = Failed, compile
	case env != "" && success == "":
		r.Status, r.Why = NotRun, env
	case noTests != "":
		r.Status, r.Why = NotRun, noTests
	case (seenTotals || seenClass) && t["Tests run"]-t["Skipped"] <= 0:
		r.Status, r.Why = NotRun, firstOf(totalsLine, success)
	case buildFailure != "":
		r.Status, r.Why = Failed, buildFailure
	case success != "" || seenTotals:
		r.Status, r.Why = Passed, firstOf(totalsLine, success)
	}
	r.Why = mavenLine(r.Why) // without maven's "[INFO] "
}
