// Package content holds the deterministic check kinds that read text, and
// tool_called, which reads the trace. Each kind registers itself from init;
// import check/all to get every built-in kind.
//
//	contains     {value, ignoreCase, target}   the text contains value
//	not_contains {value, ignoreCase, target}   it does not; evidence gives where it is
//	regex        {pattern, target}             Go RE2 syntax, matched anywhere in the text
//	sections     {required[], target}          a Markdown heading for each required section
//	length       {minChars, maxChars, minWords, maxWords, target}
//	json         {target}                      the text holds valid JSON
//	json_schema  {schema | schemaFile, target} the JSON is valid against a JSON Schema
//	tool_called  {tool}                        the tool appears in the trace
//
// # Targets
//
// Text kinds read output.summary, or the workspace file their "target"
// names. Without a workspace the check is undecided (NO_WORKSPACE); a file
// that does not exist fails it (TARGET_MISSING); a path out of the
// workspace, a directory or a file over the size limit leaves it undecided
// (TARGET_UNREADABLE).
//
// # Matching
//
// With ignoreCase, contains and not_contains compare the text and the value
// lowered by strings.ToLower. Characters are Unicode code points and words
// are what strings.Fields splits. Section names match headings after
// trimming, collapsing white space, lower-casing, and dropping a trailing
// colon and surrounding emphasis markers (*, _, `); headings inside fenced
// code blocks do not count. The score of sections is the share found.
//
// # JSON
//
// json and json_schema read the whole text if it is valid JSON, else the
// first fenced code block tagged json or untagged, whatever prose surrounds
// it. Valid JSON is RFC 8259 in UTF-8 without duplicate object names. A
// schema without $schema is draft 2020-12, "format" is asserted, and a
// schema may refer only to itself and, for a schemaFile, to other files of
// check.Env.Files.
//
// # tool_called
//
// The trace is evidence and wins over the agent's claims: with a trace, the
// tool must be in it, even if output.toolCalls lists it. Without a trace the
// check decides from output.toolCalls, the agent's own claim, and its
// outcome has light strength.
//
// Compiling a check does the expensive work once (regular expressions,
// schemas, lowered values); compiled checkers are safe for concurrent use.
package content

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

func init() {
	check.Register(check.Type{
		Name:     "contains",
		Strength: vouch.StrengthStrict,
		New:      newContains,
		Params:   "{value, ignoreCase, target}",
		Doc:      "The text contains the value.",
	})
	check.Register(check.Type{
		Name:     "not_contains",
		Strength: vouch.StrengthStrict,
		New:      newNotContains,
		Params:   "{value, ignoreCase, target}",
		Doc:      "The text does not contain the value.",
	})
	check.Register(check.Type{
		Name:     "regex",
		Strength: vouch.StrengthStrict,
		New:      newRegex,
		Params:   "{pattern, target}",
		Doc:      "The text matches the regular expression (Go RE2 syntax).",
	})
	check.Register(check.Type{
		Name:     "sections",
		Strength: vouch.StrengthStrict,
		New:      newSections,
		Params:   "{required[], target}",
		Doc:      "The text has a Markdown heading for each required section; scores the share found.",
	})
	check.Register(check.Type{
		Name:     "length",
		Strength: vouch.StrengthStrict,
		New:      newLength,
		Params:   "{minChars, maxChars, minWords, maxWords, target}",
		Doc:      "The text's length in characters (code points) and words is within the bounds.",
	})
	check.Register(check.Type{
		Name:     "json",
		Strength: vouch.StrengthStrict,
		New:      newJSON,
		Params:   "{target}",
		Doc:      "The text, or its first json fenced code block, is valid JSON.",
	})
	check.Register(check.Type{
		Name:     "json_schema",
		Strength: vouch.StrengthStrict,
		New:      newJSONSchema,
		Params:   "{schema | schemaFile, target}",
		Doc:      "The text, or its first json fenced code block, is JSON valid against the schema.",
	})
	check.Register(check.Type{
		Name:     "tool_called",
		Strength: vouch.StrengthStrict,
		New:      newToolCalled,
		Params:   "{tool}",
		Doc:      "The tool appears in the trace (light evidence when decided from output.toolCalls alone).",
	})
}

// summaryName is how reasons and evidence name the default target.
const summaryName = "output.summary"

// targetName returns how evidence names a target.
func targetName(target string) string {
	if target == "" {
		return summaryName
	}
	return target
}

