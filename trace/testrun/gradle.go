package testrun

import "strings"

func init() {
	register(runner{
		name:     "gradle",
		match:    gradleTest,
		programs: []string{"gradle", "gradlew"},
		noRun:    []string{"--dry-run", "-m", "tasks"},
		result:   func(l string) bool { _, ok := gradleCompleted(l); return ok },
		read:     readGradle,
		args:     argSpec{custom: gradleArgs},
		target:   gradleTarget,
	})
}

// gradleTask reports a task that runs tests: test, check, build (which
// runs check), a project's (":app:test") or a variant's
// ("testDebugUnitTest", "integrationTest").
func gradleTask(t string) bool {
	t = t[strings.LastIndexByte(t, ':')+1:]
	return t == "test" || t == "check" || t == "build" || strings.HasPrefix(t, "test") || strings.HasSuffix(t, "Test") ||
		strings.HasSuffix(t, "Tests")
}

// gradleTest matches gradle (or the wrapper gradlew) with a task that
// runs the tests: it returns 1 (its tasks are its arguments), or 0 when
// no task runs tests or every one is excluded (-x test).
func gradleTest(argv []string) int {
	if p := program(argv); p != "gradle" && p != "gradlew" && p != "gradlew.bat" {
		return 0
	}
	n := 0
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case (a == "-x" || a == "--exclude-task") && i+1 < len(argv):
			if gradleTask(argv[i+1]) {
				return 0
			}
			i++
		case !isFlag(a) && gradleTask(a):
			n = 1 // its tasks are arguments: ":app:test" narrows
		}
	}
	return n
}

// gradleTarget returns "check" for a run of check or build (which runs
// every verification task), else "test".
func gradleTarget(argv []string) string {
	for _, a := range argv {
		if t := a[strings.LastIndexByte(a, ':')+1:]; t == "check" || t == "build" {
			return "check"
		}
	}
	return "test"
}

// gradleArgs reads gradle's arguments: the plain tasks (test, check,
// build, clean) are not paths, a project's task (":app:test") or another
// task is; --tests narrows; the flags of logging, daemon and cache do
// not.
func gradleArgs(args []string) (paths, narrow []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, inline := strings.Cut(a, "=")
		switch {
		case !isFlag(a):
			if a != "test" && a != "check" && a != "build" && a != "clean" && a != "assemble" {
				paths = append(paths, a)
			}
		case name == "--tests" || name == "-p" || name == "--project-dir" || name == "-c" || name == "--settings-file":
			if !inline && i+1 < len(args) {
				i++
				a += " " + args[i]
			}
			narrow = append(narrow, a)
		case name == "--console" || name == "--warning-mode" || name == "--max-workers" || name == "-x" || name == "--exclude-task":
			if !inline && i+1 < len(args) {
				i++
			}
		case matchFlag([]string{"--info", "-i", "--debug", "-d", "--stacktrace", "-s", "--full-stacktrace", "-S",
			"--quiet", "-q", "--warn", "-w", "--no-daemon", "--daemon", "--offline", "--scan", "--no-scan",
			"--build-cache", "--no-build-cache", "--parallel", "--no-parallel", "--continue", "--rerun-tasks",
			"--rerun", "--refresh-dependencies", "--configuration-cache", "--no-configuration-cache", "-D*", "-P*",
			"--no-watch-fs", "--watch-fs"}, name):
		default:
			narrow = append(narrow, a)
		}
	}
	return paths, narrow
}

// gradleCompleted reads gradle's count of a test task that had failures,
// "10 tests completed, 2 failed" (", 1 skipped"); ok is false for any
// other line.
func gradleCompleted(l string) (tally, bool) {
	its, ok := items(strings.TrimSpace(l), ", ")
	if !ok || its[0].word != "tests completed" && its[0].word != "test completed" {
		return nil, false
	}
	t := tally{"completed": its[0].n}
	for _, it := range its[1:] {
		if it.word != "failed" && it.word != "skipped" {
			return nil, false
		}
		t[it.word] = it.n
	}
	return t, true
}

