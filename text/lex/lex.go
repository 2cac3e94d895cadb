// Package lex is the one place vouch keeps the words it reads agent text
// with: the lexicon and the tokenizer.
//
// The lexicon is built once, from the word lists in words/ (embedded data
// files, one word, phrase or pattern a line, each with a comment header that
// says what the list is for). A list line is a word ("sorry"), a phrase of
// several words ("half a dozen"), or either with a value after " = "
// ("eight = 8"). Every word of every list becomes one [Entry], looked up
// case-insensitively (ASCII) with ’ read as an apostrophe and without
// allocating; an entry says which lists hold the word ([Entry.In]) and what
// value each gave it ([Entry.Value]). A phrase is an entry of its own, found
// from its first word ([Entry.Phrases]), longest first.
//
// Packages that read text keep their own view of a word (the flags and
// values they derive from the lists) in a slice indexed by [Entry.ID], built
// once from the lists: the lexicon is shared, the reading is theirs.
//
// The tokenizer ([Words], [Scan]) splits text into words: runs of letters
// and digits, with options for apostrophes inside words, dots and commas
// inside numbers, and case changes inside identifiers.
package lex

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
)

//go:embed words/*.txt
var files embed.FS

// List is one word list of the lexicon, named after its file in words/
// without the extension.
type List uint16

// Entry is what the lexicon knows of one word or phrase. The zero entry
// (ID 0) stands for a word no list holds.
type Entry struct {
	key     string
	id      int32
	lists   []List // sorted
	values  []value
	phrases []Phrase
}

type value struct {
	list List
	v    string
}

// Phrase is a phrase of several words that starts with the word of the
// entry that holds it.
type Phrase struct {
	// Rest are the words after the first, folded.
	Rest []string
	// Entry is the phrase's own entry.
	Entry *Entry
}

// Key returns the folded word (or phrase) of the entry; "" for the zero
// entry.
func (e *Entry) Key() string { return e.key }

// ID returns the entry's index in the lexicon, from 1; 0 for the zero
// entry. IDs are dense: a view of the lexicon is a slice of [Len] items.
func (e *Entry) ID() int32 { return e.id }

// In reports whether list l holds the entry's word.
func (e *Entry) In(l List) bool {
	for _, m := range e.lists {
		if m == l {
			return true
		}
	}
	return false
}

// Value returns the value list l gives the word (the text after " = " on
// its line), and whether l holds the word at all.
func (e *Entry) Value(l List) (string, bool) {
	for _, v := range e.values {
		if v.list == l {
			return v.v, true
		}
	}
	return "", e.In(l)
}

// Lists returns the lists that hold the word, in list order. The result
// must not be modified.
func (e *Entry) Lists() []List { return e.lists }

// Phrases returns the phrases that start with the entry's word, longest
// first. The result must not be modified.
func (e *Entry) Phrases() []Phrase { return e.phrases }

// Line is one line of a word list.
type Line struct {
	// Word is the word or phrase as written.
	Word string
	// Value is the text after " = ", if any.
	Value string
}

type listData struct {
	name  string
	doc   string
	lines []Line
}

type lexicon struct {
	lists  []listData
	byName map[string]List
	byID   []*Entry
	table  table
}

var (
	once sync.Once
	lx   *lexicon
)

func get() *lexicon {
	once.Do(func() {
		l, err := load(files)
		if err != nil {
			panic("lex: " + err.Error())
		}
		lx = l
	})
	return lx
}

// Named returns the list of that name. It panics if there is none: the
// lists are data compiled into the program, so a missing list is a bug.
func Named(name string) List {
	l, ok := get().byName[name]
	if !ok {
		panic("lex: no word list " + name)
	}
	return l
}

// Name returns the list's name.
func (l List) Name() string { return get().lists[l].name }

// Doc returns the list's comment header, without the "#" marks.
func (l List) Doc() string { return get().lists[l].doc }

// Lines returns the lines of the list in file order. The result must not
// be modified.
func (l List) Lines() []Line { return get().lists[l].lines }

// Words returns the words (and phrases) of the list as written, in file
// order.
func (l List) Words() []string {
	lines := l.Lines()
	out := make([]string, len(lines))
	for i, ln := range lines {
		out[i] = ln.Word
	}
	return out
}

// Set returns the words of the list as written, as a set (case kept).
func (l List) Set() map[string]bool {
	m := make(map[string]bool, len(l.Lines()))
	for _, ln := range l.Lines() {
		m[ln.Word] = true
	}
	return m
}

