package git

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseHunk(t *testing.T) {
	cases := []struct {
		line string
		want Hunk
		bad  bool
	}{
		{line: "@@ -3,2 +3,2 @@", want: Hunk{3, 4}},
		{line: "@@ -3 +3 @@ func main() {", want: Hunk{3, 3}},
		{line: "@@ -0,0 +1,12 @@", want: Hunk{1, 12}},
		{line: "@@ -4,2 +3,0 @@ line 3", want: Hunk{4, 3}}, // deleted after line 3
		{line: "@@ -1,2 +0,0 @@", want: Hunk{1, 0}},        // deleted at the top
		{line: "@@ -10 +12,3 @@", want: Hunk{12, 14}},
		{line: "@@ -1 +1", bad: true},
		{line: "@@ -1 +x,2 @@", bad: true},
		{line: "@@ -1 +1,-2 @@", bad: true},
		{line: "@@ -1 +0,2 @@", bad: true}, // lines start at 1
		{line: "@@@ -1 -1 +1 @@@", bad: true},
	}
	for _, tc := range cases {
		got, err := parseHunk(tc.line)
		if tc.bad {
			if !errors.Is(err, errMalformed) {
				t.Errorf("parseHunk(%q) = %v, %v; want an error", tc.line, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseHunk(%q) = %v, %v; want %v", tc.line, got, err, tc.want)
		}
	}
}

func TestQuoteTwo(t *testing.T) {
	cases := map[string]string{
		"plain.go":          "a/plain.go",
		"with space.txt":    "a/with space.txt",
		"ünïcödé.txt":       "a/ünïcödé.txt",
		"new\nline":         `"a/new\nline"`,
		"tab\there":         `"a/tab\there"`,
		`quo"te\back`:       `"a/quo\"te\\back"`,
		"bell\a\x01\x7fend": `"a/bell\a\001\177end"`,
	}
	for name, want := range cases {
		if got := quoteTwo("a/", name); got != want {
			t.Errorf("quoteTwo(%q) = %s, want %s", name, got, want)
		}
	}
}

func TestParseDiff(t *testing.T) {
	const raw = ":100644 100644 1111111 0000000 M\x00f.txt\x00" +
		":100644 100644 2222222 2222222 R100\x00old name\x00new name\x00" +
		":100644 120000 3333333 0000000 T\x00link\x00" +
		":000000 100644 0000000 4444444 A\x00img.png\x00\x00"
	const patch = "diff --git a/f.txt b/f.txt\n" +
		"index 1111111..0000000 100644\n" +
		"--- a/f.txt\n+++ b/f.txt\n" +
		"@@ -2 +2 @@ ctx\n-old\n+new\n" +
		"@@ -9,2 +8,0 @@\n-x\n-y\n" +
		"\\ No newline at end of file\n" +
		"diff --git a/old name b/new name\n" +
		"similarity index 100%\nrename from old name\nrename to new name\n" +
		"diff --git a/link b/link\ndeleted file mode 100644\n--- a/link\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-a\n-b\n-c\n" +
		"diff --git a/link b/link\nnew file mode 120000\n--- /dev/null\n+++ b/link\n@@ -0,0 +1 @@\n+target\n" +
		"diff --git a/img.png b/img.png\nnew file mode 100644\nBinary files /dev/null and b/img.png differ\n"
	got, err := parseDiff(strings.NewReader(raw + patch))
	if err != nil {
		t.Fatal(err)
	}
	want := []*entry{
		{status: 'M', src: "f.txt", dst: "f.txt", want: 1, got: 1, hunks: []Hunk{{2, 2}, {9, 8}}},
		{status: 'R', src: "old name", dst: "new name", want: 1, got: 1},
		{status: 'T', src: "link", dst: "link", want: 2, got: 2, hunks: []Hunk{{1, 1}}},
		{status: 'A', src: "img.png", dst: "img.png", want: 1, got: 1, binary: true},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(entry{})); diff != "" {
		t.Errorf("parseDiff (-want +got):\n%s", diff)
	}

	// Output that does not line up is an error, never a guess.
	bad := map[string]string{
		"a record without a section":   raw,
		"a section without a record":   ":100644 100644 1 0 M\x00f.txt\x00\x00" + "diff --git a/f.txt b/f.txt\ndiff --git a/g b/g\n",
		"a section of another file":    ":100644 100644 1 0 M\x00f.txt\x00\x00" + "diff --git a/g.txt b/g.txt\n",
		"a type change with one half":  ":100644 120000 1 0 T\x00l\x00\x00" + "diff --git a/l b/l\n",
		"text before any section":      ":100644 100644 1 0 M\x00f\x00\x00" + "@@ -1 +1 @@\n",
		"an unknown status":            ":100644 100644 1 0 X\x00f\x00\x00diff --git a/f b/f\n",
		"a short record":               ":100644 M\x00f\x00\x00diff --git a/f b/f\n",
		"a record cut short":           ":100644 100644 1 0 R090\x00old\x00",
		"a bad hunk":                   ":100644 100644 1 0 M\x00f\x00\x00diff --git a/f b/f\n@@ -1 +z @@\n",
		"a quoted path left unquoted":  ":100644 100644 1 0 M\x00a\nb\x00\x00diff --git a/a\nb b/a\nb\n",
		"an unmerged path as modified": ":100644 100644 1 0 M\x00f\x00\x00* Unmerged path f\n",
	}
	for name, out := range bad {
		if got, err := parseDiff(strings.NewReader(out)); !errors.Is(err, errMalformed) {
			t.Errorf("%s: parseDiff = %v, %v; want an error", name, got, err)
		}
	}
	if got, err := parseDiff(strings.NewReader("")); err != nil || got != nil {
		t.Errorf("no output: %v, %v; want no entries", got, err)
	}
}

func TestParseDiffLongLines(t *testing.T) {
	long := strings.Repeat("x", 300<<10)
	out := ":100644 100644 1 0 M\x00f\x00\x00diff --git a/f b/f\n--- a/f\n+++ b/f\n" +
		"@@ -1 +1 @@ " + long + "\n-" + long + "\n+" + long + "\n@@ -5 +5 @@\n-a\n+b"
	got, err := parseDiff(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !cmp.Equal(got[0].hunks, []Hunk{{1, 1}, {5, 5}}) {
		t.Errorf("hunks = %v, want [{1 1} {5 5}]", got[0].hunks)
	}
}

func TestFilterOverrides(t *testing.T) {
	out := []byte("filter.lfs.clean\ngit-lfs clean -- %f\x00filter.lfs.smudge\ngit-lfs smudge\x00" +
		"filter.a.b=c.process\nevil\x00filter.required\x00")
	got := filterOverrides(out)
	want := []kv{
		{"filter.lfs.clean", ""}, {"filter.lfs.smudge", ""}, {"filter.lfs.process", ""}, {"filter.lfs.required", "false"},
		{"filter.a.b=c.clean", ""}, {"filter.a.b=c.smudge", ""}, {"filter.a.b=c.process", ""}, {"filter.a.b=c.required", "false"},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(kv{})); diff != "" {
		t.Errorf("filterOverrides (-want +got):\n%s", diff)
	}
}

func TestParseVersion(t *testing.T) {
	cases := map[string]struct {
		v  [2]int
		ok bool
	}{
		"git version 2.39.5\n":             {[2]int{2, 39}, true},
		"git version 2.45.1.windows.1":     {[2]int{2, 45}, true},
		"git version 2.32.0 (Apple Git-1)": {[2]int{2, 32}, true},
		"git version 3.0":                  {[2]int{3, 0}, true},
		"git version x.y":                  {[2]int{}, false},
		"hub version 2.14":                 {[2]int{}, false},
	}
	for in, want := range cases {
		if v, ok := parseVersion(in); v != want.v || ok != want.ok {
			t.Errorf("parseVersion(%q) = %v, %v; want %v, %v", in, v, ok, want.v, want.ok)
		}
	}
}
