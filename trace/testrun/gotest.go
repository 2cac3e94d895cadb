package testrun

import (
	"slices"
	"strings"
)

// goArgs are go test's arguments: its flags and the packages it tests.
var goArgs = argSpec{
	values: []string{"-run", "-skip", "-count", "-timeout", "-p", "-parallel", "-bench", "-benchtime", "-cpu",
		"-tags", "-coverpkg", "-covermode", "-coverprofile", "-o", "-exec", "-list", "-shuffle", "-vet", "-mod",
		"-ldflags", "-gcflags", "-asmflags", "-fuzz", "-fuzztime", "-outputdir", "-cpuprofile", "-memprofile",
		"-blockprofile", "-mutexprofile", "-trace", "-modfile", "-pkgdir", "-toolexec", "-overlay", "-pgo"},
	pass: with("-race", "-msan", "-asan", "-json", "-cover", "-count", "-timeout", "-p", "-parallel", "-x",
		"-failfast", "-coverpkg", "-covermode", "-coverprofile", "-o", "-shuffle", "-vet", "-mod", "-ldflags",
		"-gcflags", "-asmflags", "-trimpath", "-benchmem", "-cpu", "-outputdir", "-cpuprofile", "-memprofile",
		"-blockprofile", "-mutexprofile", "-trace", "-modfile", "-pkgdir", "-work", "-a", "-buildvcs", "-pgo",
		"-fullpath"),
	all: func(paths []string) bool { return slices.Contains(paths, "./...") || slices.Contains(paths, "all") },
}

func init() {
	register(runner{
		name:   "go",
		cmds:   []string{"go test"},
		noRun:  []string{"-c", "-list", "-n"},
		result: goResult,
		read:   readGo,
		args:   goArgs,
	})
}

// goResult reports the lines of go test strict enough to find a run by
// its output: "ok  \tpkg\t0.12s", "ok  \tpkg\t(cached)", "FAIL\tpkg\t0.2s",
// "FAIL\tpkg [build failed]" and "--- FAIL: TestX (0.00s)".
func goResult(l string) bool {
	if strings.HasPrefix(l, "--- FAIL: ") {
		return true
	}
	if !strings.HasPrefix(l, "ok") && !strings.HasPrefix(l, "FAIL") {
		return false
	}
	f := strings.Fields(l)
	if len(f) < 3 || f[0] != "ok" && f[0] != "FAIL" {
		return false
	}
	return f[2] == "(cached)" || f[2] == "[build" || f[2] == "[setup" || goSeconds(f[2])
}

// goSeconds reports a duration as go test prints it: "0.012s".
func goSeconds(s string) bool {
	_, rest, ok := leadingInt(s)
	if !ok || !strings.HasPrefix(rest, ".") {
		return false
	}
	_, rest, ok = leadingInt(rest[1:])
	return ok && rest == "s"
}

// goCounts is what go test's output shows of its tests and packages.
type goCounts struct {
	passed, subtests, failed, skipped int
	ok, okEmpty, noFiles              int    // packages: ok, ok with [no tests to run], [no test files]
	failLine, buildLine, setupLine    string // the first failure, build failure, setup failure
	okLine, passLine, goLine          string
	noFilesLine                       string
	bareFail                          bool // a line "FAIL" alone: it follows any failure, a setup failure too
	counted                           bool
}

// readGo reads go test's output, with -v or without, or -json. Any
// failure is Failed: a test's "--- FAIL", a package's "FAIL", a "panic:",
// a package that does not build ("[build failed]", or "# pkg" followed by
// compiler errors): the code under test that does not compile is a real
// failure. A package whose setup failed ("[setup failed]": go could not
// load it, a module is missing or go.mod is out of date, before anything
// compiled) is NotRun, as are packages with no test files or no test
// matching -run, and go's own errors before any test ("go: cannot find
// main module"). Passed counts top-level "--- PASS" lines, Extra the
// indented ones (subtests), Failed and Skipped the top-level "--- FAIL"
// and "--- SKIP". With -json, Why is made from the event that decided
// ("--- FAIL: TestX", "ok example.com/x"), not quoted from the output.
func readGo(o *output, r *Run) {
	c := goScan(o)
	c.decide(r)
}

