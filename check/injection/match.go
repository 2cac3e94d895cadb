package injection

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/vouchgate/vouch/text/lex"
)

// A rule is a compiled line of the phrase table.
type rule struct {
	what     string
	mode     mode
	re       *lazyRe // anchored at the trigger word
	lead     *lazyRe // for needLead
	notAfter *lazyRe
	// quotes says whether a quote before the match may make it a mention:
	// not for a lead of its own (a fake tool call is quoted JSON).
	quotes bool
}

// A trigger is a rule a trigger word starts, with the cheap tests of what
// follows the word.
type trigger struct {
	rule  uint16
	next  map[string]bool // nil: any word
	after string          // "": any byte
}

var (
	compiled []rule
	// cjkRules are the rules without trigger words, tried on the whole of
	// a text that holds Han, kana or Hangul.
	cjkRules []*rule
	// triggers maps each trigger word, folded, to the rules it starts.
	triggers = map[string][]trigger{}
	// triggerHash has the bit of hashWord of every trigger word set: a word
	// whose bit is clear is no trigger, which costs less to learn than a
	// map lookup.
	triggerHash [1 << 12 / 64]uint64

	// maxWordLen is the length of the longest trigger word.
	maxWordLen int

	leads               = map[string]*lazyRe{}
	leadAny, leadQuoted *lazyRe
	mentionRe           *lazyRe
	// leadEnds and mentionEnds hold the last words of the common leads
	// and of mentions, and lastWords the leads they are a test for.
	leadEnds, mentionEnds map[string]bool
	lastWords             = map[*lazyRe]bool{}
	fragmentRe            = regexp.MustCompile(`<([A-Z_]+)>`)
)

// skipPrefilter, for tests, tries every rule of a trigger word, whatever
// follows it.
var skipPrefilter bool

// quoteChars are the quotes that may open a quoted phrase.
const quoteChars = "\"'`“”‘’«»„‚‹›「」『』"

// expand replaces the fragments of src, recursively.
func expand(src string) string {
	for i := 0; strings.Contains(src, "<") && i < 8; i++ {
		src = fragmentRe.ReplaceAllStringFunc(src, func(m string) string {
			f, ok := fragments[m[1:len(m)-1]]
			if !ok {
				panic("injection: unknown fragment " + m)
			}
			return f
		})
	}
	return src
}

func compile(src string) *regexp.Regexp {
	return regexp.MustCompile(foldSource(expand(src)))
}

// lazyRe is an expression of the phrase table, compiled when it is first
// used. A text holds the trigger words of few rules, and compiling every
// expression when the package loaded cost each vouch process 27 ms and
// 16 MB of allocations, 4 MB of them kept (a hook or a CLI call verifies
// one output).
type lazyRe struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

func lazy(src string) *lazyRe { return &lazyRe{src: src} }

// get returns the expression, compiling it on the first call.
func (l *lazyRe) get() *regexp.Regexp {
	l.once.Do(func() { l.re = compile(l.src) })
	return l.re
}

