package jail_test

import (
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// allowed are the opens made outside package jail, each with why the file
// it opens is not one the agent under verification controls (or why the
// open cannot hang on one). An entry names a file (or, ending in "/", a
// directory of the module), the function the open is in ("*": any) and
// the call as written ("*": any open).
var allowed = []struct{ file, fn, call, why string }{
	// Files the user names on vouch's command line, and vouch's own state.
	{"cmd/vouch/verify.go", "readLimited", "os.Open", "a request file the user names on the command line (a pipe such as /dev/stdin must work)"},
	{"cmd/vouch/fakellm.go", "*", "os.Open", "a judge script the user names on the command line"},
	{"cmd/vouch/calibrate.go", "*", "os.Open", "reports and labels files the user names on the command line"},
	{"cmd/vouch/calibrate.go", "*", "os.OpenFile", "the policy file --write-policy creates"},
	{"cmd/vouch/batch.go", "*", "os.Open", "the batch input and output files the user names on the command line"},
	{"cmd/vouch/remote.go", "*", "os.ReadFile", "the API key file the user names on the command line"},
	{"cmd/vouch/trace.go", "*", "os.Open", "a session log the user names on the command line"},
	{"policy/policy.go", "*", "os.Open", "a policy file the user names (--policy)"},
	{"server/config.go", "*", "os.ReadFile", "the server's configuration file, the operator's"},
	{"server/dashboard.go", "*", "os.Open", "the dashboard's session key: vouch's own state"},
	{"event/sinks.go", "*", "os.OpenFile", "an event log the operator names, written by vouch"},
	{"judge/cache.go", "*", "os.ReadFile", "the judge's answer cache: vouch's own state"},
	{"store/sqlite.go", "*", "os.OpenFile", "the SQLite database: vouch's own state"},
	{"memory/store.go", "*", "os.ReadFile", "the memory file the user names (--memory): vouch's own state"},
	{"memory/lock_unix.go", "*", "os.OpenFile", "the lock beside the memory file: vouch's own state"},
	{"cmd/vouch/internal/hook/state.go", "*", "os.ReadFile", "the hook's session state, outside any workspace: vouch's own state"},
	{"cmd/vouch/internal/hook/state.go", "*", "os.OpenFile", "the hook's error log, outside any workspace: vouch's own state"},
	{"cmd/vouch/internal/hook/install.go", "*", "os.ReadFile", "the agent's settings file the user installs the hook into"},
	{"internal/atomicfile/atomicfile.go", "*", "os.Open", "the directory of a file vouch itself just wrote, opened to sync it"},
	{"internal/examplews/examplews.go", "*", "os.ReadFile", "vouch's own example files, copied into a new workspace"},
	// The sandbox's own workings.
	{"internal/sandbox/sandbox_linux.go", "startConfined", "os.Open", "/dev/null, the confined command's standard input"},
	{"internal/sandbox/sandbox_linux.go", "children", "os.ReadFile", "/proc/PID/stat, written by the kernel: never a FIFO"},
	{"internal/sandbox/sandbox_linux.go", "confine", "unix.Open", "O_PATH opens of the Landlock rules' directories, which never block"},
	{"internal/sandbox/sandbox_linux.go", "chmodDir", "unix.Open", "O_DIRECTORY|O_NOFOLLOW: a FIFO or a symlink is refused before it is opened"},
	// Programs that are no part of vouch: they read their own data.
	{"bench/", "*", "*", "the benchmark harness, run by developers on data they chose"},
	{"clients/gen/", "*", "*", "the clients' generator, run by developers on the repository's openapi.json"},
	{"loop/looptest/corpus.go", "docAgent", "os.ReadFile", "a scripted agent of the loop's test corpus reading its own workspace: it is the agent, not vouch"},
}

// opens are the functions and methods that open a file by name.
var (
	osOpens   = []string{"Open", "OpenFile", "ReadFile", "OpenRoot", "OpenInRoot"}
	rawOpens  = []string{"Open", "Openat", "Openat2"}
	rootOpens = []string{"Open", "OpenFile", "ReadFile", "OpenRoot", "FS"}
)

// finding is one open outside package jail.
type finding struct{ file, fn, call string }

// TestOpensGoThroughJail scans every non-test Go file of the module for
// opens by name made elsewhere than in package jail: os.Open, os.OpenFile,
// os.ReadFile, os.OpenRoot, os.OpenInRoot, the raw opens of syscall and
// x/sys/unix, and the opens of an *os.Root (Open, OpenFile, ReadFile,
// OpenRoot, FS). An *os.Root is known by the syntax alone: a variable,
// parameter or field declared *os.Root, or assigned the result of an
// OpenRoot, OpenRootIn or OpenDir call, or a function declared to return
// one. Every open must be listed in allowed, with its reason, and every
// entry of allowed must still match an open.
func TestOpensGoThroughJail(t *testing.T) {
	const module = "../.."
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	err := filepath.WalkDir(module, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != module && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(module, p)
		files[filepath.ToSlash(rel)] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("found %d Go files in the module, want the whole module", len(files))
	}

	found := scan(fset, files)
	used := make([]bool, len(allowed))
	for _, fd := range found {
		t.Logf("%s: %s: %s", fd.file, fd.fn, fd.call)
		ok := false
		for i, a := range allowed {
			if matches(a.file, a.fn, a.call, fd) {
				used[i], ok = true, true
			}
		}
		if !ok {
			t.Errorf("%s: %s opens with %s: open what an agent controls with package jail, or add the open to allowed with the reason it cannot be an agent's file", fd.file, fd.fn, fd.call)
		}
	}
	for i, a := range allowed {
		if !used[i] {
			t.Errorf("allowed entry %s %s %s matches no open any more: remove it", a.file, a.fn, a.call)
		}
		if strings.TrimSpace(a.why) == "" {
			t.Errorf("allowed entry %s %s %s gives no reason", a.file, a.fn, a.call)
		}
	}

}

// TestScanSeesOpens holds the scan to what it must find: every kind of open
// it looks for, however the *os.Root is known, and nothing else.
func TestScanSeesOpens(t *testing.T) {
	const src = `package p

import (
	"os"
	sys "syscall"
	"golang.org/x/sys/unix"
)

type subject struct{ Workspace *os.Root }

func open(dir string) (*os.Root, error) { return os.OpenRoot(dir) }

func reads(s *subject, dir string, param *os.Root, store interface{ Open(string) error }) {
	os.ReadFile("a")
	os.OpenInRoot(dir, "b")
	s.Workspace.OpenFile("c", 0, 0)
	param.ReadFile("d")
	r, _ := open(dir)
	r.Open("e")
	var v *os.Root
	v.FS()
	store.Open("not a root")
	os.Stat("not an open")
	sys.Open("f", 0, 0)
	unix.Openat(0, "g", 0, 0)
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p/p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := scan(fset, map[string]*ast.File{"p/p.go": f})
	want := []finding{
		{"p/p.go", "open", "os.OpenRoot"},
		{"p/p.go", "reads", "os.ReadFile"},
		{"p/p.go", "reads", "os.OpenInRoot"},
		{"p/p.go", "reads", "s.Workspace.OpenFile"},
		{"p/p.go", "reads", "param.ReadFile"},
		{"p/p.go", "reads", "r.Open"},
		{"p/p.go", "reads", "v.FS"},
		{"p/p.go", "reads", "sys.Open"},
		{"p/p.go", "reads", "unix.Openat"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("scan found\n%v\nwant\n%v", got, want)
	}
}

// scan returns the opens of files (by path relative to the module) made
// outside package jail.
func scan(fset *token.FileSet, files map[string]*ast.File) []finding {
	// The module's fields and functions of type *os.Root.
	rootFields, rootFuncs := map[string]bool{}, map[string]bool{"OpenRoot": true, "OpenRootIn": true, "OpenDir": true}
	for _, f := range files {
		osName := importName(f, "os")
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.StructType:
				for _, fl := range n.Fields.List {
					if isRootType(fl.Type, osName) {
						for _, id := range fl.Names {
							rootFields[id.Name] = true
						}
					}
				}
			case *ast.FuncDecl:
				if n.Type.Results != nil {
					for _, r := range n.Type.Results.List {
						if isRootType(r.Type, osName) {
							rootFuncs[n.Name.Name] = true
						}
					}
				}
			}
			return true
		})
	}

	var found []finding
	for _, path := range slices.Sorted(maps.Keys(files)) {
		f := files[path]
		if strings.HasPrefix(path, "internal/jail/") {
			continue
		}
		osName, sysName, unixName := importName(f, "os"), importName(f, "syscall"), importName(f, "golang.org/x/sys/unix")
		roots := rootNames(f, osName, rootFuncs)
		for _, decl := range f.Decls {
			fn := "(top level)"
			if fd, ok := decl.(*ast.FuncDecl); ok {
				fn = fd.Name.Name
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				m := sel.Sel.Name
				pkg, _ := sel.X.(*ast.Ident)
				hit := false
				switch {
				case pkg != nil && pkg.Name == osName && osName != "":
					hit = slices.Contains(osOpens, m)
				case pkg != nil && (pkg.Name == sysName && sysName != "" || pkg.Name == unixName && unixName != ""):
					hit = slices.Contains(rawOpens, m)
				default:
					hit = slices.Contains(rootOpens, m) && isRoot(sel.X, roots, rootFields)
				}
				if hit {
					found = append(found, finding{path, fn, render(fset, sel)})
				}
				return true
			})
		}
	}

	return found
}

func matches(file, fn, call string, fd finding) bool {
	if strings.HasSuffix(file, "/") {
		if !strings.HasPrefix(fd.file, file) {
			return false
		}
	} else if file != fd.file {
		return false
	}
	return (fn == "*" || fn == fd.fn) && (call == "*" || call == fd.call)
}

// importName returns the name path is imported under in f, "" when it is
// not imported.
func importName(f *ast.File, path string) string {
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == path {
			if im.Name != nil {
				return im.Name.Name
			}
			return path[strings.LastIndexByte(path, '/')+1:]
		}
	}
	return ""
}

// isRootType reports whether e is *os.Root.
func isRootType(e ast.Expr, osName string) bool {
	st, ok := e.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := st.X.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && osName != "" && id.Name == osName && sel.Sel.Name == "Root"
}

// rootNames returns the identifiers of f that hold an *os.Root: declared
// with that type, or assigned from a call of a function that returns one.
func rootNames(f *ast.File, osName string, rootFuncs map[string]bool) map[string]bool {
	names := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			if isRootType(n.Type, osName) {
				for _, id := range n.Names {
					names[id.Name] = true
				}
			}
		case *ast.ValueSpec:
			if n.Type != nil && isRootType(n.Type, osName) {
				for _, id := range n.Names {
					names[id.Name] = true
				}
			}
		case *ast.AssignStmt:
			if len(n.Rhs) != 1 || len(n.Lhs) == 0 {
				return true
			}
			call, ok := n.Rhs[0].(*ast.CallExpr)
			if !ok {
				return true
			}
			var name string
			switch fn := call.Fun.(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			}
			if rootFuncs[name] {
				if id, ok := n.Lhs[0].(*ast.Ident); ok {
					names[id.Name] = true
				}
			}
		}
		return true
	})
	return names
}

// isRoot reports whether the expression e is, by its name, an *os.Root.
func isRoot(e ast.Expr, roots, fields map[string]bool) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return roots[e.Name]
	case *ast.SelectorExpr:
		return fields[e.Sel.Name]
	case *ast.ParenExpr:
		return isRoot(e.X, roots, fields)
	}
	return false
}

func render(fset *token.FileSet, e ast.Expr) string {
	var b strings.Builder
	_ = printer.Fprint(&b, fset, e)
	return b.String()
}
