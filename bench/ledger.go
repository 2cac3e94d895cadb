package main

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/internal/claimcorpus"
	"github.com/vouchgate/vouch/wire"
)

// The measures of claim-first verdicts, as an orchestrator meets them: a
// verdict sends the work back (retry or fail), passes it, or says it is
// unverified, which is neither.

// outcome is where a verdict puts the work.
type outcome int

const (
	passed outcome = iota
	sentBack
	unverified
)

func outcomeOf(v vouch.Verdict) outcome {
	switch v {
	case vouch.VerdictPass:
		return passed
	case vouch.VerdictRetry, vouch.VerdictFail:
		return sentBack
	}
	return unverified
}

// tally counts the outcomes of one labelled set: good is the label that
// should pass (honest, resolved, faithful).
type tally struct {
	n                int
	good             int
	pass, passGood   int
	back, backGood   int
	unver, unverGood int
}

func (t *tally) add(o outcome, good bool) {
	t.n++
	b := 0
	if good {
		t.good++
		b = 1
	}
	switch o {
	case passed:
		t.pass++
		t.passGood += b
	case sentBack:
		t.back++
		t.backGood += b
	default:
		t.unver++
		t.unverGood += b
	}
}

func share(a, b int) string {
	if b == 0 {
		return "  -  "
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}

// claimFigures prints the figures of the plain-claim corpus (corpus, a
// directory of the repository), the shared real sessions, the SWE-bench
// runs and the labelled answer sets of shared, each verified in process
// with no judge.
func claimFigures(corpus, shared string, runs int) error {
	eng, err := engine.New(engine.Options{})
	if err != nil {
		return err
	}
	if err := corpusFigures(eng, corpus); err != nil {
		return err
	}
	if corpusOnly {
		return nil
	}
	fmt.Println()
	if err := realMaterial(shared, runs, false); err != nil {
		return err
	}
	fmt.Println()
	if err := swebenchFigures(eng, filepath.Join(shared, "eval-data", "swebench")); err != nil {
		return err
	}
	fmt.Println()
	return answerFigures(eng, filepath.Join(shared, "eval-data"))
}

// corpusOnly (-corpus-only) stops -claims after the plain-claim corpus.
var corpusOnly bool

// corpusFigures verifies both sides of every case of the plain-claim
// corpus: no lie may pass, no honest twin may be sent back.
func corpusFigures(eng *engine.Engine, dir string) error {
	cases, err := claimcorpus.Load(dir)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "vouch-claims-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fmt.Printf("Plain-claim corpus (%s: %d lies, %d honest twins)\n", dir, len(cases), len(cases))
	var lies, twins tally
	fams := map[string]*[2]tally{}
	var order []string
	for _, c := range cases {
		sides, err := c.Build(tmp)
		if err != nil {
			return err
		}
		var verdicts [2]string
		var ledgers [2][]vouch.Claim
		for i, s := range sides {
			req, err := wire.DecodeRequest(s.Request, wire.Options{})
			if err != nil {
				return fmt.Errorf("%s (%s): %w", c.Name, s.Label, err)
			}
			req.Workspace, req.Base = s.Dir, s.Base
			rep, err := eng.Verify(context.Background(), req)
			if err != nil {
				return fmt.Errorf("%s (%s): %w", c.Name, s.Label, err)
			}
			o := outcomeOf(rep.Verdict)
			honest := s.Label == claimcorpus.Honest
			if honest {
				twins.add(o, true)
			} else {
				lies.add(o, false)
			}
			f := fams[c.Family]
			if f == nil {
				f = &[2]tally{}
				fams[c.Family] = f
				order = append(order, c.Family)
			}
			f[i].add(o, honest)
			verdicts[i] = string(rep.Verdict) + " " + codesOf(rep)
			ledgers[i] = rep.Claims
		}
		fmt.Printf("  %-28s lie %-40s honest %s\n", c.Name, verdicts[0], verdicts[1])
		if showLedger {
			for i, l := range []string{"lie", "honest"} {
				fmt.Printf("      %s:\n", l)
				printLedger(ledgers[i])
			}
		}
	}
	for _, f := range order {
		t := fams[f]
		fmt.Printf("  %-10s lies: %d pass, %d sent back, %d unverified; twins: %d sent back, %d pass, %d unverified\n",
			f, t[0].pass, t[0].back, t[0].unver, t[1].back, t[1].pass, t[1].unver)
	}
	fmt.Printf("plain-claim lies that pass: %d of %d (sent back %d, unverified %d)\n", lies.pass, lies.n, lies.back, lies.unver)
	fmt.Printf("their honest twins sent back: %d of %d (pass %d, unverified %d)\n", twins.back, twins.n, twins.pass, twins.unver)
	return nil
}

// codesOf lists the codes of a report's failed checks, or of its claims
// refuted.
func codesOf(rep *vouch.Report) string {
	var codes []string
	for _, c := range rep.Checks {
		if c.Status == vouch.StatusFail && c.Code != "" && !slices.Contains(codes, c.Code) {
			codes = append(codes, c.Code)
		}
	}
	return strings.Join(codes, ",")
}

// reasonOf is a report's reason, cut to one line.
func reasonOf(rep *vouch.Report) string {
	r := rep.Reason
	if len(r) > 200 {
		r = r[:200] + "…"
	}
	return r
}

// answerFigures verifies the labelled answer sets of dir as answer
// requests: of what is sent back, the share hallucinated; of what passes,
// the share faithful; and the share unverified.
func answerFigures(eng *engine.Engine, dir string) error {
	sets, err := loadSets(dir)
	if err != nil {
		return err
	}
	fmt.Println("Labelled answers (rules only): sent back that are hallucinated / passed that are faithful / unverified, beside the base rate of faithful")
	for _, set := range sets {
		var t tally
		for _, row := range set.rows {
			srcs := make([]stdjson.RawMessage, len(row.Sources))
			for i, v := range row.Sources {
				srcs[i] = stdjson.RawMessage(v)
			}
			req := &vouch.Request{
				ID:      row.ID,
				Kind:    vouch.KindAnswer,
				Task:    vouch.Task{Goal: "Answer from the sources"},
				Output:  vouch.Output{Summary: row.Answer},
				Context: &vouch.Context{Sources: srcs},
			}
			rep, err := eng.Verify(context.Background(), req)
			if err != nil {
				return fmt.Errorf("%s %s: %w", set.name, row.ID, err)
			}
			t.add(outcomeOf(rep.Verdict), row.Label == "supported")
		}
		fmt.Printf("  %-22s %4d rows: sent back %4d, hallucinated %s | passed %4d, faithful %s | unverified %4d (%.0f %%) | base faithful %s\n",
			set.name, t.n, t.back, share(t.back-t.backGood, t.back), t.pass, share(t.passGood, t.pass),
			t.unver, 100*float64(t.unver)/float64(max(t.n, 1)), share(t.good, t.n))
	}
	return nil
}
