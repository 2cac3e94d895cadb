package mention

import (
	"strconv"

	"github.com/vouchgate/vouch/text/lex"
)

// lflag is a set of the roles a word plays in a mention, from the word
// lists of package lex (see flagLists).
type lflag uint64

const (
	lStop lflag = 1 << iota
	lCommon
	lVerb
	lMonth
	lDay
	lTech
	lAcro
	lUnit
	lAttachedOnly
	lScale
	lCurrency
	lLabel
	lDateCtx
	lPkgWord
	lPkgTool
	lInstall
	lNotPkg
	lCount
	lSpelled
	lCodeNoun
	lLink
	lPyMod
	lKeyword
	lLibrary
	lDotFile
	lTLD
	lKnownDir
	lGitRef
	lAbbrev
	lGoHost
	lTitle
	lAbsRoot
	lBareFile
	lNameStart
)

// winfo is what the lexicon knows of a word.
type winfo struct {
	f     lflag
	month uint8
	n     float64 // scale factor, or the value of a spelled number
	s     string  // normal form of a unit or currency code
}

func (w *winfo) has(f lflag) bool { return w.f&f != 0 }

// flagLists are the word lists whose words mention flags.
var flagLists = []struct {
	list string
	flag lflag
}{
	{"common-words", lCommon}, {"name-stop-words", lStop}, {"name-verbs", lVerb},
	{"weekdays", lDay}, {"tech-names", lTech}, {"tech-acronyms", lAcro},
	{"attached-only", lAttachedOnly}, {"currency-codes", lCurrency}, {"number-labels", lLabel},
	{"date-context", lDateCtx}, {"package-words", lPkgWord}, {"package-tools", lPkgTool},
	{"install-verbs", lInstall}, {"not-package-names", lNotPkg}, {"count-words", lCount},
	{"code-nouns", lCodeNoun}, {"name-links", lLink}, {"py-modules", lPyMod},
	{"keywords", lKeyword}, {"library-names", lLibrary}, {"dot-files", lDotFile},
	{"tlds", lTLD}, {"known-dirs", lKnownDir}, {"git-ref-roots", lGitRef},
	{"abbreviations", lAbbrev}, {"go-hosts", lGoHost}, {"titles", lTitle},
	{"abs-roots", lAbsRoot}, {"bare-file-names", lBareFile}, {"name-starters", lNameStart},
}

var (
	// view is what mention makes of every word of the lexicon, indexed by
	// [lex.Entry.ID].
	view = buildView()
	// exts holds the file extensions, matched with their case.
	exts = lex.Named("file-extensions").Set()
	// guardedExts need a directory or code around them.
	guardedExts = lex.Named("guarded-extensions").Set()
	bareFiles   = lex.Named("bare-file-names").Set()
	// unitCase are the units matched with their case.
	unitCase = lex.Named("unit-case").Set()
	// currencySigns before a number, with their codes: "$1.5M", "€20".
	currencySigns = lex.Named("currency-signs").Values()
	// scaleSuffixes attached to a number multiply it, matched with their
	// case.
	scaleSuffixes = floats(lex.Named("scale-suffixes"))
)

// floats returns the values of a list as numbers.
func floats(l lex.List) map[string]float64 {
	m := map[string]float64{}
	for w, v := range l.Values() {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			panic("mention: " + l.Name() + ": " + w + ": " + err.Error())
		}
		m[w] = f
	}
	return m
}

// buildView derives mention's view of every word of the lexicon.
func buildView() []winfo {
	v := make([]winfo, lex.Len())
	flags := map[lex.List]lflag{}
	for _, fl := range flagLists {
		flags[lex.Named(fl.list)] |= fl.flag
	}
	months, units := lex.Named("months"), lex.Named("unit-words")
	scales, spelled := lex.Named("scale-words"), lex.Named("spelled-numbers")
	for id := 1; id < len(v); id++ {
		e := lex.ByID(int32(id))
		w := &v[id]
		for _, l := range e.Lists() {
			w.f |= flags[l]
			val, _ := e.Value(l)
			switch l {
			case months:
				n, _ := strconv.Atoi(val)
				w.f |= lMonth
				w.month = uint8(n)
			case units:
				w.f |= lUnit
				w.s = val
			case scales:
				w.f |= lScale
				w.n, _ = strconv.ParseFloat(val, 64)
			case spelled:
				w.f |= lSpelled
			}
		}
		if w.f&lSpelled != 0 && w.f&lScale == 0 {
			val, _ := e.Value(spelled)
			w.n, _ = strconv.ParseFloat(val, 64)
		}
	}
	return v
}

// noInfo is what the lexicon knows of a word it does not hold.
var noInfo winfo

// lookup returns what the lexicon knows of word, case-insensitively (ASCII,
// ’ as '), without allocating. The result must not be modified.
func lookup(word string) *winfo {
	id := lex.Lookup(word).ID()
	if id == 0 {
		return &noInfo
	}
	return &view[id]
}
