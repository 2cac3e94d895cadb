package grounding

import (
	"bufio"
	"encoding/json"
	"path"
	"regexp"
	"strings"
)

// packageSet holds the packages the evidence shows, by normalised name,
// each with where it was seen.
type packageSet map[string]string

// manifests are the file names whose contents declare dependencies.
var manifests = map[string]func(text string, add func(name string)){
	"package.json":         packageJSON,
	"go.mod":               goMod,
	"requirements.txt":     requirementsTxt,
	"requirements-dev.txt": requirementsTxt,
	"pyproject.toml":       pyproject,
	"Pipfile":              pyproject,
	"Cargo.toml":           pyproject,
	"mix.exs":              mixExs,
	"Gemfile":              gemfile,
}

// isManifest reports whether a file path names a dependency manifest.
func isManifest(p string) bool {
	_, ok := manifests[path.Base(p)]
	return ok || strings.HasPrefix(path.Base(p), "requirements") && strings.HasSuffix(p, ".txt")
}

// addManifest adds the packages a manifest's text declares.
func (ps packageSet) addManifest(file, text, where string) {
	parse, ok := manifests[path.Base(file)]
	if !ok {
		parse = requirementsTxt
	}
	parse(text, func(name string) { ps.add(name, where) })
}

func (ps packageSet) add(name, where string) {
	n := normPackage(name)
	if n == "" {
		return
	}
	if _, ok := ps[n]; !ok {
		ps[n] = where
	}
}

// has reports whether the set holds a package: the name itself, its
// top-level package (numpy for numpy.linalg, lodash for lodash/fp) or, for
// a Go import path, a module it lies in.
func (ps packageSet) has(name string) (string, bool) {
	n := normPackage(name)
	if where, ok := ps[n]; ok {
		return where, true
	}
	for _, cand := range parents(n) {
		if where, ok := ps[cand]; ok {
			return where, true
		}
	}
	return "", false
}

// parents lists the enclosing packages of a name, nearest first.
func parents(n string) []string {
	var out []string
	if strings.Contains(n, "/") {
		// npm: @scope/pkg/sub -> @scope/pkg; pkg/sub -> pkg. Go: each
		// shorter prefix of the import path.
		for i := strings.LastIndexByte(n, '/'); i > 0; i = strings.LastIndexByte(n[:i], '/') {
			out = append(out, n[:i])
		}
		return out
	}
	for i := strings.LastIndexByte(n, '.'); i > 0; i = strings.LastIndexByte(n[:i], '.') {
		out = append(out, n[:i])
	}
	return out
}

// normPackage folds the spellings of one package: case, and Python's
// interchangeable "-", "_" and "." in distribution names. Import names
// that differ from their distribution's name map to it.
func normPackage(name string) string {
	n := strings.TrimSpace(name)
	n = strings.Trim(n, "`'\"")
	if n == "" {
		return ""
	}
	if strings.Contains(n, "/") {
		return strings.ToLower(n)
	}
	n = strings.ToLower(strings.ReplaceAll(n, "_", "-"))
	if d, ok := importAliases[n]; ok {
		return d
	}
	return n
}

// importAliases map Python import names to the distributions that provide
// them, where the two differ.
var importAliases = map[string]string{
	"yaml": "pyyaml", "sklearn": "scikit-learn", "cv2": "opencv-python", "pil": "pillow",
	"bs4": "beautifulsoup4", "dateutil": "python-dateutil", "dotenv": "python-dotenv",
	"jwt": "pyjwt", "google.protobuf": "protobuf", "attr": "attrs", "magic": "python-magic",
}

func packageJSON(text string, add func(string)) {
	var m struct {
		Name                 string            `json:"name"`
		Dependencies         map[string]string `json:"dependencies"`
		DevDependencies      map[string]string `json:"devDependencies"`
		PeerDependencies     map[string]string `json:"peerDependencies"`
		OptionalDependencies map[string]string `json:"optionalDependencies"`
	}
	if json.Unmarshal([]byte(text), &m) != nil {
		// A partial read (a listing with line numbers, a cut output):
		// take "name": "version" pairs line by line.
		for _, sm := range jsonDepRE.FindAllStringSubmatch(text, -1) {
			add(sm[1])
		}
		return
	}
	if m.Name != "" {
		add(m.Name)
	}
	for _, deps := range []map[string]string{m.Dependencies, m.DevDependencies, m.PeerDependencies, m.OptionalDependencies} {
		for name := range deps {
			add(name)
		}
	}
}

