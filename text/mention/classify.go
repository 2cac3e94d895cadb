package mention

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vouchgate/vouch"
)

// cls is what a run of text is, as found by [classifyIdent]: a kind (empty
// for none), the part of the run that is the mention, and its normal form.
type cls struct {
	kind Kind
	a, b int // the mention is run[a:b]
	norm string
	line int
}

// identChars make a run more than a word: a path, a dotted name, an
// identifier.
const identChars = "./_:@#$~"

// classifyIdent classifies a run that holds one of identChars (or, in code,
// any run): a file path, a package, a symbol, or nothing. In code (an inline
// code span) a plain identifier is a symbol and a path needs less to be one.
func classifyIdent(w string, code bool) cls {
	if w == "" {
		return cls{}
	}
	var mask uint16
	other := false // a byte beyond ASCII
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			other = true
			continue
		}
		mask |= markBit[c]
	}
	has := func(c byte) bool { return mask&markBit[c] != 0 }
	if has(':') && strings.Contains(w, "://") {
		return cls{}
	}
	if has(':') || has('#') {
		if base, line, end, ok := splitLine(w); ok {
			if norm, ok := filePath(base, code); ok {
				return cls{kind: vouch.MentionFile, b: end, norm: norm, line: line}
			}
			return cls{}
		}
	}
	if w[0] == '@' {
		if norm, ok := scopedPackage(w); ok {
			return cls{kind: vouch.MentionPackage, b: len(w), norm: norm}
		}
		return cls{}
	}
	if has('/') {
		if norm, ok := goPath(w); ok {
			return cls{kind: vouch.MentionPackage, b: len(w), norm: norm}
		}
		if isDomain(w[:strings.IndexByte(w, '/')]) {
			return cls{} // a web address without a scheme
		}
	}
	if has('@') {
		// An e-mail address, or "name@version" outside an install command.
		return cls{}
	}
	if has('/') {
		if name, ok := arity(w); ok {
			return cls{kind: vouch.MentionSymbol, b: len(w), norm: name}
		}
		if norm, ok := filePath(w, code); ok {
			return cls{kind: vouch.MentionFile, b: len(w), norm: norm}
		}
		return cls{}
	}
	if w[0] == '.' {
		if norm, ok := filePath(w, code); ok {
			return cls{kind: vouch.MentionFile, b: len(w), norm: norm}
		}
		return cls{}
	}
	if has(':') && strings.Contains(w, "::") {
		for s := range strings.SplitSeq(w, "::") {
			if !isIdent(s) {
				return cls{}
			}
		}
		return cls{kind: vouch.MentionSymbol, b: len(w), norm: w}
	}
	if has('#') {
		// Class#method; not "#123", "C#".
		i := strings.IndexByte(w, '#')
		if i > 0 && isIdent(w[:i]) && isUpper(w[0]) && isIdent(w[i+1:]) {
			return cls{kind: vouch.MentionSymbol, b: len(w), norm: w}
		}
		return cls{}
	}
	if other || has(':') || has('$') || has('~') || has('%') || has('\'') {
		return cls{}
	}
	if has('.') {
		return dotted(w, code)
	}
	if has('-') || !isIdent(w) {
		return cls{}
	}
	if has('_') {
		if !hasLetter(w) {
			return cls{}
		}
		return cls{kind: vouch.MentionSymbol, b: len(w), norm: w}
	}
	if !code {
		return cls{}
	}
	if bareFiles[w] {
		return cls{kind: vouch.MentionFile, b: len(w), norm: w}
	}
	if len(w) < 2 || !hasLetter(w) {
		return cls{}
	}
	if info := lookup(w); info.has(lKeyword|lTech) || allUpper(w) && info.has(lAcro) {
		return cls{}
	}
	return cls{kind: vouch.MentionSymbol, b: len(w), norm: w}
}

// markBit gives the marks classifyIdent looks for a bit each.
var markBit = func() (t [128]uint16) {
	for i, c := range []byte(":#/@$~%'.-_") {
		t[c] = 1 << i
	}
	return t
}()

