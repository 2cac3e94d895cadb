package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/policy"
	"github.com/vouchgate/vouch/wire"
)

// labelledDir holds labelled requests, one directory per checkpoint family
// (decomposition, synthesis, moderation, consistency, answer...). A file
// named faulty-*.yaml must not pass; sound-*.yaml must pass. A faulty case
// names the codes it must be caught by in a leading comment:
//
//	# expect: DEPENDENCY_CYCLE AGENT_UNKNOWN
//
// A policy.yaml beside the cases is layered over the defaults for all of
// them (requiredTopics, for instance).
const labelledDir = "../testdata/labelled"

// heldoutDir holds cases of the same shape written apart from the rules,
// by an author who had not read them: they measure how the rules do on
// text they were not shaped by.
const heldoutDir = "../testdata/heldout"

// minCatch and maxFalseAlarm are the rates every labelled family must
// meet; held-out families must meet maxFalseAlarm (vouch must not cry
// wolf), and their catch rates are reported.
const (
	minCatch      = 0.9
	maxFalseAlarm = 0.1
)

func TestLabelled(t *testing.T) {
	runFamilies(t, labelledDir, true)
}

func TestHeldout(t *testing.T) {
	runFamilies(t, heldoutDir, false)
}

func runFamilies(t *testing.T, root string, strict bool) {
	families, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, fam := range families {
		if !fam.IsDir() {
			continue
		}
		t.Run(fam.Name(), func(t *testing.T) {
			runFamily(t, filepath.Join(root, fam.Name()), strict)
		})
	}
}

// runFamily verifies every case of a family. A strict run reports each
// miss and false alarm as an error and holds the family to minCatch; a
// held-out run logs the misses and holds it to maxFalseAlarm alone.
func runFamily(t *testing.T, dir string, strict bool) {
	miss := t.Errorf
	if !strict {
		miss = t.Logf
	}
	pol := vouch.DefaultPolicy()
	if _, err := os.Stat(filepath.Join(dir, "policy.yaml")); err == nil {
		p, err := policy.Load(filepath.Join(dir, "policy.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		pol = p
	}
	eng, err := engine.New(engine.Options{Policy: &pol, Now: func() time.Time { return time.Unix(0, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var faulty, caught, sound, alarms int
	for _, path := range files {
		name := filepath.Base(path)
		isFaulty := strings.HasPrefix(name, "faulty-")
		if !isFaulty && !strings.HasPrefix(name, "sound-") {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		req, err := wire.DecodeRequest(data, wire.Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		rep, err := eng.Verify(context.Background(), req)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		codes := reportCodes(rep)
		if isFaulty {
			faulty++
			want := expectedCodes(data)
			if len(want) == 0 {
				t.Errorf("%s: a faulty case must name the codes that catch it (# expect: CODE...)", name)
			}
			var missing []string
			for _, c := range want {
				if !slices.Contains(codes, c) {
					missing = append(missing, c)
				}
			}
			switch {
			case rep.Verdict == vouch.VerdictPass:
				miss("%s: faulty case passed (score %v, codes %v)", name, fmtScore(rep.Score), codes)
			case len(missing) > 0:
				miss("%s: caught (%s) but without %v; codes %v", name, rep.Verdict, missing, codes)
			default:
				caught++
			}
			continue
		}
		sound++
		if rep.Verdict != vouch.VerdictPass {
			alarms++
			miss("%s: sound case got %s (score %v, codes %v, feedback %q)", name, rep.Verdict, fmtScore(rep.Score), codes, rep.Feedback)
		}
	}
	if faulty == 0 || sound == 0 {
		t.Fatalf("%s: %d faulty and %d sound cases; a family needs both", dir, faulty, sound)
	}
	catch := float64(caught) / float64(faulty)
	alarm := float64(alarms) / float64(sound)
	t.Logf("%s: caught %d/%d faulty (%.2f), %d/%d sound flagged (%.2f)", filepath.Base(dir), caught, faulty, catch, alarms, sound, alarm)
	if strict && catch < minCatch || alarm > maxFalseAlarm {
		t.Errorf("catch rate %.2f (want >= %.2f), false-alarm rate %.2f (want <= %.2f)", catch, minCatch, alarm, maxFalseAlarm)
	}
}

// expectedCodes reads the "# expect:" comment lines at the top of a case.
func expectedCodes(data []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "#") {
			break
		}
		if rest, ok := strings.CutPrefix(strings.TrimSpace(strings.TrimPrefix(line, "#")), "expect:"); ok {
			out = append(out, strings.Fields(rest)...)
		}
	}
	return out
}

// reportCodes lists the codes of a report's failed checks and warnings.
func reportCodes(rep *vouch.Report) []string {
	var out []string
	for _, c := range rep.Checks {
		if code, ok := c.Evidence["code"].(string); ok && c.Status == vouch.StatusFail {
			out = append(out, code)
		}
	}
	for _, w := range rep.Warnings {
		out = append(out, w.Code)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func fmtScore(s *float64) string {
	if s == nil {
		return "null"
	}
	return fmt.Sprintf("%.2f", *s)
}

// BenchmarkLabelled verifies every case of a family once per iteration,
// decoding included: what the checkpoint kinds cost per request.
func BenchmarkLabelled(b *testing.B) {
	for _, fam := range []string{"decomposition", "synthesis", "consistency", "moderation"} {
		b.Run(fam, func(b *testing.B) {
			dir := filepath.Join(labelledDir, fam)
			pol := vouch.DefaultPolicy()
			if _, err := os.Stat(filepath.Join(dir, "policy.yaml")); err == nil {
				if pol, err = policy.Load(filepath.Join(dir, "policy.yaml")); err != nil {
					b.Fatal(err)
				}
			}
			eng, err := engine.New(engine.Options{Policy: &pol})
			if err != nil {
				b.Fatal(err)
			}
			files, err := filepath.Glob(filepath.Join(dir, "*-*.yaml"))
			if err != nil || len(files) == 0 {
				b.Fatalf("no cases in %s: %v", dir, err)
			}
			var reqs [][]byte
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					b.Fatal(err)
				}
				reqs = append(reqs, data)
			}
			b.ReportAllocs()
			for b.Loop() {
				for _, data := range reqs {
					if _, err := eng.VerifyBytes(context.Background(), data); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(reqs)), "µs/request")
		})
	}
}
