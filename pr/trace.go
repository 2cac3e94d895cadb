package pr

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/pr/testreport"
)

// maxListed is the number of test cases a Go run's digest lists one a
// line; a larger run lists its failures and says how many passed.
const maxListed = 20000

// maxMessageLines bounds the lines of a failure message in a digest.
const maxMessageLines = 12

// TraceEntries turns test reports into the trace of a verification: one
// run of each runner, as an agent's call of the shell would show it. The
// go test -json reports together are one run of "go test" (on their
// packages, or ./... for more than 8 or for a name that is no import
// path), the JUnit reports one run of "junit" on their files. Each
// argument is one word with no character a shell reads and none starts
// with "-", so that a policy that lets vouch run "go test" again runs no
// flag a report made up. A run's output starts with "Exit code N", 1 when
// any report of it failed (a failed case, or a problem outside the
// cases), and goes on with a digest of its outcomes: go test -v's "---
// PASS: TestX" lines (subtests indented), or, for JUnit and for Go runs
// of more than 20,000 cases, the failures and skips and a last line
// counting what passed, failed and was skipped. Test names and messages
// come cleaned by package testreport, so a name cannot forge a line, and
// each line of a message is marked "| ", so it cannot pass for an outcome.
func TraceEntries(reports []TestReport) []vouch.TraceEntry {
	var goRuns, junitRuns []TestReport
	for _, r := range reports {
		if r.Report == nil {
			continue
		}
		switch r.Report.Format {
		case testreport.FormatGoTest:
			goRuns = append(goRuns, r)
		case testreport.FormatJUnit:
			junitRuns = append(junitRuns, r)
		}
	}
	var out []vouch.TraceEntry
	if len(goRuns) > 0 {
		failed, digest := goDigest(goRuns)
		out = append(out, entry(len(out), goCommand(goRuns), failed, digest))
	}
	if len(junitRuns) > 0 {
		failed, digest := junitDigest(junitRuns)
		out = append(out, entry(len(out), junitCommand(junitRuns), failed, digest))
	}
	return out
}

// entry makes a trace entry of a shell command and its output.
func entry(i int, command string, failed bool, digest string) vouch.TraceEntry {
	code := 0
	if failed {
		code = 1
	}
	out, _ := json.Marshal(fmt.Sprintf("Exit code %d\n%s", code, digest))
	return vouch.TraceEntry{
		ID:     fmt.Sprintf("test-report-%d", i+1),
		Tool:   "shell:exec",
		Input:  map[string]any{"command": command},
		Output: out,
	}
}

func goCommand(runs []TestReport) string {
	var pkgs []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, p := range r.Report.Packages {
			if !seen[p] {
				seen[p] = true
				pkgs = append(pkgs, p)
			}
		}
	}
	if len(pkgs) == 0 || len(pkgs) > 8 {
		return "go test ./..."
	}
	for i, p := range pkgs {
		if pkgs[i] = argWord(p); strings.HasPrefix(pkgs[i], "-") {
			// No import path starts with "-": a name that would read as
			// a flag if the policy let vouch run the command again.
			return "go test ./..."
		}
	}
	return "go test " + strings.Join(pkgs, " ")
}

func junitCommand(runs []TestReport) string {
	var names []string
	for i, r := range runs {
		n := argWord(path.Base(strings.ReplaceAll(r.Name, "\\", "/")))
		if n == "" || n == "." || n == "/" || strings.HasPrefix(n, "-") {
			n = fmt.Sprintf("report-%d.xml", i+1)
		}
		names = append(names, n)
	}
	return "junit " + strings.Join(names, " ")
}

// argWord makes s one word of a command line: no spaces, no characters a
// shell would read.
func argWord(s string) string {
	return strings.Map(func(r rune) rune {
		if r <= ' ' || strings.ContainsRune("|&;<>()$`\\\"'*?[]#~=%!{}", r) {
			return '_'
		}
		return r
	}, s)
}

// goDigest writes what go test -v would print of the runs: the outcome of
// every case, the messages of the failures, a line per package and the
// problems outside the cases.
func goDigest(runs []TestReport) (bool, string) {
	var b strings.Builder
	failed := false
	total := 0
	for _, r := range runs {
		total += len(r.Report.Cases)
		failed = failed || r.Report.Failed()
	}
	list := total <= maxListed
	pass, fail, skip := 0, 0, 0
	for _, r := range runs {
		pkgFailed := map[string]bool{}
		var order []string
		seen := map[string]bool{}
		for _, c := range r.Report.Cases {
			if !seen[c.Suite] {
				seen[c.Suite] = true
				order = append(order, c.Suite)
			}
			switch c.Status {
			case testreport.Pass:
				pass++
			case testreport.Fail:
				fail++
				pkgFailed[c.Suite] = true
			case testreport.Skip:
				skip++
			}
			if !list && c.Status == testreport.Pass {
				continue
			}
			indent := strings.Repeat("    ", strings.Count(c.Name, "/"))
			fmt.Fprintf(&b, "%s--- %s: %s\n", indent, strings.ToUpper(string(c.Status)), c.Name)
			if c.Status == testreport.Fail {
				writeMessage(&b, indent+"    ", c.Message)
			}
		}
		for _, pkg := range order {
			if pkgFailed[pkg] {
				fmt.Fprintf(&b, "FAIL\t%s\n", pkg)
			} else {
				fmt.Fprintf(&b, "ok  \t%s\n", pkg)
			}
		}
		for _, p := range r.Report.Problems {
			fmt.Fprintf(&b, "FAIL: %s\n", p)
		}
	}
	if !list {
		fmt.Fprintf(&b, "%d passed, %d failed, %d skipped (the passing tests are not listed)\n", pass, fail, skip)
	}
	return failed, b.String()
}

// junitDigest writes the failures and skips of the runs and a last line
// counting the cases.
func junitDigest(runs []TestReport) (bool, string) {
	var b strings.Builder
	failed := false
	pass, fail, skip := 0, 0, 0
	for _, r := range runs {
		failed = failed || r.Report.Failed()
		for _, c := range r.Report.Cases {
			name := c.Name
			if c.Suite != "" {
				name = c.Suite + " " + c.Name
			}
			switch c.Status {
			case testreport.Pass:
				pass++
				if len(r.Report.Cases) <= maxListed {
					fmt.Fprintf(&b, "PASS: %s\n", name)
				}
			case testreport.Fail:
				fail++
				fmt.Fprintf(&b, "FAIL: %s\n", name)
				writeMessage(&b, "    ", c.Message)
			case testreport.Skip:
				skip++
				fmt.Fprintf(&b, "SKIP: %s\n", name)
			}
		}
		for _, p := range r.Report.Problems {
			fmt.Fprintf(&b, "FAIL: %s\n", p)
		}
	}
	fmt.Fprintf(&b, "%d passed, %d failed, %d skipped\n", pass, fail, skip)
	return failed, b.String()
}

// writeMessage writes the first lines of a failure message, indented and
// marked with "| ", so that no line of it reads as an outcome.
func writeMessage(b *strings.Builder, indent, msg string) {
	if msg == "" {
		return
	}
	lines := strings.Split(msg, "\n")
	if len(lines) > maxMessageLines {
		lines = append(lines[:maxMessageLines], "…")
	}
	for _, l := range lines {
		b.WriteString(indent)
		b.WriteString("| ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
}
