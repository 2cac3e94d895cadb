package trace

import (
	"encoding/binary"
	"hash/maphash"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/vouchgate/vouch"
)

// Sameness tells whether a file holds the same content at two points of
// a trace, as far as replaying the trace's writes tells.
type Sameness int8

// The answers. The zero Sameness is UnknownContent.
const (
	// UnknownContent: a write vouch cannot replay (a script that edits
	// the file, a command that failed halfway) stands between the two
	// points, with other writes, so the file may have come back to what
	// it was or not.
	UnknownContent Sameness = iota
	// SameContent: no write in between, or the writes in between undid
	// each other (an edit and its inverse, a backup copied back, git
	// checkout of a file that had no other change, the same full content
	// written again).
	SameContent
	// ChangedContent: the writes in between changed the file, as surely
	// as the order of the calls tells: an edit that no later write undid.
	// An edit that matched nothing (a sed substitution that found no
	// match) is counted as a change.
	ChangedContent
)

// String returns "unknown", "same" or "changed".
func (s Sameness) String() string {
	switch s {
	case SameContent:
		return "same"
	case ChangedContent:
		return "changed"
	}
	return "unknown"
}

// Versions is the content of each file a trace writes, call by call, as
// identities rather than text: replaying the writes in trace order, each
// file's version is a stack of edits over a root, which is its content at
// the start of the trace, a full content the trace shows (a Write, a
// here-document redirected to the file), or content vouch cannot name (a
// write it cannot replay).
//
//   - An edit whose old and new texts the trace shows (an editor's
//     replacement, a literal sed substitution, a diff's hunk) is pushed;
//     the edit that exactly inverts the one on top pops it, so a change
//     and its revert give the earlier version back. The same replacement
//     made twice in a row changes nothing the second time, when its new
//     text does not hold the old. Replay assumes every such edit found
//     its text: a sed substitution that matched nothing and is then
//     inverted is read as undone.
//   - A deterministic edit vouch does not invert (a sed script with a
//     regular expression, perl -pi -e, ed) is pushed too: the same edit
//     of the same version gives the same version.
//   - A full content sets the root to that content's hash: writing the
//     same text twice gives the same version.
//   - cp and mv give the destination the source's version; git checkout
//     and git restore of a file give back its version at the start (while
//     no commit or git add moved the index); git stash puts the files
//     back at their start and git stash pop restores the versions it
//     saved.
//   - Anything else that writes (a script, a patch file vouch cannot
//     read, a command that failed) gives the file a version of its own,
//     equal to no other.
//
// Files are keyed by their paths as written, cleaned: /testbed/a.py and
// a.py are two files. Removing a file is not a write here. Versions keeps
// hashes, not
// contents: its size is linear in the number of writes. The hashes are
// seeded per process, so a trace cannot be made to collide them. A
// Versions is read-only once built and safe for concurrent use.
type Versions struct {
	files map[string]*fileHistory
	order []string // the files' keys in the order of their first write
	// unknowns counts the versions vouch could not name, giving each
	// its own identity.
	unknowns uint64
	stash    []stashEntry
	// moved is set once the index or HEAD no longer holds the start
	// (git add, git commit, a merge): git checkout no longer gives back
	// the start.
	moved bool
	// blind are the calls that may have changed any file in a way vouch
	// cannot replay (a branch switch, a stash it could not follow).
	blind []int
	// budget bounds the work of commands that act on every file (git
	// stash, git checkout .); past it they count as blind.
	budget int

	// The call being replayed: its index, whether it failed, its output,
	// and the files it wrote (touched[key] == at+1).
	at      int
	failed  bool
	output  string
	touched map[string]int
}

// fileHistory is the versions of one file, by call.
type fileHistory struct {
	start *version
	steps []versionStep
	// blurry are the positions in steps of the writes vouch cannot
	// replay exactly (see versionStep.blurry), in order.
	blurry []int
	// edited is set when the first write of the file edited it: the file
	// existed at the start, so git tracks it.
	edited bool
}

// versionStep is a file's version after one call that wrote it.
type versionStep struct {
	index int
	v     *version
	// certain is false when the call failed: the write may not have
	// happened.
	certain bool
}