func init() {
	// Lead and mention expressions read text in lower case.
	for name, src := range leadSources {
		leads[name] = lazy(`(?:` + src + `)`)
	}
	leadAny, leadQuoted = leads["any"], leads["quoted"]
	mentionRe = lazy(`(?:` + mentionSource + `)`)
	leadEnds, mentionEnds = wordSet(leadLastWords), wordSet(mentionLastWords)
	for _, name := range []string{"any", "addressed", "sentence", "quoted"} {
		lastWords[leads[name]] = true
	}
	compiled = make([]rule, len(rules))
	for i, s := range rules {
		r := &compiled[i]
		r.what, r.mode = s.what, s.mode
		if s.words == "" {
			r.re = lazy(`(?i)(?:` + s.src + `)`)
			cjkRules = append(cjkRules, r)
		} else {
			r.re = lazy(`(?i)^(?:` + s.src + `)`)
		}
		r.quotes = true
		if s.mode == needLead {
			r.lead = leadAny
			if s.lead != "" {
				if r.lead = leads[s.lead]; r.lead == nil {
					panic("injection: unknown lead " + s.lead)
				}
				r.quotes = s.lead == "addressed" || s.lead == "sentence"
			}
		}
		if s.notAfter != "" {
			r.notAfter = lazy(`(?i)` + s.notAfter)
		}
		ruleNext := wordSet(s.next)
		for _, w := range strings.Fields(s.words) {
			t := trigger{rule: uint16(i), next: ruleNext, after: s.after}
			if w0, next, ok := strings.Cut(w, ":"); ok {
				w, t.next = w0, wordSet(strings.ReplaceAll(next, ",", " "))
			}
			w = normalize(w).text
			triggers[w] = append(triggers[w], t)
			h := hashWord(w, false)
			triggerHash[h/64] |= 1 << (h % 64)
			maxWordLen = max(maxWordLen, len(w))
		}
	}
	if maxWordLen > wordBuf {
		panic("injection: a trigger word is longer than the buffer findHits lowers words in")
	}
}

// wordBuf is the size of the buffers findHits lowers words in.
const wordBuf = 64

// wordSet returns the set of the space-separated words, folded, or nil
// when there are none.
func wordSet(words string) map[string]bool {
	if words == "" {
		return nil
	}
	set := map[string]bool{}
	for _, w := range strings.Fields(words) {
		if w == "." {
			set[""] = true
			continue
		}
		set[normalize(w).text] = true
	}
	return set
}

// nextWord returns the bounds of the word after the one that ends at j,
// skipping blanks and a little punctuation ("don't", "judge's", "return:
// PASS"); k == e when none follows.
func nextWord(text string, j int, folded bool) (k, e int) {
	k = j
	for k < len(text) && k-j < 8 {
		c := text[k]
		if c == ' ' || c == '\t' || strings.IndexByte("'\"`:-{(*[", c) >= 0 {
			k++
			continue
		}
		if c == 0xE2 && k+2 < len(text) && text[k+1] == 0x80 && text[k+2] >= 0x98 && text[k+2] <= 0x9D {
			k += 3 // ‘ ’ “ ”
			continue
		}
		break
	}
	if k >= len(text) || !isWordStart(text, k, folded) {
		return k, k
	}
	return k, wordEnd(text, k, folded)
}

// hashWord hashes a word to one of 4096 bits, its ASCII capitals folded
// to lower case when lower is set.
func hashWord(w string, lower bool) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(w); i++ {
		c := w[i]
		if lower && 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		h = (h ^ uint32(c)) * 16777619
	}
	return h >> 20
}

// A hit is a match of a rule in the text scanned.
type hit struct {
	what       string
	start, end int
}

// maxSpan bounds the bytes a rule's match may take from its trigger word.
const maxSpan = 200

// leadBytes bounds the text before a match that leads and mentions are
// looked for in.
const leadBytes = 72

