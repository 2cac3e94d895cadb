// Package demo fills a store with a month of realistic verifications and
// labels, for `vouch serve --demo`, screenshots and tests of the
// dashboard.
//
// Nothing is made up downstream of the request: every verification is a
// POST /v1/verify to a real server (server.New over the given store),
// whose real engine verifies one of the embedded requests (answers,
// subtask outputs with their traces, plans, syntheses, moderation
// summaries), varied in task, executor model, cost, criticality and
// self-assessment; the server writes the rows, tallies and events as in
// production, on a clock stepped through the last 30 days. Outputs the
// gate sends back are retried as an orchestrator would, mended or not.
// Labels then go through the same API: reviewers' overrides
// (POST /v1/verifications/{id}/override) and downstream outcomes
// (POST /v1/outcomes), most agreeing with the gate, some not: false
// alarms (sent back, but good) and misses (passed, but bad); and they
// settle many of the outputs the gate left unverified (claims nothing in
// the request could check either way), a reviewer with pass, retry or
// fail, for a person decides.
//
// The one stand-in is the judge model: a scripted provider answers the
// judge's real prompts with scores around the quality the demo gives
// each output, taking a model's time (one to three seconds) on the
// stepped clock, which also moves a little at each reading, so that
// every verification has a duration. Everything is drawn from seeded
// generators, so a seed gives the same data every time (only the
// wall-clock times the store stamps on labels differ). The traces of the
// requests that carry one (coding agents' sessions, with their times) are
// moved to end just before their verification.
package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/server"
	"github.com/vouchgate/vouch/store"
)

// DefaultN is how many verifications [Seed] writes when Options.N is 0.
const DefaultN = 1000

// DefaultDays is the span [Seed] spreads them over when Options.Days is
// 0.
const DefaultDays = 30

// Options tune [Seed]. The zero value gives the defaults.
type Options struct {
	// N is how many verifications to write; 0 means [DefaultN].
	N int
	// Seed seeds the generator: the same seed gives the same data.
	Seed uint64
	// Now is the end of the span; zero means time.Now().
	Now time.Time
	// Days is the span: the UTC day of Now and the Days-1 whole days
	// before it; 0 means [DefaultDays].
	Days int
	// Progress, when set, is called after each verification written,
	// with how many are written and how many will be (N), from the
	// goroutine that called Seed.
	Progress func(done, total int)
}

// Summary is what [Seed] wrote.
type Summary struct {
	// Verifications counts the verifications, Tasks the tasks they
	// verified (a task sent back is verified again).
	Verifications, Tasks int
	// Verdicts and Kinds count the verifications by verdict and kind.
	Verdicts, Kinds map[string]int
	// Overrides and Outcomes count the labels.
	Overrides, Outcomes int
	// Since and Until bound the verifications' times.
	Since, Until time.Time
}

// executor is a model that runs the demo's tasks.
type executor struct {
	provider, model, tier string
	// skill shifts the quality of its outputs; bias is how much higher it
	// rates itself than its outputs deserve.
	skill, bias float64
	// price scales a task's cost.
	price float64
	// share is how often it runs a task, relative to the others.
	share int
}

var executors = []executor{
	{"anthropic", "claude-sonnet-4-5", "large", 0.05, 0.04, 1.6, 5},
	{"anthropic", "claude-haiku-4-5", "small", -0.04, 0.13, 0.4, 3},
	{"openai", "gpt-4.1", "large", 0.02, 0.08, 1.3, 4},
	{"openai", "gpt-4.1-mini", "medium", -0.06, 0.17, 0.3, 3},
	{"google", "gemini-2.5-pro", "large", 0, -0.03, 1.2, 2},
}

// Agents by kind: the target of a verification.
var agents = map[vouch.Kind][]string{
	vouch.KindAnswer:        {"research-agent", "support-agent"},
	vouch.KindSubtask:       {"docs-agent", "triage-agent", "release-agent"},
	vouch.KindSynthesis:     {"lead-agent"},
	vouch.KindDecomposition: {"planner"},
	vouch.KindModeration:    {"moderator"},
}

