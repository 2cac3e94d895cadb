// Command metrics measures the quality metrics and calibration of `vouch
// serve` over a large store: it fills a store (a fresh SQLite file, or the
// PostgreSQL database of -store) with synthetic verifications spread over
// the last -days days, labels some of them with overrides and outcomes,
// then times GET /v1/metrics (the 30-day window) and GET /v1/calibration
// through the server's handler, and prints the times with the store's
// size on disk and the time it took to fill.
//
//	go run ./bench/metrics                       # 1,000,000 rows, SQLite
//	go run ./bench/metrics -n 10000              # what CI runs
//	go run ./bench/metrics -store postgres://... # PostgreSQL, in a schema of its own, dropped after
//
// The goals: metrics ≤ 200 ms and calibration ≤ 5 s at 1,000,000 rows.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"

	_ "github.com/vouchgate/vouch/check/all" // every built-in check type: this program runs a server

	"github.com/jackc/pgx/v5"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/bench/internal/pgschema"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/server"
	"github.com/vouchgate/vouch/store"
)

func main() {
	n := flag.Int("n", 1_000_000, "verifications to store")
	labels := flag.Int("labels", 0, "overrides plus outcomes (default n/100, at least 200)")
	days := flag.Int("days", 30, "days the verifications spread over, back from now")
	dsn := flag.String("store", "", "a postgres:// DSN (the bench works in a schema of its own, dropped after); default a fresh SQLite file")
	runs := flag.Int("runs", 5, "times each query is timed")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the timed queries to this file")
	flag.Parse()
	cpuProfile = *profile
	if *labels == 0 {
		*labels = max(200, *n/100)
	}
	if err := run(*n, *labels, *days, *dsn, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "bench/metrics:", err)
		os.Exit(1)
	}
}

// cpuProfile is the -cpuprofile file.
var cpuProfile string

