package testreport

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// event is one line of go test -json (cmd/test2json's TestEvent).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// maxLine bounds one line of go test -json output.
const maxLine = 4 << 20

// maxOutputLines bounds the output lines kept per failed test.
const maxOutputLines = 40

// ParseGoTest reads the event stream of "go test -json" (or "go tool
// test2json"): one JSON object a line, with Action, Package, Test and
// Output. A test's pass, fail or skip event gives its outcome, and the
// output of a failed test becomes its message. A package-level fail event
// after which the package's tests all passed (a build failure, a failing
// TestMain, a panic between tests, a timeout) is a problem of the report,
// and so is a test that started ("run") and never ended: the run was cut
// short, so it is not a pass.
//
// Lines that are not JSON objects (what a build printed to the same
// stream) are skipped; a line that starts with "{" and does not parse is
// an error, and so is a stream with no event. Input past [MaxBytes], a
// line over 4 MiB or more than [MaxCases] tests are errors too; every
// error wraps [ErrFormat].
func ParseGoTest(r io.Reader) (*Report, error) {
	errf := func(format string, args ...any) error {
		return fmt.Errorf("%w: go test -json: %s", ErrFormat, fmt.Sprintf(format, args...))
	}
	type key struct{ pkg, test string }
	type state struct {
		index  int // into rep.Cases, -1 while running
		output []string
		done   bool
	}
	rep := &Report{Format: FormatGoTest}
	tests := map[key]*state{}
	var order []key
	pkgFailed := map[string]bool{}
	pkgDone := map[string]bool{}
	pkgSeen := map[string]bool{}
	events := 0
	sc := bufio.NewScanner(limitReader(r))
	sc.Buffer(make([]byte, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		b := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(b, "{") {
			continue
		}
		var ev event
		if err := json.Unmarshal([]byte(b), &ev); err != nil {
			return nil, errf("line %d: %v", line, err)
		}
		events++
		pkg := clean(ev.Package, maxName)
		if pkg != "" && !pkgSeen[pkg] {
			pkgSeen[pkg] = true
			rep.Packages = append(rep.Packages, pkg)
		}
		if ev.Test == "" {
			switch ev.Action {
			case "fail":
				pkgFailed[pkg], pkgDone[pkg] = true, true
			case "pass", "skip":
				pkgDone[pkg] = true
			}
			continue
		}
		k := key{pkg, clean(ev.Test, maxName)}
		st := tests[k]
		if st == nil {
			if len(tests) >= MaxCases {
				return nil, errf("more than %d tests", MaxCases)
			}
			st = &state{index: -1}
			tests[k] = st
			order = append(order, k)
		}
		switch ev.Action {
		case "output":
			if len(st.output) < maxOutputLines {
				if o := strings.TrimRight(ev.Output, "\r\n"); strings.TrimSpace(o) != "" && !statusLine(o) {
					st.output = append(st.output, o)
				}
			}
		case "pass", "fail", "skip":
			// A test run again (-count=2) keeps its worst outcome.
			s := map[string]Status{"pass": Pass, "fail": Fail, "skip": Skip}[ev.Action]
			if st.index < 0 {
				st.index = len(rep.Cases)
				rep.Cases = append(rep.Cases, Case{Suite: k.pkg, Name: k.test, Status: s})
			} else if c := &rep.Cases[st.index]; worse(s, c.Status) {
				c.Status = s
			}
			st.done = true
		case "run":
			st.done = false
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, errTooLarge) {
			return nil, err
		}
		return nil, errf("%v", err)
	}
	if events == 0 {
		return nil, errf("no test event in the stream")
	}
	failedIn := map[string]bool{}
	for _, k := range order {
		st := tests[k]
		if !st.done {
			// A benchmark gets a run event and no outcome of its own
			// when it passes; its package's outcome is the run's.
			if strings.HasPrefix(k.test, "Benchmark") && pkgDone[k.pkg] && !pkgFailed[k.pkg] {
				continue
			}
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s in %s started and has no outcome: the run was cut short", k.test, k.pkg))
			continue
		}
		c := &rep.Cases[st.index]
		if c.Status == Fail {
			failedIn[k.pkg] = true
			c.Message = cleanBlock(strings.Join(st.output, "\n"), maxMessage)
		}
	}
	for _, pkg := range rep.Packages {
		if pkgFailed[pkg] && !failedIn[pkg] {
			rep.Problems = append(rep.Problems, fmt.Sprintf("package %s failed outside its tests (a build failure, TestMain, a panic or a timeout)", pkg))
		}
	}
	return rep, nil
}

// worse reports whether outcome a is worse than b: a failure is worse than
// anything, a pass worse than a skip (a test that ran once counts as run).
func worse(a, b Status) bool {
	rank := map[Status]int{Skip: 0, Pass: 1, Fail: 2}
	return rank[a] > rank[b]
}

// statusLine reports the lines go test prints for a test's own outcome
// ("=== RUN", "--- PASS: TestX (0.00s)"), which say nothing a message
// needs.
func statusLine(s string) bool {
	t := strings.TrimSpace(s)
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- PASS:", "--- FAIL:", "--- SKIP:"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}
