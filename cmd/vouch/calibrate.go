package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/policy"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/text/plural"
)

// calibrateFlags are the flags of vouch calibrate.
type calibrateFlags struct {
	metricsFlags
	reports, labels string
	policies        []string
	minLabels       int
	writePolicy     string
}

func newCalibrateCmd(st Streams) *cobra.Command {
	var f calibrateFlags
	cmd := &cobra.Command{
		Use:   "calibrate [--server URL | --store DSN [--tenant T] | --reports FILE --labels FILE] [--policy FILE]... [--min-labels N] [--write-policy FILE] [--json]",
		Short: "Fit the policy's thresholds and weights to the labels, and propose a policy patch",
		Long: `Calibrate the policy to what people and outcomes said of past verifications:

  - the point-biserial correlation between score and label (teams aim for
    0.7 or more) and a reliability table: confidence against how often the
    gate's verdict agreed with the label;
  - the passAt and failBelow that would have disagreed least with the labels,
    with the trade-off curve (catch and false alarms at each passAt);
  - dimension weights per kind fitted to the labels (non-negative, summing to
    1), and thresholds fitted again under them;
  - for each suggestion, how many past verdicts it would have changed.

Unverified is neither a pass nor a fail: a report may be unverified, but a
label's verdict is a person's, pass, retry or fail. An unverified verdict
disagrees with no label, is left out of the reliability table's agreement,
and is neither caught nor missed on the curve; an output that left claims
unverified is unverified, not a pass, at or above passAt. Reports made
before the claim ledger (no "claims") are decided again by the six-row
verdict table of their time, renumbered.

Below --min-labels labels (default 30) nothing is suggested: "not enough
labels", never noise. Nothing is applied: --write-policy FILE writes the
suggestion as a policy file (it refuses to overwrite one) for a person to
check with 'vouch policy check FILE' and apply with --policy.

The labels come from a server (the one named below: GET /v1/calibration,
read scope; the server's policy is the base), from a store
directly (--store DSN, --tenant, default "default"), or from files: --reports
is JSONL of reports as 'vouch verify --json' prints them, --labels JSONL of
{"id": ..., "attempt": N, "good": true|false} or {"id": ..., "verdict":
"pass|retry|fail"} (a label is never "unverified": a person decides). With a store or files, --policy files (in order) are the
base policy. The window (--since, --until, --window, --kind) is as in 'vouch
metrics'. On a terminal, what it is doing shows on standard error while it
works (not with --json).

` + remoteHelp + `

` + remoteExitCodes,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCalibrate(cmd, st, &f) },
	}
	fl := cmd.Flags()
	f.addWindow(fl)
	fl.StringVar(&f.kind, "kind", "", "only verifications of the checkpoint `KIND`")
	fl.StringVar(&f.reports, "reports", "", "calibrate on the reports of this JSONL `FILE`")
	fl.StringVar(&f.labels, "labels", "", "with --reports: the labels, a JSONL `FILE`")
	fl.StringArrayVar(&f.policies, "policy", nil, "with --store or --reports: a policy `FILE` of the base policy (repeatable)")
	fl.IntVar(&f.minLabels, "min-labels", 0, "the fewest labels a suggestion needs (default 30)")
	fl.StringVar(&f.writePolicy, "write-policy", "", "write the suggestion as a policy `FILE` (a new file)")
	fl.BoolVar(&f.json, "json", false, "print the calibration as JSON")
	return cmd
}

