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
		{"python -c 'open(\"x\",\"w\")' > $OUT", "", nil},
		{"grep -r foo . | head", "", nil},
	} {
		if got := ShellWrites(tt.cmd, tt.out); !slices.Equal(got, tt.want) {
			t.Errorf("%q: %q, want %q", tt.cmd, got, tt.want)
		}
	}
}
