package claimtext

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// corpusCase is one line of a corpus file: the text, what is expected of it,
// and whether it is a known miss.
type corpusCase struct {
	line     int
	text     string
	expected string
	known    bool // "? ": a known miss, not asserted line by line
}

// readCorpus reads a corpus file of "TEXT => EXPECTED" lines.
func readCorpus(t testing.TB, path string) []corpusCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []corpusCase
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := corpusCase{line: n}
		if rest, ok := strings.CutPrefix(line, "? "); ok {
			c.known, line = true, rest
		}
		i := strings.LastIndex(line, " => ")
		if i < 0 {
			t.Fatalf("%s:%d: no \" => \"", path, n)
		}
		c.text = strings.ReplaceAll(strings.TrimSuffix(strings.TrimSpace(line[:i]), " [real]"), `\n`, "\n")
		c.expected = strings.TrimSpace(line[i+4:])
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// countKey is the part of a CountClaim the corpus states.
type countKey struct {
	Number, Total int
	Noun, Action  string
	All, Negated  bool
	Items         string
}

func (k countKey) String() string {
	s := fmt.Sprintf("%d %s %s", k.Number, k.Noun, k.Action)
	if k.All {
		s += " all"
	}
	if k.Negated {
		s += " neg"
	}
	if k.Total != 0 {
		s += fmt.Sprintf(" of=%d", k.Total)
	}
	if k.Items != "" {
		s += " items=" + k.Items
	}
	return s
}

func keyOf(c CountClaim) countKey {
	return countKey{c.Number, c.Total, c.Noun, c.Action, c.All, c.Negated, strings.Join(c.Items, ",")}
}

// parseCountKeys parses the EXPECTED of counts.txt.
func parseCountKeys(t testing.TB, c corpusCase) []countKey {
	t.Helper()
	if c.expected == "none" {
		return nil
	}
	var keys []countKey
	for _, part := range strings.Split(c.expected, ";") {
		f := strings.Fields(part)
		if len(f) < 3 {
			t.Fatalf("line %d: bad claim %q", c.line, part)
		}
		n, err := strconv.Atoi(f[0])
		if err != nil {
			t.Fatalf("line %d: %v", c.line, err)
		}
		k := countKey{Number: n, Noun: f[1], Action: f[2]}
		if k.Noun == "-" {
			k.Noun = ""
		}
		for _, opt := range f[3:] {
			switch {
			case opt == "all":
				k.All = true
			case opt == "neg":
				k.Negated = true
			case strings.HasPrefix(opt, "of="):
				k.Total, err = strconv.Atoi(opt[3:])
				if err != nil {
					t.Fatalf("line %d: %v", c.line, err)
				}
			case strings.HasPrefix(opt, "items="):
				k.Items = opt[6:]
			default:
				t.Fatalf("line %d: unknown option %q", c.line, opt)
			}
		}
		keys = append(keys, k)
	}
	return keys
}

func TestCountsCorpus(t *testing.T) {
	for _, c := range readCorpus(t, "testdata/counts.txt") {
		want := parseCountKeys(t, c)
		var got []countKey
		for _, cl := range Counts(c.text) {
			got = append(got, keyOf(cl))
		}
		if c.known {
			if slices.Equal(got, want) {
				t.Logf("line %d: known miss now passes; drop its \"? \": %q", c.line, c.text)
			}
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("line %d: Counts(%q)\n got  %v\n want %v", c.line, c.text, got, want)
		}
	}
}

