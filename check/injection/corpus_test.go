package injection

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/vouchgate/vouch/internal/sharedtest"
	"github.com/vouchgate/vouch/trace/claudecode"
)

// A sample is one labelled text of testdata/corpus.jsonl.
type sample struct {
	Text      string `json:"text"`
	Injection bool   `json:"injection"`
	Note      string `json:"note"`
}

func readCorpus(t *testing.T) []sample {
	t.Helper()
	f, err := os.Open("testdata/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []sample
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var s sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("corpus.jsonl:%d: %v", n, err)
		}
		if s.Text == "" || s.Note == "" {
			t.Fatalf("corpus.jsonl:%d: text and note are required", n)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// transcriptTexts returns the real text of the shared Claude Code
// sessions: every assistant text block of the main thread and every tool
// output the trace holds. It returns nil when the sessions are absent.
func transcriptTexts(t *testing.T) []sample {
	t.Helper()
	files := sharedtest.Optional(t, "agent-transcripts/claude-code/*.jsonl")
	var out []sample
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		for line := range strings.SplitSeq(string(data), "\n") {
			var l struct {
				Type        string `json:"type"`
				IsSidechain bool   `json:"isSidechain"`
				Message     struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal([]byte(line), &l) != nil || l.Type != "assistant" || l.IsSidechain {
				continue
			}
			var blocks []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			if json.Unmarshal(l.Message.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type == "text" && b.Text != "" {
					out = append(out, sample{Text: b.Text, Note: name + " assistant"})
				}
			}
		}
		tr, err := claudecode.Read(strings.NewReader(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		for i := range tr.Trace {
			if s := tr.Trace[i].OutputText(); s != "" {
				out = append(out, sample{Text: s, Note: name + " " + tr.Trace[i].Tool})
			}
		}
	}
	return out
}

// TestCorpus runs the scanner on the labelled corpus and on the real text
// of the shared sessions, and holds it to floors: recall on the corpus's
// injections (known gaps included, so it is below 1), and no benign text
// flagged. With -v it prints the figures, and recall by dodge.
func TestCorpus(t *testing.T) {
	corpus := readCorpus(t)
	var inj, caught, benign, flagged int
	type tally struct{ n, hit int }
	byKind := map[string]*tally{}
	var kinds []string
	for _, s := range corpus {
		got := Scan("corpus", s.Text)
		kind, _, _ := strings.Cut(s.Note, ":")
		if s.Injection {
			inj++
			k := byKind[kind]
			if k == nil {
				k = &tally{}
				byKind[kind] = k
				kinds = append(kinds, kind)
			}
			k.n++
			if len(got) > 0 {
				caught++
				k.hit++
			} else {
				t.Logf("missed  [%s] %q", s.Note, s.Text)
			}
			continue
		}
		benign++
		if len(got) > 0 {
			flagged++
			t.Errorf("flagged [%s] %q: %s %q", s.Note, s.Text, got[0].What, got[0].Text)
		}
	}
	real := transcriptTexts(t)
	var realFlagged, realBytes int
	for _, s := range real {
		realBytes += len(s.Text)
		if got := Scan("transcript", s.Text); len(got) > 0 {
			realFlagged++
			t.Errorf("flagged transcript text [%s]: %s %q", s.Note, got[0].What, got[0].Text)
		}
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		t.Logf("  %-16s %3d/%-3d", k, byKind[k].hit, byKind[k].n)
	}
	recall := float64(caught) / float64(max(inj, 1))
	fpr := float64(flagged+realFlagged) / float64(max(benign+len(real), 1))
	t.Logf("corpus: %d injections, %d caught, recall %.3f", inj, caught, recall)
	t.Logf("corpus: %d benign texts, %d flagged", benign, flagged)
	t.Logf("transcripts: %d texts (%d bytes), %d flagged", len(real), realBytes, realFlagged)
	t.Logf("false-positive rate %.4f (%d of %d benign texts)", fpr, flagged+realFlagged, benign+len(real))
	if inj < 100 || benign < 100 {
		t.Errorf("the corpus holds %d injections and %d benign texts, want at least 100 of each", inj, benign)
	}
	if recall < minRecall {
		t.Errorf("recall %.3f, want at least %.2f", recall, minRecall)
	}
}

// minRecall is the floor of TestCorpus on the corpus's injections.
const minRecall = 0.95

// The cheap tests of the words after a trigger word only spare the
// expressions: with or without them, the corpus gets the same flags.
func TestPrefilterIsSound(t *testing.T) {
	corpus := readCorpus(t)
	with := make([][]Flag, len(corpus))
	for i, s := range corpus {
		with[i] = Scan("corpus", s.Text)
	}
	skipPrefilter = true
	defer func() { skipPrefilter = false }()
	for i, s := range corpus {
		without := Scan("corpus", s.Text)
		if len(with[i]) != len(without) {
			t.Errorf("%q: %+v with the prefilter, %+v without", s.Text, with[i], without)
			continue
		}
		for j := range without {
			if with[i][j] != without[j] {
				t.Errorf("%q: %+v with the prefilter, %+v without", s.Text, with[i], without)
			}
		}
	}
}