func runCalibrate(cmd *cobra.Command, st Streams, f *calibrateFlags) error {
	sources := 0
	for _, set := range []bool{f.server != "" || (f.store == "" && f.reports == ""), f.store != "", f.reports != ""} {
		if set {
			sources++
		}
	}
	switch {
	case sources > 1:
		return usageErr(errors.New("give one of --server, --store and --reports"))
	case f.minLabels < 0:
		return usageErr(errors.New("--min-labels must not be negative"))
	case (f.reports == "") != (f.labels == ""):
		return usageErr(errors.New("--reports and --labels go together"))
	case f.server != "" && len(f.policies) > 0, f.store == "" && f.reports == "" && len(f.policies) > 0:
		return usageErr(errors.New("--policy goes with --store or --reports; a server calibrates its own policy"))
	}
	if f.writePolicy != "" {
		if _, err := os.Stat(f.writePolicy); err == nil {
			return usageErr(fmt.Errorf("--write-policy %s: the file exists; calibration writes a new file and never overwrites a policy", f.writePolicy))
		}
	}
	var (
		c   *quality.Calibration
		err error
	)
	if f.store != "" || f.reports != "" {
		c, err = calibrateLocally(cmd, st, f)
	} else {
		c, err = calibrateRemotely(cmd, st, f)
	}
	if err != nil {
		return err
	}
	if f.json {
		if err := writeJSON(st.Out, c); err != nil {
			return err
		}
	} else {
		renderCalibration(st.Out, c)
	}
	if f.writePolicy == "" {
		return nil
	}
	patch, err := c.Patch()
	if errors.Is(err, quality.ErrNothingSuggested) {
		return usageErr(fmt.Errorf("--write-policy: nothing to write: %s", c.Message))
	}
	if err != nil {
		return err
	}
	fl, err := os.OpenFile(f.writePolicy, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return usageErr(fmt.Errorf("--write-policy: %w", err))
	}
	if _, err := fl.Write(patch); err != nil {
		fl.Close()
		return err
	}
	if err := fl.Close(); err != nil {
		return err
	}
	fmt.Fprintf(st.Err, "vouch: wrote the suggestion to %s; check it with 'vouch policy check %s', apply it with --policy\n", f.writePolicy, f.writePolicy)
	return nil
}

func calibrateRemotely(cmd *cobra.Command, st Streams, f *calibrateFlags) (*quality.Calibration, error) {
	if f.tenant != "" {
		return nil, usageErr(errors.New("--tenant goes with --store; a server takes the tenant from the API key"))
	}
	q, err := f.query(cmd)
	if err != nil {
		return nil, err
	}
	c, server, err := f.client(st)
	if err != nil {
		return nil, err
	}
	act := startActivity(st.showProgress(f.json), st.Err, "vouch calibrate: the server fits the policy to the labels")
	b, err := c.Calibration(cmd.Context(), q, f.minLabels, false)
	act.stop()
	if err != nil {
		return nil, remoteErr(server, err)
	}
	var out quality.Calibration
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, &exitError{code: exitUnavailable, err: fmt.Errorf("the server's calibration: %w", err)}
	}
	return &out, nil
}

func calibrateLocally(cmd *cobra.Command, st Streams, f *calibrateFlags) (*quality.Calibration, error) {
	show := st.showProgress(f.json)
	base, err := policy.Load(f.policies...)
	if err != nil {
		return nil, usageErr(err)
	}
	var samples []quality.Sample
	if f.reports != "" {
		if f.since != "" || f.until != "" || f.window != 0 || f.kind != "" || f.tenant != "" {
			return nil, usageErr(errors.New("--reports takes every report of the file: no window, kind or tenant"))
		}
		act := startActivity(show, st.Err, "vouch calibrate: reading the reports and labels")
		samples, err = readSampleFiles(f.reports, f.labels)
		act.stop()
		if err != nil {
			return nil, usageErr(err)
		}
	} else {
		q, err := f.query(cmd)
		if err != nil {
			return nil, err
		}
		s, tenant, w, err := f.localStore(cmd, q)
		if err != nil {
			return nil, err
		}
		defer s.Close()
		act := startActivity(show, st.Err, "vouch calibrate: reading the labelled verifications")
		samples, err = quality.Samples(cmd.Context(), s, tenant, w)
		act.stop()
		if err != nil {
			return nil, &exitError{code: exitUnavailable, err: err}
		}
	}
	act := startActivity(show, st.Err, fmt.Sprintf("vouch calibrate: fitting the policy to %s", plural.Count(len(samples), "verification")))
	c, err := quality.Calibrate(samples, &base, quality.CalibrateOptions{MinLabels: f.minLabels})
	act.stop()
	if err != nil {
		return nil, err
	}
	return c, nil
}

