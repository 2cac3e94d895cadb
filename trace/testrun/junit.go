package testrun

import (
	"strconv"
	"strings"
)

func init() {
	register(runner{
		// A JUnit XML report read as a run (package pr): whatever ran the
		// tests, the report is its outcome. Its "command" is the word
		// "junit" and its output the report.
		name: "junit",
		cmds: []string{"junit"},
		read: readJUnit,
	})
}

// readJUnit reads the counts of a JUnit XML report: the attributes of
// its <testsuites> element, or the sums of its <testsuite> elements'
// (tests, failures, errors, skipped). Failures or errors are Failed, no
// test is NotRun.
func readJUnit(o *output, r *Run) {
	var root, sum tally
	seen := false
	for _, l := range o.lines {
		for s := l; ; {
			i := strings.Index(s, "<testsuite")
			if i < 0 {
				break
			}
			s = s[i+len("<testsuite"):]
			suites := strings.HasPrefix(s, "s")
			s = strings.TrimPrefix(s, "s")
			if s == "" || s[0] != ' ' && s[0] != '>' && s[0] != '\t' {
				continue
			}
			tag, _, _ := strings.Cut(s, ">")
			t := junitAttrs(tag)
			if _, ok := t["tests"]; !ok {
				continue
			}
			if suites && root == nil {
				root = t
			} else if !suites {
				if sum == nil {
					sum = tally{}
				}
				for k, v := range t {
					sum[k] += v
				}
			}
			seen = true
		}
	}
	if !seen {
		readDigest(o, r)
		return
	}
	t := sum
	if root != nil {
		t = root
	}
	skipped := t["skipped"] + t["skip"] + t["disabled"]
	r.set(t["tests"]-t["failures"]-t["errors"]-skipped, t["failures"], t["errors"], skipped)
	r.Why = "tests=" + strconv.Itoa(t["tests"]) + " failures=" + strconv.Itoa(t["failures"]) + " errors=" + strconv.Itoa(t["errors"]) + " skipped=" + strconv.Itoa(skipped)
	switch {
	case t["failures"]+t["errors"] > 0:
		r.Status = Failed
	case r.Passed == 0:
		r.Status = NotRun
	default:
		r.Status = Passed
	}
}

// readDigest reads the digest of JUnit reports that package pr writes as
// the run's output: its last line "N passed, M failed, K skipped".
func readDigest(o *output, r *Run) {
	for i := len(o.lines) - 1; i >= 0; i-- {
		p, rest, ok := leadingInt(strings.TrimSpace(o.lines[i]))
		if !ok || !strings.HasPrefix(rest, " passed, ") {
			continue
		}
		f, rest, ok := leadingInt(strings.TrimPrefix(rest, " passed, "))
		if !ok || !strings.HasPrefix(rest, " failed, ") {
			continue
		}
		k, rest, ok := leadingInt(strings.TrimPrefix(rest, " failed, "))
		if !ok || !strings.HasPrefix(rest, " skipped") {
			continue
		}
		r.set(p, f, 0, k)
		r.Why = strings.TrimSpace(o.lines[i])
		switch {
		case f > 0:
			r.Status = Failed
		case p == 0:
			r.Status = NotRun
		default:
			r.Status = Passed
		}
		return
	}
}

// junitAttrs reads the counting attributes of a tag's text: tests="10"
// failures="1".
func junitAttrs(tag string) tally {
	t := tally{}
	for _, k := range []string{"tests", "failures", "errors", "skipped", "skip", "disabled"} {
		for _, q := range []string{`"`, `'`} {
			_, v, ok := strings.Cut(" "+tag, " "+k+"="+q)
			if !ok {
				continue
			}
			v, _, _ = strings.Cut(v, q)
			if n, ok := atoi(v); ok {
				t[k] = n
			}
		}
	}
	return t
}