// version is one content of a file, as an identity. Versions form
// persistent stacks: a version points to the one its edit was applied
// to, so copying a file's version copies a pointer.
type version struct {
	id     uint64
	key    uint64 // the edit that made it from parent; 0 for a root
	inv    uint64 // the key of the edit that undoes that edit; 0 when unknown
	parent *version
	root   uint64 // the id of the root under it
	// exact is set when every edit since the root is one vouch replays
	// exactly (it knows the text replaced and the text put).
	exact bool
	// unnamed is set when the root is content vouch cannot name.
	unnamed bool
}

// stashEntry is one git stash: the files it put back, each with its
// version before and after.
type stashEntry []stashedFile

type stashedFile struct {
	key          string
	saved, after *version
}

// An edit is a change a write makes to a file's content, by its
// identity.
type edit struct {
	key, inv uint64
	exact    bool
	// again is set for a replacement whose new text does not hold the
	// old: made twice in a row, the second finds nothing to replace.
	again bool
}

// Limits of the work on commands that act on every file.
const (
	wholeTreeBudget = 1 << 16
	maxStash        = 64
)

var versionSeed = maphash.MakeSeed()

// hashOf hashes a kind of thing and its parts, each with its length.
func hashOf(kind byte, parts ...string) uint64 {
	var h maphash.Hash
	h.SetSeed(versionSeed)
	h.WriteByte(kind)
	var n [8]byte
	for _, p := range parts {
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.WriteString(p)
	}
	return h.Sum64() | 1 // never 0
}

// mix hashes two identities.
func mix(a, b uint64) uint64 {
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], a)
	binary.LittleEndian.PutUint64(buf[8:], b)
	return maphash.Bytes(versionSeed, buf[:]) | 1
}

// replaceEdit is the edit that replaces old with new where the scope
// says (a sed address and flags, "all" for every occurrence, "" for an
// editor's one occurrence).
func replaceEdit(kind, scope, old, new string) edit {
	return edit{key: hashOf('r', kind, scope, old, new), inv: hashOf('r', kind, scope, new, old), exact: true, again: !strings.Contains(new, old)}
}

// opaqueEdit is a deterministic edit vouch does not invert, named by its
// parts.
func opaqueEdit(parts ...string) edit { return edit{key: hashOf('o', parts...)} }

func newVersions() *Versions { return &Versions{budget: wholeTreeBudget} }

// fileKey is the key of a path: cleaned, without "./".
func fileKey(p string) string { return path.Clean(strings.TrimSpace(p)) }

// rootVersion returns a root version.
func rootVersion(id uint64, unnamed bool) *version {
	return &version{id: id, root: id, exact: true, unnamed: unnamed}
}

// history returns the history of the file at key, creating it.
func (v *Versions) history(key string) *fileHistory {
	h := v.files[key]
	if h == nil {
		if v.files == nil {
			v.files = make(map[string]*fileHistory)
		}
		h = &fileHistory{start: rootVersion(hashOf('b', key), false)}
		v.files[key] = h
		v.order = append(v.order, key)
	}
	return h
}

// current returns the file's version now.
func (h *fileHistory) current() *version {
	if n := len(h.steps); n > 0 {
		return h.steps[n-1].v
	}
	return h.start
}

// set gives the file at key version nv at the call being replayed. In a
// call that failed, the file gets a version of its own instead: the write
// may or may not have happened.
func (v *Versions) set(key string, nv *version) {
	h := v.history(key)
	if v.failed {
		nv = v.unknownVersion()
	}
	v.touched[key] = v.at + 1
	if n := len(h.steps); n > 0 && h.steps[n-1].index == v.at {
		h.steps[n-1].v = nv // one step per call
		h.steps[n-1].certain = h.steps[n-1].certain && !v.failed
	} else {
		h.steps = append(h.steps, versionStep{index: v.at, v: nv, certain: !v.failed})
	}
	n := len(h.steps)
	if h.steps[n-1].blurry() && (len(h.blurry) == 0 || h.blurry[len(h.blurry)-1] != n-1) {
		h.blurry = append(h.blurry, n-1)
	}
}

// blurry reports a write vouch cannot replay exactly: one in a call that
// failed, or one that leaves the file with content it cannot name or
// edits it cannot invert.
func (s versionStep) blurry() bool { return !s.certain || !s.v.exact || s.v.unnamed }

// unknownVersion returns a version equal to no other.
func (v *Versions) unknownVersion() *version {
	v.unknowns++
	return rootVersion(hashOf('u', strconv.FormatUint(v.unknowns, 10)), true)
}