var jsonDepRE = regexp.MustCompile(`"((?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*)"\s*:\s*"[~^<>=*\d]`)

func goMod(text string, add func(string)) {
	inRequire := false
	for line := range strings.Lines(text) {
		f := strings.Fields(stripComment(line, "//"))
		switch {
		case len(f) == 0:
		case f[0] == "module" && len(f) > 1:
			add(f[1])
		case f[0] == "require" && len(f) > 1 && f[1] == "(":
			inRequire = true
		case f[0] == "require" && len(f) > 1:
			add(f[1])
		case inRequire && f[0] == ")":
			inRequire = false
		case inRequire:
			add(f[0])
		}
	}
}

var reqNameRE = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)`)

func requirementsTxt(text string, add func(string)) {
	for line := range strings.Lines(text) {
		line = stripComment(line, "#")
		if strings.HasPrefix(strings.TrimSpace(line), "-") {
			continue // -r other.txt, -e ., --index-url
		}
		if m := reqNameRE.FindStringSubmatch(line); m != nil {
			add(m[1])
		}
	}
}

// tomlDepRE finds dependency names in TOML manifests: keys of dependency
// tables (name = "1.0", name = {version...}) and PEP 508 strings in lists.
var (
	tomlKeyRE  = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*=`)
	tomlListRE = regexp.MustCompile(`"([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:[<>=!~;@ ][^"]*)?"`)
)

func pyproject(text string, add func(string)) {
	table := ""
	inList := false
	for line := range strings.Lines(text) {
		line = stripComment(line, "#")
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") && !inList {
			table = strings.Trim(t, "[] ")
			continue
		}
		depTable := strings.Contains(table, "dependencies") || table == "packages" || table == "dev-packages"
		switch {
		case strings.HasPrefix(t, "dependencies") && strings.Contains(t, "[") || strings.Contains(table, "optional-dependencies") && strings.Contains(t, "["):
			inList = !strings.Contains(t, "]")
			for _, m := range tomlListRE.FindAllStringSubmatch(t, -1) {
				add(m[1])
			}
		case inList:
			for _, m := range tomlListRE.FindAllStringSubmatch(t, -1) {
				add(m[1])
			}
			if strings.Contains(t, "]") {
				inList = false
			}
		case depTable:
			if m := tomlKeyRE.FindStringSubmatch(t); m != nil && m[1] != "python" {
				add(m[1])
			}
		case table == "project" || table == "tool.poetry" || table == "package":
			if m := tomlKeyRE.FindStringSubmatch(t); m != nil && m[1] == "name" {
				if v := strings.Trim(strings.TrimSpace(t[strings.IndexByte(t, '=')+1:]), `"'`); v != "" {
					add(v)
				}
			}
		}
	}
}

var mixDepRE = regexp.MustCompile(`\{\s*:([a-z_][a-z0-9_]*)\s*,`)

func mixExs(text string, add func(string)) {
	for _, m := range mixDepRE.FindAllStringSubmatch(text, -1) {
		add(m[1])
	}
}

var gemRE = regexp.MustCompile(`(?m)^\s*gem\s+['"]([^'"]+)['"]`)

func gemfile(text string, add func(string)) {
	for _, m := range gemRE.FindAllStringSubmatch(text, -1) {
		add(m[1])
	}
}

// importREs find the packages a source file imports: JS/TS import and
// require, Python import and from, Go imports (single and grouped), Elixir
// alias/use/import.
var importREs = []*regexp.Regexp{
	regexp.MustCompile(`(?m)(?:^|[;\s])import\s+(?:[\w*{}\s,$]+\s+from\s+)?['"]([^'"./][^'"]*)['"]`),
	regexp.MustCompile(`(?:require|import)\(\s*['"]([^'"./][^'"]*)['"]\s*\)`),
	regexp.MustCompile(`(?m)^\s*from\s+([A-Za-z_][\w.]*)\s+import\b`),
	regexp.MustCompile(`(?m)^\s*import\s+([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*(?:as\s+\w+)?\s*$`),
	regexp.MustCompile(`(?m)^\s*(?:import\s+)?(?:[\w.]+\s+)?"([a-z0-9][\w.-]*(?:/[\w.~-]+)*)"\s*$`),
}