// targetPhrase returns how a reason names a target, as the subject of a
// sentence: "output.summary" or `file "README.md"`.
func targetPhrase(target string) string {
	if target == "" {
		return summaryName
	}
	return "file " + strconv.Quote(target)
}

// readText returns the text a check reads. When the text cannot be read, ok
// is false and out is the outcome to return: undecided without a workspace
// (NO_WORKSPACE) or for a file that cannot be read (TARGET_UNREADABLE), and
// failed for a file that does not exist (TARGET_MISSING). It is the one
// place that maps read errors to outcomes, for every text kind.
func readText(s *vouch.Subject, target string) (text string, out vouch.Outcome, ok bool) {
	text, err := s.Text(target)
	if err == nil {
		return text, vouch.Outcome{}, true
	}
	return "", readFailure(err, target), false
}

// readFailure maps an error of [vouch.Subject.Text] to an outcome.
func readFailure(err error, target string) vouch.Outcome {
	ev := map[string]any{"target": targetName(target)}
	var o vouch.Outcome
	switch {
	case errors.Is(err, vouch.ErrNoWorkspace):
		o = vouch.Undecided(vouch.CodeNoWorkspace,
			fmt.Sprintf("cannot read file %q: the request has no workspace", target))
	case errors.Is(err, fs.ErrNotExist):
		return vouch.Fail(vouch.CodeTargetMissing,
			fmt.Sprintf("file %q does not exist in the workspace", target), ev)
	case errors.Is(err, vouch.ErrOutsideRoot):
		o = vouch.Undecided(vouch.CodeTargetUnreadable,
			fmt.Sprintf("cannot read file %q: the path leaves the workspace", target))
	case errors.Is(err, vouch.ErrNotRegularFile):
		o = vouch.Undecided(vouch.CodeTargetUnreadable,
			fmt.Sprintf("cannot read file %q: not a regular file", target))
	case errors.Is(err, vouch.ErrFileTooLarge):
		o = vouch.Undecided(vouch.CodeTargetUnreadable,
			fmt.Sprintf("cannot read file %q: over the size limit", target))
	default:
		o = vouch.Undecided(vouch.CodeTargetUnreadable,
			fmt.Sprintf("cannot read file %q", target))
		ev["error"] = err.Error()
	}
	o.Evidence = ev
	return o
}

// lowerKey is the memo key of a target's lowered text.
type lowerKey string

// lowerText returns strings.ToLower of the target's text, computed at most
// once per verification.
func lowerText(s *vouch.Subject, target, text string) string {
	return s.Memo(lowerKey(target), func() any { return strings.ToLower(text) }).(string)
}

// isASCII reports whether s has only ASCII bytes, eight bytes at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if x&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// lowerASCII returns b lowered if it is an ASCII upper-case letter.
func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + ('a' - 'A')
	}
	return b
}

// byteRank ranks bytes by how common they are in English prose, Markdown
// and code: the higher, the rarer. Searches anchor on the rarest byte of
// what they look for, so that fewer candidates need verifying (the "rare
// byte" heuristic of Rust's memchr crate); a poor guess costs only speed.
var byteRank = func() (r [256]uint8) {
	for i := range r {
		r[i] = 255 // control bytes, symbols, non-ASCII
	}
	common := " etaoinsrhldcumfpgwybvk\n.,-_/:;()'\"=#*0123456789xjqz[]{}<>`!?@$%&+|~\t" +
		"ETAOINSRHLDCUMFPGWYBVKXJQZ"
	for i := 0; i < len(common); i++ {
		r[common[i]] = uint8(i)
	}
	return r
}()

