package quality

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/vouchgate/vouch"
)

// labelLine is one line of a labels file.
type labelLine struct {
	ID      string `json:"id"`
	Attempt int    `json:"attempt"`
	Good    *bool  `json:"good"`
	Verdict string `json:"verdict"`
}

// ReadSamples reads the samples of calibration from files, for the
// command line: reports is JSON Lines of vouch reports (as vouch verify
// and the store write them), one sample each ([SampleOf]); labels is JSON
// Lines of labels, each naming a report by id and optionally attempt (0 or
// absent: the latest attempt of that id), with either an outcome or a
// reviewer's verdict:
//
//	{"id": "task-7", "good": false}
//	{"id": "task-9", "attempt": 2, "verdict": "retry"}
//
// A later label of the same verification replaces an earlier one. Reports
// with the same id and attempt are the same request verified again (an
// id a caller leaves out is a hash of the request): a label labels each.
// Blank lines are skipped. labels may be nil: every sample is then
// unlabelled.
//
// A report made before the claim ledger (no "claims") is read as
// [SampleOf] reads it: its row renumbered from the six-row verdict table.
//
// Errors name the file and line: a line that is not a report or a label,
// a report's verdict other than pass, retry, fail and unverified, a
// label's other than pass, retry and fail, unknown fields in a label, a
// label with neither good nor verdict, or with both and disagreeing, and a
// label naming an id or an attempt no report has.
func ReadSamples(reports io.Reader, labels io.Reader) ([]Sample, error) {
	var samples []Sample
	type key struct {
		id      string
		attempt int
	}
	index := make(map[key][]int) // the samples of an id and attempt
	attempts := make(map[string][]int)
	err := eachLine("reports", reports, func(n int, line []byte) error {
		var rep vouch.Report
		if err := json.Unmarshal(line, &rep); err != nil {
			return fmt.Errorf("quality: reports line %d: %w", n, err)
		}
		if !rep.Verdict.Valid() {
			return fmt.Errorf("quality: reports line %d: verdict %q is not pass, retry, fail or unverified", n, rep.Verdict)
		}
		if rep.ID != "" {
			k := key{rep.ID, rep.Attempt}
			if index[k] == nil {
				attempts[rep.ID] = append(attempts[rep.ID], rep.Attempt)
			}
			index[k] = append(index[k], len(samples))
		}
		samples = append(samples, SampleOf(&rep))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if labels == nil {
		return samples, nil
	}
	err = eachLine("labels", labels, func(n int, line []byte) error {
		var l labelLine
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return fmt.Errorf("quality: labels line %d: %w", n, err)
		}
		if dec.More() {
			return fmt.Errorf("quality: labels line %d: more than one label on the line", n)
		}
		label, err := l.label()
		if err != nil {
			return fmt.Errorf("quality: labels line %d: %w", n, err)
		}
		known := attempts[l.ID]
		if len(known) == 0 {
			return fmt.Errorf("quality: labels line %d: no report has id %q", n, l.ID)
		}
		attempt := l.Attempt
		if attempt == 0 {
			attempt = slices.Max(known)
		}
		list, ok := index[key{l.ID, attempt}]
		if !ok {
			sorted := slices.Sorted(slices.Values(known))
			s := make([]string, len(sorted))
			for j, a := range sorted {
				s[j] = strconv.Itoa(a)
			}
			return fmt.Errorf("quality: labels line %d: report %q has no attempt %d (attempts %s)", n, l.ID, attempt, strings.Join(s, ", "))
		}
		for _, i := range list {
			samples[i].Label = &label
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return samples, nil
}

// label checks a label line and returns its label.
func (l *labelLine) label() (Label, error) {
	switch {
	case l.ID == "":
		return Label{}, errors.New(`a label needs the "id" of a report`)
	case l.Attempt < 0:
		return Label{}, fmt.Errorf("attempt %d is negative", l.Attempt)
	case l.Verdict == string(vouch.VerdictUnverified):
		return Label{}, fmt.Errorf("verdict %q: a label is a person's verdict, pass, retry or fail (unverified is the gate's, for what it could not decide)", l.Verdict)
	case l.Verdict != "" && !ReviewerVerdict(l.Verdict):
		return Label{}, fmt.Errorf("verdict %q is not pass, retry or fail", l.Verdict)
	case l.Verdict != "" && l.Good != nil && *l.Good != (l.Verdict == string(vouch.VerdictPass)):
		return Label{}, fmt.Errorf("good %v disagrees with verdict %q", *l.Good, l.Verdict)
	case l.Verdict != "":
		return LabelOfVerdict(l.Verdict), nil
	case l.Good != nil:
		return Label{Good: *l.Good}, nil
	}
	return Label{}, errors.New(`a label needs "good" or "verdict"`)
}

// eachLine calls f with each non-blank line of r and its number, from 1,
// and stops at the first error; name names r in a read error.
func eachLine(name string, r io.Reader, f func(n int, line []byte) error) error {
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if ferr := f(n, line); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("quality: %s line %d: %w", name, n, err)
		}
	}
}