// dotted classifies a dotted name without a slash: a file ("parser.ts"), a
// Python module ("numpy.linalg"), a symbol ("Parser.parse", "obj.method"),
// or nothing ("e.g", "Node.js", "example.com", "v1.2", "gqc.6").
func dotted(w string, code bool) cls {
	info := lookup(w)
	if info.has(lLibrary | lAbbrev) {
		return cls{}
	}
	if norm, ok := filePath(w, code); ok {
		return cls{kind: vouch.MentionFile, b: len(w), norm: norm}
	}
	segs := 0
	lower := true
	for s := range strings.SplitSeq(w, ".") {
		if !isIdent(s) || !hasLetter(s) {
			return cls{}
		}
		if strings.IndexFunc(s, unicode.IsUpper) >= 0 {
			lower = false
		}
		segs++
	}
	first, rest, _ := strings.Cut(w, ".")
	last := w[strings.LastIndexByte(w, '.')+1:]
	if lower && lookup(first).has(lPyMod) {
		return cls{kind: vouch.MentionPackage, b: len(w), norm: w}
	}
	if !code && lower && lookup(last).has(lTLD) {
		return cls{} // a domain
	}
	if !code && segs == 2 && allLower(first) && isTitleWord(rest) && lookup(rest).has(lStop|lCommon|lVerb) {
		return cls{} // two sentences without a space: "done.The"
	}
	if !code && lookup(first).has(lTech|lAcro) && lookup(rest).has(lTech|lAcro|lCommon) {
		return cls{} // "Vue.Router"-like product names
	}
	return cls{kind: vouch.MentionSymbol, b: len(w), norm: w}
}

// splitLine splits a path with a line suffix: "parser.ts:45", "a.go:45:7",
// "a.go:10-20", "a.ts#L45", "a.ts#L45-L50", "a.ex:25:guard_fail". It returns
// the path, the line, and where the suffix ends.
func splitLine(w string) (base string, line, end int, ok bool) {
	i := strings.IndexByte(w, ':')
	k := 1
	if j := strings.Index(w, "#L"); j > 0 && (i < 0 || j < i) {
		i, k = j, 2
	}
	if i <= 0 || i+k >= len(w) || !isDigit(w[i+k]) {
		return "", 0, 0, false
	}
	if i > 0 && w[i-1] == ':' {
		return "", 0, 0, false
	}
	j := i + k
	n := 0
	for j < len(w) && isDigit(w[j]) {
		if n < 1e8 {
			n = n*10 + int(w[j]-'0')
		}
		j++
	}
	end = j
	// ":7" column, "-20" or "-L50" range.
	if j+1 < len(w) && (w[j] == ':' || w[j] == '-') {
		m := j + 1
		if m < len(w) && w[m] == 'L' && k == 2 {
			m++
		}
		if m < len(w) && isDigit(w[m]) {
			for m < len(w) && isDigit(w[m]) {
				m++
			}
			end = m
		}
	}
	if end < len(w) && w[end] != ':' && w[end] != '-' && w[end] != 'C' {
		return "", 0, 0, false
	}
	return w[:i], n, end, true
}

// filePath reports whether p is a file path and gives it cleaned: without
// "./", without a trailing slash or a Go "/..." pattern.
func filePath(p string, code bool) (string, bool) {
	if p == "" || len(p) > 512 {
		return "", false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c < utf8.RuneSelf && !pathByte[c] {
			return "", false
		}
	}
	if strings.Contains(p, "//") {
		return "", false
	}
	if strings.IndexByte(p, '/') < 0 {
		return fileName(p, code)
	}
	q := strings.TrimSuffix(p, "/...")
	if q == "." || q == "" || q == ".." {
		return "", false
	}
	dir := strings.HasSuffix(q, "/")
	trimmed := strings.TrimPrefix(strings.TrimSuffix(q, "/"), "/")
	nsegs := 0
	first, last := "", ""
	clean := true // path.Clean would leave it as it is
	for s := range strings.SplitSeq(trimmed, "/") {
		if s == "" || s == "..." || !hasAlnum(s) && s != "." && s != ".." && s != "~" {
			return "", false
		}
		if s == "." || s == ".." {
			clean = false
		}
		if nsegs == 0 {
			first = s
		}
		last = s
		nsegs++
	}
	ext := extOf(last)
	ok := false
	switch {
	case lookup(first).has(lGitRef) && ext == "":
	case ext != "" && exts[ext]:
		ok = true
	case strings.HasPrefix(q, "./") || strings.HasPrefix(q, "../") || strings.HasPrefix(q, "~/"):
		ok = true
	case q[0] == '/':
		ok = lookup(first).has(lAbsRoot)
	case dir:
		ok = code || lookup(first).has(lKnownDir) || nsegs >= 2
	case lookup(first).has(lKnownDir):
		ok = true
	case code && nsegs >= 3:
		ok = true
	}
	if !ok {
		return "", false
	}
	// A path needs a name that is not a number or a word of one letter:
	// "1/2", "a/b" are no paths.
	if nsegs == 2 && len(first) == 1 && len(last) == 1 {
		return "", false
	}
	if clean && !dir {
		return q, true
	}
	return path.Clean(q), true
}

