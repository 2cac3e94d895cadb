package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/client"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/text/plural"
)

// metricsFlags are the flags of vouch metrics.
type metricsFlags struct {
	remoteFlags
	store         string
	tenant        string
	since, until  string
	window        time.Duration
	kind          string
	executorModel string
	criticality   string
	json          bool
}

func newMetricsCmd(st Streams) *cobra.Command {
	var f metricsFlags
	cmd := &cobra.Command{
		Use:   "metrics [--server URL | --store DSN [--tenant T]] [--since T] [--until T] [--window D] [--kind K] [--executor-model M] [--criticality C] [--json]",
		Short: "Print the quality metrics of a window of verifications: rates with their counts",
		Long: `Print the quality metrics of a window of verifications: how often the gate
passes first time, how often retries end in a pass, and, from the labels
(overrides and outcomes; the latest of a verification counts):

  catch rate        sent back and labelled bad ÷ passed or sent back and
                    labelled bad
  false-alarm rate  sent back and labelled good ÷ all verifications

and of the gate alone:

  unverified rate   left unverified ÷ all verifications
  claim coverage    claims decided (verified or refuted) ÷ claims

Unverified is neither a pass nor a send-back: never a first pass, and a
labelled unverified output is neither caught, missed nor a false alarm (its
labels are counted apart). Every rate is printed with its counts, "0.83
(5/6)", for a rate over 6 is not read like one over 6,000. Then the verdicts
(pass, retry, fail, unverified) and actions, the confidence and score
histograms, the most frequent failure codes with examples (id/attempt), two
views:

  score by complexity   mean score and pass rate per task complexity (the
                        criteria the task writes, or the subgoals of the
                        plan a decomposition verifies): 0, 1, 2-3, 4-7, 8+
  retry success by      per first failure code of a task's first attempt
  issue                 (NO_CODE: it raised none), the first attempts it sent
                        back and the share of tasks retried after it that
                        ended in a pass

then the cost next to the tasks' cost, and each executor model's
self-assessment bias.
--json prints the metrics as GET /v1/metrics answers them, from a server
as from a store.

The metrics come from a server (the one named below: GET /v1/metrics, read
scope; the key names the tenant) or from a store directly
(--store DSN: a SQLite file or postgres://..., with --tenant, default
"default"), computed by the same code either way.

The window is [--since, --until): RFC 3339 times (2026-11-01T00:00:00Z) or
dates (2026-11-01, midnight UTC); --until defaults to now, --since to --window
(default 720h) before --until. Give --since or --window, not both. --kind,
--executor-model and --criticality keep only the verifications that match.

` + remoteHelp + `

` + remoteExitCodes + ` With --store, 3 means the store could not be opened or read.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runMetrics(cmd, st, &f) },
	}
	fl := cmd.Flags()
	f.addWindow(fl)
	fl.StringVar(&f.kind, "kind", "", "only verifications of the checkpoint `KIND`")
	fl.StringVar(&f.executorModel, "executor-model", "", "only verifications of outputs by `MODEL`")
	fl.StringVar(&f.criticality, "criticality", "", "only verifications of tasks of `CRITICALITY`")
	fl.BoolVar(&f.json, "json", false, "print the metrics as JSON")
	return cmd
}

// addWindow adds the flags that name where the verifications come from
// (a server, or a store and tenant) and the window's span.
func (f *metricsFlags) addWindow(fl *pflag.FlagSet) {
	f.add(fl)
	fl.StringVar(&f.store, "store", "", "read a store's `DSN` directly instead of a server")
	fl.StringVar(&f.tenant, "tenant", "", "with --store: the `TENANT` (default \"default\")")
	fl.StringVar(&f.since, "since", "", "the window's start `TIME` (RFC 3339 or YYYY-MM-DD)")
	fl.StringVar(&f.until, "until", "", "the window's end `TIME` (default now)")
	fl.DurationVar(&f.window, "window", 0, "the window's `SPAN` back from --until (default 720h)")
}

// localStore opens the store of --store for the window q selects, in the
// tenant of --tenant (default "default"). A SQLite file that does not
// exist is a usage error, not a new empty store; a store that cannot be
// opened exits 3. The caller closes the store.
func (f *metricsFlags) localStore(cmd *cobra.Command, q client.MetricsQuery) (store.Store, string, store.Window, error) {
	tenant := f.tenant
	if tenant == "" {
		tenant = "default"
	}
	if !store.ValidTenant(tenant) {
		return nil, "", store.Window{}, usageErr(fmt.Errorf("--tenant %q: want lower-case letters, digits, - and _", tenant))
	}
	w, err := storeWindow(q, time.Now())
	if err != nil {
		return nil, "", w, err
	}
	if path := sqlitePath(f.store); path != "" {
		if _, err := os.Stat(path); err != nil {
			return nil, "", w, usageErr(fmt.Errorf("--store %s: %w", f.store, err))
		}
	}
	s, err := store.Open(cmd.Context(), f.store, store.Options{})
	if err != nil {
		return nil, "", w, &exitError{code: exitUnavailable, err: err}
	}
	return s, tenant, w, nil
}

// parseTime reads a time flag: RFC 3339, or a date at midnight UTC.
func parseTime(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--%s %q: want an RFC 3339 time (2026-11-01T00:00:00Z) or a date (2026-11-01)", name, v)
}

// query checks the window flags and returns them as a query: zero fields
// take the defaults.
func (f *metricsFlags) query(cmd *cobra.Command) (client.MetricsQuery, error) {
	q := client.MetricsQuery{Kind: f.kind, ExecutorModel: f.executorModel, Criticality: f.criticality}
	var problems []string
	var err error
	if q.Since, err = parseTime("since", f.since); err != nil {
		problems = append(problems, err.Error())
	}
	if q.Until, err = parseTime("until", f.until); err != nil {
		problems = append(problems, err.Error())
	}
	if cmd.Flags().Changed("window") {
		switch {
		case f.window <= 0:
			problems = append(problems, fmt.Sprintf("--window %s: want a positive span, e.g. 168h", f.window))
		case f.since != "":
			problems = append(problems, "give --since or --window, not both")
		}
		q.Window = f.window
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		problems = append(problems, "--since must be before --until")
	}
	return q, usageProblems(problems)
}

// storeWindow is the window q selects, with the defaults filled in as the
// server fills them.
func storeWindow(q client.MetricsQuery, now time.Time) (store.Window, error) {
	w := store.Window{Since: q.Since, Until: q.Until, Kind: q.Kind, ExecutorModel: q.ExecutorModel, Criticality: q.Criticality}
	if w.Until.IsZero() {
		w.Until = now.UTC()
	}
	if w.Since.IsZero() {
		span := q.Window
		if span == 0 {
			span = quality.DefaultWindow
		}
		w.Since = w.Until.Add(-span)
	}
	if !w.Since.Before(w.Until) {
		return w, usageErr(errors.New("--since must be before --until"))
	}
	return w, nil
}

func runMetrics(cmd *cobra.Command, st Streams, f *metricsFlags) error {
	ctx := cmd.Context()
	q, err := f.query(cmd)
	if err != nil {
		return err
	}
	var m *api.Metrics
	if f.store != "" {
		if f.server != "" {
			return usageErr(errors.New("give --server or --store, not both"))
		}
		s, tenant, w, err := f.localStore(cmd, q)
		if err != nil {
			return err
		}
		defer s.Close()
		if m, err = quality.FromStore(ctx, s, tenant, w); err != nil {
			return &exitError{code: exitUnavailable, err: err}
		}
	} else {
		if f.tenant != "" {
			return usageErr(errors.New("--tenant goes with --store; a server takes the tenant from the API key"))
		}
		c, server, err := f.client(st)
		if err != nil {
			return err
		}
		if m, err = c.Metrics(ctx, q); err != nil {
			return remoteErr(server, err)
		}
	}
	if f.json {
		return writeJSON(st.Out, m)
	}
	renderMetrics(st.Out, m)
	return nil
}

// sqlitePath returns the file a SQLite DSN names (sqlite:PATH, file:PATH
// or PATH, with query parameters), "" for PostgreSQL.
func sqlitePath(dsn string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return ""
	}
	p := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "file:")
	p = strings.TrimPrefix(p, "//")
	p, _, _ = strings.Cut(p, "?")
	return p
}

// renderMetrics writes the metrics for a person: the labels' rates first,
// then the gate's, the distributions, failure patterns, cost and bias.
func renderMetrics(w io.Writer, m *api.Metrics) {
	fmt.Fprintf(w, "%s, %s\n", plural.Count(m.Verifications, "verification"), windowText(m.Window))

	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	rate := func(name string, r api.Rate, what string) {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", name, r, what)
	}
	lb := m.Labels
	fmt.Fprintf(tw, "\nLabels: %d labelled (%d good, %d bad); the latest label of each verification counts\n", lb.Labelled, lb.Good, lb.Bad)
	fmt.Fprintf(tw, "  caught %d, missed %d, false alarms %d, confirmed %d\n", lb.Caught, lb.Missed, lb.FalseAlarms, lb.Confirmed)
	ul := m.UnverifiedLabels
	fmt.Fprintf(tw, "  left unverified %d good, %d bad: neither caught nor missed, and no false alarm\n", ul.Good, ul.Bad)
	rate("catch rate", m.CatchRate, "sent back and labelled bad, of those passed or sent back and labelled bad")
	rate("false-alarm rate", m.FalseAlarmRate, "sent back and labelled good, of all verifications")
	fmt.Fprintf(tw, "\nReviews: %d reviewed, %d overridden\n", m.Reviews.Reviewed, m.Reviews.Overridden)
	rate("override rate", m.Reviews.Rate, "the reviewer's verdict differs from the gate's, of all verifications")
	rate("agreement", m.Reviews.Agreement, "the reviewer kept the gate's verdict, of those reviewed")
	fmt.Fprintf(tw, "\nGate\n")
	rate("first pass", m.FirstPass, "attempt 1 passed, of attempt-1 verifications")
	rate("retry success", m.RetrySuccess, "tasks sent back that ended in a pass, of tasks sent back")
	rate("unverified rate", m.UnverifiedRate, "left unverified (nothing found false, a claim not checked either way), of all verifications")
	rate("claim coverage", m.Coverage, fmt.Sprintf("claims decided (verified or refuted; %d refuted), of the claims of the %s with a claim ledger",
		m.RefutedClaims, plural.Count(m.Ledgers, "verification")))
	perTask := "n/a"
	if m.RetriesPerTask != nil {
		perTask = fmt.Sprintf("%.2f", *m.RetriesPerTask)
	}
	fmt.Fprintf(tw, "  retries per task\t%s\t%s\n", perTask, plural.Count(m.Retries, "retry"))
	fmt.Fprintf(tw, "  needs review\t%d\n", m.NeedsReview)
	tw.Flush()
	fmt.Fprintf(w, "  verdicts  %s\n", counts(m.Verdicts, vouch.Verdicts))
	fmt.Fprintf(w, "  actions   %s\n", counts(m.Actions, []vouch.Action{vouch.ActionAccept, vouch.ActionRetry,
		vouch.ActionReformulate, vouch.ActionFollowUp, vouch.ActionEscalate}))

	fmt.Fprintln(w, "\nConfidence")
	histogram(w, m.Confidence)
	fmt.Fprintf(w, "\nScore (%d undecided)\n", m.Undecided)
	histogram(w, m.Score)

	fmt.Fprintln(w, "\nFailure patterns")
	if len(m.FailurePatterns) == 0 {
		fmt.Fprintln(w, "  none")
	}
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, p := range m.FailurePatterns {
		ex := p.Examples
		if len(ex) > 3 {
			ex = ex[:3]
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\te.g. %s\n", p.Code, p.Count, p.Meaning, strings.Join(ex, ", "))
	}
	tw.Flush()

	fmt.Fprintln(w, "\nScore by complexity (the criteria a task writes, or the subgoals of a decomposition's plan)")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  COMPLEXITY\tN\tMEAN SCORE\tPASSED")
	for _, b := range m.ScoreByComplexity {
		span := fmt.Sprintf("%d+", b.From)
		if b.To != nil && *b.To == b.From {
			span = strconv.Itoa(b.From)
		} else if b.To != nil {
			span = fmt.Sprintf("%d-%d", b.From, *b.To)
		}
		mean := "n/a"
		if b.MeanScore != nil {
			mean = fmt.Sprintf("%.2f of %d", *b.MeanScore, b.Scored)
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\n", span, b.N, mean, b.Pass)
	}
	tw.Flush()

	fmt.Fprintln(w, "\nRetry success by issue (the first failure code of a task's first attempt)")
	if len(m.RetrySuccessByIssue) == 0 {
		fmt.Fprintln(w, "  no first attempt was sent back")
	} else {
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  ISSUE\tSENT BACK\tRETRY SUCCESS\tMEANING")
		for _, r := range m.RetrySuccessByIssue {
			fmt.Fprintf(tw, "  %s\t%d\t%s", r.Code, r.SentBack, r.RetrySuccess)
			if r.Meaning != "" {
				fmt.Fprintf(tw, "\t%s", r.Meaning)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
	}

	fmt.Fprintln(w, "\nCost")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "  verification\t$%.4f\n", m.Cost.VerificationUSD)
	ratio := "n/a"
	if m.Cost.TaskCostRatio != nil {
		ratio = fmt.Sprintf("%.2f", *m.Cost.TaskCostRatio)
	}
	fmt.Fprintf(tw, "  ÷ task cost\t%s\t$%.4f of $%.4f, over the %s whose task cost is known\n", ratio, m.Cost.PricedVerificationUSD, m.Cost.TaskUSD, plural.Count(m.Cost.Priced, "verification"))
	kinds := make([]string, 0, len(m.CostByKind))
	for k := range m.CostByKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(tw, "  kind %s\t$%.4f\n", k, m.CostByKind[k].VerificationUSD)
	}
	fmt.Fprintf(tw, "  judge calls\t%d\tcache hits %s\n", m.Judge.Calls, m.Judge.CacheHitRate)
	tw.Flush()

	fmt.Fprintln(w, "\nSelf-assessment bias (self-reported confidence minus verified score)")
	if len(m.SelfAssessment) == 0 {
		fmt.Fprintln(w, "  no executor reported its confidence")
		return
	}
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  MODEL\tN\tSELF\tVERIFIED\tBIAS")
	for _, b := range m.SelfAssessment {
		fmt.Fprintf(tw, "  %s\t%d\t%.2f\t%.2f\t%+.2f\n", b.ExecutorModel, b.N, b.SelfConfidence, b.VerifiedScore, b.Bias)
	}
	tw.Flush()
}

// windowText describes a window: its span and filters.
func windowText(w api.Window) string {
	s := fmt.Sprintf("%s to %s", w.Since.UTC().Format(time.RFC3339), w.Until.UTC().Format(time.RFC3339))
	for _, f := range []struct{ name, v string }{{"kind", w.Kind}, {"executor model", w.ExecutorModel}, {"criticality", w.Criticality}} {
		if f.v != "" {
			s += fmt.Sprintf(", %s %s", f.name, f.v)
		}
	}
	return s
}

// counts writes a distribution in the order given, then any other key
// sorted.
func counts[K ~string](m map[string]int64, order []K) string {
	var parts []string
	for _, k := range orderedKeys(m, order, true) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, "  ")
}

// barWidth is the width of a histogram's longest bar.
const barWidth = 30

// histogram writes one bar per bin, scaled to the largest.
func histogram(w io.Writer, bins []api.Bin) {
	var top int64
	for _, b := range bins {
		top = max(top, b.N)
	}
	if top == 0 {
		fmt.Fprintln(w, "  none")
		return
	}
	for _, b := range bins {
		n := int((b.N*barWidth + top - 1) / top)
		fmt.Fprintf(w, "  %.1f-%.1f  %-*s  %d\n", b.From, b.To, barWidth, strings.Repeat("#", n), b.N)
	}
}

// alertsFlags are the flags of vouch alerts.
type alertsFlags struct {
	remoteFlags
	json bool
}

func newAlertsCmd(st Streams) *cobra.Command {
	var f alertsFlags
	cmd := &cobra.Command{
		Use:   "alerts [--server URL] [--json]",
		Short: "List a server's quality alerts, firing or not",
		Long: `List the quality alerts of a server (GET /v1/alerts, read scope), each with
its state, the figure it watches and its threshold, how many labels (or other
observations) the figure rests on against the minimum it needs to fire, since
when it fires or is quiet, and what it says. The server evaluates them on the
window its configuration's alerts section sets (default 30 days), when asked
and on a timer. --json prints the answer of GET /v1/alerts.

` + remoteHelp + `

` + remoteExitCodes + ` A firing alert does not change the exit code.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, server, err := f.client(st)
			if err != nil {
				return err
			}
			rep, err := c.Alerts(cmd.Context())
			if err != nil {
				return remoteErr(server, err)
			}
			if f.json {
				return writeJSON(st.Out, rep)
			}
			renderAlerts(st.Out, rep)
			return nil
		},
	}
	f.add(cmd.Flags())
	cmd.Flags().BoolVar(&f.json, "json", false, "print the alerts as JSON")
	return cmd
}

// renderAlerts writes the alerts as a table, in the server's order.
func renderAlerts(w io.Writer, rep *quality.AlertReport) {
	fmt.Fprintf(w, "Alerts over %s\n", windowText(rep.Window))
	if len(rep.Alerts) == 0 {
		fmt.Fprintln(w, "no alert is configured")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tSEVERITY\tVALUE\tTHRESHOLD\tLABELS/MIN\tSINCE\tMESSAGE")
	for _, a := range rep.Alerts {
		state := "ok"
		if a.Firing {
			state = "FIRING"
		}
		value := "n/a"
		if a.Value != nil {
			value = fmt.Sprintf("%.2f", *a.Value)
		}
		dir := ">"
		if a.Below {
			dir = "<"
		}
		since := "-"
		if !a.Since.IsZero() {
			since = a.Since.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s %.2f\t%d/%d\t%s\t%s\n", a.Name, state, a.Severity, value, dir, a.Threshold, a.Labels, a.MinLabels, since, a.Message)
	}
	tw.Flush()
}