// apply applies an edit to the file at key.
func (v *Versions) apply(key string, e edit) {
	h := v.history(key)
	if len(h.steps) == 0 {
		h.edited = true
	}
	cur := h.current()
	switch {
	case cur.inv != 0 && e.key == cur.inv && cur.parent != nil:
		v.set(key, cur.parent) // the inverse of the last edit undoes it
		return
	case e.again && e.key == cur.key:
		v.set(key, cur) // the same replacement again finds nothing to replace
		return
	}
	v.set(key, &version{
		id: mix(cur.id, e.key), key: e.key, inv: e.inv, parent: cur,
		root: cur.root, exact: cur.exact && e.exact, unnamed: cur.unnamed,
	})
}

// setContent gives the file at key the full content text.
func (v *Versions) setContent(key, text string) {
	v.history(key)
	v.set(key, rootVersion(hashOf('c', text), false))
}

// deletedContent is the content of a removed file, as a diff removes it.
const deletedContent = "\x00deleted"

// unknown gives the file at key content vouch cannot name.
func (v *Versions) unknown(key string) { v.set(key, v.unknownVersion()) }

// copyTo gives dst the version src has.
func (v *Versions) copyTo(src, dst string) {
	if src == dst {
		return
	}
	v.set(dst, v.history(src).current())
}

// restore gives the file at key back its content at the start, as git
// checkout does: when git tracks it and the index still holds the start.
func (v *Versions) restore(key string, fromHead bool) {
	h := v.history(key)
	switch {
	case !fromHead || v.moved:
		v.unknown(key)
	case len(h.steps) == 0:
		v.set(key, h.start) // nothing to restore; a write all the same
	case h.edited:
		v.set(key, h.start)
	default:
		// A file the trace wrote whole may be one git does not track:
		// git checkout of it fails or leaves it.
		v.unknown(key)
	}
}

// under returns the keys of the files the trace wrote under dir ("." for
// all), within the budget; ok is false past it.
func (v *Versions) under(dir string) (keys []string, ok bool) {
	if v.budget -= len(v.order); v.budget < 0 {
		return nil, false
	}
	dir = fileKey(dir)
	for _, k := range v.order {
		if dir == "." || k == dir || strings.HasPrefix(k, dir+"/") {
			keys = append(keys, k)
		}
	}
	return keys, true
}

// begin starts replaying call i.
func (v *Versions) begin(i int, failed bool, output string) {
	v.at, v.failed, v.output = i, failed, output
	if v.touched == nil {
		v.touched = make(map[string]int)
	}
}

// touch records that the call reached the file at key without changing
// it (an edit that replaces a text with itself).
func (v *Versions) touch(key string) { v.touched[key] = v.at + 1 }

// finish ends a call: every file the summary says it wrote that the
// replay did not reach gets content vouch cannot name.
func (v *Versions) finish(written []string) {
	for _, p := range written {
		if k := fileKey(p); v.touched[k] != v.at+1 {
			v.unknown(k)
		}
	}
}

// editCall replays a call of an editor tool, whose files the summary
// records as written (in that call's [File] records).
func (v *Versions) editCall(i int, e *vouch.TraceEntry, written []File) {
	if e.IsError || len(written) == 0 {
		return // an editor's failed call changes nothing
	}
	v.begin(i, false, "")
	paths := make([]string, len(written))
	for k, w := range written {
		paths[k] = w.Path
	}
	in := e.Input
	p := FilePath(in)
	key := fileKey(p)
	cmd, _ := in["command"].(string)
	old, hasOld := firstOf(in, "old_string", "old_str", "oldString")
	nw, hasNew := firstOf(in, "new_string", "new_str", "newString")
	switch {
	case p == "":
		v.patch(patchText(in), false)
	case cmd == "undo_edit":
		// The editor gives back the content before its last edit of the
		// file: the version before the last write.
		h := v.history(key)
		switch n := len(h.steps); n {
		case 0:
			v.unknown(key)
		case 1:
			v.set(key, h.start)
		default:
			v.set(key, h.steps[n-2].v)
		}
	case hasOld && (hasNew || cmd == "str_replace"):
		scope := ""
		if all, _ := in["replace_all"].(bool); all {
			scope = "all"
		}
		if old != nw {
			v.apply(key, replaceEdit("text", scope, old, nw))
		} else {
			v.touch(key)
		}
	case in["edits"] != nil:
		v.multiEdit(key, in["edits"])
	case cmd == "insert":
		line := ""
		if n, ok := in["insert_line"].(float64); ok {
			line = strconv.FormatFloat(n, 'f', -1, 64)
		}
		v.apply(key, opaqueEdit("insert", line, nw))
	case strings.Contains(strings.ToLower(e.Tool), "delete"):
		v.setContent(key, deletedContent)
	default:
		if text, ok := firstOf(in, "content", "file_text"); ok {
			v.setContent(key, text)
		}
	}
	v.finish(paths)
}

