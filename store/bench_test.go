package store_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/store/storetest"
)

// report is a report of about 3 KB shaped like vouch's.
var report = benchReport("v0000000", 1)

// benchReport returns a report of about 3 KB shaped like vouch's.
func benchReport(id string, attempt int) []byte {
	type check struct {
		ID, Level, Status, Strength, Detail string
		Confidence                          float64
	}
	var checks []check
	for i := range 9 {
		checks = append(checks, check{
			ID: fmt.Sprintf("claims.count.%d", i), Level: "claims", Status: "pass", Strength: "strict",
			Detail:     "the output says it created 3 files; 3 files were created since the base (CHANGELOG.md, docs/release.md, VERSION)",
			Confidence: 0.97,
		})
	}
	b, _ := json.Marshal(map[string]any{
		"apiVersion": "vouch/v1", "id": id, "kind": "subtask", "attempt": attempt,
		"verdict": "pass", "action": "accept", "verdictRow": 2,
		"reason": "every must-pass check passed and the score 0.86 is above passAt 0.8",
		"score":  0.86, "confidence": 0.91, "needsReview": false,
		"dimensions": map[string]any{"correctness": map[string]any{"score": 0.9, "state": "decided"}, "completeness": map[string]any{"score": 0.8, "state": "decided"}},
		"criteria":   []map[string]any{{"id": "c1", "text": "CHANGELOG.md has a 1.2.0 section", "status": "met", "decidedBy": "rule"}},
		"checks":     checks,
		"gaps":       []string{}, "issues": []string{}, "suggestions": []string{"mention the migration in the release notes"},
		"warnings": []string{}, "feedback": "",
		"judge": map[string]any{"model": "judge-a", "inputTokens": 2310, "outputTokens": 412},
		"cost":  map[string]any{"usd": 0.0123}, "answerChars": 1830, "durationMs": 1234.5,
	})
	return b
}

func benchVerification(tenant string, i int, created time.Time) *store.Verification {
	id := fmt.Sprintf("v%07d", i)
	score := float64(i%100) / 100
	kinds := []vouch.Kind{vouch.KindSubtask, "plan", "final", "orchestrator"}
	verdicts := []vouch.Verdict{vouch.VerdictPass, vouch.VerdictPass, vouch.VerdictPass, vouch.VerdictRetry, vouch.VerdictFail, vouch.VerdictPass, vouch.VerdictRetry}
	return &store.Verification{
		Tenant: tenant, ID: id, Attempt: 1, IdempotencyKey: id + "/1",
		RequestHash:   "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		InteractionID: fmt.Sprintf("run-%d", i/50), TargetID: "step", VerificationType: "agent",
		TaskID: fmt.Sprintf("task-%d", i/10), Goal: "Add a CHANGELOG entry for 1.2.0",
		Kind: kinds[i%len(kinds)], Verdict: verdicts[i%len(verdicts)], Action: vouch.ActionAccept,
		Score: &score, Confidence: 0.9, NeedsReview: i%10 == 0, Criticality: "normal",
		ExecutorModel: "claude-sonnet", JudgeModels: []string{"judge-a"}, CostUSD: 0.0123, DurationMs: 1234.5,
		Result:       report,
		Request:      []byte(`{"task":{"goal":"Add a CHANGELOG entry for 1.2.0"},"output":{"text":"done"}}`),
		RequestBytes: 80, CreatedAt: created,
	}
}

// completeEvent is v's complete event as the server writes it: its data
// carries v's report, at ReportAt.
func completeEvent(v *store.Verification) store.Event {
	prefix := `{"type":"verification:complete","data":`
	return store.Event{Type: "verification:complete", Data: []byte(prefix + string(v.Result) + `}`), ReportAt: len(prefix)}
}

