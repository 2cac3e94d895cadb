package trace

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

// sh is a shell call of a mini-swe-agent trace with its exit status.
func sh(cmd string, code int) vouch.TraceEntry {
	out, _ := json.Marshal(fmt.Sprintf("<returncode>%d</returncode>\n<output>\n</output>", code))
	return vouch.TraceEntry{Tool: "shell:exec", Input: map[string]any{"command": cmd}, Output: out, IsError: code != 0}
}

// shOut is a shell call with an output.
func shOut(cmd, output string) vouch.TraceEntry {
	e := sh(cmd, 0)
	e.Output, _ = json.Marshal(fmt.Sprintf("<returncode>0</returncode>\n<output>\n%s\n</output>", output))
	return e
}

// tool is a call of an editor tool.
func tool(name string, kv ...any) vouch.TraceEntry {
	in := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		in[kv[i].(string)] = kv[i+1]
	}
	return vouch.TraceEntry{Tool: name, Input: in, Output: []byte(`"ok"`)}
}

const (
	fix    = `sed -i '504s/return variable_attrs\[0\]/return dict(variable_attrs[0])/' xarray/core/merge.py`
	revert = `sed -i '504s/return dict(variable_attrs\[0\])/return variable_attrs[0]/' xarray/core/merge.py`
	run    = "python -m pytest xarray/tests/test_merge.py"
	merge  = "xarray/core/merge.py"
)

