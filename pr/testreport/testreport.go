// Package testreport reads the reports test runners write: JUnit XML
// (pytest --junitxml, Maven Surefire, Gradle, jest-junit, go-junit-report
// and most CI tools) and the event stream of "go test -json". [Parse] tells
// the two apart by their first byte and returns a [Report]: every test
// case with its outcome, and the failures that belong to no test case (a
// package that did not build, a suite whose counts say it failed).
//
// Reports are untrusted input, written by tests an agent may have written:
// a report over [MaxBytes] is refused, test names and messages are cut to
// a bounded length with their control characters made visible, and a
// report is never taken as more successful than it says. A JUnit file's
// document type declaration is not read, so no entity it declares, and no
// external entity, is ever expanded: a reference to one is an error.
package testreport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxBytes is the size of the largest report [Parse] reads.
const MaxBytes = 64 << 20

// MaxCases is the number of test cases a report may hold.
const MaxCases = 500_000

// Formats of a report, the values of [Report.Format].
const (
	FormatJUnit  = "junit"
	FormatGoTest = "go-test-json"
)

// Status is the outcome of one test case.
type Status string

// The outcomes of a test case.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Case is one test case.
type Case struct {
	// Suite is where the case is: a JUnit suite and class name, or a Go
	// package's import path.
	Suite string
	// Name is the test's name; a Go subtest's holds its parent's name and
	// a slash ("TestParse/empty").
	Name string
	// Status is the case's outcome. A JUnit error counts as a failure.
	Status Status
	// Message says why a case failed or was skipped, cut to 1 KiB: a
	// JUnit failure's message and text, or the output of a failed Go test.
	Message string
}

// Sub reports whether the case is a Go subtest (its name holds a slash).
func (c Case) Sub() bool { return strings.Contains(c.Name, "/") }

// Report is what one test report says.
type Report struct {
	// Format is FormatJUnit or FormatGoTest.
	Format string
	// Cases are the test cases, in the order of the report.
	Cases []Case
	// Problems are failures that belong to no case, each said in a line:
	// a Go package that failed to build or failed outside its tests, a
	// test that started and has no outcome (the run was cut short), a
	// JUnit suite whose counts say more failed than its cases show.
	Problems []string
	// Packages are the Go packages of a go test report, in order of first
	// appearance; the suites of a JUnit report.
	Packages []string
}

// Failed reports whether the run the report describes failed: a case
// failed, or there is a problem outside the cases.
func (r *Report) Failed() bool {
	if len(r.Problems) > 0 {
		return true
	}
	for _, c := range r.Cases {
		if c.Status == Fail {
			return true
		}
	}
	return false
}

// Counts returns how many cases passed, failed and were skipped.
func (r *Report) Counts() (pass, fail, skip int) {
	for _, c := range r.Cases {
		switch c.Status {
		case Pass:
			pass++
		case Fail:
			fail++
		case Skip:
			skip++
		}
	}
	return pass, fail, skip
}

// ErrFormat is wrapped by the error of a report that is neither JUnit XML
// nor go test -json output, or that does not parse as its format.
var ErrFormat = errors.New("testreport: not a test report")

// Parse reads a report, JUnit XML or go test -json, told apart by its
// first non-blank byte: "<" for XML; "{", or a later line starting with
// "{", for go test -json. It refuses one over [MaxBytes]. Any
// error wraps [ErrFormat].
func Parse(data []byte) (*Report, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("%w: the report is over %d bytes", ErrFormat, MaxBytes)
	}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%w: the report is empty", ErrFormat)
	}
	switch {
	case trimmed[0] == '<':
		return ParseJUnit(bytes.NewReader(trimmed))
	case trimmed[0] == '{' || bytes.Contains(trimmed, []byte("\n{")):
		// go test -json, perhaps after what a build printed to the same
		// stream.
		return ParseGoTest(bytes.NewReader(trimmed))
	}
	return nil, fmt.Errorf("%w: it is neither JUnit XML (starting with \"<\") nor go test -json (lines starting with \"{\")", ErrFormat)
}

// maxText is the length to which names and messages are cut.
const (
	maxName    = 512
	maxMessage = 1024
)

// clean makes untrusted text safe to show on one line: control characters
// (newlines among them) become spaces, invalid UTF-8 is replaced, and the
// text is cut to max bytes.
func clean(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	return cut(s, max)
}

// cleanBlock keeps the lines of untrusted text (for a failure message) but
// makes every other control character a space, and cuts it to max bytes.
func cleanBlock(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.Map(func(r rune) rune {
		if r == '\n' {
			return r
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	return cut(strings.TrimSpace(s), max)
}

// cut shortens s to at most max bytes at a rune boundary, marking the cut.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max - len("…")
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// limitReader refuses to read past MaxBytes.
func limitReader(r io.Reader) io.Reader { return &capped{r: r, left: MaxBytes} }

type capped struct {
	r    io.Reader
	left int64
}

var errTooLarge = fmt.Errorf("%w: the report is over %d bytes", ErrFormat, MaxBytes)

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
