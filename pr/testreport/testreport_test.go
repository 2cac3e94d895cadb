package testreport

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

const junitMixed = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="pytest" tests="4" failures="1" errors="1">
  <testsuite name="tests.test_parse" tests="4" failures="1" errors="1" skipped="1">
    <testcase classname="tests.test_parse" name="test_ok" time="0.01"/>
    <testcase classname="tests.test_parse" name="test_bad" time="0.02">
      <failure message="assert 2 == 3">def test_bad():
&gt;       assert parse("x") == 3
E       assert 2 == 3</failure>
    </testcase>
    <testcase classname="tests.test_parse" name="test_boom"><error message="ValueError: boom"/></testcase>
    <testcase classname="tests.test_parse" name="test_later"><skipped message="not yet"/></testcase>
    <testcase classname="tests.test_parse" name="test_flaky"><flakyFailure message="once"/></testcase>
  </testsuite>
</testsuites>`

func TestParseJUnit(t *testing.T) {
	rep, err := Parse([]byte(junitMixed))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != FormatJUnit {
		t.Errorf("Format = %q", rep.Format)
	}
	got := map[string]Status{}
	for _, c := range rep.Cases {
		got[c.Name] = c.Status
		if c.Suite != "tests.test_parse" {
			t.Errorf("%s: Suite = %q", c.Name, c.Suite)
		}
	}
	want := map[string]Status{"test_ok": Pass, "test_bad": Fail, "test_boom": Fail, "test_later": Skip, "test_flaky": Pass}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("cases = %v, want %v", got, want)
	}
	if p, f, s := rep.Counts(); p != 2 || f != 2 || s != 1 {
		t.Errorf("Counts = %d, %d, %d", p, f, s)
	}
	if !rep.Failed() || len(rep.Problems) != 0 {
		t.Errorf("Failed = %v, Problems = %v", rep.Failed(), rep.Problems)
	}
	if m := rep.Cases[1].Message; !strings.HasPrefix(m, "assert 2 == 3\n") || !strings.Contains(m, "E       assert 2 == 3") {
		t.Errorf("message of test_bad = %q", m)
	}
}

func TestParseJUnitPassingSuiteAlone(t *testing.T) {
	rep, err := Parse([]byte(`<testsuite name="com.example.ParserTest" tests="2" failures="0" errors="0">
<testcase name="parses" classname="com.example.ParserTest"/><testcase name="rejects" classname="com.example.ParserTest"></testcase>
<system-out>FAIL is a word in the output, not an outcome</system-out></testsuite>`))
	if err != nil {
		t.Fatal(err)
	}
	if p, f, s := rep.Counts(); p != 2 || f != 0 || s != 0 || rep.Failed() {
		t.Errorf("Counts = %d, %d, %d, Failed %v", p, f, s, rep.Failed())
	}
	if len(rep.Packages) != 1 || rep.Packages[0] != "com.example.ParserTest" {
		t.Errorf("Packages = %q", rep.Packages)
	}
}

// TestParseJUnitCountsWin checks that a suite whose counts say it failed
// fails, even when its cases do not show it.
func TestParseJUnitCountsWin(t *testing.T) {
	rep, err := Parse([]byte(`<testsuites><testsuite name="s" failures="1" errors="0"><testcase name="a"/></testsuite></testsuites>`))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Failed() || len(rep.Problems) != 1 {
		t.Errorf("Failed = %v, Problems = %q", rep.Failed(), rep.Problems)
	}
}

// TestParseJUnitNested checks suites in suites and counts that add up.
func TestParseJUnitNested(t *testing.T) {
	rep, err := Parse([]byte(`<testsuites><testsuite name="outer" failures="1"><testsuite name="inner" failures="1"><testcase name="x"><failure/></testcase></testsuite></testsuite></testsuites>`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 0 || !rep.Failed() || len(rep.Cases) != 1 || rep.Cases[0].Suite != "inner" {
		t.Errorf("report = %+v", rep)
	}
}

func TestParseJUnitHostile(t *testing.T) {
	for name, doc := range map[string]string{
		"external entity": `<?xml version="1.0"?><!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]><testsuite name="s"><testcase name="&x;"/></testsuite>`,
		"billion laughs": `<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>