func TestVersionsCompare(t *testing.T) {
	type probe struct {
		file  string
		after int
		want  Sameness
		call  int // the call Compare names; -2: any
	}
	for _, tt := range []struct {
		name   string
		trace  []vouch.TraceEntry
		probes []probe
	}{
		{"an inverse sed pops the fix; the same sed again gives it back", []vouch.TraceEntry{
			sh(fix, 0), sh(run, 0), sh(revert, 0), sh(run, 1), sh(fix, 0),
		}, []probe{
			{merge, 1, SameContent, -1},
			{merge, 3, ChangedContent, 4},
			{merge, -1, ChangedContent, 4},
			{"./xarray/core/merge.py", 1, SameContent, -1},
			{"xarray/core/other.py", 1, SameContent, -1},
		}},
		{"a sed that is not the inverse pushes", []vouch.TraceEntry{
			sh(fix, 0), sh(run, 0), sh(`sed -i '504s/return dict(variable_attrs\[0\])/return variable_attrs[0].copy()/' xarray/core/merge.py`, 0),
		}, []probe{{merge, 1, ChangedContent, 2}}},
		{"the same address matters", []vouch.TraceEntry{
			sh(fix, 0), sh(run, 0), sh(`sed -i '505s/return dict(variable_attrs\[0\])/return variable_attrs[0]/' xarray/core/merge.py`, 0),
		}, []probe{{merge, -1, ChangedContent, 2}}},
		{"two substitutions in one script, undone in reverse order", []vouch.TraceEntry{
			sh("sed -i -e 's/a = 1/a = 2/' -e 's/b = 1/b = 2/' m.py", 0), sh(run, 0),
			sh("sed -i 's/b = 2/b = 1/; s/a = 2/a = 1/' m.py", 0),
		}, []probe{{"m.py", -1, SameContent, -1}, {"m.py", 1, ChangedContent, 2}}},
		{"the same sed twice, then its inverse: back to the start", []vouch.TraceEntry{
			sh(run, 1), sh(fix, 0), sh(run, 0), sh(fix, 0), sh(revert, 0),
		}, []probe{{merge, 0, SameContent, -1}, {merge, 2, ChangedContent, 4}}},
		{"a replacement whose new text holds the old is made again", []vouch.TraceEntry{
			sh("sed -i 's/foo/foo_bar/' m.py", 0), sh(run, 0), sh("sed -i 's/foo/foo_bar/' m.py", 0), sh("sed -i 's/foo_bar/foo/' m.py", 0),
		}, []probe{{"m.py", 1, SameContent, -1}}},
		{"the same full content twice is the same version", []vouch.TraceEntry{
			tool("Write", "file_path", "a.py", "content", "x = 1\n"), sh(run, 0),
			tool("Write", "file_path", "a.py", "content", "x = 2\n"), sh(run, 1),
			sh("cat > a.py <<'EOF'\nx = 1\nEOF", 0),
		}, []probe{{"a.py", 1, SameContent, -1}, {"a.py", 3, ChangedContent, 4}}},
		{"a here-document that expands is not content", []vouch.TraceEntry{
			sh("cat > a.py <<EOF\nx = $X\nEOF", 0), sh(run, 0), sh("cat > a.py <<EOF\nx = $X\nEOF", 0),
		}, []probe{{"a.py", 1, ChangedContent, 2}}},
		{"echo and printf write what they print", []vouch.TraceEntry{
			sh("echo 'x = 1' > a.py", 0), sh(run, 0), sh("echo x = 2 > a.py", 0), sh("printf 'x = 1\n' > a.py", 0),
		}, []probe{{"a.py", 1, SameContent, -1}}},
		{"an edit vouch cannot replay leaves a revert unknown", []vouch.TraceEntry{
			sh(fix, 0), sh(run, 0),
			sh("python - <<'EOF'\nimport re\np = 'xarray/core/merge.py'\ns = open(p).read()\nopen(p, 'w').write(re.sub('dict\\((.*)\\)', r'\\1', s))\nEOF", 0),
			sh(fix, 0),
		}, []probe{{merge, 1, UnknownContent, 2}}},
		{"one write vouch cannot replay is still a change", []vouch.TraceEntry{
			sh(fix, 0), sh(run, 0),
			sh("python3 -c \"p='xarray/core/merge.py'; s=open(p).read(); open(p,'w').write(s + '\\n')\"", 0),
		}, []probe{{merge, 1, ChangedContent, 2}}},
		{"a write in a failed call may not have happened", []vouch.TraceEntry{
			sh(fix, 0), sh(run, 0), sh(fix+" && python repro.py", 1),
		}, []probe{{merge, 1, UnknownContent, 2}}},
		{"git checkout gives back the start", []vouch.TraceEntry{
			sh(run, 1), sh(fix, 0), sh(run, 0), sh("git checkout -- xarray/core/merge.py", 0),
		}, []probe{{merge, 0, SameContent, -1}, {merge, 2, ChangedContent, 3}}},
		{"git checkout . and git restore do too", []vouch.TraceEntry{
			sh(run, 1), sh(fix, 0), sh("sed -i 's/a/b/' xarray/core/other.py", 0), sh(run, 0), sh("git checkout .", 0), sh("git restore xarray/core/other.py", 0),
		}, []probe{{merge, 0, SameContent, -1}, {"xarray/core/other.py", 0, SameContent, -1}}},
		{"git checkout of a file without a dot: the output names it a path", []vouch.TraceEntry{
			sh(run, 1), sh("sed -i 's/a/b/' Makefile", 0), sh(run, 0), shOut("git checkout Makefile", "Updated 1 path from the index"),
		}, []probe{{"Makefile", 0, SameContent, -1}, {"Makefile", 2, ChangedContent, 3}}},
		{"after git add, checkout gives back the index", []vouch.TraceEntry{
			sh(run, 1), sh(fix, 0), sh("git add -A", 0), sh(fix, 0), sh("git checkout -- xarray/core/merge.py", 0),
		}, []probe{{merge, 0, UnknownContent, -2}}},
		{"a file the trace created may be untracked: checkout is unknown", []vouch.TraceEntry{
			sh(run, 1), tool("Write", "file_path", "new.py", "content", "x\n"), sh("git checkout new.py", 1),
		}, []probe{{"new.py", 0, UnknownContent, -2}}},
		{"git stash and pop", []vouch.TraceEntry{
			sh(fix, 0), sh(run, 0), sh("git stash", 0), sh(run, 1), sh("git stash pop", 0),
		}, []probe{{merge, 1, SameContent, -1}, {merge, 3, ChangedContent, 4}, {merge, -1, ChangedContent, 4}}},
		{"a change between stash and pop is merged: unknown", []vouch.TraceEntry{
			sh(fix, 0), sh(run, 0), sh("git stash", 0), sh("sed -i 's/x/y/' xarray/core/merge.py", 0), sh("git stash pop", 0),
		}, []probe{{merge, 1, UnknownContent, -2}}},
		{"a backup copied back", []vouch.TraceEntry{
			sh(fix, 0), sh(run, 0), sh("cp xarray/core/merge.py /tmp/merge.py.bak && git checkout xarray/core/merge.py", 0),
			sh(run, 1), sh("mv /tmp/merge.py.bak xarray/core/merge.py", 0),
		}, []probe{{merge, 1, SameContent, -1}, {merge, 3, ChangedContent, 4}, {"/tmp/merge.py.bak", 1, ChangedContent, 2}}},
		{"cat of a file into another copies it", []vouch.TraceEntry{
			sh(fix, 0), sh(run, 0), sh("cat xarray/core/merge.py > /tmp/m && git checkout xarray/core/merge.py && cat /tmp/m > xarray/core/merge.py", 0),
		}, []probe{{merge, 1, SameContent, -1}}},
		{"an editor's replacement and its inverse", []vouch.TraceEntry{
			tool("Edit", "file_path", "a.py", "old_string", "f(x)", "new_string", "g(x)"), sh(run, 0),
			tool("str_replace_based_edit_tool", "command", "str_replace", "path", "a.py", "old_str", "g(x)", "new_str", "h(x)"),
			tool("Edit", "file_path", "a.py", "old_string", "h(x)", "new_string", "g(x)"),
		}, []probe{{"a.py", 1, SameContent, -1}, {"a.py", -1, ChangedContent, 3}}},
		{"replace_all is another edit", []vouch.TraceEntry{
			tool("Edit", "file_path", "a.py", "old_string", "f", "new_string", "g"), sh(run, 0),
			tool("Edit", "file_path", "a.py", "old_string", "g", "new_string", "f", "replace_all", true),
		}, []probe{{"a.py", 1, ChangedContent, 2}}},
		{"a failed editor call changes nothing", []vouch.TraceEntry{
			tool("Edit", "file_path", "a.py", "old_string", "f", "new_string", "g"), sh(run, 0),
			func() vouch.TraceEntry {
				e := tool("Edit", "file_path", "a.py", "old_string", "zz", "new_string", "g")
				e.IsError = true
				return e
			}(),
		}, []probe{{"a.py", 1, SameContent, -1}}},
		{"MultiEdit undone edit by edit", []vouch.TraceEntry{
			tool("MultiEdit", "file_path", "a.py", "edits", []any{
				map[string]any{"old_string": "a", "new_string": "b"},
				map[string]any{"old_string": "c", "new_string": "d"},
			}), sh(run, 0),
			tool("Edit", "file_path", "a.py", "old_string", "d", "new_string", "c"),
			tool("Edit", "file_path", "a.py", "old_string", "b", "new_string", "a"),
		}, []probe{{"a.py", -1, SameContent, -1}, {"a.py", 1, ChangedContent, 3}}},
		{"undo_edit gives back the version before", []vouch.TraceEntry{
			tool("str_replace_editor", "command", "str_replace", "path", "a.py", "old_str", "a", "new_str", "b"), sh(run, 0),
			tool("str_replace_editor", "command", "insert", "path", "a.py", "insert_line", 3.0, "new_str", "x\n"),
			tool("str_replace_editor", "command", "undo_edit", "path", "a.py"),
		}, []probe{{"a.py", 1, SameContent, -1}}},
		{"a diff and the same diff reversed", []vouch.TraceEntry{
			sh("git apply <<'EOF'\n--- a/p.go\n+++ b/p.go\n@@ -1,2 +1,2 @@\n x\n-a\n+b\nEOF", 0), sh(run, 0),
			sh("git apply -R <<'EOF'\n--- a/p.go\n+++ b/p.go\n@@ -1,2 +1,2 @@\n x\n-a\n+b\nEOF", 0),
		}, []probe{{"p.go", -1, SameContent, -1}, {"p.go", 1, ChangedContent, 2}}},
		{"a file a diff creates, removed by the diff reversed", []vouch.TraceEntry{
			sh(run, 0), sh("git apply <<'EOF'\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+hi\nEOF", 0), sh(run, 0),
			sh("git apply -R <<'EOF'\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+hi\nEOF", 0),
			sh("cat > n.py <<'EOF'\nhi\nEOF", 0),
		}, []probe{{"n.py", 2, SameContent, -1}, {"n.py", 0, ChangedContent, 4}}},
		{"an apply_patch hunk undone by an edit of the same text", []vouch.TraceEntry{
			tool("apply_patch", "input", "*** Begin Patch\n*** Update File: p.go\n@@\n-a\n+b\n*** End Patch\n"), sh(run, 0),
			tool("Edit", "file_path", "p.go", "old_string", "b\n", "new_string", "a\n"),
		}, []probe{{"p.go", -1, SameContent, -1}}},
		{"a sed with a regular expression is deterministic", []vouch.TraceEntry{
			sh("sed -i 's/return \\(.*\\)/return dict(\\1)/' m.py", 0), sh(run, 0), sh("git checkout m.py", 0), sh(run, 1),
			sh("sed -i 's/return \\(.*\\)/return dict(\\1)/' m.py", 0),
		}, []probe{{"m.py", 1, SameContent, -1}, {"m.py", 3, ChangedContent, 4}}},
		{"two writes vouch does not invert: unknown", []vouch.TraceEntry{
			sh("sed -i '5d' m.py", 0), sh(run, 0), sh("sed -i '4a\\    x = 1' m.py", 0), sh("sed -i 's/y.*/z/' m.py", 0),
		}, []probe{{"m.py", 1, UnknownContent, 2}}},
		{"perl -pi is deterministic", []vouch.TraceEntry{
			sh("perl -pi -e 's/a/b/' m.pl", 0), sh(run, 0), sh("git checkout m.pl && perl -pi -e 's/a/b/' m.pl", 0),
		}, []probe{{"m.pl", 1, SameContent, -1}}},
		{"a sed that writes another file cannot be replayed", []vouch.TraceEntry{
			sh(run, 0), sh("sed -i 's/a/b/w changes.txt' m.py", 0), sh("sed -i 's/b/a/' m.py", 0),
		}, []probe{{"m.py", 0, UnknownContent, 1}}},
		{"a branch switch may change any file", []vouch.TraceEntry{
			sh(fix, 0), sh(run, 0), sh("git checkout main", 0),
		}, []probe{{merge, 1, UnknownContent, 2}, {"never/written.py", 1, UnknownContent, 2}}},
		{"an append is a change, the same append twice the same", []vouch.TraceEntry{
			sh("echo x >> a.txt", 0), sh(run, 0), sh("git checkout a.txt", 0), sh("echo x >> a.txt", 0),
		}, []probe{{"a.txt", 1, SameContent, -1}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sum := Summarize(tt.trace, nil)
			for _, p := range tt.probes {
				got, call := sum.Versions.Compare(p.file, p.after)
				if got != p.want || p.call != -2 && call != p.call {
					t.Errorf("Compare(%q, %d) = %v, %d; want %v, %d", p.file, p.after, got, call, p.want, p.call)
				}
			}
		})
	}
}

