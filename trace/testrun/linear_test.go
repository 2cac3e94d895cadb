package testrun

import (
	"strings"
	"testing"
	"time"
)

// TestLinear reads adversarial lines and outputs of about 1 MB: each must
// read in linear time (here, well under two seconds, even with -race).
func TestLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	lines := map[string]string{
		"ands":      strings.Repeat("a && ", 13000),
		"pipes":     strings.Repeat("pytest|", 9000),
		"heredocs":  strings.Repeat("cat <<EOF\n", 6000),
		"heredocs2": strings.Repeat("x <<<<<<<<<<<<<<<<<<<<<<<", 3000),
		"quotes":    strings.Repeat("\"a b' ", 10000),
		"parens":    strings.Repeat("(go test ./...) ", 4000),
		"words":     "pytest " + strings.Repeat("-k x ", 12000),
		"shc":       strings.Repeat("bash -c 'pytest && ", 3000),
		"amp":       strings.Repeat("&&&", 20000),
		"mixed":     strings.Repeat("a&&b||c|d;e\n", 5000),
	}
	outs := map[string]string{
		"oneline":  strings.Repeat("x", 1<<20),
		"digits":   strings.Repeat("1 passed, ", 100000),
		"ranlines": strings.Repeat("Ran 5 tests in 0.1s\n", 40000),
		"fails":    strings.Repeat("FAIL: test_x (m.C)\n", 40000),
		"make":     strings.Repeat("go test ./... && pytest\n", 40000),
		"npm":      strings.Repeat("> jest\n", 100000),
		"junit":    strings.Repeat("<testsuite tests=\"1\" ", 40000),
		"tox":      strings.Repeat("py: commands[0]> pytest tests\n", 30000),
		"esc":      strings.Repeat("\x1b[31m", 160000),
		"cr":       strings.Repeat("a\rb\r", 200000),
	}
	for name, l := range lines {
		start := time.Now()
		Read(l, exit(1), false, "ok\n")
		Command(l)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("line %s: %v", name, d)
		}
	}
	for name, o := range outs {
		for _, cmd := range []string{"make test", "npm test", "tox", "python x.py", "junit", "pytest"} {
			start := time.Now()
			Read(cmd, exit(1), false, o)
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("output %s, %s: %v", name, cmd, d)
			}
		}
	}
}
