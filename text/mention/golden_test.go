package mention

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "update the golden files in testdata")

// TestGolden parses each testdata/*.md (real agent answers and a research
// answer) and compares every mention with testdata/*.golden.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, f := range files {
		if filepath.Base(f) == "README.md" {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := golden(string(b))
			gf := strings.TrimSuffix(f, ".md") + ".golden"
			if *update {
				if err := os.WriteFile(gf, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(gf)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
				for i := 0; i < max(len(gl), len(wl)); i++ {
					var g, w string
					if i < len(gl) {
						g = gl[i]
					}
					if i < len(wl) {
						w = wl[i]
					}
					if g != w {
						t.Errorf("line %d:\n got  %s\n want %s", i+1, g, w)
						break
					}
				}
			}
		})
	}
}

// golden formats the mentions of text, one a line: sentence, kind, text,
// norm, then value, unit and line when set.
func golden(text string) string {
	var b strings.Builder
	for _, m := range Parse(text).Mentions {
		fmt.Fprintf(&b, "%d\t%s\t%q\t%q", m.Sentence, m.Kind, m.Text, m.Norm)
		if m.Value != 0 || m.Unit != "" {
			fmt.Fprintf(&b, "\t%v %q", m.Value, m.Unit)
		}
		if m.Line != 0 {
			fmt.Fprintf(&b, "\tline %d", m.Line)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