// multiEdit replays a list of replacements (MultiEdit's "edits").
func (v *Versions) multiEdit(key string, list any) {
	items, ok := list.([]any)
	if !ok || len(items) == 0 {
		v.unknown(key)
		return
	}
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			v.unknown(key)
			return
		}
		old, ok1 := firstOf(m, "old_string", "old_str", "oldString")
		nw, ok2 := firstOf(m, "new_string", "new_str", "newString")
		if !ok1 || !ok2 {
			v.unknown(key)
			return
		}
		scope := ""
		if all, _ := m["replace_all"].(bool); all {
			scope = "all"
		}
		if old != nw {
			v.apply(key, replaceEdit("text", scope, old, nw))
		}
	}
}

// patch replays the files and hunks of a diff or an apply_patch text,
// reversed for git apply -R.
func (v *Versions) patch(text string, reverse bool) {
	for _, f := range diffFiles(text) {
		key := fileKey(f.path)
		added, deleted := f.added, f.deleted
		if reverse {
			added, deleted = deleted, added
		}
		switch {
		case f.moved:
			v.unknown(key)
		case deleted:
			v.setContent(key, deletedContent)
		case added:
			var b strings.Builder
			for _, h := range f.hunks {
				if reverse {
					b.WriteString(h.old)
				} else {
					b.WriteString(h.new)
				}
			}
			v.setContent(key, b.String())
		case len(f.hunks) == 0:
			v.unknown(key)
		default:
			for _, h := range f.hunks {
				old, nw := h.old, h.new
				if reverse {
					old, nw = nw, old
				}
				v.apply(key, replaceEdit("text", "", old, nw))
			}
		}
	}
}

// patchText returns an apply_patch call's patch.
func patchText(in map[string]any) string {
	s, _ := firstOf(in, "input", "patch", "diff")
	return s
}

// firstOf returns the first of the keys that holds a string.
func firstOf(in map[string]any, keys ...string) (string, bool) {
	for _, k := range keys {
		if s, ok := in[k].(string); ok {
			return s, true
		}
	}
	return "", false
}

// shellCall replays a shell command line, whose files the summary records
// as written, with its output.
func (v *Versions) shellCall(i int, stages []shellStage, written []string, failed bool, output string) {
	v.begin(i, failed, output)
	for k := range stages {
		v.shellStage(&stages[k])
	}
	v.finish(written)
	v.output = ""
}

// shellStage replays one simple command.
func (v *Versions) shellStage(st *shellStage) {
	args := st.program()
	for _, r := range st.redirs {
		if r.writesOutput() {
			v.redirect(st, args, r)
		}
	}
	if len(args) == 0 {
		return
	}
	prog := path.Base(args[0].s)
	switch {
	case prog == "tee":
		app := false
		for _, a := range args[1:] {
			switch {
			case a.s == "-a" || a.s == "--append":
				app = true
			case strings.HasPrefix(a.s, "-"), a.expands:
			case st.doc != nil && st.doc.literal:
				if app {
					v.apply(fileKey(a.s), opaqueEdit("append", st.doc.body))
				} else {
					v.setContent(fileKey(a.s), st.doc.body)
				}
			default:
				v.unknown(fileKey(a.s))
			}
		}
	case prog == "sed":
		s := parseSedArgs(args)
		if !s.inPlace {
			return
		}
		var edits []edit
		ok := !s.other && !s.expands && len(s.scripts) > 0
		if ok {
			edits, ok = sedEdits(strings.Join(s.scripts, "\n"), s.ere)
		}
		for _, f := range s.files {
			key := fileKey(f)
			if !ok {
				v.unknown(key)
				continue
			}
			for _, e := range edits {
				v.apply(key, e)
			}
			v.touch(key)
		}
	case prog == "perl":
		p := parsePerlArgs(args)
		if !p.inPlace {
			return
		}
		for _, f := range p.files {
			if p.script || p.expands || strings.Contains(p.code, "`") || strings.Contains(p.code, "system") {
				v.unknown(fileKey(f))
			} else {
				v.apply(fileKey(f), opaqueEdit("perl", p.opts, p.code))
			}
		}
	case prog == "cp" || prog == "mv" || prog == "install":
		for _, c := range parseCopy(args) {
			v.copyTo(fileKey(c.src), fileKey(c.dst))
		}
	case prog == "ed" || prog == "ex":
		if f, ok := edFile(st, args); ok {
			if st.doc.literal {
				v.apply(fileKey(f), opaqueEdit(prog, st.doc.body))
			} else {
				v.unknown(fileKey(f))
			}
		}
	case prog == "patch":
		if hasArg(args, "--dry-run") {
			return
		}
		if st.doc != nil && st.doc.literal {
			v.patch(st.doc.body, hasArg(args, "-R") || hasArg(args, "--reverse"))
		}
	case prog == "git":
		v.git(st, gitArgs(args))
	}
}