// pathByte marks the ASCII bytes of a path.
var pathByte = func() (t [128]bool) {
	for c := 0; c < 128; c++ {
		t[c] = isAlnum(byte(c)) || strings.IndexByte("._-/@+~", byte(c)) >= 0
	}
	return t
}()

// fileName reports whether a name without a directory is a file name:
// "parser.ts", "go.mod", "Makefile", ".gitignore".
func fileName(p string, code bool) (string, bool) {
	if bareFiles[p] {
		return p, true
	}
	info := lookup(p)
	if info.has(lLibrary) {
		return "", false
	}
	if p[0] == '.' {
		name := p[1:]
		if name == "" || !isLetter(name[0]) {
			return "", false
		}
		if info.has(lDotFile) || strings.HasPrefix(p, ".env.") || strings.HasSuffix(name, "rc") && len(name) > 2 || strings.HasSuffix(name, "ignore") {
			return p, true
		}
		if ext := extOf(name); ext != "" && exts[ext] && !guardedExts[ext] {
			return p, true
		}
		return "", false
	}
	ext := extOf(p)
	if ext == "" || !exts[ext] {
		return "", false
	}
	base := p[:len(p)-len(ext)-1]
	if !hasAlnum(base) || base[len(base)-1] == '.' {
		return "", false
	}
	if guardedExts[ext] && !code {
		return "", false
	}
	if len(ext) == 1 && len(base) < 2 {
		return "", false
	}
	if allDigits(strings.ReplaceAll(base, ".", "")) {
		return "", false // "1.5.ts"-like version strings
	}
	return p, true
}

// extOf is the extension of a file name, without its dot; "" when none.
func extOf(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || i == len(name)-1 {
		return ""
	}
	return name[i+1:]
}

// scopedPackage reads an npm scoped package: "@scope/pkg", "@scope/pkg@1.2.3".
func scopedPackage(w string) (string, bool) {
	scope, rest, ok := strings.Cut(w[1:], "/")
	if !ok || !isPkgName(scope) {
		return "", false
	}
	name, _, _ := strings.Cut(rest, "@")
	name, _, _ = strings.Cut(name, "/")
	if !isPkgName(name) {
		return "", false
	}
	return "@" + scope + "/" + name, true
}

// isDomain reports a host name: "github.com", "example.org".
func isDomain(h string) bool {
	i := strings.LastIndexByte(h, '.')
	if i <= 0 {
		return false
	}
	tld := h[i+1:]
	return allLower(tld) && lookup(tld).has(lTLD) || lookup(h).has(lGoHost)
}

// goPath reads a Go import path or module path: a domain, then a path
// ("github.com/x/y", "golang.org/x/sync/errgroup", "gopkg.in/yaml.v3"),
// without a version suffix.
func goPath(w string) (string, bool) {
	w = strings.TrimSuffix(w, "/")
	host, rest, ok := strings.Cut(w, "/")
	if !ok || rest == "" || strings.IndexByte(host, '.') <= 0 {
		return "", false
	}
	tld := host[strings.LastIndexByte(host, '.')+1:]
	if !lookup(host).has(lGoHost) && !(allLower(tld) && lookup(tld).has(lTLD)) {
		return "", false
	}
	if i := strings.IndexByte(rest, '@'); i >= 0 {
		w = w[:len(host)+1+i]
		rest = rest[:i]
	}
	for s := range strings.SplitSeq(rest, "/") {
		if s == "" || !isPkgName(s) {
			return "", false
		}
		switch s {
		case "blob", "tree", "issues", "pull", "commit", "wiki", "releases", "actions":
			return "", false // a web page of a repository
		}
	}
	last := rest[strings.LastIndexByte(rest, '/')+1:]
	if ext := extOf(last); ext != "" && exts[ext] {
		return "", false
	}
	return w, true
}