// rareByte returns the index in s of its rarest byte by byteRank, comparing
// letters by their rarest case when fold is set. s must not be empty.
func rareByte(s string, fold bool) int {
	best, bestRank := 0, -1
	for i := 0; i < len(s); i++ {
		rank := int(byteRank[s[i]])
		if fold {
			rank = min(rank, int(byteRank[upperASCII(s[i])]))
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	return best
}

// upperASCII returns b raised if it is an ASCII lower-case letter.
func upperASCII(b byte) byte {
	if 'a' <= b && b <= 'z' {
		return b - ('a' - 'A')
	}
	return b
}

// indexRare returns strings.Index(s, sub), finding candidates by the byte of
// sub at rare (see rareByte). After many false candidates it leaves the rest
// to strings.Index, whose worst case is linear.
func indexRare(s, sub string, rare int) int {
	n := len(sub)
	if n == 0 || n > len(s) {
		return strings.Index(s, sub)
	}
	c := sub[rare]
	last := len(s) - n
	fails := 0
	for i := 0; i <= last; {
		k := strings.IndexByte(s[i+rare:last+rare+1], c)
		if k < 0 {
			return -1
		}
		j := i + k
		if s[j:j+n] == sub {
			return j
		}
		i = j + 1
		if fails++; fails > 8+i>>4 {
			if k := strings.Index(s[i:], sub); k >= 0 {
				return i + k
			}
			return -1
		}
	}
	return -1
}

// indexFoldASCII returns the index of the first instance of sub in s, with
// ASCII letters compared without case, or -1. sub must be non-empty and
// lower-case ASCII; rare is the index of its byte to anchor on (see
// rareByte). It does not allocate: candidates are found with
// strings.IndexByte for both cases of that byte.
func indexFoldASCII(s, sub string, rare int) int {
	n := len(sub)
	if n > len(s) {
		return -1
	}
	c0 := sub[rare]
	c1 := upperASCII(c0)
	// Candidates are positions p of c0 or c1 in s[rare:last+rare+1]; the
	// match would start at p.
	last := len(s) - n
	hay := s[rare : last+rare+1]
	// nextLo and nextUp are the next positions (at or after i) of c0 and c1
	// in hay, or len(hay) when there are none.
	nextLo, nextUp := -1, -1
	for i := 0; i < len(hay); {
		if nextLo < i {
			nextLo = indexByteFrom(hay, c0, i)
		}
		if c1 == c0 {
			nextUp = nextLo
		} else if nextUp < i {
			nextUp = indexByteFrom(hay, c1, i)
		}
		j := min(nextLo, nextUp)
		if j >= len(hay) {
			return -1
		}
		if equalFoldASCII(s[j:j+n], sub) {
			return j
		}
		i = j + 1
	}
	return -1
}

// indexByteFrom returns the index of c in s at or after from, or len(s).
func indexByteFrom(s string, c byte, from int) int {
	k := strings.IndexByte(s[from:], c)
	if k < 0 {
		return len(s)
	}
	return from + k
}

// equalFoldASCII reports whether s lowered equals lower, which is lower-case
// ASCII of the same length.
func equalFoldASCII(s, lower string) bool {
	for i := 0; i < len(lower); i++ {
		if lowerASCII(s[i]) != lower[i] {
			return false
		}
	}
	return true
}

// position returns the 1-based line and column (in characters) of byte
// offset off in s.
func position(s string, off int) (line, col int) {
	line = 1 + strings.Count(s[:off], "\n")
	start := strings.LastIndexByte(s[:off], '\n') + 1
	return line, 1 + utf8.RuneCountInString(s[start:off])
}

// runeOffset returns the byte offset in s of its n-th rune (0-based), where
// runes are counted as a range loop counts them.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// excerptWidth bounds excerpts in evidence, in characters on each side.
const excerptWidth = 40

// excerpt returns the line of s around byte offsets [start, end), cut to
// about excerptWidth characters on each side, with "…" where it was cut.
func excerpt(s string, start, end int) string {
	ls := strings.LastIndexByte(s[:start], '\n') + 1
	le := strings.IndexByte(s[end:], '\n')
	if le < 0 {
		le = len(s)
	} else {
		le += end
	}
	before, after := s[ls:start], s[end:le]
	pre, post := "", ""
	if utf8.RuneCountInString(before) > excerptWidth {
		before = before[runeOffset(before, utf8.RuneCountInString(before)-excerptWidth):]
		pre = "…"
	}
	if utf8.RuneCountInString(after) > excerptWidth {
		after = after[:runeOffset(after, excerptWidth)]
		post = "…"
	}
	mid := s[start:end]
	if utf8.RuneCountInString(mid) > 2*excerptWidth {
		mid = mid[:runeOffset(mid, 2*excerptWidth)] + "…"
	}
	return strings.TrimSpace(pre + before + mid + after + post)
}

// shorten cuts s to at most n characters, with "…" where it was cut, for
// reasons and evidence.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return s[:runeOffset(s, n)] + "…"
}

// quoteValue quotes a value for a reason, shortened to 80 characters.
func quoteValue(s string) string { return strconv.Quote(shorten(s, 80)) }
