package claims

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/code"
	"github.com/vouchgate/vouch/git"
	"github.com/vouchgate/vouch/text/claimtext"
	"github.com/vouchgate/vouch/trace"
)

func init() {
	check.RegisterAnalyzer(check.AnalyzerInfo{
		Name:  "claims.work",
		Level: vouch.LevelClaims,
		Kinds: []vouch.Kind{vouch.KindSubtask},
		New:   func() vouch.Analyzer { return workAnalyzer{} },
	})
}

// workAnalyzer holds the work a summary claims in plain words, clause by
// clause (claimtext.Statements), against the workspace and the changes
// since the request's base: files created, changed, removed and renamed,
// and functions or types added, changed, removed and renamed ("Added
// ParseRange to ranges.py", "Removed the deprecated old_parse helper from
// utils.py", "Renamed fetch_data to load_records"). Each check cites the
// clause it decides. A check of part of a clause (the file a fix was made
// in) can refute the clause but never verifies it.
//
// What a count claim of the same sentence already names (claims.code,
// claims.git) is left to it. A claim of a change or an addition needs a
// base: without one, committed work and missing work look alike. Removals
// and renames are read from the workspace as it is, and from the base when
// one is given.
type workAnalyzer struct{}

// workOp returns the operation a clause's action class claims on what it
// names: "add", "change", "remove", "rename" or "keep" (no change: "`Parse`
// is untouched"); "" for none. Documenting a function changes it.
func workOp(action string) string {
	switch {
	case symbolAdds[action]:
		return "add"
	case symbolChanges[action] || action == "document":
		return "change"
	case action == "keep":
		return "keep"
	case action == "delete":
		return "remove"
	case action == "rename" || action == "move":
		return "rename"
	}
	return ""
}

