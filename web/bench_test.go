package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/store/storetest"
)

// openKeys is the KeySource of a server in open mode whose cache holds
// the answer: no store read per page.
type openKeys struct{}

func (openKeys) Key(context.Context, string) (*store.Key, error) { return nil, store.ErrNotFound }
func (openKeys) OpenMode(context.Context) (bool, error)          { return true, nil }

// BenchmarkListPage draws pages of the list (100 rows) over a SQLite
// store of 100,000 verifications with realistic reports (about 2.4 KB
// each): the first page, filtered ones, one deep in the log by its
// cursor, the review queue (50 items), and a model filter that matches
// nothing. The goal is at most 20 ms a page.
func BenchmarkListPage(b *testing.B) {
	total, batch := storetest.BenchSize(100_000), 2000
	st, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "vouch.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	// A few shapes of row, copied with their own ids.
	var shapes []*store.Verification
	for i, v := range []vouch.Verdict{vouch.VerdictPass, vouch.VerdictRetry, vouch.VerdictFail} {
		shapes = append(shapes, fixture{id: "shape", verdict: v, review: v == vouch.VerdictFail, passDocs: v == vouch.VerdictPass, kind: vouch.Kinds[i]}.verification(b))
	}
	start := time.Now()
	for n := 0; n < total; n += batch {
		rows := make([]*store.Verification, 0, batch)
		for i := n; i < n+batch; i++ {
			v := *shapes[i%len(shapes)]
			v.ID = fmt.Sprintf("v%06d", i)
			v.TaskID = "task-" + v.ID
			v.IdempotencyKey = v.ID + "/1"
			v.CreatedAt = epoch.Add(time.Duration(i) * time.Second)
			rows = append(rows, &v)
		}
		if _, err := st.Import(b.Context(), rows); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("filled %d verifications (%d bytes of report each) in %s", total, len(shapes[0].Result), time.Since(start).Round(time.Millisecond))
	h, err := New(Options{Store: st, Keys: openKeys{}})
	if err != nil {
		b.Fatal(err)
	}
	for _, path := range []string{
		"/verifications",
		"/verifications?verdict=fail",
		"/verifications?review=yes&kind=synthesis",
		"/verifications?before=50001",
		"/review",
		// A model filter that matches nothing: its index (tenant,
		// executor model, seq) finds no row at once.
		"/verifications?model=none-such",
	} {
		b.Run(strings.TrimPrefix(path, "/"), func(b *testing.B) {
			check := httptest.NewRecorder()
			h.ServeHTTP(check, httptest.NewRequest(http.MethodGet, "http://localhost"+path, nil))
			if check.Code != http.StatusOK {
				b.Fatalf("%s: %d %s", path, check.Code, check.Body.String())
			}
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://localhost"+path, nil))
				if w.Code != http.StatusOK {
					b.Fatal(w.Code)
				}
			}
		})
	}
}

// BenchmarkDetailLongTrace draws the page of a verification whose
// request carries a trace of 2,000 tool calls (reads of 80-line files,
// edits, test runs of 30 lines; 3.8 MB of request): the first page of
// the timeline (200 calls), the last page (where the cited failed run
// is), the cited calls alone and one tool's calls. The goal is under a
// second a page; it takes tens of milliseconds.
func BenchmarkDetailLongTrace(b *testing.B) {
	const calls = 2000
	e := newEnv(b)
	v := fixture{id: "long", calls: calls}.verification(b)
	var req map[string]any
	if err := json.Unmarshal(v.Request, &req); err != nil {
		b.Fatal(err)
	}
	var file, run strings.Builder
	for i := range 80 {
		fmt.Fprintf(&file, "%6d\t  const token%d = input.slice(%d, %d); // the parser's state as it goes\n", i+1, i, i, i+3)
	}
	for i := range 28 {
		fmt.Fprintf(&run, "PASS src/module%02d.test.ts (%d ms)\n", i, 40+i)
	}
	run.WriteString("Tests:       112 passed, 112 total\nTime:        4.1 s")
	for i, x := range req["trace"].([]any) {
		entry := x.(map[string]any)
		switch {
		case i == failedRun(calls):
		case entry["tool"] == "Read":
			entry["output"] = file.String()
		case entry["tool"] == "Bash":
			entry["output"] = "Exit code 0\n" + run.String()
		}
	}
	var err error
	if v.Request, err = json.Marshal(req); err != nil {
		b.Fatal(err)
	}
	v.RequestBytes = len(v.Request)
	if _, err := e.st.Insert(b.Context(), v, nil); err != nil {
		b.Fatal(err)
	}
	b.Logf("a request of %d bytes, %d calls", len(v.Request), calls)
	h, err := New(Options{Store: e.st, Keys: openKeys{}})
	if err != nil {
		b.Fatal(err)
	}
	for _, path := range []string{
		"/verifications/long",
		"/verifications/long?calls=10",
		"/verifications/long?cited=1",
		"/verifications/long?tool=Bash",
	} {
		b.Run(strings.TrimPrefix(path, "/verifications/"), func(b *testing.B) {
			check := httptest.NewRecorder()
			h.ServeHTTP(check, httptest.NewRequest(http.MethodGet, "http://localhost"+path, nil))
			if check.Code != http.StatusOK {
				b.Fatalf("%s: %d %s", path, check.Code, check.Body.String())
			}
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://localhost"+path, nil))
				if w.Code != http.StatusOK {
					b.Fatal(w.Code)
				}
			}
			b.ReportMetric(float64(check.Body.Len()), "page-bytes")
		})
	}
}
