// Package testrun reads one command run of an agent's trace (its command
// line, its exit status when known, whether the tool flagged an error,
// and its output) and says whether it was a test run, of which runner,
// and what it showed: passed, failed, or not run at all, with the counts
// and the line of output that decided.
//
// # Runners
//
// Every test runner vouch knows (pytest, go test, jest, cargo test, ...)
// is one file of this package that registers it in its init function:
//
//	func init() {
//		register(runner{
//			name:   "rspec",
//			cmds:   []string{"rspec", "bundle exec rspec", "bin/rspec"},
//			result: isRspecSummary, // its result line, to find a run by output alone
//			read:   readRspec,      // reads its output into a Run
//			args:   argSpec{values: ..., pass: ...},
//		})
//	}
//
// register panics on an empty name, a missing read function or a name
// already registered. A runner is known by its command ([Command]: the
// first stage of a shell line that starts with one of its command shapes)
// and by its output ([ShowsRun], and [Read] of a command that is not a
// known runner: "python reproduce.py" that calls unittest.main()). Adding
// a runner is adding one file: its command shapes, its result line, its
// reader and what its arguments mean (see argSpec); nothing else in the
// package names a runner.
//
// # Deciding
//
// [Read] decides in this order, and the first that speaks wins:
//
//  1. An exit status of the test command itself of 124, 137 or 143 (a
//     timeout or a kill) or 126, 127 (the program is not there or cannot
//     run) is [NotRun]; so is an agent's note that the command timed out
//     and was killed, or a last line "Killed".
//  2. The runner's own lines: its result line ("3 failed, 10 passed in
//     1.2s", "Ran 5 tests" and "OK") and what it prints when it could not
//     start (a collection error, "no tests ran", a usage error).
//  3. What the environment prints when the runner could not run at all
//     ("command not found", "No module named pytest", no network).
//  4. The exit status, when it is the test command's own: 0 passes (only
//     when the output is empty or the runner may pass silently; a runner
//     that always prints a result line and printed none is [Unknown]), the
//     runner's own codes (pytest's 2 to 5 are [NotRun]), any other is
//     [Failed] with Why "exit code N".
//
// An exit status is the test command's own only when the line cannot
// have taken it from another stage: the test stage is the last of the
// line (or only "&&" stages follow it, for a status of 0), and the stages
// before it joined by "&&" only change directory or set variables. A pipe
// hides the runner's status ("pytest | tail" exits with tail's), so a run
// piped into another command is decided by its output alone: with no
// result line it is Unknown, whatever the status, unless the status is a
// timeout or a kill (124, 137, 143), which stopped the whole line
// (NotRun).
//
// # What each runner's lines decide
//
// A runner that printed its result line is read by its counts: failures
// are Failed; errors inside tests (pytest's "1 error" at setup, unittest's
// errors=, sympy's exceptions) are Failed; no test run at all ("no tests
// ran", "Ran 0 tests", "0 examples", every test skipped or deselected) is
// NotRun. What happens before any test ran is decided so:
//
//   - Tests that could not be loaded are NotRun: pytest's collection
//     errors ("ERROR collecting", "Interrupted: 1 error during
//     collection", exit status 2), unittest's and Django's test modules
//     that did not import (unittest.loader._FailedTest, or an ImportError
//     with no "Ran N tests"), RSpec's "0 examples, 0 failures, 1 error
//     occurred outside of examples". The cause may be the code under test,
//     but it may as well be the environment, and the tests did not run.
//   - Code under test that does not compile is Failed: go test's "[build
//     failed]", cargo's "error[E...]", mix's "== Compilation error", maven's
//     "COMPILATION ERROR", a C# "error CS...", a SyntaxError that stops
//     Django or sympy before any test (no line decides; the exit status
//     does). The agent's code is what does not build.
//   - A package go could not load ("[setup failed]": a module missing or
//     not downloaded, go.mod out of date) is NotRun: nothing compiled.
//   - A build tool that could not fetch its plugins or dependencies
//     (maven, gradle, cargo, dotnet restore, pip) is NotRun.
//   - A wrapper (tox, nox, make, npm, yarn, pnpm) is read with the runner
//     inside it (Run.Inner): the inner runner's result line counts, and
//     when the wrapper's own word disagrees (npm says the script failed
//     after jest said the tests passed: a coverage threshold, a lint step)
//     the run is Unknown; a wrapper that says its target or script is
//     missing ("Missing script", "No rule to make target") is NotRun.
//
// The package is conservative: a run is [Failed] only when its runner
// says tests failed, or when the test command itself exited non-zero and
// nothing shows the environment stopped it. When the output says the
// tests passed, no exit status makes the run Failed.
//
// Outputs are untrusted and may be megabytes: every reader reads each
// line once, looks at no more than the first maxLine bytes of a line, and
// uses no regular expression. Shell lines are split into stages with
// internal/runner's Stages, the same reading the command runner uses.
package testrun