var (
	reviewers = []string{"dana", "lee", "sam", "priya"}
	reporters = []string{"ci", "orchestrator", "support-desk"}
)

// seeder writes one demo.
type seeder struct {
	ctx  context.Context
	h    http.Handler
	r    *rand.Rand
	cat  *catalogue
	prov *scripted
	// clock is the server's time, in Unix nanoseconds; step is how far
	// each reading moves it, drawn for each verification from pace.
	clock atomic.Int64
	step  atomic.Int64
	pace  *rand.Rand
	sum   Summary
	done  []*verified
	// pick draws templates and executors by weight.
	tmplTotal, execTotal int
	// progress is Options.Progress.
	progress func(done, total int)
}

// verified is one verification the seeder wrote, with what it knows of
// the output.
type verified struct {
	id          string
	attempt     int
	verdict     string
	needsReview bool
	quality     float64
	defect      bool
	at          time.Time
}

// Seed writes a demo into st, which should be empty (it is used as the
// tenant "default" of a server in open mode): N verifications over the
// last Days days up to Now, and their labels. It takes the store as it
// is and does not close it. Seed returns what it wrote; an error stops
// it, leaving what was written.
func Seed(ctx context.Context, st store.Store, opt Options) (Summary, error) {
	if opt.N <= 0 {
		opt.N = DefaultN
	}
	if opt.Days <= 0 {
		opt.Days = DefaultDays
	}
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	opt.Now = opt.Now.UTC()
	cat, err := load()
	if err != nil {
		return Summary{}, err
	}
	sd := &seeder{ctx: ctx, cat: cat, r: rand.New(rand.NewPCG(opt.Seed, 0x5eed)),
		prov: &scripted{r: rand.New(rand.NewPCG(opt.Seed, 0x70d6e)), latency: rand.New(rand.NewPCG(opt.Seed, 0x1a7e))}}
	sd.progress = opt.Progress
	sd.prov.wait = func(d time.Duration) { sd.clock.Add(int64(d)) }
	sd.pace = rand.New(rand.NewPCG(opt.Seed, 0x9ace))
	sd.sum.Verdicts, sd.sum.Kinds = map[string]int{}, map[string]int{}
	for _, t := range templates {
		sd.tmplTotal += t.weight
	}
	for _, e := range executors {
		sd.execTotal += e.share
	}
	// Every reading of the clock moves it on a little (a step drawn for
	// each verification), as the work between two readings would, and
	// the judge's answers take a model's time: the durations the server
	// measures are made up, but a verification's, and never zero.
	now := func() time.Time { return time.Unix(0, sd.clock.Add(sd.step.Load())).UTC() }
	tokens := rand.New(rand.NewPCG(opt.Seed, 0x70c3))
	j, err := judge.New(judge.Options{
		Providers: []judge.Provider{sd.prov},
		Now:       now,
		Sleep:     func(context.Context, time.Duration) error { return nil },
		Rand:      rand.New(rand.NewPCG(opt.Seed, 0x1177)).Float64,
		Token:     func() string { return fmt.Sprintf("%016x%016x", tokens.Uint64(), tokens.Uint64()) },
	})
	if err != nil {
		return Summary{}, fmt.Errorf("demo: %w", err)
	}
	pol := vouch.DefaultPolicy()
	pol.Judge.Models = []string{judgeModel}
	// Every output is judged afresh, as distinct outputs would be.
	pol.Judge.Cache = false
	cfg := server.DefaultConfig()
	cfg.Dashboard = false // the seeding server only takes requests
	srv, err := server.New(server.Options{Config: cfg, Store: st, Policy: &pol, Judge: j, Now: now})
	if err != nil {
		return Summary{}, fmt.Errorf("demo: %w", err)
	}
	sd.h = srv.Handler()

	// From the start of the first of the Days days (UTC; the last is
	// today) to a little before Now.
	until := opt.Now.Add(-5 * time.Minute)
	since := opt.Now.Truncate(24*time.Hour).AddDate(0, 0, -(opt.Days - 1))
	if !since.Before(until) {
		since = until.Add(-time.Hour)
	}
	slots := sd.slots(opt.N, since, until)
	if err := sd.verifyAll(slots, opt.Now); err != nil {
		return sd.sum, err
	}
	if err := sd.label(); err != nil {
		return sd.sum, err
	}
	if len(sd.done) > 0 {
		sd.sum.Since, sd.sum.Until = sd.done[0].at, sd.done[len(sd.done)-1].at
	}
	return sd.sum, nil
}

