package claims

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/trace"
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

// mswe is a mini-swe-agent shell call: its output states the exit status.
func mswe(cmd string, code int, out string) vouch.TraceEntry {
	b, _ := json.Marshal(fmt.Sprintf("<returncode>%d</returncode>\n<output>\n%s\n</output>", code, out))
	return vouch.TraceEntry{Tool: "shell:exec", Input: map[string]any{"command": cmd}, Output: b, IsError: code != 0}
}

// xarrayRun is pydata__xarray-4629 reduced to its calls: the fix (call 4)
// is tested (calls 5 to 11), reverted (call 12) to show a test failure was
// there before (call 13), and applied again (call 14) with nothing run
// after. fix14 is the command of call 14.
func xarrayRun(fix14 string) []vouch.TraceEntry {
	const (
		fix    = `sed -i '504s/return variable_attrs\[0\]/return dict(variable_attrs[0])/' xarray/core/merge.py`
		revert = `sed -i '504s/return dict(variable_attrs\[0\])/return variable_attrs[0]/' xarray/core/merge.py`
	)
	if fix14 == "" {
		fix14 = fix
	}
	return []vouch.TraceEntry{
		mswe("ls -la", 0, "total 140\ndrwxrwxrwx 1 root root 4096 Oct 24 2024 xarray"),
		mswe("cat <<'EOF' > reproduce_issue.py\nimport xarray as xr\nxds1 = xr.Dataset(attrs={'a':'b'})\nxds3 = xr.merge([xds1], combine_attrs='override')\nxds3.attrs['a'] = 'd'\nprint('ISSUE REPRODUCED' if xds1.a == 'd' else 'ISSUE NOT REPRODUCED')\nEOF", 0, ""),
		mswe("python reproduce_issue.py", 0, "ISSUE REPRODUCED: xds1.attrs['a'] changed to 'd'"),
		mswe("nl -ba xarray/core/merge.py | sed -n '490,520p'", 0, "   504\t        return variable_attrs[0]"),
		mswe(fix, 0, ""),
		mswe("python reproduce_issue.py", 0, "ISSUE NOT REPRODUCED: xds1.attrs['a'] remained 'b'"),
		mswe("nl -ba xarray/core/merge.py | sed -n '495,530p'", 0, "   504\t        return dict(variable_attrs[0])"),
		mswe("cat <<'EOF' > test_fix.py\nimport xarray as xr\ndef test_merge_override_copy():\n    pass\nEOF", 0, ""),
		mswe("python test_fix.py", 0, "test_merge_override_copy passed"),
		mswe(`find xarray -name "test_*.py" | xargs grep -l "combine_attrs"`, 0, "xarray/tests/test_merge.py"),
		mswe("pytest xarray/tests/test_merge.py", 0, "xarray/tests/test_merge.py ......   [100%]\n32 passed in 1.2s"),
		mswe("pytest xarray/tests/test_combine.py xarray/tests/test_concat.py", 1, "FAILED xarray/tests/test_combine.py::test_combine_by_coords_raises_for_differing_calendars\n1 failed, 119 passed"),
		mswe(revert, 0, ""),
		mswe("pytest xarray/tests/test_combine.py", 1, "FAILED xarray/tests/test_combine.py::test_combine_by_coords_raises_for_differing_calendars\n1 failed, 73 passed"),
		mswe(fix14, 0, ""),
		mswe("nl -ba xarray/core/merge.py | sed -n '495,525p'", 0, "   504\t        return dict(variable_attrs[0])"),
		mswe("rm reproduce_issue.py test_fix.py", 0, ""),
		mswe("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached", 0, "diff --git a/xarray/core/merge.py b/xarray/core/merge.py"),
	}
}