func TestVersionsNil(t *testing.T) {
	var v *Versions
	if got, _ := v.Compare("a.py", 3); got != ChangedContent {
		t.Errorf("nil Versions: %v, want changed", got)
	}
	if got := Sameness(0); got != UnknownContent || got.String() != "unknown" {
		t.Errorf("zero Sameness = %v", got)
	}
}

func TestSedEdits(t *testing.T) {
	for _, tt := range []struct {
		script string
		ere    bool
		n      int  // edits; 1 with exact false for the whole script as one edit
		exact  bool // each edit is a literal replacement
		ok     bool
	}{
		{`504s/return variable_attrs\[0\]/return dict(variable_attrs[0])/`, false, 1, true, true},
		{`s/a/b/g; s/c\/d/e/2`, false, 2, true, true},
		{`s|x.y|z|`, false, 1, true, true},
		{`s|x.*y|z|`, false, 1, false, true},
		{`s/a\.b/&c/`, false, 1, false, true},
		{`s/(a)/b/`, false, 1, true, true},
		{`s/(a)/b/`, true, 1, false, true},
		{`s/^def f(/def g(/`, false, 1, true, true},
		{`s/a/b/I`, false, 1, false, true},
		{`/^import/d`, false, 1, false, true},
		{"10a\\\n    x = 1\\\n    y = 2\ns/a/b/", false, 1, false, true},
		{`s/a/b/w out.txt`, false, 0, false, false},
		{`1r other.py`, false, 0, false, false},
		{`s/a/b`, false, 1, false, true},
	} {
		edits, ok := sedEdits(tt.script, tt.ere)
		exact := len(edits) > 0
		for _, e := range edits {
			exact = exact && e.exact
		}
		if ok != tt.ok || len(edits) != tt.n || exact != tt.exact {
			t.Errorf("sedEdits(%q) = %d edits (exact %v), %v; want %d (exact %v), %v", tt.script, len(edits), exact, ok, tt.n, tt.exact, tt.ok)
		}
	}
	// The inverse substitution is the edit that undoes it.
	a, _ := sedEdits(`5s/f(x)/g(x)/`, false)
	b, _ := sedEdits(`5s/g(x)/f(x)/`, false)
	if a[0].inv != b[0].key || b[0].inv != a[0].key {
		t.Error("5s/f(x)/g(x)/ and 5s/g(x)/f(x)/ are not each other's inverse")
	}
}