// TestCorpusScore measures Counts on the whole corpus, known misses
// included: recall over the expected claims, false alarms on the negative
// lines (which must find nothing) and extra claims on the positive ones. It
// fails only if a negative line yields a claim or recall falls under 90%.
func TestCorpusScore(t *testing.T) {
	var posLines, negLines, want, found, extra, negAlarms, gotTotal int
	var misses, alarms []string
	for _, c := range readCorpus(t, "testdata/counts.txt") {
		exp := parseCountKeys(t, c)
		var got []countKey
		for _, cl := range Counts(c.text) {
			got = append(got, keyOf(cl))
		}
		gotTotal += len(got)
		if len(exp) == 0 {
			negLines++
			if len(got) > 0 {
				negAlarms += len(got)
				alarms = append(alarms, fmt.Sprintf("line %d %q: %v", c.line, c.text, got))
			}
			continue
		}
		posLines++
		want += len(exp)
		used := make([]bool, len(got))
		for _, e := range exp {
			hit := false
			for j, g := range got {
				if !used[j] && g == e {
					used[j], hit = true, true
					break
				}
			}
			if hit {
				found++
			} else {
				misses = append(misses, fmt.Sprintf("line %d %q: want %v, got %v", c.line, c.text, e, got))
			}
		}
		for j := range got {
			if !used[j] {
				extra++
				alarms = append(alarms, fmt.Sprintf("line %d %q: extra %v", c.line, c.text, got[j]))
			}
		}
	}
	recall := float64(found) / float64(want)
	precision := 1.0
	if gotTotal > 0 {
		precision = float64(found) / float64(gotTotal)
	}
	t.Logf("positive lines %d (%d claims), negative lines %d", posLines, want, negLines)
	t.Logf("found %d, missed %d: recall %.1f%%", found, want-found, 100*recall)
	t.Logf("false alarms: %d on negative lines, %d extra on positive lines: precision %.1f%%", negAlarms, extra, 100*precision)
	for _, m := range misses {
		t.Logf("miss: %s", m)
	}
	for _, a := range alarms {
		t.Logf("false alarm: %s", a)
	}
	if negAlarms > 0 {
		t.Errorf("%d false alarms on negative lines", negAlarms)
	}
	if recall < 0.9 {
		t.Errorf("recall %.1f%% < 90%%", 100*recall)
	}
	if posLines < 60 || negLines < 25 {
		t.Errorf("corpus too small: %d positive, %d negative lines", posLines, negLines)
	}
}

func TestTaskIntentsCorpus(t *testing.T) {
	cases := readCorpus(t, "testdata/tasks.txt")
	if len(cases) < 25 {
		t.Errorf("only %d task goals", len(cases))
	}
	for _, c := range cases {
		var want TaskIntent
		if c.expected != "-" {
			for _, f := range strings.Fields(c.expected) {
				k, v, ok := strings.Cut(f, "=")
				if !ok {
					t.Fatalf("line %d: bad field %q", c.line, f)
				}
				switch k {
				case "doc":
					want.DocComments = v == "true"
				case "style":
					want.DocStyle = v
				case "symbols":
					want.Symbols = strings.Split(v, ",")
				case "files":
					want.Files = strings.Split(v, ",")
				case "count":
					want.Count, _ = strconv.Atoi(v)
				case "noun":
					want.Noun = v
				default:
					t.Fatalf("line %d: unknown field %q", c.line, k)
				}
			}
		}
		got := TaskIntents(c.text)
		if got.DocComments != want.DocComments || got.DocStyle != want.DocStyle ||
			!slices.Equal(got.Symbols, want.Symbols) || !slices.Equal(got.Files, want.Files) ||
			got.Count != want.Count || got.Noun != want.Noun {
			t.Errorf("line %d: TaskIntents(%q)\n got  %+v\n want %+v", c.line, c.text, got, want)
		}
	}
}

func TestTestClaimsCorpus(t *testing.T) {
	for _, c := range readCorpus(t, "testdata/tests.txt") {
		var want []string
		if c.expected != "none" {
			for _, part := range strings.Split(c.expected, ";") {
				f := strings.Fields(part)
				tc := TestClaim{Passed: f[0] == "pass"}
				for _, opt := range f[1:] {
					k, v, _ := strings.Cut(opt, "=")
					n, _ := strconv.Atoi(v)
					switch k {
					case "count":
						tc.Count = n
					case "failed":
						tc.Failed = n
					default:
						t.Fatalf("line %d: unknown option %q", c.line, opt)
					}
				}
				want = append(want, fmt.Sprintf("%v/%d/%d", tc.Passed, tc.Count, tc.Failed))
			}
		}
		var got []string
		for _, tc := range TestClaims(c.text) {
			got = append(got, fmt.Sprintf("%v/%d/%d", tc.Passed, tc.Count, tc.Failed))
		}
		if !slices.Equal(got, want) {
			t.Errorf("line %d: TestClaims(%q)\n got  %v\n want %v (passed/count/failed)", c.line, c.text, got, want)
		}
	}
}
