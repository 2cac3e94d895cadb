package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vouchgate/vouch/quality"
)

// TestCalibrateFiles calibrates on report and label files whose right
// pass threshold is 0.8, writes the patch, and checks it as a policy.
func TestCalibrateFiles(t *testing.T) {
	dir := t.TempDir()
	var reports, labels strings.Builder
	for i := range 200 {
		score := float64(i) / 200
		verdict, row := "pass", 6
		switch {
		case score < 0.5:
			verdict, row = "fail", 3
		case score < 0.7:
			verdict, row = "retry", 4
		}
		fmt.Fprintf(&reports, `{"id":"r%d","attempt":1,"kind":"answer","verdict":%q,"verdictRow":%d,"score":%v,"confidence":0.8,"dimensions":{"groundedness":{"score":%v,"state":"decided","weight":1}}}`+"\n",
			i, verdict, row, score, score)
		if i%2 == 0 {
			fmt.Fprintf(&labels, `{"id":"r%d","good":%t}`+"\n", i, score >= 0.8)
		}
	}
	rp, lp, pp := filepath.Join(dir, "reports.jsonl"), filepath.Join(dir, "labels.jsonl"), filepath.Join(dir, "calibrated.yaml")
	os.WriteFile(rp, []byte(reports.String()), 0o644)
	os.WriteFile(lp, []byte(labels.String()), 0o644)
	e := &labelEnv{t: t}

	code, out, errs := e.run(nil, "calibrate", "--reports", rp, "--labels", lp, "--json")
	if code != 0 {
		t.Fatalf("calibrate: %d %s", code, errs)
	}
	var c quality.Calibration
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	if !c.Enough || c.Thresholds == nil || c.Thresholds.PassAt < 0.77 || c.Thresholds.PassAt > 0.83 {
		t.Fatalf("calibration: %s; thresholds %+v, want passAt near 0.8", c.Message, c.Thresholds)
	}
	code, out, errs = e.run(nil, "calibrate", "--reports", rp, "--labels", lp, "--write-policy", pp)
	if code != 0 || !strings.Contains(out, "Suggested thresholds") || !strings.Contains(errs, "vouch policy check") {
		t.Fatalf("calibrate --write-policy: %d\n%s%s", code, out, errs)
	}
	if code, _, errs := e.run(nil, "policy", "check", pp); code != 0 {
		t.Errorf("policy check of the patch: %d %s", code, errs)
	}
	if code, _, errs := e.run(nil, "calibrate", "--reports", rp, "--labels", lp, "--write-policy", pp); code != 2 || !strings.Contains(errs, "never overwrites") {
		t.Errorf("calibrate over an existing file: %d %s", code, errs)
	}
	// Too few labels: nothing suggested, nothing written.
	code, out, errs = e.run(nil, "calibrate", "--reports", rp, "--labels", lp, "--min-labels", "1000", "--write-policy", filepath.Join(dir, "none.yaml"))
	if code != 2 || !strings.Contains(errs, "nothing to write") || !strings.Contains(out, "labels") {
		t.Errorf("calibrate with too few labels: %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.yaml")); err == nil {
		t.Errorf("a patch was written with too few labels")
	}
	for _, args := range [][]string{
		{"calibrate", "--reports", rp},
		{"calibrate", "--reports", rp, "--labels", lp, "--store", "x.db"},
		{"calibrate", "--reports", rp, "--labels", lp, "--kind", "answer"},
		{"calibrate", "--server", "http://127.0.0.1:1", "--policy", "p.yaml"},
		{"calibrate", "--reports", filepath.Join(dir, "missing"), "--labels", lp},
	} {
		if code, _, _ := e.run(nil, args...); code != 2 {
			t.Errorf("vouch %s: exit %d, want 2", strings.Join(args, " "), code)
		}
	}
}