func run(n, nLabels, days int, dsn string, runs int) error {
	ctx := context.Background()
	var (
		sizeOf func() (int64, error)
		engine string
	)
	if dsn == "" {
		dir, err := os.MkdirTemp("", "vouch-bench-metrics-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		dsn = filepath.Join(dir, "vouch.db")
		engine = "sqlite"
		sizeOf = func() (int64, error) { return dirSize(dir) }
	} else {
		engine = "postgres"
		schemaDSN, drop, err := pgschema.Create(ctx, dsn, "vouch_bench")
		if err != nil {
			return err
		}
		defer drop()
		dsn = schemaDSN
		sizeOf = func() (int64, error) { return pgschema.Size(ctx, dsn) }
	}
	st, err := store.Open(ctx, dsn, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()

	now := time.Now().UTC()
	start := time.Now()
	ids, err := fill(ctx, st, n, days, now)
	if err != nil {
		return err
	}
	fillTime := time.Since(start)
	start = time.Now()
	if err := label(ctx, st, ids, nLabels, now); err != nil {
		return err
	}
	labelTime := time.Since(start)
	if engine == "postgres" {
		// What autovacuum does within a minute of a bulk load: the
		// planner's statistics. Without them it plans for empty tables.
		if err := analyze(ctx, dsn); err != nil {
			return err
		}
	}
	size, err := sizeOf()
	if err != nil {
		return err
	}
	fmt.Printf("store %s: %d verifications over %d days filled in %v (%.0f rows/s); %d labels in %v; %.1f MB on disk (%.0f bytes per verification)\n",
		engine, len(ids), days, fillTime.Round(time.Millisecond), float64(len(ids))/fillTime.Seconds(),
		nLabels, labelTime.Round(time.Millisecond), float64(size)/1e6, float64(size)/float64(len(ids)))

	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	// Where the time of the metrics goes: the store's two reads.
	w := store.Window{Since: time.Now().Add(-quality.DefaultWindow), Until: time.Now()}
	for _, part := range []struct {
		name string
		fn   func() error
	}{
		{"store.Tally (30 days)", func() error { _, err := st.Tally(ctx, server.DefaultTenant, w); return err }},
		{"store.Labels (30 days)", func() error { _, err := st.Labels(ctx, server.DefaultTenant, w); return err }},
	} {
		var times []time.Duration
		for range runs {
			t0 := time.Now()
			if err := part.fn(); err != nil {
				return err
			}
			times = append(times, time.Since(t0))
		}
		slices.Sort(times)
		fmt.Printf("%-40s p50 %8v  max %8v\n", part.name, times[len(times)/2].Round(time.Microsecond), times[len(times)-1].Round(time.Microsecond))
	}

	srv, err := server.New(server.Options{Config: server.DefaultConfig(), Store: st})
	if err != nil {
		return err
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	for _, q := range []struct{ name, path string }{
		{"GET /v1/metrics (30 days)", "/v1/metrics"},
		{"GET /v1/metrics (7 days, kind=answer)", "/v1/metrics?window=168h&kind=answer"},
		{"GET /v1/calibration (30 days)", "/v1/calibration"},
	} {
		var times []time.Duration
		var body []byte
		for range runs {
			t0 := time.Now()
			res, err := http.Get(hs.URL + q.path)
			if err != nil {
				return err
			}
			body, err = io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil {
				return err
			}
			if res.StatusCode != 200 {
				return fmt.Errorf("%s: %d %s", q.path, res.StatusCode, body)
			}
			times = append(times, time.Since(t0))
		}
		slices.Sort(times)
		fmt.Printf("%-40s p50 %8v  max %8v  (%d runs; %s)\n", q.name, times[len(times)/2].Round(time.Microsecond),
			times[len(times)-1].Round(time.Microsecond), runs, summary(q.path, body))
	}
	return nil
}

// summary is a line about an answer, to show it is real.
func summary(path string, body []byte) string {
	if strings.HasPrefix(path, "/v1/metrics") {
		var m api.Metrics
		if err := json.Unmarshal(body, &m); err != nil {
			return err.Error()
		}
		return fmt.Sprintf("%d verifications, first pass %v, catch %v, false alarms %v", m.Verifications, m.FirstPass, m.CatchRate, m.FalseAlarmRate)
	}
	return fmt.Sprintf("%d bytes", len(body))
}

var (
	kinds    = []vouch.Kind{vouch.KindSubtask, vouch.KindSubtask, vouch.KindSubtask, vouch.KindAnswer, vouch.KindAnswer, "plan", vouch.KindSynthesis}
	models   = []string{"openai:gpt-4o-mini", "openai:gpt-4o", "anthropic:claude-haiku", "anthropic:claude-sonnet"}
	codeList = []string{"COUNT_MISMATCH", "UNCLAIMED_CHANGE", "UNVERIFIED_MENTION", "CLAIMED_FILE_MISSING", "TEST_NOT_RUN", "MUST_UNDECIDED"}
	dimNames = map[vouch.Kind][]string{
		vouch.KindSubtask:   {"claims", "completeness", "criteria"},
		vouch.KindAnswer:    {"groundedness", "completeness"},
		"plan":              {"completeness", "criteria"},
		vouch.KindSynthesis: {"groundedness", "completeness", "consistency"},
	}
)

// fill stores n synthetic verifications, tasks of 1 to 3 attempts spread
// evenly over the last days, and returns their ids.
func fill(ctx context.Context, st store.Log, n, days int, now time.Time) ([]store.Ref, error) {
	const batch = 1000
	r := rand.New(rand.NewPCG(1, 2))
	span := time.Duration(days) * 24 * time.Hour
	var (
		all  []*store.Verification
		refs []store.Ref
	)
	for task := 0; len(all) < n; task++ {
		kind := kinds[r.IntN(len(kinds))]
		model := models[r.IntN(len(models))]
		crit := "normal"
		if r.IntN(5) == 0 {
			crit = "high"
		}
		created := now.Add(-time.Duration(r.Int64N(int64(span))))
		quality := r.Float64() // the task's latent quality
		attempts := 1
		if quality < 0.6 {
			attempts = 1 + r.IntN(3)
		}
		for a := 1; a <= attempts && len(all) < n; a++ {
			v := synthetic(r, fmt.Sprintf("task-%d", task), a, kind, model, crit, min(1, quality+0.15*float64(a-1)), created.Add(time.Duration(a)*time.Minute))
			all = append(all, v)
			refs = append(refs, store.Ref{ID: v.ID, Attempt: v.Attempt})
		}
	}
	// Verifications arrive in time order, as they do in production.
	slices.SortStableFunc(all, func(a, b *store.Verification) int { return a.CreatedAt.Compare(b.CreatedAt) })
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		ferr error
		next = make(chan []*store.Verification)
	)
	for range 2 {
		wg.Go(func() {
			for vs := range next {
				if _, err := st.Import(ctx, vs); err != nil {
					mu.Lock()
					ferr = err
					mu.Unlock()
				}
			}
		})
	}
	for i := 0; i < len(all); i += batch {
		next <- all[i:min(i+batch, len(all))]
	}
	close(next)
	wg.Wait()
	return refs, ferr
}

// synthetic is one verification whose verdict follows the default
// policy's thresholds from a score near the task's quality, with a
// compact report of about 1 KB.
func synthetic(r *rand.Rand, id string, attempt int, kind vouch.Kind, model, crit string, q float64, created time.Time) *store.Verification {
	dims := map[string]float64{}
	sum := 0.0
	for _, d := range dimNames[kind] {
		x := min(1, max(0, q+0.2*(r.Float64()-0.5)))
		x = float64(int(x*100)) / 100
		dims[d] = x
		sum += x
	}
	score := float64(int(sum/float64(len(dims))*10000)) / 10000
	var codes []string
	row, verdict, action := 6, vouch.VerdictPass, vouch.ActionAccept
	switch {
	case r.IntN(10) == 0:
		row, verdict, action = 2, vouch.VerdictRetry, vouch.ActionRetry
		codes = append(codes, codeList[r.IntN(3)])
	case score < 0.5:
		row, verdict, action = 3, vouch.VerdictFail, vouch.ActionEscalate
		codes = append(codes, codeList[3+r.IntN(3)])
	case score < 0.7:
		row, verdict, action = 4, vouch.VerdictRetry, vouch.ActionRetry
		codes = append(codes, codeList[r.IntN(len(codeList))])
	}
	if row != 3 && attempt > 2 && verdict == vouch.VerdictRetry {
		verdict, action = vouch.VerdictFail, vouch.ActionEscalate
	}
	conf := float64(int((0.5+0.5*r.Float64())*100)) / 100
	cost := 0.0005 + 0.004*r.Float64()
	taskCost := 0.02 + 0.2*r.Float64()
	self := min(1, q+0.2)
	complexity := r.IntN(10)
	result := fmt.Sprintf(`{"apiVersion":"vouch/v1","id":%q,"kind":%q,"attempt":%d,"verdict":%q,"action":%q,"verdictRow":%d,"score":%v,"confidence":%v,"needsReview":false,`+
		`"reason":"the score %.2f against passAt 0.70 and failBelow 0.50","dimensions":{},"criteria":[{"id":"c1","text":"the change is made and described","must":true,"inferred":false,"status":"met","score":1,"decidedBy":"rule","reason":"found in the diff"}],`+
		`"checks":[{"name":"claims.files","level":"claims","strength":"strict","status":"pass","confidence":1,"reason":"every file the output names exists in the workspace","evidence":{"files":["src/a.go","src/b.go"]}},`+
		`{"name":"grounding.mentions","level":"grounding","strength":"light","status":"pass","confidence":0.7,"reason":"mentions found in the trace","evidence":{"verified":4,"unverified":0}}],`+
		`"mentions":{"verified":[],"unverified":[]},"gaps":[],"issues":[],"suggestions":[],"warnings":[],"feedback":"","cost":{"judgeCalls":0,"cacheHits":0,"cacheMisses":0,"inputTokens":0,"outputTokens":0,"usd":%v,"taskCostRatio":%v},"answerChars":812,"durationMs":3.2}`,
		id, kind, attempt, verdict, action, row, score, conf, score, cost, cost/taskCost)
	return &store.Verification{
		Tenant: server.DefaultTenant, ID: id, Attempt: attempt, Kind: kind, TaskID: id, InteractionID: "run-" + id,
		VerificationType: "agent", Goal: "synthetic task", Verdict: verdict, Action: action, Score: &score,
		Confidence: conf, Criticality: crit, ExecutorModel: model, CostUSD: cost, DurationMs: 3.2,
		Result: []byte(result), RequestBytes: 1500, CreatedAt: created, VerdictRow: row, Dims: dims,
		Codes: codes, TaskCostUSD: &taskCost, SelfConfidence: &self, Complexity: &complexity,
	}
}

// labelStore is what [label] needs of a store: the verifications it
// labels, and their labels.
type labelStore interface {
	store.Log
	store.LabelLog
}

// label adds overrides and outcomes, half each, to random verifications:
// good when the score says so, except for one in five, which the gate got
// wrong.
func label(ctx context.Context, st labelStore, refs []store.Ref, n int, now time.Time) error {
	r := rand.New(rand.NewPCG(3, 4))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		lerr error
	)
	next := make(chan int)
	for range 16 {
		wg.Go(func() {
			for i := range next {
				mu.Lock()
				ref := refs[r.IntN(len(refs))]
				wrong := r.IntN(5) == 0
				mu.Unlock()
				v, err := st.Get(ctx, server.DefaultTenant, ref.ID, ref.Attempt)
				if err != nil {
					mu.Lock()
					lerr = err
					mu.Unlock()
					continue
				}
				good := (v.Verdict == vouch.VerdictPass) != wrong
				if i%2 == 0 {
					verdict := vouch.VerdictPass
					if !good {
						verdict = vouch.VerdictFail
					}
					err = st.AddOverride(ctx, &store.Override{Tenant: server.DefaultTenant, VerificationID: ref.ID,
						Attempt: ref.Attempt, Verdict: verdict, Reason: "synthetic review", Reviewer: "bench", CreatedAt: now})
				} else {
					err = st.AddOutcome(ctx, &store.Outcome{Tenant: server.DefaultTenant, VerificationID: ref.ID,
						Attempt: ref.Attempt, Good: good, Detail: "synthetic outcome", CreatedAt: now})
				}
				if err != nil {
					mu.Lock()
					lerr = err
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return lerr
}

func dirSize(dir string) (int64, error) {
	var total int64
	err := filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			total += info.Size()
		}
		return err
	})
	return total, err
}

func analyze(ctx context.Context, dsn string) error {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, "ANALYZE")
	return err
}
