package claims

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/code"
	"github.com/vouchgate/vouch/git"
	"github.com/vouchgate/vouch/text/claimtext"
)

// symbolChanges are the action classes by which a summary says it changed
// a symbol ("Fixed `parseHeader`", "Refactored `loadConfig`"), and
// symbolAdds those by which it says it added one ("Added `ParseDuration`",
// "Implemented `RetryPolicy`").
var (
	symbolChanges = map[string]bool{"modify": true, "update": true, "refactor": true, "fix": true}
	symbolAdds    = map[string]bool{"add": true, "create": true, "implement": true}
	symbolNouns   = map[string]bool{"symbol": true, "function": true, "method": true, "class": true, "type": true}
)

// identifier matches a name a parser can define: "parse",
// "Parser.parse", "Parser#parse".
var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*(?:[.#][A-Za-z_$][A-Za-z0-9_$]*)?$`)

// saidSymbol holds a summary's claim that it added or changed named
// symbols against the changes since the base. A name a parsed file
// defines passes when a change touches one of its definitions (its lines
// with its doc comment), and fails (SYMBOL_UNCHANGED) when vouch is sure
// it did not change: every definition found is untouched, and no line the
// changes add or remove names it (a caller changed for it, a rename, a
// definition in a file no parser reads all leave it undecided). A name no
// parsed file defines is left alone (it may be a flag, a setting or code
// of another language), unless the summary says it was added and the
// changes never hold it (see addedNowhere).
//
// The other files are searched (files, a walk of the workspace) only when
// no definition in a changed file is touched: the usual honest claim is
// settled by the changed files alone.
func saidSymbol(ctx context.Context, s *vouch.Subject, ch *git.Changes, c claimtext.CountClaim, files func() map[string][]string) (out []vouch.CheckResult) {
	ref := vouch.SummaryRef(vouch.ClaimSymbol, c.Text, c.Sentence)
	ref.Partial = c.Action == "fix" // a fix is more than a change to the code
	defer func() { cited(out, ref) }()
	added := symbolAdds[c.Action]
	for _, name := range symbolNames(c) {
		if ctx.Err() != nil {
			break
		}
		defs, unread := definitions(ctx, s, ch, name, nil)
		if !slices.ContainsFunc(defs, func(d definition) bool { return touched(ch, d) }) {
			defs, unread = definitions(ctx, s, ch, name, files())
		}
		if len(defs) == 0 {
			if added {
				if o, ok := addedNowhere(ctx, s, ch, c, name); ok {
					out = append(out, result("claims.symbol", o))
				}
			}
			continue
		}
		verb := "changed"
		if added {
			verb = "added"
		}
		ev := map[string]any{"claim": c.Text, "symbol": name, "base": ch.Base}
		var where []string
		moved := false // a definition is in a file moved without edits there
		for _, d := range defs {
			start, end := d.sym.Extent()
			where = append(where, fmt.Sprintf("%s:%d-%d", d.file, start, end))
			fc := ch.File(d.file)
			if fc != nil && fc.Status == git.Renamed && !fc.Touches(start, end) {
				moved = true
			}
			if touched(ch, d) {
				ev["definition"] = fmt.Sprintf("%s:%d-%d", d.file, start, end)
				out = append(out, result("claims.symbol", vouch.Pass(fmt.Sprintf("git shows %s %s at %s:%d-%d, as the summary says (%q)", name, verb, d.file, start, end, c.Text), ev)))
				where = nil
				break
			}
		}
		if where == nil {
			continue
		}
		ev["definitions"] = check.Cap(where, 20)
		// A fix is named by where the fault shows, and may be made in
		// code the function calls.
		fix := c.Action == "fix"
		if named, ok := namedInChanges(ctx, s, ch, name); !ok || named || moved || unread || fix {
			why := "the changes cannot be read to see whether they name it"
			switch {
			case moved:
				why = "a file defining it was moved, which may be the change meant"
			case ok && named:
				why = "lines the changes add or remove name it (a caller, a rename, or code no parser reads)"
			case unread:
				why = "a changed file could not be parsed, and may hold the definition changed"
			case fix:
				why = "a fix may be made in code it calls"
			}
			o := vouch.Undecided(vouch.CodeSymbolUnchanged, fmt.Sprintf("the summary says %q, and no change touches the definition of %s (%s), but %s", c.Text, name, check.List(where, 5), why))
			o.Evidence = ev
			out = append(out, result("claims.symbol", o))
			continue
		}
		msg := fmt.Sprintf("the summary says %q, but %s is defined at %s and no change since the base touches it or names it", c.Text, name, check.List(where, 5))
		if added {
			msg = fmt.Sprintf("the summary says %q, but %s was already defined at the base (%s) and no change since touches it or names it", c.Text, name, check.List(where, 5))
		}
		o := vouch.Fail(vouch.CodeSymbolUnchanged, msg, ev)
		o.Fix = check.Cap(where, 20)
		out = append(out, result("claims.symbol", o))
	}
	return out
}

// addedNowhere holds a name the summary says it added that no parsed file
// defines: it fails (SYMBOL_MISSING) when no line the changes add or
// remove holds it, compared in lower case and without separators
// ("MaxRetries" is in "max_retries:"), even inside a longer word ("Added
// `FormatDuration`" to a diff that never writes it); ok is false, and
// nothing is held, for a name under 4 characters (an acronym, a concept),
// when the changes cannot all be read (a patch too long, a new file too
// large to read), or when they hold it.
func addedNowhere(ctx context.Context, s *vouch.Subject, ch *git.Changes, c claimtext.CountClaim, name string) (vouch.Outcome, bool) {
	w := squash(lastPart(name))
	if len(w) < 4 {
		return vouch.Outcome{}, false
	}
	if inAddedLines(s, ch, func(line string) bool { return strings.Contains(squash(line), w) }) {
		return vouch.Outcome{}, false
	}
	p, ok := patchFor(ctx, s, ch)
	if !ok {
		return vouch.Outcome{}, false
	}
	for line := range strings.Lines(p) {
		if (strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-")) && strings.Contains(squash(line), w) {
			return vouch.Outcome{}, false
		}
	}
	for _, q := range ch.Paths() {
		fc := ch.Files[q]
		if fc.TooLarge {
			return vouch.Outcome{}, false
		}
		if fc.Status == git.Untracked {
			data, err := s.ReadFile(q)
			if err != nil || strings.Contains(squash(string(data)), w) || strings.Contains(squash(q), w) {
				return vouch.Outcome{}, false
			}
		}
	}
	o := vouch.Fail(vouch.CodeSymbolMissing, fmt.Sprintf("the summary says %q, but no parsed file defines %s and no line the changes since the base add or remove holds it", c.Text, name),
		map[string]any{"claim": c.Text, "symbol": name, "base": ch.Base})
	o.Fix = []string{name}
	return o, true
}

// symbolClaim reports whether c says symbols were added or changed.
func symbolClaim(c claimtext.CountClaim) bool {
	return !c.Negated && len(c.Items) > 0 && symbolNouns[c.Noun] && (symbolChanges[c.Action] || symbolAdds[c.Action])
}

// symbolNames returns the items of c that are names a parser can define.
func symbolNames(c claimtext.CountClaim) []string {
	var out []string
	for _, item := range c.Items {
		if name := strings.TrimSuffix(strings.TrimSpace(item), "()"); identifier.MatchString(name) {
			out = append(out, name)
		}
	}
	return out
}

// touched reports whether the changes touch a definition (its lines with
// its doc comment), or may: a new file too large to read.
func touched(ch *git.Changes, d definition) bool {
	fc := ch.File(d.file)
	if fc == nil {
		return false
	}
	start, end := d.sym.Extent()
	return fc.Touches(start, end) || fc.Status == git.Untracked && fc.TooLarge
}

// definition is a symbol found in a workspace file.
type definition struct {
	file string
	sym  code.Symbol
}

// definitions returns where name is defined in the workspace: in the
// files the work changed, else in the other files that hold it as a word
// (see symbolFiles; nil: the changed files alone). A file with syntax
// errors still gives the symbols it parsed.
//
// unread is true when a changed code file could not be parsed (no parser
// in this build, a file too large, the parse budget spent): a definition
// there may be the one the work changed.
func definitions(ctx context.Context, s *vouch.Subject, ch *git.Changes, name string, files map[string][]string) (out []definition, unread bool) {
	look := func(p string) bool {
		f, err := code.FileFor(ctx, s, p)
		if f == nil || err != nil && len(f.Symbols) == 0 {
			return false
		}
		for _, sym := range f.Lookup(name) {
			out = append(out, definition{p, sym})
		}
		return true
	}
	changed := map[string]bool{}
	for _, p := range ch.Paths() {
		if fc := ch.Files[p]; fc.Status != git.Deleted {
			changed[p] = true
			if _, _, ok := code.ForPath(p); ok && !look(p) {
				unread = true
			}
		}
	}
	for _, p := range files[lastPart(name)] {
		if !changed[p] {
			look(p)
		}
	}
	return out, unread
}

// lastPart returns the member name of "Parser.parse" or "Parser#parse".
func lastPart(name string) string {
	if i := strings.LastIndexAny(name, ".#"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// namedInChanges reports whether a line the changes add or remove names
// name as a word (its last part: "parse" of "Parser.parse"); ok is false
// when the patch cannot be read.
func namedInChanges(ctx context.Context, s *vouch.Subject, ch *git.Changes, name string) (named, ok bool) {
	w := lastPart(name)
	if inAddedLines(s, ch, func(line string) bool { return hasWord(line, w) }) {
		return true, true
	}
	p, ok := patchFor(ctx, s, ch)
	if !ok {
		return false, false
	}
	for line := range strings.Lines(p) {
		if (strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-")) && hasWord(line, w) {
			return true, true
		}
	}
	// Untracked files are not in the patch: they are new, each line added.
	for _, q := range ch.Paths() {
		if fc := ch.Files[q]; fc.Status == git.Untracked {
			data, err := s.ReadFile(q)
			if err != nil || hasWord(string(data), w) {
				return true, true
			}
		}
	}
	return false, true
}

// inAddedLines reports whether match holds for a line the changes added
// or changed, read from the workspace at the changes' hunks: the lines a
// patch shows with "+", found without running git again (the patch is
// read only when they do not settle the question).
func inAddedLines(s *vouch.Subject, ch *git.Changes, match func(string) bool) bool {
	for _, p := range ch.Paths() {
		fc := ch.Files[p]
		if fc.Status == git.Deleted || fc.Binary {
			continue
		}
		for _, h := range fc.Hunks {
			if h.Empty() {
				continue
			}
			lines, _, err := s.ReadLines(p, h.Start, h.End)
			if err != nil {
				break
			}
			if slices.ContainsFunc(lines, match) {
				return true
			}
		}
	}
	return false
}

// maxPatch bounds the patch read to look for names in the changes.
const maxPatch = 16 << 20

type patchKey struct{}

type patchMemo struct {
	text string
	ok   bool
}

// patchFor returns the patch of the changes since the base, read once per
// verification; ok is false when it cannot be read whole.
func patchFor(ctx context.Context, s *vouch.Subject, ch *git.Changes) (string, bool) {
	m := s.Memo(patchKey{}, func() any {
		text, cut, err := git.Patch(ctx, s.Dir(), ch.Base, maxPatch)
		return patchMemo{text, err == nil && !cut}
	}).(patchMemo)
	return m.text, m.ok
}

// hasWord reports whether w occurs in text as a whole identifier.
func hasWord(text, w string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], w)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(w)
		if (start == 0 || !identByte(text[start-1])) && (end == len(text) || !identByte(text[end])) {
			return true
		}
		i = start + 1
	}
}

func identByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// Bounds of the walk that finds the files a name may be defined in.
const (
	maxCandidateEntries = 50000
	maxCandidateBytes   = 64 << 20
	maxCandidateFile    = 2 << 20
)

// symbolFiles returns, for each of names, the workspace's source files
// (those with a parser) that hold it as an identifier, skipping hidden
// directories and those of dependencies and builds, files over 2 MiB, and
// stopping after 50,000 entries or 64 MiB read.
func symbolFiles(ctx context.Context, s *vouch.Subject, names []string) map[string][]string {
	out := map[string][]string{}
	if len(names) == 0 {
		return out
	}
	n, read := 0, 0
	_ = fs.WalkDir(s.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > maxCandidateEntries || read > maxCandidateBytes || ctx.Err() != nil {
			return fs.SkipAll
		}
		if d.IsDir() {
			if p != "." && (walkSkipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if _, _, ok := code.ForPath(p); !ok {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.Size() > maxCandidateFile {
			return nil
		}
		data, err := s.ReadFile(p)
		if err != nil {
			return nil
		}
		read += len(data)
		text := string(data)
		for _, name := range names {
			if hasWord(text, name) {
				out[name] = append(out[name], path.Clean(p))
			}
		}
		return nil
	})
	return out
}

// walkSkipDirs are directories of dependencies and build output.
var walkSkipDirs = map[string]bool{
	"node_modules": true, "vendor": true, "_build": true, "deps": true, "venv": true,
	"__pycache__": true, "target": true, "dist": true, "build": true,
}