// TestCalibrateFilesSevenRows calibrates on reports of the seven-row
// verdict table, with their claim ledgers, some left unverified: the
// thresholds fit the labels as they do on the six-row reports, an
// unverified report labelled either way costs nothing, and a label may
// not be unverified.
func TestCalibrateFilesSevenRows(t *testing.T) {
	dir := t.TempDir()
	var reports, labels strings.Builder
	unverified := 0
	for i := range 240 {
		score := float64(i%200) / 200
		verdict, row, state := "pass", 7, "verified"
		switch {
		case i >= 200:
			// Left unverified: a claim no evidence decides.
			verdict, row, state = "unverified", 6, "unverified"
			score = 0.86 + float64(i-200)/400
		case score < 0.5:
			verdict, row = "fail", 2
		case score < 0.7:
			verdict, row = "retry", 3
		}
		fmt.Fprintf(&reports, `{"id":"r%d","attempt":1,"kind":"answer","verdict":%q,"verdictRow":%d,"score":%v,"confidence":0.8,`+
			`"claims":[{"id":"c1","state":"verified"},{"id":"c2","state":%q}],"dimensions":{"groundedness":{"score":%v,"state":"decided","weight":1}}}`+"\n",
			i, verdict, row, score, state, score)
		if i%2 == 0 {
			// Half the unverified outputs are labelled bad: they cost
			// nothing, good or bad, while they stay unverified.
			good := score >= 0.8
			if i >= 200 {
				good = i%4 == 0
				unverified++
			}
			fmt.Fprintf(&labels, `{"id":"r%d","good":%t}`+"\n", i, good)
		}
	}
	rp, lp := filepath.Join(dir, "reports.jsonl"), filepath.Join(dir, "labels.jsonl")
	os.WriteFile(rp, []byte(reports.String()), 0o644)
	os.WriteFile(lp, []byte(labels.String()), 0o644)
	e := &labelEnv{t: t}
	code, out, errs := e.run(nil, "calibrate", "--reports", rp, "--labels", lp, "--json")
	if code != 0 {
		t.Fatalf("calibrate: %d %s", code, errs)
	}
	var c quality.Calibration
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	if !c.Enough || c.Thresholds == nil || c.Thresholds.PassAt < 0.77 || c.Thresholds.PassAt > 0.83 || c.Unverified != unverified {
		t.Fatalf("calibration: %s; %d on unverified verdicts; thresholds %+v, want passAt near 0.8 and %d unverified", c.Message, c.Unverified, c.Thresholds, unverified)
	}
	// The six-row reports of TestCalibrateFiles disagree with the labels
	// 10 times before; these as many (the unverified ones cost nothing).
	if d := c.Thresholds.Disagreement; d.Before != 10 || d.After != 0 {
		t.Errorf("disagreement %+v, want 10 before, 0 after", d)
	}
	code, out, _ = e.run(nil, "calibrate", "--reports", rp, "--labels", lp)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("; %d on verdicts left unverified", unverified)) || !strings.Contains(out, "unverified→sent back") {
		t.Errorf("calibrate text: %d\n%s", code, out)
	}
	os.WriteFile(lp, []byte(`{"id":"r201","verdict":"unverified"}`+"\n"), 0o644)
	if code, _, errs := e.run(nil, "calibrate", "--reports", rp, "--labels", lp); code != 2 || !strings.Contains(errs, "pass, retry or fail") {
		t.Errorf("a label unverified: %d %s, want exit 2 naming pass, retry or fail", code, errs)
	}
}

// TestCalibrateAndExamplesOnServer reads calibration and examples from a
// server and from its store.
func TestCalibrateAndExamplesOnServer(t *testing.T) {
	e := newLabelEnv(t)
	if code, _, errs := e.run(e.as(e.review), "review", "a", "--verdict", "fail", "--reason", "it said DONE and did nothing"); code != 0 {
		t.Fatal(errs)
	}
	code, out, errs := e.run(e.as(e.verify), "calibrate", "--json")
	if code != 0 {
		t.Fatalf("calibrate --server: %d %s", code, errs)
	}
	var remote, local quality.Calibration
	json.Unmarshal([]byte(out), &remote)
	if remote.Enough || remote.Labels != 1 || !strings.Contains(remote.Message, "label") {
		t.Errorf("calibration over one label: %+v", remote)
	}
	_, out, _ = e.run(nil, "calibrate", "--json", "--store", e.dsn, "--tenant", "acme")
	json.Unmarshal([]byte(out), &local)
	if !reflect.DeepEqual(remote, local) {
		t.Errorf("--server and --store calibrations differ:\n%+v\n%+v", remote, local)
	}

	code, out, errs = e.run(e.as(e.verify), "examples")
	if code != 0 || !strings.Contains(out, "judge:") || !strings.Contains(out, `"output":"DONE"`) || !strings.Contains(out, "bad, from \"a/1\"") {
		t.Fatalf("examples: %d\n%s%s", code, out, errs)
	}
	pp := filepath.Join(t.TempDir(), "examples.yaml")
	if code, _, errs := e.run(nil, "examples", "--store", e.dsn, "--tenant", "acme", "--write-policy", pp); code != 0 {
		t.Fatalf("examples --store --write-policy: %d %s", code, errs)
	}
	if b, _ := os.ReadFile(pp); string(b) != out {
		t.Errorf("--store and --server examples differ:\n%s\n%s", b, out)
	}
	if code, _, errs := e.run(nil, "policy", "check", pp); code != 0 {
		t.Errorf("policy check of the examples: %d %s", code, errs)
	}
}