// redirect replays an output redirection: the content of a literal
// here-document cat prints, of echo or printf with literal words, a file
// cat copies, or nothing (": > f"); any other command's output is content
// vouch cannot name.
func (v *Versions) redirect(st *shellStage, args []shellWord, r shellRedir) {
	key := fileKey(r.target.s)
	text, ok := "", true
	prog := ""
	if len(args) > 0 {
		prog = path.Base(args[0].s)
	}
	switch prog {
	case "", "true", ":":
	case "cat":
		ops := args[1:]
		if len(ops) == 1 && ops[0].s == "-" {
			ops = nil
		}
		src := ""
		switch {
		case len(ops) == 0 && st.doc != nil:
			text, ok = st.doc.body, st.doc.literal
		case len(ops) == 0 && st.stdin != nil && !st.stdin.expands:
			src = st.stdin.s
		case len(ops) == 1 && !ops[0].expands && !strings.HasPrefix(ops[0].s, "-"):
			src = ops[0].s
		default:
			ok = false
		}
		if src != "" {
			if r.append {
				v.unknown(key)
			} else {
				v.copyTo(fileKey(src), key)
			}
			return
		}
	case "echo":
		text, ok = echoText(args[1:])
	case "printf":
		text = args[len(args)-1].s
		ok = len(args) == 2 && !args[1].expands && !strings.ContainsAny(text, `%\`)
	default:
		ok = false
	}
	switch {
	case !ok:
		v.unknown(key)
	case r.append:
		if text != "" {
			v.apply(key, opaqueEdit("append", text))
		}
		v.touch(key)
	default:
		v.setContent(key, text)
	}
}

// echoText returns what echo prints for literal words: with -n, no
// newline; -e and words that expand are not read.
func echoText(args []shellWord) (string, bool) {
	nl := true
	for len(args) > 0 && strings.HasPrefix(args[0].s, "-") && len(args[0].s) > 1 {
		switch args[0].s {
		case "-n":
			nl = false
		case "-E":
		default:
			return "", false
		}
		args = args[1:]
	}
	var b strings.Builder
	for k, a := range args {
		if a.expands || strings.Contains(a.s, `\`) {
			return "", false
		}
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.s)
	}
	if nl {
		b.WriteByte('\n')
	}
	return b.String(), true
}

// git replays a git subcommand: checkout and restore of paths, apply of a
// diff in a here-document, stash and its pop, and the commands that move
// the index or HEAD.
func (v *Versions) git(st *shellStage, g []shellWord) {
	if len(g) == 0 {
		return
	}
	switch g[0].s {
	case "checkout", "restore":
		paths, fromHead := gitRestorePaths(g, v.output)
		if len(paths) == 0 {
			if g[0].s == "checkout" && len(g) > 1 && !hasArg(g, "-b") && !hasArg(g, "-B") {
				v.blindCall(true) // a branch switch
			}
			return
		}
		for _, p := range paths {
			key := fileKey(p)
			if !isDirArg(p) && v.files[key] != nil {
				v.restore(key, fromHead)
				continue
			}
			// A directory, or a file the trace did not write yet.
			keys, ok := v.under(p)
			if !ok {
				v.blindCall(false)
				return
			}
			if len(keys) == 0 && !isDirArg(p) {
				keys = append(keys, key)
			}
			for _, k := range keys {
				v.restore(k, fromHead)
			}
		}
	case "apply":
		if !gitApplies(g) {
			return
		}
		if st.doc != nil && st.doc.literal {
			v.patch(st.doc.body, hasArg(g, "-R") || hasArg(g, "--reverse"))
		}
	case "stash":
		v.gitStash(g)
	case "reset":
		hard, rev := false, ""
		for _, a := range g[1:] {
			switch {
			case a.s == "--hard":
				hard = true
			case !strings.HasPrefix(a.s, "-"):
				rev = a.s
			}
		}
		if rev != "" && rev != "HEAD" {
			v.blindCall(true)
			return
		}
		if hard {
			keys, ok := v.under(".")
			if !ok {
				v.blindCall(false)
				return
			}
			for _, k := range keys {
				v.restore(k, true)
			}
		}
	case "add", "commit", "rm", "mv":
		v.moved = true
	case "merge", "rebase", "cherry-pick", "am", "pull", "revert", "switch":
		v.blindCall(true)
	}
}

// blindCall records that the call may have changed any file in a way
// vouch cannot replay; moved says it moved HEAD too.
func (v *Versions) blindCall(moved bool) {
	v.blind = append(v.blind, v.at)
	v.moved = v.moved || moved
}

// gitStash replays git stash (push, save), pop, apply, drop and clear.
func (v *Versions) gitStash(g []shellWord) {
	sub := "push"
	rest := g[1:]
	if len(rest) > 0 && !strings.HasPrefix(rest[0].s, "-") {
		sub, rest = rest[0].s, rest[1:]
	}
	switch sub {
	case "push", "save":
		untracked := false
		var paths []string
		dashdash := false
		for k := 0; k < len(rest); k++ {
			a := rest[k].s
			switch {
			case dashdash:
				paths = append(paths, a)
			case a == "--":
				dashdash = true
			case a == "-u" || a == "--include-untracked" || a == "-a" || a == "--all":
				untracked = true
			case a == "-m" || a == "--message":
				k++
			case strings.HasPrefix(a, "-"):
			case sub == "push":
				paths = append(paths, a)
			}
		}
		if v.failed {
			// It may have stashed nothing or everything.
			v.blindCall(false)
			return
		}
		if len(v.stash) >= maxStash {
			v.blindCall(false)
			return
		}
		var keys []string
		if len(paths) == 0 {
			var ok bool
			if keys, ok = v.under("."); !ok {
				v.blindCall(false)
				return
			}
		} else {
			for _, p := range paths {
				keys = append(keys, fileKey(p))
			}
		}
		var e stashEntry
		for _, k := range keys {
			h := v.history(k)
			cur := h.current()
			if cur == h.start {
				continue // nothing to stash
			}
			switch {
			case v.moved:
				v.unknown(k)
			case h.edited || untracked:
				v.set(k, h.start)
			default:
				v.unknown(k) // may be untracked: left as it is, or not
			}
			e = append(e, stashedFile{key: k, saved: cur, after: h.current()})
		}
		v.stash = append(v.stash, e)
	case "pop", "apply":
		n := len(v.stash)
		if n == 0 || len(rest) > 0 && rest[0].s != "stash@{0}" && rest[0].s != "0" {
			v.blindCall(false)
			return
		}
		for _, f := range v.stash[n-1] {
			if v.history(f.key).current() == f.after {
				v.set(f.key, f.saved)
			} else {
				v.unknown(f.key) // changed since: git merges the two
			}
		}
		if sub == "pop" && !v.failed {
			v.stash = v.stash[:n-1]
		}
	case "drop":
		if n := len(v.stash); n > 0 && !v.failed {
			v.stash = v.stash[:n-1]
		}
	case "clear":
		if !v.failed {
			v.stash = v.stash[:0]
		}
	}
}

// Compare tells whether the file at path p holds at the end of the trace
// the content it held just after call i (the state the command of call i
// ran on, for a command that writes and then runs). The call it returns
// says why, when the answer is not SameContent: for ChangedContent the
// last call that wrote the file, for UnknownContent the first write after
// i that vouch cannot replay. A nil Versions knows no content: a write
// after call i is a change, as the order of the calls tells.
//
// Two versions are the same when their identities are. They differ for
// sure when both follow from their roots by edits vouch replays exactly
// and the roots are the same or both named; and when only one call, which
// did not fail, wrote the file after call i: one write changes a file
// whatever vouch can replay of it. Otherwise a write vouch cannot replay
// leaves the answer unknown.
func (v *Versions) Compare(p string, i int) (Sameness, int) {
	if v == nil {
		return ChangedContent, -1
	}
	blind := -1
	if k := sort.SearchInts(v.blind, i+1); k < len(v.blind) {
		blind = v.blind[k]
	}
	h := v.files[fileKey(p)]
	if h == nil {
		if blind >= 0 {
			return UnknownContent, blind
		}
		return SameContent, -1
	}
	k := sort.Search(len(h.steps), func(j int) bool { return h.steps[j].index > i })
	if k == len(h.steps) {
		if blind >= 0 {
			return UnknownContent, blind
		}
		return SameContent, -1
	}
	a := h.start
	if k > 0 {
		a = h.steps[k-1].v
	}
	last := h.steps[len(h.steps)-1]
	b := last.v
	switch {
	case blind >= 0:
		return UnknownContent, blind
	case a.id == b.id:
		return SameContent, -1
	case a.exact && b.exact && (a.root == b.root || !a.unnamed && !b.unnamed):
		return ChangedContent, last.index
	case k == len(h.steps)-1 && last.certain:
		return ChangedContent, last.index
	}
	if j := sort.SearchInts(h.blurry, k); j < len(h.blurry) {
		return UnknownContent, h.steps[h.blurry[j]].index
	}
	return UnknownContent, last.index
}

// sedEdits reads a sed script into the edits it makes: one replacement
// per substitution when every command substitutes literal text (the exact
// inverse of one can then undo it); otherwise one deterministic edit for
// the whole script. ok is false for a script that reads or writes other
// files or runs commands (r, R, w, W, e, s///w, s///e): vouch cannot
// replay it. ere is set for an extended expression (sed -E).
func sedEdits(script string, ere bool) (edits []edit, ok bool) {
	whole := []edit{opaqueEdit("sed", strconv.FormatBool(ere), script)}
	literal := true
	n := len(script)
	for i := 0; i < n; {
		c := script[i]
		switch c {
		case ' ', '\t', '\r', '\n', ';':
			i++
			continue
		case '#':
			for i < n && script[i] != '\n' {
				i++
			}
			continue
		}
		addr, j, good := sedAddress(script, i)
		if !good {
			return whole, true
		}
		i = skipBlanks(script, j)
		if i < n && script[i] == '!' {
			addr += "!"
			i = skipBlanks(script, i+1)
		}
		if i >= n {
			return whole, true
		}
		cmd := script[i]
		i++
		switch cmd {
		case 's':
			if i >= n || script[i] == '\\' || script[i] == '\n' {
				return whole, true
			}
			delim := script[i]
			re, j, good1 := sedPart(script, i+1, delim)
			rep, j, good2 := sedPart(script, j, delim)
			if !good1 || !good2 {
				return whole, true
			}
			i = j
			start := i
			for i < n && strings.IndexByte("gpIiMm0123456789", script[i]) >= 0 {
				i++
			}
			if i < n && (script[i] == 'w' || script[i] == 'e') {
				return nil, false
			}
			flags := script[start:i]
			if !literal {
				continue
			}
			lit, anchors, good3 := sedRegexLiteral(re, delim, ere)
			repl, good4 := sedReplacementLiteral(rep)
			if good3 && good4 && strings.Trim(flags, "g0123456789") == "" {
				edits = append(edits, replaceEdit("sed", addr+"\x00"+anchors+"\x00"+flags, lit, repl))
			} else {
				literal = false
			}
		case 'r', 'R', 'w', 'W', 'e':
			return nil, false
		case 'a', 'i', 'c':
			literal = false
			i = sedText(script, i)
		case 'y':
			literal = false
			if i >= n {
				return whole, true
			}
			_, j, good1 := sedPart(script, i+1, script[i])
			_, j, good2 := sedPart(script, j, script[i])
			if !good1 || !good2 {
				return whole, true
			}
			i = j
		case 'b', 't', 'T', ':', 'l', 'q', 'Q', 'L':
			literal = false
			for i < n && script[i] != ';' && script[i] != '\n' && script[i] != '}' {
				i++
			}
		default:
			literal = false // d, p, n, N, g, G, h, H, x, =, {, }, …
		}
	}
	if !literal || len(edits) == 0 {
		return whole, true
	}
	return edits, true
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// sedAddress reads the address at s[i:], if any ("504", "$", "/re/",
// "\%re%", "1,5", "/a/,+2", "0~4"), and returns it as written.
func sedAddress(s string, i int) (string, int, bool) {
	start := i
	one := func(i int) (int, bool) {
		if i >= len(s) {
			return i, true
		}
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
				i++
			}
		case c == '$':
			i++
		case c == '/' || c == '\\':
			delim := byte('/')
			if c == '\\' {
				if i+1 >= len(s) {
					return i, false
				}
				i++
				delim = s[i]
			}
			_, j, ok := sedPart(s, i+1, delim)
			if !ok {
				return i, false
			}
			i = j
			for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		}
		return i, true
	}
	i, ok := one(i)
	if !ok {
		return "", i, false
	}
	if i < len(s) && s[i] == ',' {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '~') {
			i++
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		} else if i, ok = one(i); !ok {
			return "", i, false
		}
	}
	return s[start:i], i, true
}

// sedPart reads up to the next unescaped delim from s[i:] and returns
// the text as written, escapes kept, and the index after the delim.
func sedPart(s string, i int, delim byte) (string, int, bool) {
	start := i
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case delim:
			return s[start:i], i + 1, true
		}
	}
	return "", i, false
}

// sedText skips the text of an a, i or c command: the rest of the line,
// and the lines after while a line ends in a backslash.
func sedText(s string, i int) int {
	i = skipBlanks(s, i)
	if strings.HasPrefix(s[i:], "\\\n") {
		i += 2
	}
	for i < len(s) {
		end := strings.IndexByte(s[i:], '\n')
		if end < 0 {
			return len(s)
		}
		line := s[i : i+end]
		i += end + 1
		trailing := len(line) - len(strings.TrimRight(line, "\\"))
		if trailing%2 == 0 {
			return i
		}
	}
	return i
}

// sedRegexLiteral returns the text a sed regular expression matches when
// it is written as text: escaped special characters stand for themselves,
// a leading ^ and a trailing $ are anchors (returned apart), and an
// unescaped "." is read as the dot it matches in the text the agent meant
// ("self.x"). ok is false for an expression with a class, a repetition,
// a group or an empty one (the last expression used).
func sedRegexLiteral(re string, delim byte, ere bool) (lit, anchors string, ok bool) {
	if strings.HasPrefix(re, "^") {
		anchors, re = "^", re[1:]
	}
	if strings.HasSuffix(re, "$") {
		k := len(re) - 1
		backslashes := 0
		for k > 0 && re[k-1] == '\\' {
			backslashes++
			k--
		}
		if backslashes%2 == 0 {
			anchors, re = anchors+"$", re[:len(re)-1]
		}
	}
	var b strings.Builder
	for i := 0; i < len(re); i++ {
		c := re[i]
		switch {
		case c == '\\':
			if i+1 >= len(re) {
				return "", "", false
			}
			i++
			switch d := re[i]; {
			case d == delim || strings.IndexByte(".[]*^$\\/", d) >= 0:
				b.WriteByte(d)
			case ere && strings.IndexByte("(){}+?|", d) >= 0:
				b.WriteByte(d)
			case d == 'n':
				b.WriteByte('\n')
			case d == 't':
				b.WriteByte('\t')
			default:
				return "", "", false
			}
		case c == '[':
			return "", "", false
		case c == '*':
			if i > 0 || ere {
				return "", "", false
			}
			b.WriteByte(c) // a leading * is literal in a basic expression
		case ere && strings.IndexByte("(){}+?|^$", c) >= 0:
			return "", "", false
		default:
			b.WriteByte(c)
		}
	}
	if b.Len() == 0 {
		return "", "", false
	}
	return b.String(), anchors, true
}

// sedReplacementLiteral returns the text a sed replacement puts when it
// puts the same text for any match: no & and no \1 to \9 or case
// conversion.
func sedReplacementLiteral(rep string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(rep); i++ {
		c := rep[i]
		switch c {
		case '\\':
			if i+1 >= len(rep) {
				return "", false
			}
			i++
			switch d := rep[i]; {
			case d >= '0' && d <= '9', strings.IndexByte("LUluE", d) >= 0:
				return "", false
			case d == 'n':
				b.WriteByte('\n')
			case d == 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(d) // \&, \\, \/, a newline
			}
		case '&':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}
