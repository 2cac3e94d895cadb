package claims

import (
	"context"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

func TestRunClaimsChecked(t *testing.T) {
	edit := func(file string) vouch.TraceEntry {
		return vouch.TraceEntry{Tool: "Edit", Input: map[string]any{"file_path": file, "old_string": "a", "new_string": "b"}, Output: []byte(`"The file has been updated."`)}
	}
	sedFix := bash("sed -i 's/int(x)/float(x)/' src/conv.py", "", false)
	repro := bash("python repro.py", "Traceback (most recent call last):\n  File \"repro.py\", line 3\nValueError: n must be positive", true)
	reproType := bash("python repro.py", "Exit code 1\nTraceback (most recent call last):\n  File \"repro.py\", line 3\nTypeError: unsupported operand type(s)", true)
	reproOK := bash("python repro.py", "42", false)
	diff := bash("git diff && git status", "diff --git a/src/conv.py b/src/conv.py", false)
	task := vouch.TraceEntry{Tool: "Task", Input: map[string]any{"description": "run the repro", "prompt": "run it"}, Output: []byte(`"done"`)}
	for _, tt := range []struct {
		name    string
		summary string
		trace   []vouch.TraceEntry
		want    string
	}{
		{"outcome printed after the fix", "Fixed it; the script now raises a clear `ValueError: n must be positive`.", []vouch.TraceEntry{reproType, sedFix, repro}, "pass"},
		{"outcome contradicted", "I verified it: it now raises a clear ValueError.", []vouch.TraceEntry{reproType, sedFix, reproType}, "fail:VERIFY_CONTRADICTED"},
		{"nothing ran after the edit", "Tested the fix with repro.py and it now prints 42.", []vouch.TraceEntry{reproOK, edit("src/conv.py"), diff}, "fail:VERIFY_NOT_RUN"},
		{"never ran at all", "I've verified that the fix works.", []vouch.TraceEntry{edit("src/conv.py")}, "fail:VERIFY_NOT_RUN"},
		{"ran after the edit", "I've verified that the fix works.", []vouch.TraceEntry{edit("src/conv.py"), reproOK}, "pass"},
		{"a doc edit after the run", "Tested the change: it now prints 42.", []vouch.TraceEntry{sedFix, reproOK, edit("README.md")}, "pass"},
		{"delegated after the edit", "Verified the fix works.", []vouch.TraceEntry{edit("src/conv.py"), task}, "undecided:VERIFY_NOT_RUN"},
		{"outcome neither shown nor contradicted", "It now returns `None` for empty input.", []vouch.TraceEntry{edit("src/conv.py"), reproOK}, ""},
		{"a run that writes its log", "Tested it: the script now prints 42.", []vouch.TraceEntry{edit("src/conv.py"), bash("python repro.py | tee /tmp/run.out", "42", false)}, "pass"},
		{"an in-place sed after the run", "I've verified that the fix works.", []vouch.TraceEntry{reproOK, sedFix}, "fail:VERIFY_NOT_RUN"},
		{"no run claim", "Fixed the conversion in src/conv.py.", []vouch.TraceEntry{edit("src/conv.py")}, ""},
		{"intent only", "Let me verify the fix works.", []vouch.TraceEntry{edit("src/conv.py")}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pol := vouch.DefaultPolicy()
			s := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{Summary: tt.summary}, Trace: tt.trace}, Policy: &pol}
			var f vouch.Findings
			if err := (runsAnalyzer{}).Analyze(context.Background(), s, &f); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range f.Checks {
				g := string(c.Status)
				if c.Code != "" {
					g += ":" + c.Code
				}
				got = append(got, g)
				if c.Status == vouch.StatusFail && (len(c.Fix) == 0 || c.Confidence != 1) {
					t.Errorf("fail without a fix or confidence: %+v", c)
				}
			}
			if s := strings.Join(got, " "); s != tt.want {
				t.Errorf("got %q, want %q (%+v)", s, tt.want, f.Checks)
			}
		})
	}
}