// arity reads an Elixir or Erlang function with its arity:
// "render/1", "Tmux.launch_project_review/3".
func arity(w string) (string, bool) {
	i := strings.LastIndexByte(w, '/')
	if i <= 0 || i == len(w)-1 || !allDigits(w[i+1:]) || strings.IndexByte(w[:i], '/') >= 0 {
		return "", false
	}
	name := w[:i]
	last := name[strings.LastIndexByte(name, '.')+1:]
	if last == "" || !isLower(last[0]) && last[0] != '_' {
		return "", false
	}
	for s := range strings.SplitSeq(name, ".") {
		if !isIdent(strings.TrimRight(s, "!?")) {
			return "", false
		}
	}
	return name, true
}

// isPkgName reports a plausible package name segment: letters, digits, "-",
// "_", ".".
func isPkgName(s string) bool {
	if s == "" || len(s) > 214 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && c != '-' && c != '_' && c != '.' && c != '~' {
			return false
		}
	}
	return hasAlnum(s)
}

// isIdent reports an identifier: a letter, "_" or "$", then letters, digits,
// "_" or "$".
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isLetter(c) || c == '_' || c == '$' || i > 0 && isDigit(c) {
			continue
		}
		return false
	}
	return true
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if isLetter(s[i]) {
			return true
		}
	}
	return false
}

func hasAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if isAlnum(s[i]) || s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func allUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if isLower(s[i]) {
			return false
		}
	}
	return hasLetter(s)
}

func allLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if isUpper(s[i]) {
			return false
		}
	}
	return true
}

// isTitleWord reports a capitalised word: "The", "Paris".
func isTitleWord(s string) bool {
	if s == "" || !isUpper(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isLower(s[i]) {
			return false
		}
	}
	return len(s) > 1
}

// isCamel reports an identifier written in camel case with at least two
// humps: "parseConfig", "ClassName", "XMLParser", "S3Client"; not "APIs",
// "IDs", "HEEx", "iPhone".
func isCamel(w string) bool {
	if len(w) < 3 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if !isAlnum(w[i]) {
			return false
		}
	}
	if !isLetter(w[0]) || isLower(w[0]) && isUpper(w[1]) {
		return false
	}
	for i := 1; i < len(w); i++ {
		p, c := w[i-1], w[i]
		switch {
		case isLower(p) && isUpper(c):
			return true
		case isUpper(p) && isUpper(c) && i+2 < len(w) && isLower(w[i+1]) && isLower(w[i+2]):
			return true
		case isDigit(p) && isUpper(c) && i+2 < len(w) && isLower(w[i+1]) && isLower(w[i+2]):
			return true
		}
	}
	return false
}

// personCamel reports a name with an inner capital that is a name, not an
// identifier: "McCarthy", "MacDonald", "DiCaprio", "LeBron", "DeVito".
func personCamel(w string) bool {
	for _, p := range [...]string{"Mc", "Mac", "De", "Di", "Da", "La", "Le", "Van", "Von", "Du", "Fitz", "O"} {
		if strings.HasPrefix(w, p) && len(w) > len(p)+1 && isUpper(w[len(p)]) {
			return isTitleWord(w[len(p):])
		}
	}
	return false
}

// singular is a noun in the singular, in lower case: "methods" → "method",
// "dependencies" → "dependency", "classes" → "class", "edge cases" → "edge
// case".
func singular(s string) string {
	s = strings.ToLower(s)
	head := s
	pre := ""
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		pre, head = s[:i+1], s[i+1:]
	}
	switch {
	case len(head) > 4 && strings.HasSuffix(head, "ies") && head != "series" && head != "species":
		head = head[:len(head)-3] + "y"
	case strings.HasSuffix(head, "sses"), strings.HasSuffix(head, "xes"), strings.HasSuffix(head, "ches"), strings.HasSuffix(head, "shes"), strings.HasSuffix(head, "zzes"):
		head = head[:len(head)-2]
	case len(head) > 2 && strings.HasSuffix(head, "s") && !strings.HasSuffix(head, "ss") && !strings.HasSuffix(head, "us") && !strings.HasSuffix(head, "is"):
		head = head[:len(head)-1]
	}
	return pre + head
}
