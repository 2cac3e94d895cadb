package trace

import (
	"slices"
	"testing"
)

func TestShellWrites(t *testing.T) {
	for _, tt := range []struct {
		cmd, out string
		want     []string
	}{
		{"sed -i 's/old name/new/' src/a.py src/b.py", "", []string{"src/a.py", "src/b.py"}},
		{"sed -i.bak -e 's/a/b/' conf.ini", "", []string{"conf.ini"}},
		{"sed 's/a/b/' in.txt > out.txt", "", []string{"out.txt"}},
		{"sed -n '1,5p' a.py", "", nil},
		{"cat > src/fix.py <<'EOF'\nimport os\nprint(1 > 0)\nEOF", "", []string{"src/fix.py"}},
		{"cat <<EOF >> notes.md\nx\nEOF\npython -m pytest", "", []string{"notes.md"}},
		{"go test ./... 2>&1 | tee test.log", "", []string{"test.log"}},
		{"make build > /dev/null 2>&1", "", nil},
		{"echo 'a > b' && echo x >out.txt", "", []string{"out.txt"}},
		{"git apply <<'EOF'\n--- a/pkg/x.go\n+++ b/pkg/x.go\n@@ -1 +1 @@\n-a\n+b\nEOF", "", []string{"pkg/x.go"}},
		{"patch -p1 < fix.diff", "patching file src/app.py\npatching file 'README.md'\n", []string{"src/app.py", "README.md"}},
		{"python -c 'open(\"x\",\"w\")' > $OUT", "", []string{"x"}},
		{"echo hi > $OUT; cat a > ~/b; cp f{,.bak}", "", nil},
		{"grep -r foo . | head", "", nil},
		// Quotes, escapes and comments.
		{`sed -i "30a\\    f\"argument: 'name'\"" django/db/constraints.py`, "", []string{"django/db/constraints.py"}},
		{"sed -i -e 's/a/b/g' \\\n   -e 's/c/d/' tests/test_x.py", "", []string{"tests/test_x.py"}},
		{"# don't > touch\nsed -i 's/a/b/' a.py # it's > fine", "", []string{"a.py"}},
		{"sed -i 's/a/b/' 'my file.py'", "", []string{"my file.py"}},
		{"sed -i 's/x/y/' \"$F\" src/*.py", "", nil},
		{"python -c 'print(1 > 0)'", "", nil},
		// Interpreters and tools that edit in place.
		{"perl -pi -e 's/foo/bar/g' lib/a.pm lib/b.pm", "", []string{"lib/a.pm", "lib/b.pm"}},
		{"perl -i.bak -pe 's/a/b/' x.pl", "", []string{"x.pl"}},
		{"perl -ne 'print if /a/' x.pl", "", nil},
		{"python - <<'EOF'\nfrom pathlib import Path\np = Path('src/app.py')\ns = p.read_text()\np.write_text(s.replace('a', 'b'))\nEOF", "", []string{"src/app.py"}},
		{"python3 -c \"\npath = 'pkg/mod.py'\nwith open(path, 'r') as f:\n    s = f.read()\nwith open(path, 'w') as f:\n    f.write(s)\n\"", "", []string{"pkg/mod.py"}},
		{"python3 <<EOF\nopen('out.txt', mode='a').write('x')\nopen('in.txt').read()\nEOF", "", []string{"out.txt"}},
		{"python3 -c \"import shutil; shutil.copy('a.py', 'b.py')\"", "", []string{"b.py"}},
		{"python fix.py", "", nil},
		{"ed -s src/m.py <<EOF\n5a\nx = 1\n.\nw\nq\nEOF", "", []string{"src/m.py"}},
		{"ed -s src/m.py <<EOF\n,p\nq\nEOF", "", nil},
		// Copies, moves and restores.
		{"cp a.py a.py.bak && mv b.new b.py", "", []string{"a.py.bak", "b.py"}},
		{"cp -t dest/ x.py y.py; mv z.py out/", "", []string{"dest/x.py", "dest/y.py", "out/z.py"}},
		{"cp -r src/ backup", "", nil},
		{"git checkout -- a.py b.py && git restore c.py", "", []string{"a.py", "b.py", "c.py"}},
		{"git checkout src/app.py", "", []string{"src/app.py"}},
		{"git checkout HEAD~1 -- src/app.py", "", []string{"src/app.py"}},
		{"git checkout main", "", nil},
		{"git checkout -b fix", "", nil},
		{"git restore --staged a.py", "", nil},
		{"git checkout .", "", nil},
		{"git stash && pytest; git stash pop", "", nil},
		// Patches.
		{"git apply --check <<'EOF'\n--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\nEOF", "", nil},
		{"patch -p1 <<'EOF'\n--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,2 @@\n--- a/y.go\n+b\n c\nEOF", "", []string{"x.go"}},
		{"cat <<'EOF' | python3 -c 'print(\"<<x\")'\nhi\nEOF\necho done > log.md", "", []string{"log.md"}},
	} {
		if got := ShellWrites(tt.cmd, tt.out); !slices.Equal(got, tt.want) {
			t.Errorf("%q: %q, want %q", tt.cmd, got, tt.want)
		}
	}
}