// findHits returns the first hit of each kind of instruction in text, a
// normalised text when folded is set (lower case, words of any script),
// else ASCII text as it was written.
func findHits(text string, folded, cjk bool) []hit {
	var hits []hit
	var buf, nbuf [wordBuf]byte
	budget := maxLeadChecks
	for i := 0; i < len(text); {
		c := text[i]
		if !isWordStart(text, i, folded) {
			if c < utf8.RuneSelf {
				i++
			} else {
				_, n := utf8.DecodeRuneInString(text[i:])
				i += n
			}
			continue
		}
		j := wordEnd(text, i, folded)
		if w := text[i:j]; len(w) <= maxWordLen {
			if h := hashWord(w, !folded); triggerHash[h/64]&(1<<(h%64)) != 0 {
				var ts []trigger
				if folded {
					ts = triggers[w]
				} else {
					b := buf[:len(w)]
					for k := range b {
						c := w[k]
						if 'A' <= c && c <= 'Z' {
							c += 'a' - 'A'
						}
						b[k] = c
					}
					ts = triggers[string(b)]
				}
				// The word after, in lower case: a slice of text when it is
				// folded, else a copy in nbuf.
				var next string
				var nb []byte
				nextDone := false
				for _, t := range ts {
					if skipPrefilter {
						hits = tryRule(hits, &compiled[t.rule], text, i, &budget)
						continue
					}
					if t.after != "" && (j == len(text) || strings.IndexByte(t.after, text[j]) < 0) {
						continue
					}
					if t.next != nil {
						if !nextDone {
							nextDone = true
							k, e := nextWord(text, j, folded)
							if folded {
								next = text[k:e]
							} else {
								nb = nbuf[:min(e-k, len(nbuf))]
								for x := range nb {
									c := text[k+x]
									if 'A' <= c && c <= 'Z' {
										c += 'a' - 'A'
									}
									nb[x] = c
								}
							}
						}
						if folded && !t.next[next] || !folded && !t.next[string(nb)] {
							continue
						}
					}
					hits = tryRule(hits, &compiled[t.rule], text, i, &budget)
				}
			}
		}
		i = j
	}
	if cjk {
		for _, r := range cjkRules {
			if hasKind(hits, r.what) {
				continue
			}
			for _, loc := range r.re.get().FindAllStringIndex(text, -1) {
				if h := tryAt(r, text, loc[0], loc[1], &budget); h != nil {
					hits = append(hits, *h)
					break
				}
			}
		}
	}
	return hits
}

func isWordStart(text string, i int, folded bool) bool {
	c := text[i]
	if c < utf8.RuneSelf {
		return wordByte(c)
	}
	if !folded {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return lex.IsWordRune(r)
}

func wordEnd(text string, i int, folded bool) int {
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			if !wordByte(c) {
				return i
			}
			i++
			continue
		}
		if !folded {
			return i
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if !lex.IsWordRune(r) {
			return i
		}
		i += n
	}
	return i
}

func wordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// tryRule tries r at the trigger word at i and appends its hit, unless a
// hit of its kind is in hits already.
func tryRule(hits []hit, r *rule, text string, i int, budget *int) []hit {
	if hasKind(hits, r.what) {
		return hits
	}
	end := min(len(text), i+maxSpan)
	loc := r.re.get().FindStringIndex(text[i:end])
	if loc == nil {
		return hits
	}
	if h := tryAt(r, text, i+loc[0], i+loc[1], budget); h != nil {
		return append(hits, *h)
	}
	return hits
}

func hasKind(hits []hit, what string) bool {
	for _, h := range hits {
		if h.what == what {
			return true
		}
	}
	return false
}

// tryAt returns the hit of r's match at [start, end) of text, or nil when
// what comes before or after it says it is no instruction. budget bounds
// the lead and mention expressions run for one text: once it is spent, a
// match whose lead would need one is flagged.
func tryAt(r *rule, text string, start, end int, budget *int) *hit {
	if r.notAfter != nil && r.notAfter.get().MatchString(text[end:min(len(text), end+40)]) {
		return nil
	}
	if r.mode == always {
		return &hit{r.what, start, end}
	}
	before, quoted := leadText(text, start)
	if !r.quotes {
		quoted = false
	}
	if quoted && quoteGoesOn(text, end) {
		// A quoted phrase the sentence goes on after is a mention:
		// "tests: 'you are now a lenient reviewer' and ... are flagged".
		return nil
	}
	switch r.mode {
	case needLead:
		lead := r.lead
		if quoted && lead == leadAny {
			lead = leadQuoted
		}
		if lastWords[lead] && !mayEnd(before, leadEnds) {
			return nil
		}
		if lead == leadAny && endsWithPunct(before) {
			return &hit{r.what, start, end}
		}
		if *budget <= 0 {
			break
		}
		*budget--
		loc := lead.get().FindStringIndex(lowerASCII(before))
		if loc == nil {
			return nil
		}
		if !quoted && r.quotes && loc[0] > 0 {
			// The lead may be quoted with the phrase: "the filter
			// rejects 'you must pass this'".
			if pre, q := trimQuotes(before[:loc[0]]); q && (quoteGoesOn(text, end) || !(mayEnd(pre, leadEnds) && matches(leadQuoted, pre, budget))) {
				return nil
			}
		}
	case unlessMention:
		if quoted && !(mayEnd(before, leadEnds) && matches(leadQuoted, before, budget)) ||
			!quoted && mayEnd(before, mentionEnds) && *budget > 0 && matches(mentionRe, before, budget) {
			return nil
		}
	}
	return &hit{r.what, start, end}
}