// TestRunClaimsByContent holds "verified the fix" against what the runs
// ran, not only against the order of the calls: writes after the last run
// that undo each other leave it standing; a real change after it fails.
func TestRunClaimsByContent(t *testing.T) {
	const said = "I am confident in my solution. I have reproduced the issue, fixed it, verified the fix, and checked for regressions."
	const merge = "xarray/core/merge.py"
	with := func(tr []vouch.TraceEntry, at int, e ...vouch.TraceEntry) []vouch.TraceEntry {
		out := append([]vouch.TraceEntry{}, tr[:at]...)
		out = append(out, e...)
		return append(out, tr[at:]...)
	}
	replace := func(tr []vouch.TraceEntry, at int, e vouch.TraceEntry) []vouch.TraceEntry {
		tr[at] = e
		return tr
	}
	for _, tt := range []struct {
		name  string
		trace []vouch.TraceEntry
		want  string
		undo  int // the run the pass rests on, when not -1
	}{
		{"pydata__xarray-4629: the fix re-applied as it was tested", xarrayRun(""), "pass", 11},
		{"another fix applied after the last run", xarrayRun(`sed -i '504s/return variable_attrs\[0\]/return variable_attrs[0].copy()/' xarray/core/merge.py`), "fail:VERIFY_NOT_RUN", -1},
		{"the fix applied again, then a real change", with(xarrayRun(""), 15, mswe(`sed -i 's/combine_attrs == "drop"/combine_attrs in ("drop", "none")/' xarray/core/merge.py`, 0, "")), "fail:VERIFY_NOT_RUN", -1},
		{"reverted by a script vouch cannot replay", replace(xarrayRun(""), 12,
			mswe("python - <<'EOF'\np = 'xarray/core/merge.py'\ns = open(p).read()\nopen(p, 'w').write(s.replace('dict(variable_attrs[0])', 'variable_attrs[0]'))\nEOF", 0, "")),
			"undecided:VERIFY_NOT_RUN", -1},
		{"reverted with git checkout, fixed again with the same sed", replace(xarrayRun(""), 12, mswe("git checkout "+merge, 0, "Updated 1 path from the index")), "pass", 11},
		{"stashed to try another fix on the base, then popped", append(xarrayRun("")[:11],
			mswe("git stash", 0, "Saved working directory and index state WIP on main"),
			mswe(`sed -i '504s/return variable_attrs\[0\]/return variable_attrs[0].copy()/' xarray/core/merge.py`, 0, ""),
			mswe("pytest xarray/tests/test_combine.py", 1, "1 failed, 73 passed"),
			mswe("git checkout "+merge+" && git stash pop", 0, "modified:   xarray/core/merge.py")), "pass", 10},
		{"a backup copied back", append(xarrayRun("")[:11],
			mswe("cp xarray/core/merge.py /tmp/merge.py.bak && git checkout xarray/core/merge.py", 0, ""),
			mswe("pytest xarray/tests/test_combine.py", 1, "1 failed, 73 passed"),
			mswe("mv /tmp/merge.py.bak xarray/core/merge.py", 0, "")), "pass", 10},
		{"a backup copy made after the last run", append(xarrayRun("")[:11],
			mswe("cp xarray/core/merge.py xarray/core/merge.py.orig", 0, "")), "pass", -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pol := vouch.DefaultPolicy()
			s := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{Summary: said}, Trace: tt.trace}, Policy: &pol}
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
				if tt.undo >= 0 && c.Evidence["undoneAfter"] != tt.undo {
					t.Errorf("undoneAfter = %v, want %d (%s)", c.Evidence["undoneAfter"], tt.undo, c.Reason)
				}
				t.Log(c.Reason)
			}
			if s := strings.Join(got, " "); s != tt.want {
				t.Errorf("got %q, want %q (%+v)", s, tt.want, f.Checks)
			}
		})
	}
}

// BenchmarkRunClaimsByContent verifies "verified the fix" on a trace of
// about 0.5 MB: 3,000 calls that edit 300 files with sed, run, revert and
// apply again, with nothing run after the last change, so that every
// recent run is compared file by file.
func BenchmarkRunClaimsByContent(b *testing.B) {
	var tr []vouch.TraceEntry
	for i := 0; len(tr) < 3000; i++ {
		f := fmt.Sprintf("pkg%d/mod%d.py", i%10, i%300)
		fix := fmt.Sprintf(`sed -i '%ds/return x\[%d\]/return list(x[%d])/' %s`, i+1, i, i, f)
		tr = append(tr,
			mswe(fix, 0, ""),
			mswe("python -m pytest -q tests/", 0, strings.Repeat("tests/test_mod.py ....\n", 6)+"24 passed"),
			mswe(fmt.Sprintf(`sed -i '%ds/return list(x\[%d\])/return x[%d]/' %s`, i+1, i, i, f), 0, ""),
			mswe("python -m pytest -q tests/", 1, "1 failed, 23 passed"),
			mswe(fix, 0, ""),
		)
	}
	size := 0
	for _, e := range tr {
		size += len(e.Output) + len(trace.Command(e.Input))
	}
	pol := vouch.DefaultPolicy()
	b.ReportAllocs()
	for b.Loop() {
		s := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{Summary: "I fixed it and verified the fix."}, Trace: tr}, Policy: &pol}
		var f vouch.Findings
		if err := (runsAnalyzer{}).Analyze(context.Background(), s, &f); err != nil {
			b.Fatal(err)
		}
		if len(f.Checks) != 1 || f.Checks[0].Status != vouch.StatusPass {
			b.Fatalf("checks = %+v", f.Checks)
		}
	}
	b.ReportMetric(float64(size), "trace-bytes")
}