// benchStores are the stores to benchmark: SQLite in both durability
// settings, and PostgreSQL when VOUCH_TEST_PG_DSN is set.
func benchStores(b *testing.B) map[string]func(b *testing.B) store.Store {
	sqlite := func(query string) func(b *testing.B) store.Store {
		return func(b *testing.B) store.Store {
			s, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db")+query, store.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}
	}
	m := map[string]func(b *testing.B) store.Store{
		"sqlite":        sqlite(""),
		"sqlite-normal": sqlite("?synchronous=normal"),
	}
	if server := os.Getenv("VOUCH_TEST_PG_DSN"); server != "" {
		m["postgres"] = func(b *testing.B) store.Store {
			s, err := store.Open(b.Context(), storetest.PostgresSchema(b, server), store.Options{MaxConns: 32})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}
	}
	return m
}

// BenchmarkInsertParallel inserts verifications with a 3 KB report and
// one event each, from 1 goroutine (serial) and from 64 at once.
func BenchmarkInsertParallel(b *testing.B) {
	for _, name := range []string{"sqlite", "sqlite-normal", "postgres"} {
		open, ok := benchStores(b)[name]
		if !ok {
			continue
		}
		for _, conc := range []int{1, 64} {
			b.Run(fmt.Sprintf("%s/conc=%d", name, conc), func(b *testing.B) {
				s := open(b)
				var next atomic.Int64
				created := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
				insert := func() {
					i := int(next.Add(1))
					v := benchVerification("acme", i, created.Add(time.Duration(i)*time.Millisecond))
					ev := []store.Event{{Type: "verification", Data: []byte(`{"type":"verification","id":"` + v.ID + `"}`), CreatedAt: v.CreatedAt}}
					if _, err := s.Insert(b.Context(), v, ev); err != nil {
						b.Error(err)
					}
				}
				b.SetBytes(int64(len(report)))
				b.ResetTimer()
				if conc == 1 {
					for b.Loop() {
						insert()
					}
				} else {
					work := make(chan struct{})
					var wg sync.WaitGroup
					for range conc {
						wg.Go(func() {
							for range work {
								insert()
							}
						})
					}
					for b.Loop() {
						work <- struct{}{}
					}
					close(work)
					wg.Wait()
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "inserts/s")
			})
		}
	}
}

// BenchmarkWriter measures the SQLite writer alone, fed ready rows:
// verifications with a 3 KB report and an event that carries it, made
// ready before the timer as Insert makes them (validated, compressed with
// the dictionaries the store trained on the 1,100 written first), then
// committed by the writer in groups of 1 to 256, as it gathers them
// under load. Its rows/s is the ceiling the writer sets on the service.
func BenchmarkWriter(b *testing.B) {
	for _, synchronous := range []string{"full", "normal"} {
		for _, group := range []int{1, 4, 16, 64, 256} {
			b.Run(fmt.Sprintf("sqlite-%s/group=%d", synchronous, group), func(b *testing.B) {
				path := filepath.Join(b.TempDir(), "bench.db") + "?synchronous=" + synchronous
				created := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
				row := func(i int) (*store.Verification, []store.Event) {
					v := benchVerification("acme", i, created.Add(time.Duration(i)*time.Millisecond))
					v.Result = benchReport(v.ID, 1)
					return v, []store.Event{completeEvent(v)}
				}
				warm := storetest.BenchSize(1100) // under -short, too few to train
				s, err := store.Open(b.Context(), path, store.Options{})
				if err != nil {
					b.Fatal(err)
				}
				for i := range warm {
					v, evs := row(i)
					if _, err := s.Insert(b.Context(), v, evs); err != nil {
						b.Fatal(err)
					}
				}
				if err := s.Close(); err != nil { // it waits for the training
					b.Fatal(err)
				}
				if s, err = store.Open(b.Context(), path, store.Options{}); err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { s.Close() })
				vs := make([]*store.Verification, b.N)
				evs := make([][]store.Event, b.N)
				for i := range b.N {
					vs[i], evs[i] = row(warm + i)
				}
				commit, err := store.ReadyInserts(s, vs, evs)
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for lo := 0; lo < b.N; lo += group {
					if err := commit(lo, min(lo+group, b.N)); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}

// BenchmarkList100 lists pages of 100 with filters over 100,000 rows of
// one tenant (and 10,000 of another).
func BenchmarkList100(b *testing.B) {
	rows := storetest.BenchSize(100_000)
	review := true
	onStores(b, func(b *testing.B, name string, s store.Store) {
		created := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
		at := func(i int) time.Time { return created.Add(time.Duration(i) * time.Second) }
		start := time.Now()
		work := make(chan *store.Verification, 256)
		var wg sync.WaitGroup
		for range 64 {
			wg.Go(func() {
				for v := range work {
					if _, err := s.Insert(b.Context(), v, nil); err != nil {
						b.Error(err)
					}
				}
			})
		}
		for i := range rows {
			work <- benchVerification("acme", i, at(i))
			if i%10 == 0 {
				work <- benchVerification("other", i, at(i))
			}
		}
		close(work)
		wg.Wait()
		b.Logf("%s: %d rows inserted in %v", name, rows+rows/10, time.Since(start).Round(time.Millisecond))
		analyzed(b, s)
		for _, tc := range []struct {
			name string
			f    store.Filter
		}{
			{"newest", store.Filter{}},
			{"verdict", store.Filter{Verdict: "fail"}},
			{"needs_review", store.Filter{NeedsReview: &review}},
			{"kind+verdict", store.Filter{Kind: "plan", Verdict: "retry"}},
			{"action", store.Filter{Action: "accept"}},
			{"task", store.Filter{TaskID: fmt.Sprintf("task-%d", rows/23)}},
			{"since", store.Filter{Since: at(rows / 2)}},
			{"until", store.Filter{Until: at(rows / 4)}},
			{"deep page", store.Filter{Verdict: "fail", Before: int64(rows / 10)}},
		} {
			b.Run(tc.name, func(b *testing.B) {
				tc.f.Limit = 100
				for b.Loop() {
					p, err := s.List(b.Context(), "acme", tc.f)
					if err != nil {
						b.Fatal(err)
					}
					if len(p.Items) == 0 {
						b.Fatal("empty page")
					}
				}
			})
		}
	})
}

// analyzed gathers PostgreSQL's statistics of s's tables, as its
// autovacuum does within a minute of a load like a benchmark's: the
// reads are timed against the plans a store in use gets, not against
// those of tables the planner knows nothing of yet (which took a page
// "since" a time from 1 ms to 66 ms, depending on whether autovacuum
// had run).
func analyzed(b *testing.B, s store.Store) {
	if q, ok := s.(store.Queue); ok {
		if _, err := q.Pool().Exec(b.Context(), "ANALYZE"); err != nil {
			b.Fatal(err)
		}
	}
}

// onStores runs bench on a fresh store of each engine: SQLite, and
// PostgreSQL when VOUCH_TEST_PG_DSN is set.
func onStores(b *testing.B, bench func(b *testing.B, name string, s store.Store)) {
	for _, name := range []string{"sqlite", "postgres"} {
		open, ok := benchStores(b)[name]
		if !ok {
			continue
		}
		b.Run(name, func(b *testing.B) { bench(b, name, open(b)) })
	}
}

// BenchmarkCreateBatch writes a batch of 100,000 items (requests of about
// 200 bytes) in one transaction.
func BenchmarkCreateBatch(b *testing.B) {
	n := storetest.BenchSize(100_000)
	items := make([]store.BatchItem, n)
	for i := range items {
		items[i].Request = []byte(fmt.Sprintf(`{"id":"item-%06d","task":{"goal":"Add a CHANGELOG entry for 1.2.0","criteria":["CHANGELOG.md has a 1.2.0 section"]},"output":{"text":"done: created CHANGELOG.md"}}`, i))
	}
	onStores(b, func(b *testing.B, name string, s store.Store) {
		i := 0
		for b.Loop() {
			i++
			bt := &store.Batch{Tenant: "acme", ID: fmt.Sprintf("batch-%d", i), CreatedAt: time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)}
			if err := s.CreateBatch(b.Context(), bt, items); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
	})
}

// BenchmarkReadReports reads what holds a report back from 2,000
// verifications, each written with a request of about 1.5 KB and an
// event that carries its report: one verification with its request
// (Get), a page of 100 with their reports (List), and 100 events with
// their reports put back (Events), all written once the store had
// trained its dictionaries (after 1,000).
func BenchmarkReadReports(b *testing.B) {
	const rows = 2000
	onStores(b, func(b *testing.B, name string, s store.Store) {
		created := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
		var after int64 // the events read follow this one
		for i := range rows {
			v := benchVerification("acme", i, created.Add(time.Duration(i)*time.Second))
			v.Result = benchReport(v.ID, 1)
			v.Request = fmt.Appendf(nil, `{"task":{"goal":"Add a CHANGELOG entry for release %d","criteria":[{"id":"c1","text":"CHANGELOG.md has a section for the release"}]},"output":{"text":"%s"}}`,
				i, strings.Repeat(fmt.Sprintf("created CHANGELOG.md with a section for release %d and moved docs/release.md; ", i), 16))
			evs := []store.Event{completeEvent(v)}
			if _, err := s.Insert(b.Context(), v, evs); err != nil {
				b.Fatal(err)
			}
			if i == rows-101 {
				after = evs[0].Seq
			}
		}
		b.Run("get", func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				v, err := s.Get(b.Context(), "acme", fmt.Sprintf("v%07d", rows-1-i%100), 1)
				if err != nil || len(v.Request) == 0 {
					b.Fatal(v, err)
				}
			}
		})
		b.Run("list", func(b *testing.B) {
			for b.Loop() {
				p, err := s.List(b.Context(), "acme", store.Filter{Limit: 100, Reports: true})
				if err != nil || len(p.Items) != 100 {
					b.Fatal(len(p.Items), err)
				}
			}
		})
		b.Run("events", func(b *testing.B) {
			for b.Loop() {
				evs, err := s.Events(b.Context(), "acme", after, 100)
				if err != nil || len(evs) != 100 {
					b.Fatal(len(evs), err)
				}
			}
		})
	})
}
