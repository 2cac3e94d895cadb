package injection

import (
	"encoding/base64"
	"strings"
	"unicode"
	"unicode/utf8"
)

// minRun is the shortest run of base64 characters that is decoded: 12
// bytes, long enough to be deliberate.
const minRun = 16

// Classes of the bytes of base64 text.
const (
	b64Upper = 1 << iota
	b64Lower
	b64Digit
	b64Std // + and /
	b64URL // - and _
)

var b64Class = func() (t [256]uint8) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = b64Upper
		t[c+'a'-'A'] = b64Lower
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = b64Digit
	}
	t['+'], t['/'] = b64Std, b64Std
	t['-'], t['_'] = b64URL, b64URL
	return t
}()

// survey reports whether text is all ASCII and, when it is, whether it
// holds a run that may be base64: minRun characters of either alphabet,
// capitals and small letters among them. It stops at the first byte that
// is not ASCII.
func survey(text string) (ascii, b64 bool) {
	run, cases := 0, uint8(0)
	for i := 0; i < len(text); i++ {
		c := text[i]
		if k := b64Class[c]; k != 0 {
			run++
			cases |= k
			continue
		}
		if run >= minRun && cases&(b64Upper|b64Lower) == b64Upper|b64Lower {
			b64 = true
		}
		run, cases = 0, 0
		if c >= utf8.RuneSelf {
			return false, false
		}
	}
	return true, b64 || run >= minRun && cases&(b64Upper|b64Lower) == b64Upper|b64Lower
}

// maxDecoded bounds the runs decoded in one text.
const maxDecoded = 256

// decodeRuns returns the text of the base64 runs of src that decode to
// printable UTF-8: runs of minRun characters or more of the standard or
// the URL alphabet, padded or not, lines of a wrapped run joined. A run
// that does not decode is tried without its first one to three
// characters, in case a word was glued to it.
func decodeRuns(src string) []string {
	var out []string
	tried := 0
	for i := 0; i < len(src) && tried < maxDecoded; {
		if b64Class[src[i]] == 0 {
			i++
			continue
		}
		// The run on this line, then the lines of a wrapped run.
		j, cases := scanRun(src, i)
		run, wrapped := src[i:j], []string(nil)
		for wrapped == nil || len(wrapped) > 0 {
			next := j
			if next < len(src) && src[next] == '\r' {
				next++
			}
			n := len(run)
			if wrapped != nil {
				n = 0
				for _, w := range wrapped {
					n += len(w)
				}
			}
			if !(n%4 == 0 && j-i >= 40 && next+1 < len(src) && src[next] == '\n' && b64Class[src[next+1]] != 0) {
				break
			}
			if wrapped == nil {
				wrapped = []string{run}
			}
			k, c := scanRun(src, next+1)
			wrapped = append(wrapped, src[next+1:k])
			cases |= c
			i, j = next+1, k
		}
		for j < len(src) && src[j] == '=' {
			j++
		}
		i = j
		if wrapped != nil {
			run = strings.Join(wrapped, "")
		}
		if len(run) < minRun || cases&(b64Upper|b64Lower) != b64Upper|b64Lower {
			continue
		}
		enc := base64.RawStdEncoding
		switch cases & (b64Std | b64URL) {
		case b64Std | b64URL:
			continue
		case b64URL:
			enc = base64.RawURLEncoding
		}
		tried++
		for shift := 0; shift < 4 && len(run)-shift >= minRun; shift++ {
			s := run[shift:]
			if len(s)%4 == 1 {
				s = s[:len(s)-1]
			}
			if b, err := enc.DecodeString(s); err == nil && printable(b) {
				out = append(out, string(b))
				break
			}
		}
	}
	return out
}

// scanRun returns the end of the run of base64 characters at i and the
// classes of its characters.
func scanRun(src string, i int) (int, uint8) {
	var cases uint8
	for i < len(src) && b64Class[src[i]] != 0 {
		cases |= b64Class[src[i]]
		i++
	}
	return i, cases
}

// printable reports whether b is UTF-8 text: valid, of 8 characters or
// more, nine tenths of them printable or blank and a third of them
// letters.
func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	var n, bad, letters int
	for _, r := range string(b) {
		n++
		switch {
		case unicode.IsLetter(r):
			letters++
		case r == '\n' || r == '\r' || r == '\t' || unicode.IsPrint(r):
		default:
			bad++
		}
	}
	return n >= 8 && bad*10 <= n && letters*3 >= n
}