func goScan(o *output) goCounts {
	var c goCounts
	header := false // the line before was "# pkg": compiler errors follow
	for _, l := range o.lines {
		if strings.HasPrefix(l, "{") && strings.Contains(l, `"Action":"`) {
			c.json(l)
			continue
		}
		t := strings.TrimLeft(l, " \t")
		indented := len(t) < len(l)
		switch {
		case strings.HasPrefix(t, "--- PASS: "):
			c.counted = true
			if indented {
				c.subtests++
			} else {
				c.passed++
				c.passLine = firstOf(c.passLine, l)
			}
		case strings.HasPrefix(t, "--- FAIL: "):
			c.counted = true
			if !indented {
				c.failed++
				c.failLine = firstOf(c.failLine, l)
			}
		case strings.HasPrefix(t, "--- SKIP: "):
			c.counted = true
			if !indented {
				c.skipped++
			}
		case strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "ok\t"):
			if f := strings.Fields(l); len(f) >= 3 {
				c.ok++
				if strings.Contains(l, "[no tests to run]") {
					c.okEmpty++
				}
				c.okLine = l
			}
		case l == "FAIL":
			c.bareFail = true
		case strings.HasPrefix(l, "FAIL\t") || strings.HasPrefix(l, "FAIL "):
			switch {
			case strings.Contains(l, "[setup failed]"):
				c.setupLine = firstOf(c.setupLine, l)
			case strings.Contains(l, "[build failed]"):
				c.buildLine = firstOf(c.buildLine, l)
			default:
				c.failLine = firstOf(c.failLine, l)
			}
		case strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: "):
			c.failLine = firstOf(c.failLine, l)
		case strings.HasPrefix(l, "?") && strings.Contains(l, "[no test files]"):
			c.noFiles++
			c.noFilesLine = firstOf(c.noFilesLine, l)
		case l == "PASS":
			c.passLine = firstOf(c.passLine, l)
		case header && goCompileError(t) && goSetupError(t):
			c.setupLine = firstOf(c.setupLine, l)
		case header && goCompileError(t):
			c.buildLine = firstOf(c.buildLine, l)
		case strings.HasPrefix(l, "go: ") && !hasPrefixes(l, "go: downloading ", "go: finding ", "go: extracting ") || strings.Contains(l, "no Go files in") || strings.Contains(l, "matched no packages") ||
			strings.HasPrefix(l, "pattern ") && strings.Contains(l, "main module"):
			c.goLine = firstOf(c.goLine, l)
		}
		header = strings.HasPrefix(l, "# ") || header && goCompileError(t)
	}
	return c
}

// goCompileError reports a compiler's error line: "./x.go:12:3: undefined: y".
func goCompileError(t string) bool {
	i := strings.Index(t, ".go:")
	if i < 0 {
		return false
	}
	_, rest, ok := leadingInt(t[i+4:])
	return ok && strings.HasPrefix(rest, ":")
}

// goSetupError reports an error of loading a package, not of compiling
// it: a module that is missing, not downloaded, or not in go.mod.
func goSetupError(t string) bool {
	return containsAny(t, "no required module provides package", "cannot find module", "is not in std",
		"missing go.sum entry", "updates to go.mod needed", "go.mod requires", "cannot find package")
}

// json reads one event of go test -json (or gotestsum's --jsonfile).
func (c *goCounts) json(l string) {
	action := jsonField(l, "Action")
	test := jsonField(l, "Test")
	sub := strings.Contains(test, "/")
	switch action {
	case "pass":
		switch {
		case test == "":
			c.ok++
			c.okLine = "ok " + jsonField(l, "Package")
		case sub:
			c.subtests++
		default:
			c.passed++
		}
		c.counted = c.counted || test != ""
	case "fail":
		switch {
		case test == "":
			c.failLine = firstOf(c.failLine, "FAIL "+jsonField(l, "Package"))
		case !sub:
			c.failed++
			c.failLine = firstOf(c.failLine, "--- FAIL: "+test)
		}
		c.counted = c.counted || test != ""
	case "skip":
		switch {
		case test == "":
			c.noFiles++
			c.noFilesLine = firstOf(c.noFilesLine, "? "+jsonField(l, "Package")+" [no test files]")
		case !sub:
			c.skipped++
			c.counted = true
		}
	}
}

// jsonField returns the string value of a field of a one-line JSON
// object, or "" (no escapes are read: go test's names have none).
func jsonField(l, name string) string {
	_, v, ok := strings.Cut(l, `"`+name+`":"`)
	if !ok {
		return ""
	}
	v, _, _ = strings.Cut(v, `"`)
	return v
}

func (c goCounts) decide(r *Run) {
	if c.counted {
		r.set(c.passed, c.failed, 0, c.skipped)
		if c.subtests > 0 {
			r.Extra, r.ExtraWhat = c.subtests, "subtests"
		}
	}
	switch {
	case c.failed > 0 || c.failLine != "":
		r.Status, r.Why = Failed, firstOf(c.failLine, c.buildLine)
	case c.buildLine != "":
		r.Status, r.Why = Failed, c.buildLine
	case c.setupLine != "":
		r.Status, r.Why = NotRun, c.setupLine
	case c.bareFail && c.ok == 0:
		r.Status, r.Why = Failed, "FAIL"
	case c.ok > c.okEmpty || c.passed > 0 || c.passLine != "":
		r.Status, r.Why = Passed, firstOf(c.okLine, c.passLine)
	case c.ok > 0:
		r.Status, r.Why = NotRun, c.okLine
	case c.noFiles > 0:
		r.Status, r.Why = NotRun, c.noFilesLine
	case c.goLine != "":
		r.Status, r.Why = NotRun, c.goLine
	}
}