func TestDiffFiles(t *testing.T) {
	files := diffFiles("diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n--- old\n+new\n c\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+hi\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n")
	if len(files) != 3 {
		t.Fatalf("files = %+v", files)
	}
	if f := files[2]; f.path != "gone.py" || !f.deleted || f.added || len(f.hunks) != 1 || f.hunks[0].old != "bye\n" {
		t.Errorf("gone.py = %+v", f)
	}
	if f := files[0]; f.path != "x.py" || len(f.hunks) != 1 || f.hunks[0].old != "a\n-- old\nc\n" || f.hunks[0].new != "a\nnew\nc\n" {
		t.Errorf("x.py = %+v", f)
	}
	if f := files[1]; f.path != "n.py" || !f.added || len(f.hunks) != 1 || f.hunks[0].new != "hi\n" {
		t.Errorf("n.py = %+v", f)
	}
}

func FuzzParseShell(f *testing.F) {
	for _, s := range []string{fix, "cat <<'EOF' > a\nx\nEOF", "a $(b 'c)' \"d\\\"\" `e` <(f) 2>&1 | g && h || i &", "python - <<EOF\nopen('a','w')\nEOF", "sed -i -e 's/a/b/' -f x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		stages := parseShell(cmd)
		v := newVersions()
		v.shellCall(0, stages, shellWrites(stages, ""), false, "")
		for _, st := range stages {
			for _, a := range st.args {
				if len(a.s) > len(cmd) {
					t.Fatalf("word %q longer than the command", a.s)
				}
			}
		}
	})
}

// BenchmarkVersions summarizes a long mini-swe-agent style trace: 2,000
// calls that edit with sed and here-documents, revert, stash and run.
func BenchmarkVersions(b *testing.B) {
	var entries []vouch.TraceEntry
	for i := 0; len(entries) < 2000; i++ {
		f := fmt.Sprintf("pkg%d/mod%d.py", i%7, i%13)
		entries = append(entries,
			sh(fmt.Sprintf("sed -i '%ds/return x\\[%d\\]/return list(x[%d])/' %s", i, i, i, f), 0),
			sh("cat <<'EOF' > repro.py\n"+strings.Repeat("print('checking the fix')\n", 40)+"EOF", 0),
			sh("python repro.py && python -m pytest -q tests/", 0),
			sh(fmt.Sprintf("sed -i '%ds/return list(x\\[%d\\])/return x[%d]/' %s", i, i, i, f), 0),
			sh("git stash && python -m pytest -q tests/; git stash pop", 0),
		)
	}
	b.ReportAllocs()
	for b.Loop() {
		s := Summarize(entries, nil)
		for _, w := range s.Writes {
			_, _ = s.Versions.Compare(w.Path, len(entries)/2)
		}
	}
}
