package lex

// MaxWordBytes is the longest word the lexicon is asked about; longer words
// are in no list.
const MaxWordBytes = 48

// HashInit is the [Hash] of the empty word: the start of a hash computed
// byte by byte with [HashByte].
const HashInit uint32 = 2166136261

// HashByte adds the folded byte c to FNV-1a hash h.
func HashByte(h uint32, c byte) uint32 { return (h ^ uint32(c)) * 16777619 }

// foldByte returns the folded byte at w[i] (ASCII lower case; ’, three
// bytes, as ') and how many more bytes it took.
func foldByte(w string, i int) (byte, int) {
	c := w[i]
	switch {
	case c >= 'A' && c <= 'Z':
		return c + 'a' - 'A', 0
	case c == 0xE2 && i+2 < len(w) && w[i+1] == 0x80 && w[i+2] == 0x99:
		return '\'', 2
	}
	return c, 0
}

// Fold returns w as the lexicon compares it: ASCII lower case, ’ as '.
func Fold(w string) string { return foldKey(w) }

// Hash returns the FNV-1a hash of word folded: the hash [LookupHash] takes.
func Hash(word string) uint32 {
	h := HashInit
	for i := 0; i < len(word); i++ {
		c, n := foldByte(word, i)
		h = HashByte(h, c)
		i += n
	}
	return h
}

// EqualFold reports whether word, folded like [Lookup] folds it, is key
// (which is folded).
func EqualFold(word, key string) bool {
	j := 0
	for i := 0; i < len(word); i++ {
		if j >= len(key) {
			return false
		}
		c, n := foldByte(word, i)
		if c != key[j] {
			return false
		}
		i += n
		j++
	}
	return j == len(key)
}

// table is the lexicon as an open-addressing hash table keyed by the folded
// word. A slot holds 16 bits of the hash and the entry's ID (up to 65535
// entries), so that the table stays small enough for the processor's cache.
type table struct {
	slots   []uint32
	mask    uint32
	entries []*Entry
}

func newTable(byID []*Entry) table {
	size := 1
	for size < 2*len(byID) {
		size <<= 1
	}
	if len(byID) > 0xFFFF {
		panic("lex: too many entries for the table")
	}
	t := table{slots: make([]uint32, size), mask: uint32(size - 1), entries: byID}
	for _, e := range byID[1:] {
		h := Hash(e.key)
		i := h & t.mask
		for t.slots[i] != 0 {
			i = (i + 1) & t.mask
		}
		t.slots[i] = h&0xFFFF0000 | uint32(e.id)
	}
	return t
}

// find returns the ID of word, with hash h; 0 when no list holds it.
func (t *table) find(word string, h uint32) int32 {
	if word == "" || len(word) > MaxWordBytes {
		return 0
	}
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		sl := t.slots[i]
		if sl == 0 {
			return 0
		}
		if sl&0xFFFF0000 == h&0xFFFF0000 {
			if id := int32(sl & 0xFFFF); len(t.entries[id].key) <= len(word) && EqualFold(word, t.entries[id].key) {
				return id
			}
		}
	}
}
