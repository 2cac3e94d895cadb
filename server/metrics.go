package server

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/store"
)

// metrics are the server's Prometheus series, all prefixed vouch_.
type metrics struct {
	requests      *prometheus.CounterVec
	latency       *prometheus.HistogramVec
	verifications *prometheus.CounterVec
	judgeCalls    prometheus.Counter
	judgeCost     prometheus.Counter
	storeLatency  *prometheus.HistogramVec
	storeErrors   *prometheus.CounterVec
	queueDepth    prometheus.Gauge
	inFlight      prometheus.Gauge
	rejected      prometheus.Counter
	streams       prometheus.Gauge
}

// newRegistry returns a registry with the Go runtime and process
// collectors.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// latencyBuckets span a cached answer (100 µs) to a slow judge (60 s).
var latencyBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

func newMetrics(reg prometheus.Registerer) *metrics {
	f := func(c prometheus.Collector) { reg.MustRegister(c) }
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vouch_http_requests_total",
			Help: "HTTP requests answered, by route and status code."}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "vouch_http_request_duration_seconds",
			Help: "Time to answer an HTTP request, by route and status code.", Buckets: latencyBuckets}, []string{"route", "code"}),
		verifications: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vouch_verifications_total",
			Help: "Verifications stored, by checkpoint kind and verdict (pass, retry, fail, unverified)."}, []string{"kind", "verdict"}),
		judgeCalls: prometheus.NewCounter(prometheus.CounterOpts{Name: "vouch_judge_calls_total",
			Help: "Calls to judge models made by stored verifications."}),
		judgeCost: prometheus.NewCounter(prometheus.CounterOpts{Name: "vouch_judge_cost_usd_total",
			Help: "Cost of the judge calls of stored verifications, in US dollars."}),
		storeLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "vouch_store_duration_seconds",
			Help: "Time of store operations, by operation.", Buckets: latencyBuckets}, []string{"op"}),
		storeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vouch_store_errors_total",
			Help: "Store operations that failed, by operation."}, []string{"op"}),
		queueDepth: prometheus.NewGauge(prometheus.GaugeOpts{Name: "vouch_batch_queue_depth",
			Help: "Batch items made pending by this process and not yet verified (items left pending by an earlier run are verified but not counted)."}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "vouch_http_in_flight",
			Help: "Requests being served (those the in-flight limit counts)."}),
		rejected: prometheus.NewCounter(prometheus.CounterOpts{Name: "vouch_http_rejected_total",
			Help: "Requests answered 429 because the in-flight limit was reached."}),
		streams: prometheus.NewGauge(prometheus.GaugeOpts{Name: "vouch_event_streams",
			Help: "Open event streams."}),
	}
	f(m.requests)
	f(m.latency)
	f(m.verifications)
	f(m.judgeCalls)
	f(m.judgeCost)
	f(m.storeLatency)
	f(m.storeErrors)
	f(m.queueDepth)
	f(m.inFlight)
	f(m.rejected)
	f(m.streams)
	// Every kind and verdict from the start, unverified too, so that a
	// rate over them reads 0 rather than nothing before the first one.
	for _, k := range vouch.Kinds {
		for _, v := range vouch.Verdicts {
			m.verifications.WithLabelValues(string(k), string(v))
		}
	}
	return m
}

// registerWriteStats exports what the store's writes committed: their
// rate is the syncs asked of the disk, and their ratio the writes each
// commit carries (see store.WriteStats).
func registerWriteStats(reg prometheus.Registerer, wc store.WriteCounter) {
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "vouch_store_commits_total",
			Help: "Write transactions the store committed: on SQLite with synchronous=FULL, each a sync of its write-ahead log; on PostgreSQL, each a flush of its WAL."},
			func() float64 { return float64(wc.WriteStats().Commits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "vouch_store_writes_total",
			Help: "Writes (an insert, an import, the completion of a batch item or of a run of them, ...) in the store's committed transactions: over vouch_store_commits_total, the writes a commit carries."},
			func() float64 { return float64(wc.WriteStats().Writes) }))
}

func (m *metrics) request(route string, code int, d time.Duration) {
	c := strconv.Itoa(code)
	m.requests.WithLabelValues(route, c).Inc()
	m.latency.WithLabelValues(route, c).Observe(d.Seconds())
}