func readSampleFiles(reports, labels string) ([]quality.Sample, error) {
	rf, err := os.Open(reports)
	if err != nil {
		return nil, fmt.Errorf("--reports: %w", err)
	}
	defer rf.Close()
	lf, err := os.Open(labels)
	if err != nil {
		return nil, fmt.Errorf("--labels: %w", err)
	}
	defer lf.Close()
	return quality.ReadSamples(rf, lf)
}

// renderCalibration writes a calibration for a person.
func renderCalibration(w io.Writer, c *quality.Calibration) {
	fmt.Fprintf(w, "%s, %d labelled (%d good, %d bad); %d on rows the thresholds decide; %d on verdicts left unverified\n",
		plural.Count(c.Samples, "verification"), c.Labels, c.Good, c.Bad, c.Fitted, c.Unverified)
	fmt.Fprintf(w, "%s\n", c.Message)
	cor := "n/a"
	if c.Correlation.Value != nil {
		cor = fmt.Sprintf("%.2f", *c.Correlation.Value)
	}
	met := "below"
	if c.Correlation.Met {
		met = "meets"
	}
	fmt.Fprintf(w, "\nScore against label: point-biserial %s over %d (%s the target %.1f)\n", cor, c.Correlation.N, met, c.Correlation.Target)

	fmt.Fprintln(w, "\nReliability: confidence against how often the verdict agreed with the label (unverified verdicts made no call: apart)")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  confidence\tlabels\tagreed\taccuracy\tunverified")
	for _, b := range c.Reliability {
		if b.Count == 0 && b.Unverified == 0 {
			continue
		}
		fmt.Fprintf(tw, "  %.1f-%.1f\t%d\t%d\t%s\t%d\n", b.Low, b.High, b.Count, b.Agreed, ratio(b.Accuracy), b.Unverified)
	}
	tw.Flush()

	fmt.Fprintf(w, "\nThe policy now: passAt %.2f, failBelow %.2f\n", c.Base.PassAt, c.Base.FailBelow)
	suggestion(w, "Suggested thresholds", c.Thresholds)
	for _, k := range c.Kinds {
		if k.Weights == nil {
			fmt.Fprintf(w, "\nWeights of %s: %s\n", k.Kind, k.Message)
			continue
		}
		dims := vouch.Dimensions(vouch.Kind(k.Kind))
		fmt.Fprintf(w, "\nWeights of %s (%s): %s; now %s\n", k.Kind, plural.Count(k.Fitted, "label"), weightsText(k.Weights, dims), weightsText(k.Base, dims))
	}
	suggestion(w, "Suggested weights with thresholds fitted under them", c.WithWeights)
}

func suggestion(w io.Writer, title string, s *quality.Suggestion) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "\n%s: passAt %.2f, failBelow %.2f\n", title, s.PassAt, s.FailBelow)
	d := s.Disagreement
	fmt.Fprintf(w, "  disagreement with %d labels: %g (%s) now, %g (%s) suggested\n", d.Labels, d.Before, ratio(d.BeforeRate), d.After, ratio(d.AfterRate))
	ch := s.Changes
	fmt.Fprintf(w, "  past verdicts it would change: %d of %d (pass→sent back %d, sent back→pass %d, retry→fail %d, fail→retry %d, →unverified %d, unverified→sent back %d)\n",
		ch.Changed, ch.Samples, ch.PassToSentBack, ch.SentBackToPass, ch.RetryToFail, ch.FailToRetry, ch.ToUnverified, ch.FromUnverified)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  passAt\tcatch\tfalse alarms\tunverified")
	for _, p := range s.Curve {
		fmt.Fprintf(tw, "  %.2f\t%s (%d/%d)\t%s (%d/%d)\t%d\n", p.PassAt, ratio(p.CatchRate), p.Caught, p.Caught+p.Missed, ratio(p.FalseAlarmRate), p.FalseAlarms, p.Good, p.Unverified)
	}
	tw.Flush()
}

func ratio(x *float64) string {
	if x == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", *x)
}
