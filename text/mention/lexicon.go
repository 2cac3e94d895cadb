package mention

import "strings"

// lflag is a set of the roles a word plays, from the tables of tables.go.
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

var (
	lexicon = buildLexicon()
	// exts holds the file extensions, matched with their case.
	exts = setOf(fileExts)
	// guardedExts need a directory or code around them.
	guardedExts = setOf(extGuard)
	bareFiles   = setOf(bareFileNames)
	unitCase    = setOf([]string{
		"KB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "Kb", "Mb", "Gb", "Hz",
		"kHz", "MHz", "GHz", "kW", "MW", "GW", "kWh", "MWh", "GWh", "TWh", "W", "V", "mAh",
		"Kbps", "Mbps", "Gbps", "X", "°C", "°F", "Ms", "S", "H", "GiB",
	})
)

func setOf(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func buildLexicon() map[string]winfo {
	m := make(map[string]winfo, 4096)
	set := func(words []string, f lflag) {
		for _, w := range words {
			e := m[w]
			e.f |= f
			m[w] = e
		}
	}
	set(strings.Fields(commonWords), lCommon)
	set(stopWords, lStop)
	set(nameVerbs, lVerb)
	set(weekdays, lDay)
	set(techNames, lTech)
	set(techAcronyms, lAcro)
	set(attachedOnly, lAttachedOnly)
	set(currencyCodes, lCurrency)
	set(numberLabels, lLabel)
	set(dateContext, lDateCtx)
	set(packageWords, lPkgWord)
	set(packageTools, lPkgTool)
	set(installVerbs, lInstall)
	set(notPackageNames, lNotPkg)
	set(countWords, lCount)
	set(codeNouns, lCodeNoun)
	set(nameLinks, lLink)
	set(pyModules, lPyMod)
	set(keywords, lKeyword)
	set(libraryNames, lLibrary)
	set(dotFiles, lDotFile)
	set(tlds, lTLD)
	set(knownDirs, lKnownDir)
	set(gitRefRoots, lGitRef)
	set(abbreviations, lAbbrev)
	set(goHosts, lGoHost)
	set(titles, lTitle)
	set(absRoots, lAbsRoot)
	set(bareFileNames, lBareFile)
	set(nameStarters, lNameStart)
	for w, n := range months {
		e := m[w]
		e.f |= lMonth
		e.month = uint8(n)
		m[w] = e
	}
	for w, u := range unitWords {
		e := m[w]
		e.f |= lUnit
		e.s = u
		m[w] = e
	}
	for w, n := range scaleWords {
		e := m[w]
		e.f |= lScale
		e.n = n
		m[w] = e
	}
	for w, n := range spelledNumbers {
		e := m[w]
		e.f |= lSpelled
		if e.f&lScale == 0 {
			e.n = n
		}
		m[w] = e
	}
	// Lower-case keys for tables written with capitals.
	for k, e := range m {
		if l := strings.ToLower(k); l != k {
			delete(m, k)
			f := m[l]
			f.f |= e.f
			m[l] = f
		}
	}
	return m
}

// lexTable is the lexicon as an open-addressing hash table keyed by the word
// folded to lower case (ASCII), so that a word is looked up without a
// lowered copy. A slot holds 16 bits of the hash and the index of the entry
// plus one: the table stays small enough for the processor's cache.
type lexTable struct {
	slots   []uint32
	mask    uint32
	entries []lexEntry
}

type lexEntry struct {
	key  string
	info winfo
}

var lexFast = newLexTable(lexicon)

func newLexTable(m map[string]winfo) *lexTable {
	size := 1
	for size < 2*len(m) {
		size <<= 1
	}
	t := &lexTable{slots: make([]uint32, size), mask: uint32(size - 1)}
	t.entries = make([]lexEntry, 0, len(m))
	for k, e := range m {
		h := foldHash(k)
		i := h & t.mask
		for t.slots[i] != 0 {
			i = (i + 1) & t.mask
		}
		t.entries = append(t.entries, lexEntry{k, e})
		t.slots[i] = h&0xFFFF0000 | uint32(len(t.entries))
	}
	return t
}

// foldHash is the FNV-1a hash of word in lower case (ASCII).
func foldHash(word string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(word); i++ {
		c := word[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// noInfo is what the lexicon knows of a word it does not hold.
var noInfo winfo

// lookup returns what the lexicon knows of word, case-insensitively (ASCII),
// without allocating. The result must not be modified.
func lookup(word string) *winfo {
	if len(word) > 40 || word == "" {
		return &noInfo
	}
	t := lexFast
	h := foldHash(word)
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		sl := t.slots[i]
		if sl == 0 {
			return &noInfo
		}
		if sl&0xFFFF0000 == h&0xFFFF0000 {
			if e := &t.entries[sl&0xFFFF-1]; len(e.key) == len(word) && equalFold(word, e.key) {
				return &e.info
			}
		}
	}
}

// equalFold reports whether word, folded to lower case (ASCII), is lower.
func equalFold(word, lower string) bool {
	for i := 0; i < len(word); i++ {
		c := word[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