// Lists returns the names of every list, sorted.
func Lists() []string {
	var out []string
	for _, l := range get().lists {
		out = append(out, l.name)
	}
	return out
}

// Len returns the number of entries of the lexicon plus one (for the zero
// entry): the length of a view indexed by [Entry.ID].
func Len() int { return len(get().byID) }

// ByID returns the entry with that ID; the zero entry for 0 or an ID out of
// range.
func ByID(id int32) *Entry {
	l := get()
	if id <= 0 || int(id) >= len(l.byID) {
		return l.byID[0]
	}
	return l.byID[id]
}

// Lookup returns the entry of word, folded (ASCII lower case, ’ as '),
// without allocating; the zero entry when no list holds it.
func Lookup(word string) *Entry {
	l := get()
	return l.byID[l.table.find(word, Hash(word))]
}

// LookupHash is [Lookup] with the word's [Hash] already computed, for
// callers that hash a word while they read it.
func LookupHash(word string, h uint32) *Entry {
	l := get()
	return l.byID[l.table.find(word, h)]
}

func load(fsys fs.FS) (*lexicon, error) {
	names, err := fs.Glob(fsys, "words/*.txt")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	lx := &lexicon{byName: map[string]List{}, byID: []*Entry{{}}}
	entries := map[string]*Entry{}
	entry := func(key string) *Entry {
		e := entries[key]
		if e == nil {
			e = &Entry{key: key, id: int32(len(lx.byID))}
			entries[key] = e
			lx.byID = append(lx.byID, e)
		}
		return e
	}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		base := strings.TrimSuffix(strings.TrimPrefix(name, "words/"), ".txt")
		ld, err := parseList(base, string(data))
		if err != nil {
			return nil, err
		}
		id := List(len(lx.lists))
		lx.lists = append(lx.lists, ld)
		lx.byName[base] = id
		for _, ln := range ld.lines {
			key := foldKey(ln.Word)
			e := entry(key)
			if !e.In(id) {
				e.lists = append(e.lists, id)
			}
			if ln.Value != "" {
				e.values = append(e.values, value{id, ln.Value})
			}
			if words := strings.Fields(key); len(words) > 1 {
				first := entry(words[0])
				if !slices.ContainsFunc(first.phrases, func(p Phrase) bool { return p.Entry == e }) {
					first.phrases = append(first.phrases, Phrase{Rest: words[1:], Entry: e})
				}
			}
		}
	}
	for _, e := range lx.byID[1:] {
		// Longest phrases first, so that "half a dozen" wins over "a
		// dozen"'s prefix and "was not able to" over "was".
		slices.SortStableFunc(e.phrases, func(a, b Phrase) int { return len(b.Rest) - len(a.Rest) })
	}
	lx.table = newTable(lx.byID)
	return lx, nil
}

// parseList reads one list file.
func parseList(name, data string) (listData, error) {
	ld := listData{name: name}
	var doc []string
	header := true
	for n, line := range strings.Split(data, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "#") {
			if header {
				doc = append(doc, strings.TrimPrefix(strings.TrimPrefix(line, "#"), " "))
			}
			continue
		}
		header = false
		word, val, _ := strings.Cut(line, " = ")
		word = strings.TrimSpace(word)
		if word == "" {
			return ld, fmt.Errorf("%s.txt:%d: no word before %q", name, n+1, " = ")
		}
		ld.lines = append(ld.lines, Line{Word: word, Value: strings.TrimSpace(val)})
	}
	if len(doc) == 0 {
		return ld, fmt.Errorf("%s.txt: no comment header saying what the list is for", name)
	}
	ld.doc = strings.Join(doc, "\n")
	return ld, nil
}

// foldKey folds a list word the way [Lookup] folds text, and collapses the
// spaces of a phrase.
func foldKey(w string) string {
	var b strings.Builder
	for i, f := range strings.Fields(w) {
		if i > 0 {
			b.WriteByte(' ')
		}
		for j := 0; j < len(f); j++ {
			c, n := foldByte(f, j)
			b.WriteByte(c)
			j += n
		}
	}
	return b.String()
}

// Values returns the words of the list as written, each with its value.
func (l List) Values() map[string]string {
	m := make(map[string]string, len(l.Lines()))
	for _, ln := range l.Lines() {
		m[ln.Word] = ln.Value
	}
	return m
}