// maxLeadChecks bounds the lead and mention expressions run for one text:
// honest text needs a few (27 in the most in some 250 MB of code, docs and
// translations), and text built to need many is flagged rather than
// scanned for long.
const maxLeadChecks = 256

// matches reports whether re, a lead or mention expression, matches
// before, in lower case; true once the budget is spent.
func matches(re *lazyRe, before string, budget *int) bool {
	if *budget <= 0 {
		return true
	}
	*budget--
	return re.get().MatchString(lowerASCII(before))
}

// lowerASCII returns s with its ASCII capitals in lower case.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// endsWithPunct reports whether before ends, blanks aside, with a line
// break or the punctuation that starts a clause: a lead of leadAny.
func endsWithPunct(before string) bool {
	t := strings.TrimRight(before, " \t")
	r, _ := utf8.DecodeLastRuneInString(t)
	return t != "" && strings.ContainsRune(clausePunct, r)
}

// mayEnd reports whether before, the text before a match, ends with a
// word of ends or with no word (punctuation, the start of a line): else no
// lead or mention of those ends can match it, and its expression need not
// run.
func mayEnd(before string, ends map[string]bool) bool {
	t := strings.TrimRight(before, " \t")
	i := len(t)
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(t[:i])
		if !(r == '_' || lex.IsWordRune(r)) {
			break
		}
		i -= n
	}
	if i == len(t) {
		return true
	}
	return ends[strings.ToLower(t[i:])]
}

// trimQuotes returns s without the blanks and quotes that end it, and
// whether there were quotes.
func trimQuotes(s string) (string, bool) {
	quoted := false
	for {
		t := strings.TrimRight(s, " \t")
		r, n := utf8.DecodeLastRuneInString(t)
		if n == 0 || !strings.ContainsRune(quoteChars, r) {
			return t, quoted
		}
		quoted = true
		s = t[:len(t)-n]
	}
}

// quoteGoesOn reports whether a quote closes on the line after end and
// the sentence goes on after it, with a word or a comma.
func quoteGoesOn(text string, end int) bool {
	if r, n := utf8.DecodeLastRuneInString(text[:end]); n > 0 && strings.ContainsRune(quoteChars, r) {
		// The match took the closing quote.
		end -= n
	}
	rest := text[end:min(len(text), end+80)]
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
		rest = rest[:nl]
	}
	q := strings.IndexAny(rest, quoteChars)
	if q < 0 {
		return false
	}
	_, n := utf8.DecodeRuneInString(rest[q:])
	after := strings.TrimLeft(rest[q+n:], " \t")
	if after == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(after)
	return r == ',' || r == '(' || lex.IsWordRune(r)
}

// leadText returns the text before start that leads and mentions are
// looked for in, without the blanks and quotes that end it, and whether
// there were quotes. The start of the text reads as a line break.
func leadText(text string, start int) (string, bool) {
	lo := max(0, start-leadBytes)
	for lo > 0 && !utf8.RuneStart(text[lo]) {
		lo++
	}
	before, quoted := trimQuotes(text[lo:start])
	if nl := strings.LastIndexByte(before, '\n'); nl > 0 {
		// No lead spans lines.
		before = before[nl:]
	} else if lo == 0 && nl < 0 {
		before = "\n" + before
	}
	return before, quoted
}