<testsuite name="s"><testcase name="&c;"/></testsuite>`,
		"unknown root":      `<html><testsuite/></html>`,
		"unclosed":          `<testsuites><testsuite name="s"><testcase name="a">`,
		"bad count":         `<testsuite name="s" failures="many"/>`,
		"case in case":      `<testsuite><testcase name="a"><testcase name="b"/></testcase></testsuite>`,
		"two roots":         `<testsuite/><testsuite/>`,
		"mismatched tag":    `<testsuite><testcase></testsuite></testcase>`,
		"deep":              strings.Repeat("<testsuite>", 100) + strings.Repeat("</testsuite>", 100),
		"neither format":    `PASS ok example.com/m 0.1s`,
		"empty":             "   \n",
		"negative count":    `<testsuite name="s" errors="-1"/>`,
		"text before root?": `x<testsuite/>`,
	} {
		rep, err := Parse([]byte(doc))
		if err == nil {
			t.Errorf("%s: parsed: %+v", name, rep)
			continue
		}
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: error %v does not wrap ErrFormat", name, err)
		}
		if strings.Contains(err.Error(), "root:") {
			t.Errorf("%s: the error shows a file's contents: %v", name, err)
		}
	}
}

// TestParseJUnitCleansNames checks that a test name cannot forge lines of
// its own.
func TestParseJUnitCleansNames(t *testing.T) {
	rep, err := Parse([]byte(`<testsuite name="s"><testcase name="a&#10;--- PASS: forged&#13;x&#0009;y"/></testsuite>`))
	if err != nil {
		t.Fatal(err)
	}
	if n := rep.Cases[0].Name; strings.ContainsAny(n, "\n\r\t") {
		t.Errorf("name keeps control characters: %q", n)
	}
}

func TestParseTooLarge(t *testing.T) {
	if _, err := Parse(make([]byte, MaxBytes+1)); !errors.Is(err, ErrFormat) {
		t.Errorf("a report over MaxBytes: %v", err)
	}
	var b bytes.Buffer
	b.WriteString(`{"Action":"output","Package":"p","Output":"`)
	b.WriteString(strings.Repeat("x", maxLine+10))
	b.WriteString(`"}`)
	if _, err := Parse(b.Bytes()); !errors.Is(err, ErrFormat) {
		t.Errorf("a line over the limit: %v", err)
	}
}

const goTestMixed = `{"Action":"start","Package":"example.com/m/a"}
{"Action":"run","Package":"example.com/m/a","Test":"TestOK"}
{"Action":"output","Package":"example.com/m/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"output","Package":"example.com/m/a","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}
{"Action":"pass","Package":"example.com/m/a","Test":"TestOK","Elapsed":0}
{"Action":"run","Package":"example.com/m/a","Test":"TestTable"}
{"Action":"run","Package":"example.com/m/a","Test":"TestTable/empty"}
{"Action":"output","Package":"example.com/m/a","Test":"TestTable/empty","Output":"    a_test.go:12: got 2, want 3\n"}
{"Action":"fail","Package":"example.com/m/a","Test":"TestTable/empty","Elapsed":0}
{"Action":"run","Package":"example.com/m/a","Test":"TestTable/full"}
{"Action":"pass","Package":"example.com/m/a","Test":"TestTable/full","Elapsed":0}
{"Action":"fail","Package":"example.com/m/a","Test":"TestTable","Elapsed":0}
{"Action":"run","Package":"example.com/m/a","Test":"TestLater"}
{"Action":"skip","Package":"example.com/m/a","Test":"TestLater","Elapsed":0}
{"Action":"output","Package":"example.com/m/a","Output":"FAIL\n"}
{"Action":"fail","Package":"example.com/m/a","Elapsed":0.01}
{"Action":"start","Package":"example.com/m/b"}
{"Action":"run","Package":"example.com/m/b","Test":"TestB"}
{"Action":"pass","Package":"example.com/m/b","Test":"TestB","Elapsed":0}
{"Action":"pass","Package":"example.com/m/b","Elapsed":0.01}
`

