package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/trace/miniswe"
)

// swebenchRun is one line of outcomes.jsonl.
type swebenchRun struct {
	ID         string `json:"id"`
	Repo       string `json:"repo"`
	Resolved   bool   `json:"resolved"`
	FinalClaim string `json:"final_claim"`
}

// showWarning (-show-warning) names a warning code whose every occurrence
// -swebench prints, with its message and details.
var showWarning string

// finding is one run sent back for something vouch says it found false.
type finding struct {
	id       string
	resolved bool
	codes    string
	reason   string
}

// swebenchFigures verifies the mini-swe-agent runs of dir (outcomes.jsonl
// beside trajs/ID.traj.json) with no judge and no workspace, and holds the
// verdicts against the harness's outcomes. A finding is a retry or fail
// for a check that found a claim false; every other send-back (a must-pass
// criterion undecided, an injection) is counted apart. It prints the
// measures of claim-first verdicts on real runs and each finding with its
// codes, so that a reader can go through them.
func swebenchFigures(eng *engine.Engine, dir string) error {
	f, err := os.Open(filepath.Join(dir, "outcomes.jsonl"))
	if err != nil {
		return err
	}
	defer f.Close()
	var all, claimed tally
	var findings []finding
	var resolvedFound, unresolvedClaimedFound, otherBack int
	warns := map[string][2]int{}
	states := map[vouch.ClaimKind]map[vouch.ClaimState]int{} // the ledgers' claims, by kind and state
	type timed struct {
		d    time.Duration
		size int
	}
	var times []timed
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r swebenchRun
		if err := json.Unmarshal(sc.Bytes(), &r, json.RejectUnknownMembers(false)); err != nil {
			return fmt.Errorf("outcomes.jsonl: %w", err)
		}
		data, err := os.ReadFile(filepath.Join(dir, "trajs", r.ID+".traj.json"))
		if err != nil {
			return err
		}
		start := time.Now()
		tr, err := miniswe.Read(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("%s: %w", r.ID, err)
		}
		rep, err := eng.Verify(context.Background(), tr.Request())
		if err != nil {
			return fmt.Errorf("%s: %w", r.ID, err)
		}
		times = append(times, timed{time.Since(start), len(data)})
		o := outcomeOf(rep.Verdict)
		all.add(o, r.Resolved)
		if r.FinalClaim == "success" {
			claimed.add(o, r.Resolved)
		}
		for _, c := range rep.Claims {
			if states[c.Kind] == nil {
				states[c.Kind] = map[vouch.ClaimState]int{}
			}
			states[c.Kind][c.State]++
		}
		for _, w := range rep.Warnings {
			if w.Code == showWarning {
				fmt.Printf("  %s (resolved %v) %s: %s %v\n", r.ID, r.Resolved, w.Code, w.Message, w.Details)
			}
			n := warns[w.Code]
			if r.Resolved {
				n[0]++
			} else {
				n[1]++
			}
			warns[w.Code] = n
		}
		if showLedger && r.FinalClaim == "success" && !r.Resolved && o != sentBack {
			fmt.Printf("  %s (unresolved, claims success) %s:\n", r.ID, rep.Verdict)
			printLedger(rep.Claims)
		}
		if o != sentBack {
			continue
		}
		codes := codesOf(rep)
		if codes == "" {
			otherBack++
			findings = append(findings, finding{r.ID, r.Resolved, fmt.Sprintf("(no finding: %s row %d)", rep.Verdict, rep.VerdictRow), reasonOf(rep)})
			continue
		}
		findings = append(findings, finding{r.ID, r.Resolved, codes, reasonOf(rep)})
		if r.Resolved {
			resolvedFound++
		} else if r.FinalClaim == "success" {
			unresolvedClaimedFound++
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	found := len(findings) - otherBack
	fmt.Printf("SWE-bench runs (%s: %d runs, %d resolved; rules only, no workspace)\n", dir, all.n, all.good)
	fmt.Printf("resolved runs with a finding: %d of %d (%.1f %%); any send-back: %d (%.1f %%)\n",
		resolvedFound, all.good, pct(resolvedFound, all.good), all.backGood, pct(all.backGood, all.good))
	fmt.Printf("findings that are right (the run was unresolved): %d of %d (%s)\n", found-resolvedFound, found, share(found-resolvedFound, found))
	fmt.Printf("unresolved runs that claim success, sent back for a finding: %d of %d\n", unresolvedClaimedFound, claimed.n-claimed.good)
	fmt.Printf("verdicts: pass %d (resolved %s, base rate %s), sent back %d (%d without a finding), unverified %d (%.0f %%)\n",
		all.pass, share(all.passGood, all.pass), share(all.good, all.n), all.back, otherBack, all.unver, pct(all.unver, all.n))
	fmt.Printf("runs whose last message claims success (%d, %d resolved): sent back %d (%d unresolved), passed %d (%d unresolved), unverified %d\n",
		claimed.n, claimed.good, claimed.back, claimed.back-claimed.backGood, claimed.pass, claimed.pass-claimed.passGood, claimed.unver)
	fmt.Print("claims of the ledgers by kind (verified/refuted/unverified):")
	for _, k := range slices.Sorted(maps.Keys(states)) {
		st := states[k]
		fmt.Printf(" %s %d/%d/%d", k, st[vouch.ClaimVerified], st[vouch.ClaimRefuted], st[vouch.ClaimUnverified])
	}
	fmt.Println()
	if len(warns) > 0 {
		fmt.Print("warnings (runs resolved/unresolved):")
		for _, c := range slices.Sorted(mapKeys(warns)) {
			fmt.Printf(" %s %d/%d", c, warns[c][0], warns[c][1])
		}
		fmt.Println()
	}
	if len(findings) > 0 {
		fmt.Println("  runs sent back, with their codes and the reason:")
		for _, fd := range findings {
			label := "unresolved"
			if fd.resolved {
				label = "RESOLVED"
			}
			fmt.Printf("    %-36s %-10s %s: %s\n", fd.id, label, fd.codes, fd.reason)
		}
	}
	slices.SortFunc(times, func(a, b timed) int { return int(a.d - b.d) })
	big := times[0]
	for _, t := range times {
		if t.size > big.size {
			big = t
		}
	}
	fmt.Printf("read + verify of one run: p50 %v, p99 %v; the largest trajectory (%.1f MB) %v\n",
		times[len(times)/2].d.Round(time.Millisecond/10), times[min(len(times)-1, len(times)*99/100)].d.Round(time.Millisecond/10),
		float64(big.size)/(1<<20), big.d.Round(time.Millisecond/10))
	var half []time.Duration // trajectories of about half a megabyte
	for _, t := range times {
		if t.size >= 400<<10 && t.size <= 600<<10 {
			half = append(half, t.d)
		}
	}
	if len(half) > 0 {
		fmt.Printf("read + verify of a 0.4-0.6 MB trajectory (%d runs): p50 %v, slowest %v\n",
			len(half), half[len(half)/2].Round(time.Millisecond/10), half[len(half)-1].Round(time.Millisecond/10))
	}
	return nil
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

// mapKeys yields the keys of m.
func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
