package vouch_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/vouchgate/vouch"
)

// TestEveryExportedIdentifierDocumented walks the module and checks that
// every package has a package doc and every exported identifier a doc
// comment (a grouped const or var may share its group's doc).
func TestEveryExportedIdentifierDocumented(t *testing.T) {
	dirs := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			dirs[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 8 {
		t.Fatalf("found only %d package directories", len(dirs))
	}
	for dir := range dirs {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.ParseComments)
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		for name, pkg := range pkgs {
			hasDoc := false
			for _, f := range pkg.Files {
				hasDoc = hasDoc || f.Doc != nil
			}
			if !hasDoc {
				t.Errorf("package %s (%s) has no package doc", name, dir)
			}
			if name == "main" {
				continue
			}
			for path, f := range pkg.Files {
				for _, d := range f.Decls {
					checkDecl(t, fset, path, d)
				}
			}
		}
	}
}

func checkDecl(t *testing.T, fset *token.FileSet, path string, d ast.Decl) {
	t.Helper()
	missing := func(name string, pos token.Pos) {
		t.Errorf("%s: exported %s has no doc comment", fset.Position(pos), name)
	}
	switch d := d.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() || d.Doc != nil {
			return
		}
		if d.Recv != nil && !exportedRecv(d.Recv) {
			return
		}
		missing(d.Name.Name, d.Pos())
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() && s.Doc == nil && d.Doc == nil {
					missing(s.Name.Name, s.Pos())
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() && s.Doc == nil && s.Comment == nil && d.Doc == nil {
						missing(n.Name, n.Pos())
					}
				}
			}
		}
	}
}

func exportedRecv(fl *ast.FieldList) bool {
	if len(fl.List) == 0 {
		return false
	}
	e := fl.List[0].Type
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}

// TestConceptsListsEveryCode checks the list of codes in docs/concepts.md
// against the catalogue: every code is listed under its kind, and nothing is
// listed that the catalogue does not have.
func TestConceptsListsEveryCode(t *testing.T) {
	const page = "docs/concepts.md"
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(data), "\n## Codes\n")
	if !ok {
		t.Fatalf("%s has no Codes section", page)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	checks, rest, _ := strings.Cut(sec, "Warning codes:")
	warnings, errs, _ := strings.Cut(rest, "Error codes")
	listed := map[vouch.CodeKind]map[string]bool{}
	quoted := regexp.MustCompile("`([A-Za-z_]+)`")
	for kind, text := range map[vouch.CodeKind]string{vouch.CodeCheck: checks, vouch.CodeWarning: warnings, vouch.CodeError: errs} {
		listed[kind] = map[string]bool{}
		for _, m := range quoted.FindAllStringSubmatch(text, -1) {
			listed[kind][m[1]] = true
		}
	}
	known := map[string]bool{}
	for _, c := range vouch.Codes() {
		known[c.Code] = true
		if !listed[c.Kind][c.Code] {
			t.Errorf("%s does not list the %s code %s", page, c.Kind, c.Code)
		}
	}
	for _, codes := range listed {
		for c := range codes {
			if !known[c] {
				t.Errorf("%s lists %s, which is no code", page, c)
			}
		}
	}
}

// TestReadmeTestCommand keeps the README's test command the one CI runs.
func TestReadmeTestCommand(t *testing.T) {
	const cmd = "go vet ./... && go test -race ./..."
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "\n"+cmd+"\n") {
		t.Errorf("README.md does not give the test command %q on a line of its own", cmd)
	}
}

// TestDocLinks checks every relative link and image in README.md and the
// Markdown files under docs/: the file it names exists, inside the
// repository, and a #fragment names a heading of the Markdown page it
// points to (but in the generated pages). Links in code blocks and code
// spans are not links.
func TestDocLinks(t *testing.T) {
	pages := []string{"README.md"}
	err := filepath.WalkDir("docs", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, filepath.ToSlash(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 10 {
		t.Fatalf("found only %d Markdown pages: %v", len(pages), pages)
	}
	anchors := map[string]map[string]bool{} // page -> heading anchors, read once
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		a := headingAnchors(string(data))
		anchors[page] = a
		return a
	}
	checked := 0
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range markdownLinks(string(data)) {
			target := l.target
			if target == "" || strings.HasPrefix(target, "//") || linkScheme.MatchString(target) {
				continue // a URL, checked by no test
			}
			checked++
			file, frag, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(page), file)))
				if dest == ".." || strings.HasPrefix(dest, "../") || filepath.IsAbs(file) {
					t.Errorf("%s:%d: link %q leads out of the repository", page, l.line, target)
					continue
				}
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s:%d: link %q: %s does not exist", page, l.line, target, dest)
					continue
				}
			}
			if frag != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[frag] {
				t.Errorf("%s:%d: link %q: %s has no heading #%s", page, l.line, target, dest, frag)
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked only %d relative links: is the link reader broken?", checked)
	}
}

// linkScheme matches a link with a URL scheme (https:, mailto:).
var linkScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// mdLink is a link or image target on a line of a Markdown page.
type mdLink struct {
	target string
	line   int
}

// inlineLink matches an inline link or image, [text](target "title"): the
// target is the first group.
var inlineLink = regexp.MustCompile(`\]\(\s*<?([^()\s<>]+)>?(?:\s+"[^"]*")?\s*\)`)

// markdownLinks returns the inline links and images of a Markdown page,
// leaving out fenced code blocks and code spans.
func markdownLinks(text string) []mdLink {
	var links []mdLink
	for n, line := range proseLines(text) {
		for _, m := range inlineLink.FindAllStringSubmatch(stripCodeSpans(line), -1) {
			links = append(links, mdLink{target: m[1], line: n})
		}
	}
	return links
}

// proseLines yields the lines of a Markdown page outside its fenced code
// blocks, with their 1-based numbers.
func proseLines(text string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		fence := ""
		for i, line := range strings.Split(text, "\n") {
			trimmed := strings.TrimLeft(line, " ")
			if fence != "" {
				if strings.HasPrefix(trimmed, fence) {
					fence = ""
				}
				continue
			}
			if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
				fence = trimmed[:3]
				continue
			}
			if !yield(i+1, line) {
				return
			}
		}
	}
}

// codeSpan matches a code span on one line.
var codeSpan = regexp.MustCompile("(`+)[^`]*?(`+)")

// stripCodeSpans blanks the code spans of a line.
func stripCodeSpans(line string) string {
	return codeSpan.ReplaceAllStringFunc(line, func(s string) string { return strings.Repeat(" ", len(s)) })
}

// headingAnchors returns the anchors GitHub gives a page's headings:
// lower case, punctuation dropped, spaces as hyphens, a repeated anchor
// numbered (-1, -2, ...). Headings inside fenced code blocks are none.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(text) {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimLeft(line, "#")
		if title == "" || title[0] != ' ' {
			continue
		}
		a := slug(title)
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// mdLinkText matches a link in a heading, whose text alone makes its anchor.
var mdLinkText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// slug is GitHub's anchor of a heading's text.
func slug(title string) string {
	title = mdLinkText.ReplaceAllString(strings.TrimSpace(title), "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