func TestParseGoTest(t *testing.T) {
	rep, err := Parse([]byte(goTestMixed))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != FormatGoTest {
		t.Errorf("Format = %q", rep.Format)
	}
	var got []string
	for _, c := range rep.Cases {
		got = append(got, fmt.Sprintf("%s %s %s", c.Suite, c.Name, c.Status))
	}
	want := []string{
		"example.com/m/a TestOK pass",
		"example.com/m/a TestTable/empty fail",
		"example.com/m/a TestTable/full pass",
		"example.com/m/a TestTable fail",
		"example.com/m/a TestLater skip",
		"example.com/m/b TestB pass",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("cases:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if m := rep.Cases[1].Message; m != "a_test.go:12: got 2, want 3" {
		t.Errorf("message = %q", m)
	}
	if !rep.Failed() || len(rep.Problems) != 0 {
		t.Errorf("Failed %v, Problems %q", rep.Failed(), rep.Problems)
	}
	if fmt.Sprint(rep.Packages) != "[example.com/m/a example.com/m/b]" {
		t.Errorf("Packages = %v", rep.Packages)
	}
	if !rep.Cases[1].Sub() || rep.Cases[0].Sub() {
		t.Error("Sub is wrong")
	}
}

func TestParseGoTestProblems(t *testing.T) {
	for name, tt := range map[string]struct {
		stream  string
		problem string
	}{
		"build failure": {
			`{"ImportPath":"example.com/m/c","Action":"build-output","Output":"# example.com/m/c\n"}
{"Action":"start","Package":"example.com/m/c"}
{"Action":"output","Package":"example.com/m/c","Output":"FAIL\texample.com/m/c [build failed]\n"}
{"Action":"fail","Package":"example.com/m/c","Elapsed":0,"FailedBuild":"example.com/m/c"}`,
			"failed outside its tests",
		},
		"cut short": {
			`{"Action":"run","Package":"p","Test":"TestHang"}
{"Action":"output","Package":"p","Test":"TestHang","Output":"=== RUN   TestHang\n"}`,
			"has no outcome",
		},
		"non-JSON lines around": {
			"# example.com/m/d\nd.go:3:1: syntax error\n" + `{"Action":"fail","Package":"example.com/m/d"}`,
			"failed outside its tests",
		},
	} {
		rep, err := Parse([]byte(tt.stream))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !rep.Failed() || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], tt.problem) {
			t.Errorf("%s: Failed %v, Problems %q", name, rep.Failed(), rep.Problems)
		}
	}
}

func TestParseGoTestMalformed(t *testing.T) {
	for name, stream := range map[string]string{
		"truncated object": `{"Action":"pass","Package":"p","Test":"TestA"}` + "\n" + `{"Action":"pa`,
		"no events":        "ok  \texample.com/m\t0.01s\n",
		"wrong types":      `{"Action":1,"Package":"p"}`,
	} {
		if rep, err := Parse([]byte(stream)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %+v, %v", name, rep, err)
		}
	}
}

// TestParseGoTestRepeated checks that a test run twice keeps its worst
// outcome.
func TestParseGoTestRepeated(t *testing.T) {
	rep, err := Parse([]byte(`{"Action":"run","Package":"p","Test":"TestFlaky"}
{"Action":"pass","Package":"p","Test":"TestFlaky"}
{"Action":"run","Package":"p","Test":"TestFlaky"}
{"Action":"fail","Package":"p","Test":"TestFlaky"}
{"Action":"fail","Package":"p"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 1 || rep.Cases[0].Status != Fail || len(rep.Problems) != 0 {
		t.Errorf("report = %+v", rep)
	}
}

// TestParseGoTestBenchmarks checks that a passing run with benchmarks
// (go test -json -bench ., which gives a benchmark a run event and no
// outcome of its own) is a passing run, and a benchmark in a failed
// package is still a problem.
func TestParseGoTestBenchmarks(t *testing.T) {
	stream := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"run","Package":"p","Test":"BenchmarkA"}
{"Action":"output","Package":"p","Test":"BenchmarkA","Output":"BenchmarkA-2 \t 1000\t 1200 ns/op\n"}
{"Action":"pass","Package":"p"}`
	rep, err := Parse([]byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed() || len(rep.Problems) != 0 {
		t.Errorf("a passing run with a benchmark: Failed %v, Problems %q", rep.Failed(), rep.Problems)
	}
	rep, err = Parse([]byte(strings.Replace(stream, `{"Action":"pass","Package":"p"}`, `{"Action":"fail","Package":"p"}`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Failed() {
		t.Error("a failed package with a benchmark cut short reads as passed")
	}
}
