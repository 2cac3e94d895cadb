package support

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vouchgate/vouch/internal/evalstat"
	"github.com/vouchgate/vouch/text/mention"
)

// row is one labelled answer of testdata/answers.
type row struct {
	ID      string            `json:"id"`
	Sources []json.RawMessage `json:"sources"`
	Answer  string            `json:"answer"`
	Label   string            `json:"label"`
	Note    string            `json:"note"`
}

func loadRows(t testing.TB) []row {
	t.Helper()
	files, err := filepath.Glob("testdata/answers/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no rows: %v", err)
	}
	var rows []row
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			var r row
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("%s:%d: %v", f, n, err)
			}
			if r.Label != "supported" && r.Label != "hallucinated" {
				t.Fatalf("%s:%d: label %q", f, n, r.Label)
			}
			rows = append(rows, r)
		}
		fh.Close()
	}
	return rows
}

func rowSources(r row) []Source {
	srcs := make([]Source, len(r.Sources))
	for i, raw := range r.Sources {
		srcs[i] = FromJSON(fmt.Sprintf("sources[%d]", i), raw)
	}
	return srcs
}

// evaluate runs a response-level rule over the rows.
func evaluate(t *testing.T, rows []row, flag func(r row) (bool, string)) evalstat.Confusion {
	var c evalstat.Confusion
	for _, r := range rows {
		flagged, why := flag(r)
		hall := r.Label == "hallucinated"
		c.Add(flagged, hall)
		if flagged != hall && testing.Verbose() {
			t.Logf("miss %-22s %-12s flagged=%v %s | %s", r.ID, r.Label, flagged, why, r.Note)
		}
	}
	return c
}

// flagRules is the package's rule: a response is flagged when any claim
// has an unsupported or contradicted atom.
func flagRules(r row) (bool, string) {
	ix := NewIndex(rowSources(r))
	claims := ix.Claims(mention.Parse(r.Answer))
	var why []string
	for _, c := range Unsupported(claims) {
		for _, a := range c.Unsupported {
			why = append(why, a.Kind+" "+a.Text)
		}
		for _, ct := range c.Contradicted {
			why = append(why, fmt.Sprintf("contradicted %q by %s %q", ct.Atom.Text, ct.Source, ct.Found))
		}
	}
	return Hallucinated(claims), strings.Join(why, "; ")
}

var (
	naiveNumber = regexp.MustCompile(`\d+(?:[.,]\d+)*`)
	naiveWord   = regexp.MustCompile(`[\p{L}][\p{L}\p{N}'’-]*`)
)

// flagNaive is the baseline: any capitalised word (not opening a
// sentence) or number of the answer that the sources' text does not hold
// as a substring flags the response.
func flagNaive(r row) (bool, string) {
	var all strings.Builder
	for _, s := range rowSources(r) {
		all.WriteString(s.Text)
		all.WriteByte('\n')
	}
	text := all.String()
	for _, n := range naiveNumber.FindAllString(r.Answer, -1) {
		if !strings.Contains(text, n) {
			return true, "number " + n
		}
	}
	for _, sp := range mention.Sentences(r.Answer) {
		for i, w := range naiveWord.FindAllString(sp.Text, -1) {
			if i == 0 || !strings.ContainsAny(w[:1], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
				continue
			}
			w = strings.TrimRight(w, "'’-")
			if !strings.Contains(text, w) {
				return true, "word " + w
			}
		}
	}
	return false, ""
}

// TestEvaluate measures the response-level rule on the labelled answers
// and compares it with the naive baseline.
func TestEvaluate(t *testing.T) {
	rows := loadRows(t)
	pos := 0
	for _, r := range rows {
		if r.Label == "hallucinated" {
			pos++
		}
	}
	t.Logf("%d rows, %d hallucinated, %d supported", len(rows), pos, len(rows)-pos)
	rules := evaluate(t, rows, flagRules)
	t.Logf("rules:    %v", rules)
	naive := evaluate(t, rows, flagNaive)
	t.Logf("baseline: %v", naive)
	// For information: how often a contradiction is named, by label, and
	// what a lexical signal on prose claims would add.
	contra := map[string]int{}
	for _, r := range rows {
		claims := NewIndex(rowSources(r)).Claims(mention.Parse(r.Answer))
		for _, c := range claims {
			if len(c.Contradicted) > 0 {
				contra[r.Label]++
				break
			}
		}
	}
	var hard []row
	for _, r := range rows {
		if strings.HasPrefix(r.Note, "hard") {
			hard = append(hard, r)
		}
	}
	var hc evalstat.Confusion
	for _, r := range hard {
		f, _ := flagRules(r)
		hc.Add(f, r.Label == "hallucinated")
	}
	t.Logf("rows marked hard (%d): %d of %d hallucinated flagged, %d of %d supported passed",
		len(hard), hc.TP, hc.TP+hc.FN, hc.TN, hc.TN+hc.FP)
	t.Logf("responses with a contradiction: %d hallucinated, %d supported", contra["hallucinated"], contra["supported"])
	for _, min := range []float64{0.34, 0.5} {
		c := evaluate(t, rows, func(r row) (bool, string) {
			if f, why := flagRules(r); f {
				return f, why
			}
			for _, cl := range NewIndex(rowSources(r)).Claims(mention.Parse(r.Answer)) {
				if cl.Overlap < min {
					return true, fmt.Sprintf("overlap %.2f: %s", cl.Overlap, cl.Sentence.Text)
				}
			}
			return false, ""
		})
		t.Logf("rules + any claim with overlap < %.2f (not used): %v", min, c)
	}
	// Floors a little below the measured figures, so that a regression
	// fails.
	if rules.Balanced() < 0.86 || rules.Precision() < 0.92 {
		t.Errorf("rules below the floor: %v", rules)
	}
}