// addImports adds the packages a source text imports.
func (ps packageSet) addImports(text, where string) {
	if !strings.Contains(text, "import") && !strings.Contains(text, "require") && !strings.Contains(text, "from") {
		return
	}
	for i, re := range importREs {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			if i == 3 {
				for _, name := range strings.Split(m[1], ",") {
					ps.addImport(strings.TrimSpace(name), where)
				}
				continue
			}
			ps.addImport(m[1], where)
		}
	}
}

// addImport adds an imported name and the packages it lies in: @scope/pkg
// for @scope/pkg/sub, numpy for numpy.linalg, and each enclosing path of a
// Go import path (its module is one of them).
func (ps packageSet) addImport(name, where string) {
	ps.add(name, where)
	n := normPackage(name)
	if strings.Contains(n, "/") {
		first, _, _ := strings.Cut(n, "/")
		if !strings.Contains(first, ".") {
			// npm: the package is the first segment, or two for a scope.
			segs := strings.SplitN(n, "/", 3)
			if strings.HasPrefix(n, "@") && len(segs) >= 2 {
				ps.add(segs[0]+"/"+segs[1], where)
			} else {
				ps.add(segs[0], where)
			}
			return
		}
	}
	for _, p := range parents(n) {
		if strings.Count(p, "/") >= 1 || !strings.Contains(n, "/") {
			ps.add(p, where)
		}
	}
}

// stripComment cuts a line at a comment marker outside quotes.
func stripComment(line, marker string) string {
	inQuote := byte(0)
	for i := 0; i+len(marker) <= len(line); i++ {
		c := line[i]
		switch {
		case inQuote != 0:
			if c == inQuote {
				inQuote = 0
			}
		case c == '"' || c == '\'':
			inQuote = c
		case strings.HasPrefix(line[i:], marker):
			return line[:i]
		}
	}
	return line
}

// stdlib holds standard-library packages of Go, Python and Node.js, which
// no manifest lists.
var stdlib = func() map[string]bool {
	m := map[string]bool{}
	for _, list := range []string{
		// Go
		"bufio bytes context crypto database encoding errors flag fmt hash html image io iter log maps math mime net os path reflect regexp runtime slices sort strconv strings sync syscall testing text time unicode unsafe embed expvar",
		// Python
		"abc argparse asyncio base64 collections concurrent contextlib copy csv dataclasses datetime decimal enum functools glob hashlib heapq http importlib inspect itertools json logging math multiprocessing os pathlib pickle queue random re shutil signal socket sqlite3 statistics string struct subprocess sys tempfile threading time traceback typing unittest urllib uuid warnings weakref xml zipfile",
		// Node.js
		"assert buffer child_process cluster crypto dgram dns events fs http http2 https net os path perf_hooks process querystring readline stream string_decoder timers tls url util v8 vm worker_threads zlib",
	} {
		for _, name := range strings.Fields(list) {
			m[normPackage(name)] = true
		}
	}
	return m
}()

// isStdlib reports whether name is a standard-library package or a module
// of one ("node:fs", "encoding/json", "os.path").
func isStdlib(name string) bool {
	n := normPackage(strings.TrimPrefix(name, "node:"))
	if stdlib[n] {
		return true
	}
	if i := strings.IndexAny(n, "/."); i > 0 && !strings.Contains(n[:i], ".") {
		return stdlib[n[:i]]
	}
	return false
}

// stripLineNumbers returns text without the line-number prefixes file-reading tools
// add ("    12→code", "12\tcode", "12: code"), so manifests and imports in
// a read's output parse as the file would.
func stripLineNumbers(text string) string {
	if !lineNumRE.MatchString(text) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), len(text)+1)
	for sc.Scan() {
		b.WriteString(lineNumRE.ReplaceAllString(sc.Text(), ""))
		b.WriteByte('\n')
	}
	return b.String()
}

var lineNumRE = regexp.MustCompile(`^\s*\d+(?:→|\t|: )`)