// gradleEnvironment are what gradle prints when it could not fetch or
// start what it builds.
var gradleEnvironment = []string{"Could not resolve", "Could not GET", "Could not HEAD", "Could not download",
	"Could not determine java version", "Unsupported class file major version", "Connection refused",
	"Unknown host", "GradleWrapperMain", "Could not create service of type", "Unable to access jarfile",
	"not found in root project", "Could not find method", "Plugin [id:"}

// readGradle reads gradle's output: a failed test task ("> Task :test
// FAILED", "There were failing tests", "N tests completed, M failed") or
// a compile task that failed are Failed; a build that could not fetch or
// start is NotRun; "BUILD SUCCESSFUL" is Passed, unless no test task had
// a test to run ("> Task :test NO-SOURCE") , which is NotRun; "BUILD
// FAILED" for another reason is Failed. Gradle prints counts only when
// tests failed (or with testLogging events: "FooTest > bar() PASSED").
func readGradle(o *output, r *Run) {
	var completed tally
	var completedLine, testFailed, compileFailed, env, success, failed, noSource, eventFailed string
	ran := false
	events := tally{}
	for _, l := range o.lines {
		if t, ok := gradleCompleted(l); ok {
			completed, completedLine = t, l
			continue
		}
		s := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(s, "> Task ") && strings.HasSuffix(s, " FAILED"):
			task := strings.TrimSuffix(strings.TrimPrefix(s, "> Task "), " FAILED")
			if gradleTask(task) {
				testFailed = firstOf(testFailed, l)
			} else {
				compileFailed = firstOf(compileFailed, l)
			}
		case strings.HasPrefix(s, "> Task ") && strings.HasSuffix(s, " NO-SOURCE"):
			if gradleTask(strings.TrimSuffix(strings.TrimPrefix(s, "> Task "), " NO-SOURCE")) {
				noSource = firstOf(noSource, l)
			}
		case strings.HasPrefix(s, "> Task ") && gradleTask(strings.TrimPrefix(s, "> Task ")):
			ran = true
		case strings.HasPrefix(s, "There were failing tests") || strings.HasPrefix(s, "> There were failing tests"):
			testFailed = firstOf(testFailed, l)
		case strings.HasPrefix(s, "BUILD SUCCESSFUL"):
			success = l
		case strings.HasPrefix(s, "BUILD FAILED"):
			failed = l
		case strings.HasPrefix(s, "Compilation failed") || strings.Contains(s, "Compilation failed;"):
			compileFailed = firstOf(compileFailed, l)
		case strings.Contains(s, " > ") && (strings.HasSuffix(s, " PASSED") || strings.HasSuffix(s, " FAILED") || strings.HasSuffix(s, " SKIPPED")):
			e := s[strings.LastIndexByte(s, ' ')+1:]
			events[e]++
			if e == "FAILED" {
				eventFailed = firstOf(eventFailed, l)
			}
		case containsAny(s, gradleEnvironment...):
			env = firstOf(env, l)
		}
	}
	switch {
	case completed != nil:
		r.set(completed["completed"]-completed["failed"]-completed["skipped"], completed["failed"], 0, completed["skipped"])
	case len(events) > 0:
		r.set(events["PASSED"], events["FAILED"], 0, events["SKIPPED"])
	}
	switch {
	case completed["failed"] > 0:
		r.Status, r.Why = Failed, completedLine
	case testFailed != "":
		r.Status, r.Why = Failed, testFailed
	case events["FAILED"] > 0:
		r.Status, r.Why = Failed, eventFailed
	case compileFailed != "":
		r.Status, r.Why = Failed, compileFailed
	case env != "" && success == "":
		r.Status, r.Why = NotRun, env
	case success != "" && noSource != "" && !ran && r.Passed == 0:
		r.Status, r.Why = NotRun, noSource
	case success != "":
		r.Status, r.Why = Passed, success
	case failed != "":
		r.Status, r.Why = Failed, failed
	}
}