// slots draws n times in [since, until), sorted: more on weekdays than at
// weekends, more in working hours (UTC) than at night, and a little more
// each week.
func (sd *seeder) slots(n int, since, until time.Time) []time.Time {
	span := until.Sub(since)
	out := make([]time.Time, 0, n)
	for len(out) < n {
		u := sd.r.Float64()
		t := since.Add(time.Duration(u * float64(span)))
		w := 0.75 + 0.25*u
		if d := t.Weekday(); d == time.Saturday || d == time.Sunday {
			w *= 0.35
		}
		h := float64(t.Hour()) + float64(t.Minute())/60
		w *= 0.3 + 0.7*math.Exp(-math.Pow((h-13.5)/4.5, 2))
		if sd.r.Float64() < w {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return out
}

func (sd *seeder) template() *template {
	k := sd.r.IntN(sd.tmplTotal)
	for _, t := range templates {
		if k < t.weight {
			return t
		}
		k -= t.weight
	}
	return templates[len(templates)-1]
}

func (sd *seeder) executor() *executor {
	k := sd.r.IntN(sd.execTotal)
	for i := range executors {
		if k < executors[i].share {
			return &executors[i]
		}
		k -= executors[i].share
	}
	return &executors[len(executors)-1]
}

// incident is how much worse a model's outputs are at t: a bad release of
// gpt-4.1-mini 10 to 8 days before the end.
func incident(e *executor, t, end time.Time) float64 {
	if e.model != "gpt-4.1-mini" {
		return 0
	}
	if d := end.Sub(t); d < 10*24*time.Hour && d > 8*24*time.Hour {
		return -0.18
	}
	return 0
}

// verifyAll verifies tasks until every slot is used: each task's first
// attempt at the next slot, its retries minutes later (each taking a
// slot, so that there are exactly as many verifications as slots).
func (sd *seeder) verifyAll(slots []time.Time, end time.Time) error {
	next := 0
	run, runLeft := 0, 0
	for next < len(slots) {
		if err := sd.ctx.Err(); err != nil {
			return err
		}
		if runLeft == 0 {
			run++
			runLeft = 1 + sd.r.IntN(3)
		}
		runLeft--
		sd.sum.Tasks++
		n := sd.sum.Tasks
		t := sd.template()
		e := sd.executor()
		crit := ""
		switch c := sd.r.Float64(); {
		case c < 0.1:
			crit = vouch.CriticalityHigh
		case c < 0.3:
			crit = vouch.CriticalityLow
		}
		cost := math.Round(t.cost*e.price*math.Exp(sd.r.NormFloat64()*0.35)*1e4) / 1e4
		selfReports := sd.r.Float64() < 0.85
		at := slots[next]
		next++
		for attempt := 1; ; attempt++ {
			sd.clock.Store(at.UnixNano())
			sd.step.Store(int64(time.Duration((0.4 + 3.6*sd.pace.Float64()) * float64(time.Millisecond))))
			q := t.quality + e.skill + incident(e, at, end) + sd.r.NormFloat64()*0.07
			q = math.Min(math.Max(q, 0.05), 0.99)
			req, err := sd.cat.request(t)
			if err != nil {
				return err
			}
			req.ID = fmt.Sprintf("%s-%04d", req.Kind, n)
			req.Attempt = attempt
			req.InteractionID = fmt.Sprintf("run-%04d", run)
			retime(req.Trace, at)
			req.Task.ID = fmt.Sprintf("T-%04d", n)
			if req.Target == "" {
				names := agents[req.Kind]
				req.Target = names[n%len(names)]
			}
			req.Task.Criticality = crit
			c := cost
			req.Task.Executor = &vouch.Executor{Provider: e.provider, Model: e.model, Tier: e.tier, CostUSD: &c}
			if selfReports {
				// Executors rate themselves high whatever their output,
				// some higher than others.
				sc := 0.84 + e.bias + 0.15*(q-0.7) + sd.r.NormFloat64()*0.04
				sc = math.Round(math.Min(math.Max(sc, 0.05), 1)*100) / 100
				req.Output.SelfAssessment = &vouch.SelfAssessment{Confidence: &sc}
			} else {
				req.Output.SelfAssessment = nil
			}
			sd.prov.set(q)
			rep, err := sd.verify(req)
			if err != nil {
				return err
			}
			sd.done = append(sd.done, &verified{id: req.ID, attempt: attempt, verdict: rep.Verdict,
				needsReview: rep.NeedsReview, quality: q, defect: t.defect, at: at})
			sd.sum.Verifications++
			sd.sum.Verdicts[rep.Verdict]++
			sd.sum.Kinds[string(req.Kind)]++
			if sd.progress != nil {
				sd.progress(sd.sum.Verifications, len(slots))
			}
			if rep.Verdict != string(vouch.VerdictRetry) || next >= len(slots) {
				break
			}
			// Sent back: the orchestrator retries with the feedback, a few
			// minutes later, and the executor mends the output more often
			// than not.
			if t.fix != "" && sd.r.Float64() < 0.75 {
				t = sd.cat.byFile[t.fix]
			}
			later := at.Add(time.Duration(2+sd.r.IntN(7))*time.Minute + time.Duration(sd.r.IntN(60))*time.Second)
			next++
			if next < len(slots) && !later.Before(slots[next]) {
				later = at.Add(slots[next].Sub(at) / 2)
			}
			at = later
		}
	}
	return nil
}

// retime moves a trace's times so that its last call is 20 seconds
// before at, keeping the gaps between the calls: the agent ran just
// before its output was verified. Times that do not parse are kept.
func retime(tr []vouch.TraceEntry, at time.Time) {
	var last time.Time
	for i := range tr {
		if t, err := time.Parse(time.RFC3339Nano, tr[i].Timestamp); err == nil && t.After(last) {
			last = t
		}
	}
	if last.IsZero() {
		return
	}
	shift := at.Add(-20 * time.Second).Sub(last)
	for i := range tr {
		if t, err := time.Parse(time.RFC3339Nano, tr[i].Timestamp); err == nil {
			tr[i].Timestamp = t.Add(shift).UTC().Format("2006-01-02T15:04:05.000Z")
		}
	}
}

// reportSummary is what the seeder reads of a report.
type reportSummary struct {
	Verdict     string `json:"verdict"`
	NeedsReview bool   `json:"needsReview"`
}

// verify posts a request and reads its report.
func (sd *seeder) verify(req *vouch.Request) (*reportSummary, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("demo: encoding %s: %w", req.ID, err)
	}
	var rep reportSummary
	if err := sd.post("/v1/verify", body, http.StatusOK, &rep); err != nil {
		return nil, fmt.Errorf("demo: verifying %s attempt %d: %w", req.ID, req.Attempt, err)
	}
	return &rep, nil
}

// post sends a JSON body to the server and decodes its answer into out.
func (sd *seeder) post(path string, body []byte, want int, out any) error {
	// In process, to a store without keys: addressed to the loopback, as
	// open mode asks.
	r := httptest.NewRequestWithContext(sd.ctx, http.MethodPost, "http://localhost"+path, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	sd.h.ServeHTTP(w, r)
	if w.Code != want {
		return fmt.Errorf("POST %s: %d %s", path, w.Code, strings.TrimSpace(w.Body.String()))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(w.Body.Bytes(), out)
}

// good draws whether an output held up downstream: an output with a
// defect the rules catch nearly never does; otherwise the better the
// output, the likelier.
func (sd *seeder) good(v *verified) bool {
	p := 0.08
	if !v.defect {
		p = 1 / (1 + math.Exp(-(v.quality-0.66)*12))
	}
	return sd.r.Float64() < p
}

var (
	goodReasons = []string{
		"checked the sources myself: the output is right",
		"the missing detail does not matter for this task",
		"fine as it is; the flagged mention is in the attached log",
	}
	badReasons = []string{
		"the figure does not match the dashboard",
		"leaves out what the task asked for",
		"cites a file that does not exist",
		"the plan would not run in this order",
	}
	goodDetails = []string{"merged and deployed", "used in the customer reply", "the plan ran to completion"}
	badDetails  = []string{"reverted after review", "a customer reported the wrong figure", "the follow-up task failed on it"}
)

// label adds the labels: reviewers look at most of what the gate flagged
// for review, some send-backs, many of the outputs it left unverified and
// a few passes; downstream outcomes come back for many of the outputs
// that passed or were left unverified (those that were used, as
// onUnverified accept lets them be).
//
// A reviewer gives pass, retry or fail, never unverified: a person who
// looks decides. An unverified output that held up is a pass; one that
// did not is sent back, as a fail when it carries a defect the rules
// catch, else as a retry.
func (sd *seeder) label() error {
	for _, v := range sd.done {
		if err := sd.ctx.Err(); err != nil {
			return err
		}
		pass := v.verdict == string(vouch.VerdictPass)
		unverified := v.verdict == string(vouch.VerdictUnverified)
		var review, outcome bool
		switch u := sd.r.Float64(); {
		case v.needsReview:
			review = u < 0.75
		case unverified:
			review = u < 0.5
			outcome = !review && u < 0.8
		case !pass:
			review = u < 0.45
		default:
			review = u < 0.05
			outcome = !review && u < 0.5
		}
		if !review && !outcome {
			continue
		}
		good := sd.good(v)
		if review {
			verdict := string(vouch.VerdictPass)
			reasons := goodReasons
			if !good {
				reasons = badReasons
				switch {
				case pass:
					verdict = string(vouch.VerdictRetry)
				case unverified && v.defect:
					verdict = string(vouch.VerdictFail)
				case unverified:
					verdict = string(vouch.VerdictRetry)
				default:
					verdict = v.verdict
				}
			}
			in := api.OverrideInput{Verdict: verdict, Reason: reasons[sd.r.IntN(len(reasons))],
				Reviewer: reviewers[sd.r.IntN(len(reviewers))], Attempt: v.attempt}
			if good == pass && !unverified && sd.r.Float64() < 0.5 {
				in.Reason = "" // agreeing with the gate needs no reason
			}
			body, _ := json.Marshal(in)
			if err := sd.post("/v1/verifications/"+v.id+"/override", body, http.StatusCreated, nil); err != nil {
				return fmt.Errorf("demo: reviewing %s: %w", v.id, err)
			}
			sd.sum.Overrides++
			continue
		}
		details := goodDetails
		if !good {
			details = badDetails
		}
		g := good
		in := api.OutcomeInput{VerificationID: v.id, Attempt: v.attempt, Good: &g,
			Detail: details[sd.r.IntN(len(details))], Reporter: reporters[sd.r.IntN(len(reporters))]}
		body, _ := json.Marshal(in)
		if err := sd.post("/v1/outcomes", body, http.StatusCreated, nil); err != nil {
			return fmt.Errorf("demo: outcome of %s: %w", v.id, err)
		}
		sd.sum.Outcomes++
	}
	return nil
}