// verified counts a stored verification.
func (m *metrics) verified(rep *vouch.Report) {
	m.verifications.WithLabelValues(string(rep.Kind), string(rep.Verdict)).Inc()
	if rep.Cost.JudgeCalls > 0 {
		m.judgeCalls.Add(float64(rep.Cost.JudgeCalls))
	}
	if rep.Cost.USD > 0 {
		m.judgeCost.Add(rep.Cost.USD)
	}
}

// instrumented times the store's operations.
type instrumented struct {
	store.Store
	m *metrics
}

func instrument(st store.Store, m *metrics) store.Store { return &instrumented{Store: st, m: m} }

func (s *instrumented) observe(op string, start time.Time, err error) { s.m.storeOp(op, start, err) }

// storeOp records a store operation's time, and its failure (not a row
// not found, nor a duplicate, which are answers).
func (m *metrics) storeOp(op string, start time.Time, err error) {
	m.storeLatency.WithLabelValues(op).Observe(time.Since(start).Seconds())
	if err != nil && !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrDuplicate) {
		m.storeErrors.WithLabelValues(op).Inc()
	}
}

// instrumentedQueue times the operations the PostgreSQL job queue makes
// on the store itself, beside the server's (see [instrumented]).
type instrumentedQueue struct {
	store.Queue
	m *metrics
}

func (q *instrumentedQueue) Item(ctx context.Context, tenant, batchID string, index int) (*store.BatchItem, error) {
	start := time.Now()
	got, err := q.Queue.Item(ctx, tenant, batchID, index)
	q.m.storeOp("item", start, err)
	return got, err
}

func (q *instrumentedQueue) PendingRange(ctx context.Context, tenant, batchID string, from, to int) ([]store.BatchItem, error) {
	start := time.Now()
	got, err := q.Queue.PendingRange(ctx, tenant, batchID, from, to)
	q.m.storeOp("pending_range", start, err)
	return got, err
}

func (q *instrumentedQueue) ByKeys(ctx context.Context, tenant string, keys []string) (map[string]*store.Verification, error) {
	start := time.Now()
	got, err := q.Queue.ByKeys(ctx, tenant, keys)
	q.m.storeOp("by_keys", start, err)
	return got, err
}

func (q *instrumentedQueue) CompleteItem(ctx context.Context, c store.Completion) error {
	start := time.Now()
	err := q.Queue.CompleteItem(ctx, c)
	q.m.storeOp("complete_item", start, err)
	return err
}

func (q *instrumentedQueue) CompleteItemsTx(ctx context.Context, cs []store.Completion, then store.TxFunc) error {
	start := time.Now()
	err := q.Queue.CompleteItemsTx(ctx, cs, then)
	q.m.storeOp("complete_items", start, err)
	return err
}

func (s *instrumented) Insert(ctx context.Context, v *store.Verification, evs []store.Event) (*store.Verification, error) {
	start := time.Now()
	got, err := s.Store.Insert(ctx, v, evs)
	s.observe("insert", start, err)
	return got, err
}

func (s *instrumented) ByKey(ctx context.Context, tenant, key string) (*store.Verification, error) {
	start := time.Now()
	got, err := s.Store.ByKey(ctx, tenant, key)
	s.observe("by_key", start, err)
	return got, err
}

func (s *instrumented) Get(ctx context.Context, tenant, id string, attempt int) (*store.Verification, error) {
	start := time.Now()
	got, err := s.Store.Get(ctx, tenant, id, attempt)
	s.observe("get", start, err)
	return got, err
}

func (s *instrumented) List(ctx context.Context, tenant string, f store.Filter) (store.Page, error) {
	start := time.Now()
	got, err := s.Store.List(ctx, tenant, f)
	s.observe("list", start, err)
	return got, err
}

func (s *instrumented) CompleteItem(ctx context.Context, c store.Completion) error {
	start := time.Now()
	err := s.Store.CompleteItem(ctx, c)
	s.observe("complete_item", start, err)
	return err
}

func (s *instrumented) CompleteItems(ctx context.Context, cs []store.Completion) error {
	start := time.Now()
	err := s.Store.CompleteItems(ctx, cs)
	s.observe("complete_items", start, err)
	return err
}

func (s *instrumented) CreateBatch(ctx context.Context, b *store.Batch, items []store.BatchItem) error {
	start := time.Now()
	err := s.Store.CreateBatch(ctx, b, items)
	s.observe("create_batch", start, err)
	return err
}

func (s *instrumented) Events(ctx context.Context, tenant string, after int64, limit int) ([]store.Event, error) {
	start := time.Now()
	got, err := s.Store.Events(ctx, tenant, after, limit)
	s.observe("events", start, err)
	return got, err
}