// Analyze implements vouch.Analyzer.
func (workAnalyzer) Analyze(ctx context.Context, s *vouch.Subject, f *vouch.Findings) error {
	if s.Workspace == nil && len(s.Request.Trace) == 0 || !s.Policy.Infer.Counts {
		return nil
	}
	sts := check.Statements(s)
	if len(sts) == 0 {
		return nil
	}
	var ch *git.Changes
	if s.Workspace != nil {
		var err error
		if ch, err = git.ChangesFor(ctx, s); err != nil {
			return nil // claims.git says why git could not be read
		}
	}
	held := map[string]bool{}
	for _, c := range summaryCounts(s) {
		if !c.Negated && (symbolClaim(c) || c.Noun == "file" && changeActions[c.Action]) {
			for _, it := range c.Items {
				held[c.Sentence+"\x00"+strings.TrimSuffix(strings.TrimSpace(it), "()")] = true
			}
		}
	}
	w := &work{ctx: ctx, s: s, ch: ch}
	for _, st := range sts {
		op := workOp(st.Action)
		if op == "" || len(st.Names) == 0 || ctx.Err() != nil {
			continue
		}
		var names []claimtext.Name
		for _, n := range st.Names {
			if !n.Aside && !n.Ref {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			continue
		}
		isHeld := func(n claimtext.Name) bool { return held[st.Sentence+"\x00"+n.Text] }
		out := w.statement(st, op, names, isHeld)
		if len(out) > 0 {
			f.MarkApplicable(vouch.DimClaims)
			f.Checks = append(f.Checks, out...)
		}
	}
	return nil
}

// work is the state of one claims.work analysis.
type work struct {
	ctx     context.Context
	s       *vouch.Subject
	ch      *git.Changes
	written []string
	wOnce   sync.Once
}

func (w *work) withBase() bool { return w.ch != nil && w.ch.Repo && w.ch.Base != "" }

func (w *work) traceWritten() []string {
	w.wOnce.Do(func() { w.written = traceWrites(w.s) })
	return w.written
}

// statement decides one clause: op on its names. A name a count claim of
// the sentence holds is left to the check of that claim.
func (w *work) statement(st claimtext.Statement, op string, names []claimtext.Name, held func(claimtext.Name) bool) []vouch.CheckResult {
	partial := st.Kind == "behaviour" || st.Action == "fix"
	ref := func(kind vouch.ClaimKind, part bool) vouch.ClaimRef {
		r := vouch.SummaryRef(kind, st.Text, st.Sentence)
		r.Partial = part
		return r
	}
	first := names[0]
	for _, n := range names {
		if n.Object {
			first = n
		}
	}
	loc := location(names)
	if w.s.Workspace == nil {
		// Without a workspace, what changed is what the trace's writes
		// changed: a file named as changed ("Modified a.py", "Fixed the
		// bug in a.py", "Added a flag to cli.py") is held against them;
		// nothing else is decided.
		name := ""
		switch {
		case first.After != "" && loc == "":
			switch first.After {
			case "to", "in", "into", "inside", "within", "from", "of":
				if first.File && op != "keep" && op != "rename" {
					name = first.Text
				}
			}
		case op == "change" && first.File:
			name = first.Text
		case (op == "change" || op == "add") && loc != "":
			name = loc
		}
		if name == "" {
			return nil
		}
		if r, ok := w.tracedChange(st, name); ok {
			whole := op == "change" && name == first.Text && first.After == ""
			return cited([]vouch.CheckResult{r}, ref(vouch.ClaimFile, partial || !whole))
		}
		return nil
	}
	if held(first) {
		// The object's claim is held by its count claim's check; the file
		// the work was said to be done in is still there to hold.
		if (op == "add" || op == "change") && loc != "" && w.withBase() {
			if r, ok := w.changedFile(st, loc); ok && r.Status != vouch.StatusPass {
				r.Claims = []vouch.ClaimRef{ref(vouch.ClaimFile, true)}
				return []vouch.CheckResult{r}
			}
		}
		return nil
	}
	if first.After != "" && loc == "" && op != "rename" {
		// "Updated the import in main.js", "Removed the unused helper from
		// utils.py": the work was done in the file, to something the
		// clause does not name as code. A change there is the claim; an
		// addition or a removal of a thing is more than the file changed.
		switch n := first.After; {
		case !first.File || !w.withBase() || op == "keep":
		case n == "to" || n == "in" || n == "into" || n == "inside" || n == "within" || n == "from" || n == "of":
			if r, ok := w.changedFile(st, first.Text); ok {
				r.Claims = []vouch.ClaimRef{ref(vouch.ClaimFile, partial || op != "change")}
				return []vouch.CheckResult{r}
			}
		}
		return nil
	}
	switch op {
	case "rename":
		from, to := renamePair(names)
		if from == nil || to == nil {
			return nil
		}
		if from.File && to.File && from.After == "from" {
			// "Moved the date helpers from utils.py to dates.py": content
			// moved between files, both changed; not a file renamed.
			if !w.withBase() {
				return nil
			}
			var out []vouch.CheckResult
			for _, f := range []string{from.Text, to.Text} {
				if r, ok := w.changedFile(st, f); ok {
					out = append(out, r)
				}
			}
			return cited(out, ref(vouch.ClaimFile, true))
		}
		if from.File && to.File {
			return cited(w.renamedFile(st, from.Text, to.Text), ref(vouch.ClaimFile, partial))
		}
		if !from.File && !to.File {
			return cited(w.renamedSymbol(st, from.Text, to.Text, loc), ref(vouch.ClaimSymbol, partial))
		}
		return nil
	case "remove":
		if first.File {
			return cited(w.removedFile(st, first.Text), ref(vouch.ClaimFile, partial))
		}
		// A file the clause names beside the symbol, with no place word
		// before it ("`LegacyImporter` (lib/legacy_importer.rb)"), is
		// where the symbol lived.
		var home []string
		for _, n := range names {
			if n.File && n.After == "" {
				home = append(home, n.Text)
			}
		}
		return cited(w.removedSymbol(st, first.Text, loc, home), ref(vouch.ClaimSymbol, partial))
	}
	if !w.withBase() {
		return nil // an addition or a change cannot be told from what was there
	}
	if op == "keep" {
		if first.File {
			return cited(w.keptFile(st, first.Text), ref(vouch.ClaimFile, partial))
		}
		return cited(w.keptSymbol(st, first.Text), ref(vouch.ClaimSymbol, partial))
	}
	var out []vouch.CheckResult
	if first.File {
		if op == "add" && loc != "" {
			// "Added `.env` and `coverage.out` to `.gitignore`": entries of
			// the file the clause names last, which changed.
			if r, ok := w.changedFile(st, loc); ok {
				return cited([]vouch.CheckResult{r}, ref(vouch.ClaimFile, partial))
			}
			return nil
		}
		if op == "add" {
			return cited(w.createdFile(st, first.Text), ref(vouch.ClaimFile, partial))
		}
		if r, ok := w.changedFile(st, first.Text); ok {
			return cited([]vouch.CheckResult{r}, ref(vouch.ClaimFile, partial))
		}
		return nil
	}
	action := "modify"
	if op == "add" {
		action = "add"
	}
	if st.Action == "fix" {
		action = "fix"
	}
	c := claimtext.CountClaim{Text: st.Text, Sentence: st.Sentence, Action: action, Items: []string{first.Text}, Noun: "symbol", Number: 1}
	if identifier.MatchString(first.Text) {
		files := sync.OnceValue(func() map[string][]string { return symbolFiles(w.ctx, w.s, []string{lastPart(first.Text)}) })
		for _, r := range saidSymbol(w.ctx, w.s, w.ch, c, files) {
			r.Claims = []vouch.ClaimRef{ref(vouch.ClaimSymbol, partial)}
			out = append(out, r)
		}
	}
	if loc != "" {
		// The file the work was said to be done in: unchanged, it refutes
		// the claim; changed, it shows only that something changed there.
		if r, ok := w.changedFile(st, loc); ok && (r.Status != vouch.StatusPass || len(out) == 0) {
			r.Claims = []vouch.ClaimRef{ref(vouch.ClaimFile, true)}
			out = append(out, r)
		}
	}
	return out
}

// cited makes every check of rs cite ref.
func cited(rs []vouch.CheckResult, ref vouch.ClaimRef) []vouch.CheckResult {
	for i := range rs {
		rs[i].Claims = []vouch.ClaimRef{ref}
	}
	return rs
}

// location is the file a clause says its work was done in: "to
// ranges.py", "in src/format.ts", "from utils.py".
func location(names []claimtext.Name) string {
	for _, n := range names[1:] {
		switch n.After {
		case "to", "in", "into", "inside", "within", "from", "of":
			if n.File {
				return n.Text
			}
		}
		if !n.File && n.After != "to" && n.After != "as" && n.After != "into" {
			// "Updated `Sub` to use `Helper` from helper.go": the file is
			// where the name before it is, not where the work was done.
			return ""
		}
	}
	return ""
}

// renamePair returns the old and the new name of "Renamed A to B", "A was
// renamed to B", "Moved A to B": the first name, and the first after "to",
// "as" or "into".
func renamePair(names []claimtext.Name) (from, to *claimtext.Name) {
	for i := range names {
		n := &names[i]
		switch {
		case from == nil && n.After != "to" && n.After != "as" && n.After != "into":
			from = n
		case from != nil && to == nil && (n.After == "to" || n.After == "as" || n.After == "into"):
			to = n
		}
	}
	return from, to
}

// rel returns the workspace path of a named file: the name itself when
// the workspace holds it, else the one changed file whose path ends with
// it; "" when vouch cannot tell which file is meant. exists reports
// whether the workspace holds it.
func (w *work) rel(name string) (rel string, exists bool) {
	name = strings.TrimPrefix(path.Clean(strings.TrimSpace(name)), "./")
	r := w.s.Rel(name)
	if r == "" || name == "." || strings.HasPrefix(name, "../") {
		return "", false
	}
	stat := func(p string) bool {
		fi, err := w.s.Stat(p)
		return err == nil && (fi.Mode().IsRegular() || fi.IsDir())
	}
	if w.ch != nil && w.ch.Repo {
		// What the work changed comes first: "Added a README.md to
		// examples/" names examples/README.md, new, not the README.md at
		// the root, untouched.
		if w.ch.File(r) != nil {
			return r, stat(r)
		}
		switch p, n := changedPath(w.ch, name); {
		case n == 1:
			return p, stat(p)
		case n > 1:
			return "", false
		}
	}
	if stat(r) {
		return r, true
	}
	if !strings.Contains(name, "/") {
		// A bare name may stand for a file deeper in the tree.
		if found := findBase(w.s, name); len(found) == 1 {
			return found[0], true
		} else if len(found) > 1 {
			return "", false
		}
	}
	return r, false
}

// findBase lists the workspace files whose base name is name, skipping
// hidden and dependency directories, within the walk's bounds.
func findBase(s *vouch.Subject, name string) []string {
	var out []string
	n := 0
	_ = fs.WalkDir(s.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > maxCandidateEntries || len(out) > 1 {
			return fs.SkipAll
		}
		if d.IsDir() {
			if p != "." && (walkSkipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return fs.SkipDir
			}
			return nil
		}
		if d.Name() == name {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// createdFile holds "Created F": F exists and, with a base, is new or
// changed since it.
func (w *work) createdFile(st claimtext.Statement, name string) []vouch.CheckResult {
	rel, exists := w.rel(name)
	if rel == "" {
		return nil
	}
	ev := map[string]any{"file": rel, "claim": st.Text}
	if !exists {
		o := vouch.Fail(vouch.CodeFileMissing, fmt.Sprintf("the summary says %q, but %s does not exist", st.Text, rel), ev)
		o.Fix = []string{rel}
		return []vouch.CheckResult{result("claims.created", o)}
	}
	if fc := w.ch.File(rel); fc == nil || fc.Status == git.Deleted {
		data, skipped, err := git.ReadAt(w.ctx, w.s.Dir(), w.ch.Base, []string{rel})
		if err == nil && data[rel] == nil && skipped[rel] == nil {
			// A file git ignores (".env"): not at the base, there now.
			return []vouch.CheckResult{result("claims.created", vouch.Pass(fmt.Sprintf("%s exists and was not there at the base (git does not track it), as the summary says (%q)", rel, st.Text), ev))}
		}
		if err != nil {
			o := vouch.Undecided(vouch.CodeGitUnavailable, fmt.Sprintf("the summary says %q; git shows no change to %s, and its version at the base could not be read: %v", st.Text, rel, err))
			o.Evidence = ev
			return []vouch.CheckResult{result("claims.created", o)}
		}
		o := vouch.Fail(vouch.CodeNoChange, fmt.Sprintf("the summary says %q, but %s was there at the base and git shows no change to it since", st.Text, rel), ev)
		o.Fix = []string{rel}
		return []vouch.CheckResult{result("claims.created", o)}
	}
	return []vouch.CheckResult{result("claims.created", vouch.Pass(fmt.Sprintf("%s exists and is new or changed since the base, as the summary says (%q)", rel, st.Text), ev))}
}

// changedFile holds "Updated F" against the changes since the base (see
// saidFile); ok is false when vouch cannot tell which file is meant.
func (w *work) changedFile(st claimtext.Statement, name string) (vouch.CheckResult, bool) {
	rel, changed := resolveSaid(w.s, w.ch, name)
	if rel == "" {
		return vouch.CheckResult{}, false
	}
	return saidFile(w.ch, w.traceWritten(), rel, changed, st.Text, vouch.ClaimRef{}), true
}

// tracedChange holds "changed F" against the trace's writes, when there
// is no base to compare with: the one written file whose path is name or
// ends with "/"+name. It passes when the content the trace ends with
// surely differs from what the file held before its first write (see
// trace.Versions); writes that undid each other, or that vouch cannot
// replay, leave it undecided. ok is false when no write of the trace is
// of that file: a script may have changed it, so nothing is decided.
func (w *work) tracedChange(st claimtext.Statement, name string) (vouch.CheckResult, bool) {
	name = strings.TrimPrefix(path.Clean(strings.TrimSpace(name)), "./")
	if name == "" || name == "." {
		return vouch.CheckResult{}, false
	}
	var match string
	for _, p := range w.traceWritten() {
		if p == name || strings.HasSuffix(p, "/"+name) {
			if match != "" && match != p {
				return vouch.CheckResult{}, false // which file is meant is not said
			}
			match = p
		}
	}
	if match == "" {
		return vouch.CheckResult{}, false
	}
	sum := trace.SummaryFor(w.s)
	var raw string // the path as the trace wrote it
	for _, wr := range sum.Writes {
		if !wr.IsError && strings.TrimPrefix(path.Clean(wr.Path), "./") == match {
			raw = wr.Path
			break
		}
	}
	ev := map[string]any{"file": match, "claim": st.Text}
	same, call := sum.Versions.Compare(raw, -1)
	if call >= 0 {
		ev["call"] = call
	}
	switch same {
	case trace.ChangedContent:
		return result("claims.git", vouch.Pass(fmt.Sprintf("the trace's writes changed %s (last at call %d), as the summary says (%q)", match, call, st.Text), ev)), true
	case trace.SameContent:
		o := vouch.Undecided(vouch.CodeNoChange, fmt.Sprintf("the summary says %q, but the trace's writes to %s undid each other; with no base to compare with, vouch does not take that as proof", st.Text, match))
		o.Evidence = ev
		return result("claims.git", o), true
	}
	o := vouch.Undecided(vouch.CodeNoChange, fmt.Sprintf("the summary says %q; the trace wrote %s, but vouch cannot replay the write at call %d to tell whether it ends changed", st.Text, match, call))
	o.Evidence = ev
	return result("claims.git", o), true
}

// removedFile holds "Removed F": F is gone. With a base, git must show
// it removed; a name the base did not hold either is undecided.
func (w *work) removedFile(st claimtext.Statement, name string) []vouch.CheckResult {
	rel, exists := w.rel(name)
	if rel == "" {
		return nil
	}
	ev := map[string]any{"file": rel, "claim": st.Text}
	if exists {
		o := vouch.Fail(vouch.CodeFileNotDeleted, fmt.Sprintf("the summary says %q, but %s still exists", st.Text, rel), ev)
		o.Fix = []string{rel}
		return []vouch.CheckResult{result("claims.deleted", o)}
	}
	if w.withBase() {
		if fc := w.ch.File(rel); fc == nil || fc.Status != git.Deleted && fc.Status != git.Renamed {
			o := vouch.Undecided(vouch.CodeNoChange, fmt.Sprintf("the summary says %q; %s is not in the workspace, but git does not show it removed since the base either", st.Text, rel))
			o.Evidence = ev
			return []vouch.CheckResult{result("claims.deleted", o)}
		}
	}
	return []vouch.CheckResult{result("claims.deleted", vouch.Pass(fmt.Sprintf("%s is gone, as the summary says (%q)", rel, st.Text), ev))}
}

// renamedFile holds "Renamed A to B": A is gone and B exists.
func (w *work) renamedFile(st claimtext.Statement, from, to string) []vouch.CheckResult {
	relFrom, fromThere := w.rel(from)
	relTo, toThere := w.rel(to)
	if relFrom == "" || relTo == "" {
		return nil
	}
	ev := map[string]any{"from": relFrom, "to": relTo, "claim": st.Text}
	switch {
	case !fromThere && toThere:
		return []vouch.CheckResult{result("claims.renamed", vouch.Pass(fmt.Sprintf("%s is gone and %s exists, as the summary says (%q)", relFrom, relTo, st.Text), ev))}
	case fromThere && !toThere:
		o := vouch.Fail(vouch.CodeRenameNotDone, fmt.Sprintf("the summary says %q, but %s still exists and %s does not", st.Text, relFrom, relTo), ev)
		o.Fix = []string{relFrom}
		return []vouch.CheckResult{result("claims.renamed", o)}
	case fromThere && toThere:
		o := vouch.Fail(vouch.CodeRenameNotDone, fmt.Sprintf("the summary says %q, but %s is still there beside %s: a copy, not a rename", st.Text, relFrom, relTo), ev)
		o.Fix = []string{relFrom}
		return []vouch.CheckResult{result("claims.renamed", o)}
	}
	o := vouch.Undecided(vouch.CodeRenameNotDone, fmt.Sprintf("the summary says %q, but neither %s nor %s is in the workspace", st.Text, relFrom, relTo))
	o.Evidence = ev
	return []vouch.CheckResult{result("claims.renamed", o)}
}

// codeFiles returns the files a symbol claim is held in: the file the
// clause names, else the files the work changed that a parser reads, else
// (for names) the workspace's files that hold any of names as a word.
func (w *work) codeFiles(loc string, names ...string) []string {
	if loc != "" {
		if rel, exists := w.rel(loc); rel != "" {
			if exists {
				return []string{rel}
			}
			return nil
		}
	}
	var out []string
	if w.ch != nil && w.ch.Repo {
		for _, p := range w.ch.Paths() {
			if fc := w.ch.Files[p]; fc.Status != git.Deleted {
				if _, _, ok := code.ForPath(p); ok {
					out = append(out, p)
				}
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	found := symbolFiles(w.ctx, w.s, names)
	for _, n := range names {
		for _, p := range found[n] {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// defines returns the files of files whose parse defines name, and
// whether every one of them could be parsed.
func (w *work) defines(files []string, name string) (where []string, parsed bool) {
	parsed = true
	for _, p := range files {
		f, err := code.FileFor(w.ctx, w.s, p)
		if f == nil || err != nil && len(f.Symbols) == 0 {
			parsed = false
			continue
		}
		if len(f.Lookup(name)) > 0 {
			where = append(where, p)
		}
	}
	return where, parsed
}

// definedAtBase returns the files of files whose version at the base
// defines name; ok is false when the base cannot be read.
func (w *work) definedAtBase(files []string, name string) (where []string, ok bool) {
	if !w.withBase() || len(files) == 0 {
		return nil, false
	}
	data, _, err := git.ReadAt(w.ctx, w.s.Dir(), w.ch.Base, files)
	if err != nil {
		return nil, false
	}
	for _, p := range files {
		src, ok := data[p]
		if !ok {
			continue
		}
		f, err := code.Parse(w.ctx, p, src)
		if f == nil || err != nil && !errors.Is(err, code.ErrSyntax) {
			continue
		}
		if len(f.Lookup(name)) > 0 {
			where = append(where, p)
		}
	}
	return where, true
}

// removedSymbol holds "Removed X (from F)": no file it is looked in
// defines X any more. It fails when one still does; it passes when the
// base defined it there; it is undecided when neither did.
func (w *work) removedSymbol(st claimtext.Statement, name, loc string, home []string) []vouch.CheckResult {
	if !identifier.MatchString(name) {
		return nil
	}
	files := w.codeFiles(loc, lastPart(name))
	var gone []string // home files no longer in the workspace
	for _, h := range home {
		switch rel, exists := w.rel(h); {
		case rel == "" || slices.Contains(files, rel):
		case exists:
			files = append(files, rel)
		default:
			gone = append(gone, rel)
		}
	}
	if len(files)+len(gone) == 0 {
		return nil
	}
	ev := map[string]any{"symbol": name, "claim": st.Text, "files": check.Cap(append(slices.Clone(files), gone...), 10)}
	still, parsed := w.defines(files, name)
	if len(still) > 0 {
		o := vouch.Fail(vouch.CodeSymbolStillDefined, fmt.Sprintf("the summary says %q, but %s still defines %s", st.Text, check.List(still, 3), name), ev)
		o.Fix = []string{name + " (" + still[0] + ")"}
		return []vouch.CheckResult{result("claims.removed", o)}
	}
	if !parsed {
		// A file no parser reads: its text can still show a definition
		// ("class LegacyImporter"), now or at the base.
		if at := w.definedByText(files, name); len(at) > 0 {
			ev["definitions"] = check.Cap(at, 10)
			o := vouch.Fail(vouch.CodeSymbolStillDefined, fmt.Sprintf("the summary says %q, but %s still defines %s (its text does; no parser reads the file)", st.Text, check.List(at, 3), name), ev)
			o.Fix = []string{name + " (" + at[0] + ")"}
			return []vouch.CheckResult{result("claims.removed", o)}
		}
		if was := w.definedAtBaseByText(append(slices.Clone(files), gone...), name); len(was) > 0 {
			return []vouch.CheckResult{result("claims.removed", vouch.Pass(fmt.Sprintf("%s defined %s at the base (by its text) and no file looked in does now, as the summary says (%q)", check.List(was, 3), name, st.Text), ev))}
		}
		o := vouch.Undecided(vouch.CodeCodeUnparsable, fmt.Sprintf("the summary says %q, but %s could not all be parsed to see whether %s is still defined", st.Text, check.List(files, 3), name))
		o.Evidence = ev
		return []vouch.CheckResult{result("claims.removed", o)}
	}
	was, ok := w.definedAtBase(append(slices.Clone(files), gone...), name)
	switch {
	case len(was) > 0:
		return []vouch.CheckResult{result("claims.removed", vouch.Pass(fmt.Sprintf("%s defined %s at the base and no longer does, as the summary says (%q)", check.List(was, 3), name, st.Text), ev))}
	case ok:
		o := vouch.Undecided(vouch.CodeSymbolMissing, fmt.Sprintf("the summary says %q; %s defines no %s, but did not at the base either", st.Text, check.List(files, 3), name))
		o.Evidence = ev
		return []vouch.CheckResult{result("claims.removed", o)}
	}
	o := vouch.Undecided(vouch.CodeSymbolMissing, fmt.Sprintf("the summary says %q; %s defines no %s, and without a base vouch cannot tell whether it ever did", st.Text, check.List(files, 3), name))
	o.Evidence = ev
	return []vouch.CheckResult{result("claims.removed", o)}
}

// definitionLine matches a line that defines a name in most languages'
// own words: "class X", "def x", "func X", "function x", "fn x", "module
// X", "struct X"..., after "export", "pub", "async" or "static"; group 1
// is the name.
var definitionLine = regexp.MustCompile(`^\s*(?:(?:export|default|pub(?:\([^)]*\))?|public|private|protected|static|async|abstract|final)\s+)*(?:def|class|module|function|func|fn|struct|enum|trait|interface|type|object|record)\s+(?:self\.)?([A-Za-z_$][A-Za-z0-9_$?!]*)`)

// definedByText returns "file:line" for each line of files that defines
// name by its text (see definitionLine). A name of a member
// ("JsonImporter#run", "Store.Close") is not looked for: its text cannot
// tell one class's "def run" from another's.
func (w *work) definedByText(files []string, name string) []string {
	if lastPart(name) != name {
		return nil
	}
	var out []string
	for _, p := range files {
		data, err := w.s.ReadFile(p)
		if err != nil {
			continue
		}
		out = append(out, textDefinitions(p, data, lastPart(name))...)
	}
	return out
}

// definedAtBaseByText returns the files whose version at the base defines
// name by its text.
func (w *work) definedAtBaseByText(files []string, name string) []string {
	if !w.withBase() || len(files) == 0 || lastPart(name) != name {
		return nil
	}
	data, _, err := git.ReadAt(w.ctx, w.s.Dir(), w.ch.Base, files)
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range files {
		if src, ok := data[p]; ok && len(textDefinitions(p, src, lastPart(name))) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// textDefinitions returns "file:line" for each line of data that defines
// name by its text.
func textDefinitions(file string, data []byte, name string) []string {
	var out []string
	for i, line := range strings.Split(string(data), "\n") {
		if m := definitionLine.FindStringSubmatch(line); m != nil && m[1] == name {
			out = append(out, fmt.Sprintf("%s:%d", file, i+1))
		}
	}
	return out
}

// renamedSymbol holds "Renamed A to B (in F)": B is defined where it is
// looked for and A no longer is.
func (w *work) renamedSymbol(st claimtext.Statement, from, to, loc string) []vouch.CheckResult {
	if !identifier.MatchString(from) || !identifier.MatchString(to) {
		return nil
	}
	files := w.codeFiles(loc, lastPart(from), lastPart(to))
	if len(files) == 0 {
		return nil
	}
	ev := map[string]any{"from": from, "to": to, "claim": st.Text, "files": check.Cap(files, 10)}
	old, parsedOld := w.defines(files, from)
	now, parsedNew := w.defines(files, to)
	switch {
	case len(now) > 0 && len(old) == 0 && parsedOld:
		if left := w.oldReferences(from, to, now); len(left) > 0 {
			// The definition moved to the new name; code still calls or
			// imports the old one, which nothing defines: the rename is
			// not done.
			ev["references"] = check.Cap(left, 20)
			o := vouch.Fail(vouch.CodeRenameNotDone, fmt.Sprintf("the summary says %q, and %s defines %s, but code still calls or imports %s, which nothing defines: %s",
				st.Text, check.List(now, 3), to, from, check.List(left, 5)), ev)
			o.Fix = check.Cap(left, 20)
			return []vouch.CheckResult{result("claims.renamed", o)}
		}
		return []vouch.CheckResult{result("claims.renamed", vouch.Pass(fmt.Sprintf("%s defines %s and no file defines %s any more, as the summary says (%q)", check.List(now, 3), to, from, st.Text), ev))}
	case len(old) > 0 && len(now) == 0 && parsedNew:
		o := vouch.Fail(vouch.CodeRenameNotDone, fmt.Sprintf("the summary says %q, but %s still defines %s and nothing defines %s", st.Text, check.List(old, 3), from, to), ev)
		o.Fix = []string{from + " (" + old[0] + ")"}
		return []vouch.CheckResult{result("claims.renamed", o)}
	case len(old) > 0 && len(now) > 0:
		o := vouch.Undecided(vouch.CodeRenameNotDone, fmt.Sprintf("the summary says %q; %s defines %s and %s defines %s: kept under both names?", st.Text, check.List(now, 3), to, check.List(old, 3), from))
		o.Evidence = ev
		return []vouch.CheckResult{result("claims.renamed", o)}
	}
	return nil
}

// keptFile holds "F is unchanged" against the changes since the base: it
// passes when git shows no change to F. A change git shows leaves it
// undecided, never refuted: the claim is often qualified ("unchanged except
// for the flag", "its API is unchanged", "all files but F").
func (w *work) keptFile(st claimtext.Statement, name string) []vouch.CheckResult {
	rel, changed := resolveSaid(w.s, w.ch, name)
	if rel == "" {
		return nil
	}
	ev := map[string]any{"file": rel, "claim": st.Text, "base": w.ch.Base}
	if !changed {
		return []vouch.CheckResult{result("claims.kept", vouch.Pass(fmt.Sprintf("git shows no change to %s since the base, as the summary says (%q)", rel, st.Text), ev))}
	}
	o := vouch.Undecided(vouch.CodeUnchangedClaimFalse, fmt.Sprintf("the summary says %q, but git shows %s changed since the base", st.Text, rel))
	o.Evidence = ev
	return []vouch.CheckResult{result("claims.kept", o)}
}

// keptSymbol holds "X is untouched" against the changes since the base:
// it passes when no change touches a definition of X; a change that does
// leaves it undecided (a comment or a line of layout may be all it is).
func (w *work) keptSymbol(st claimtext.Statement, name string) []vouch.CheckResult {
	if !identifier.MatchString(name) {
		return nil
	}
	defs, unread := definitions(w.ctx, w.s, w.ch, name, symbolFiles(w.ctx, w.s, []string{lastPart(name)}))
	if len(defs) == 0 {
		return nil
	}
	var where []string
	for _, d := range defs {
		start, end := d.sym.Extent()
		where = append(where, fmt.Sprintf("%s:%d-%d", d.file, start, end))
		if touched(w.ch, d) {
			o := vouch.Undecided(vouch.CodeUnchangedClaimFalse, fmt.Sprintf("the summary says %q, but a change since the base touches %s at %s:%d-%d", st.Text, name, d.file, start, end))
			o.Evidence = map[string]any{"symbol": name, "claim": st.Text, "definition": fmt.Sprintf("%s:%d-%d", d.file, start, end), "base": w.ch.Base}
			return []vouch.CheckResult{result("claims.kept", o)}
		}
	}
	ev := map[string]any{"symbol": name, "claim": st.Text, "definitions": check.Cap(where, 20), "base": w.ch.Base}
	if unread {
		o := vouch.Undecided(vouch.CodeCodeUnparsable, fmt.Sprintf("the summary says %q; no change touches %s at %s, but a changed file could not be parsed and may define it", st.Text, name, check.List(where, 3)))
		o.Evidence = ev
		return []vouch.CheckResult{result("claims.kept", o)}
	}
	return []vouch.CheckResult{result("claims.kept", vouch.Pass(fmt.Sprintf("no change since the base touches %s (%s), as the summary says (%q)", name, check.List(where, 3), st.Text), ev))}
}

// oldReferences lists, as "file:line", the lines of code that still call
// or import the old name of a renamed symbol, which nothing defines any
// more: in the workspace's files of the language of the files that define
// the new name (defs), a line that calls old, bare (not a method of some
// other value: "f.Close()"), in a file of a directory a definition is in
// (where a bare name means it), or imports old from the module of a
// definition ("import { old } from './users'"). A file that defines old
// itself, by its parse or its text, means its own; a line that names the
// new name too keeps the old one on purpose (an alias, a re-export).
func (w *work) oldReferences(from, to string, defs []string) []string {
	old := lastPart(from)
	if len(old) < 3 {
		return nil
	}
	langs, dirs, modules := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, p := range defs {
		if l, _, ok := code.ForPath(p); ok {
			langs[string(l)] = true
		}
		dirs[path.Dir(p)] = true
		modules[strings.TrimSuffix(path.Base(p), path.Ext(p))] = true
	}
	var out []string
	for _, p := range symbolFiles(w.ctx, w.s, []string{old})[old] {
		if l, _, ok := code.ForPath(p); !ok || !langs[string(l)] {
			continue
		}
		if own, _ := w.defines([]string{p}, old); len(own) > 0 {
			continue
		}
		data, err := w.s.ReadFile(p)
		if err != nil || len(textDefinitions(p, data, old)) > 0 {
			continue
		}
		for i, line := range strings.Split(string(data), "\n") {
			switch referencesOld(line, old, lastPart(to)) {
			case refCall:
				if dirs[path.Dir(p)] {
					out = append(out, fmt.Sprintf("%s:%d", p, i+1))
				}
			case refImport:
				for m := range modules {
					if hasWord(line, m) {
						out = append(out, fmt.Sprintf("%s:%d", p, i+1))
						break
					}
				}
			}
		}
	}
	return out
}

// The ways a line can still use a renamed symbol's old name.
const (
	refNone   = iota
	refCall   // calls it, bare: "old(x)"
	refImport // imports it: "import { old } from ..."
)

// referencesOld says how a line of code uses old: it imports it (an
// import line that names it) or calls it bare (old followed by "(", not a
// method of another value), outside a comment and a string, and not on a
// line that names new too.
func referencesOld(line, old, new string) int {
	t := strings.TrimSpace(line)
	if t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "--") {
		return refNone
	}
	if hasWord(line, new) {
		return refNone
	}
	importLine := strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "from ") || strings.HasPrefix(t, "use ") ||
		strings.Contains(t, "require(") || strings.HasPrefix(t, "export {")
	for i := 0; i+len(old) <= len(line); {
		j := strings.Index(line[i:], old)
		if j < 0 {
			return refNone
		}
		at := i + j
		end := at + len(old)
		i = end
		if at > 0 && isIdentByte(line[at-1]) || end < len(line) && isIdentByte(line[end]) {
			continue // a longer name
		}
		if inStringOrComment(line[:at]) {
			continue
		}
		if importLine {
			return refImport
		}
		before := strings.TrimRight(line[:at], " \t")
		if strings.HasSuffix(before, ".") || strings.HasSuffix(before, "->") {
			continue // a method of another value: "f.Close()"
		}
		if strings.HasPrefix(strings.TrimLeft(line[end:], " \t"), "(") {
			return refCall
		}
	}
	return refNone
}

// isIdentByte reports a byte that can continue an identifier.
func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// inStringOrComment reports whether the text before a position of a line
// leaves it inside a string (an odd number of unescaped quotes of one
// kind) or after a line comment ("//", "#").
func inStringOrComment(before string) bool {
	var quote byte
	for i := 0; i < len(before); i++ {
		c := before[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '#' || c == '/' && i+1 < len(before) && before[i+1] == '/':
			return true
		}
	}
	return quote != 0
}
