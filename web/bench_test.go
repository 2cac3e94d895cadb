package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch/store"
)

// openKeys is the KeySource of a server in open mode whose cache holds
// the answer: no store read per page.
type openKeys struct{}

func (openKeys) Key(context.Context, string) (*store.Key, error) { return nil, store.ErrNotFound }
func (openKeys) OpenMode(context.Context) (bool, error)          { return true, nil }

// BenchmarkListPage draws pages of the list (100 rows) over a SQLite
// store of 100,000 verifications with realistic reports (about 2.4 KB
// each): the first page, filtered ones, one deep in the log by its
// cursor, the review queue (50 items), and a filter on a column without
// an index that matches nothing. The goal is at most 20 ms a page.
func BenchmarkListPage(b *testing.B) {
	const total, batch = 100_000, 2000
	st, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "vouch.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	// A few shapes of row, copied with their own ids.
	var shapes []*store.Verification
	for i, v := range []string{"pass", "retry", "fail"} {
		shapes = append(shapes, fixture{id: "shape", verdict: v, review: v == "fail", passDocs: v == "pass", kind: kinds[i]}.verification(b))
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
		// The executor model has no index: a filter that matches little
		// reads the whole log (about 70 ms here).
		"/verifications?model=none-such",
	} {
		b.Run(strings.TrimPrefix(path, "/"), func(b *testing.B) {
			check := httptest.NewRecorder()
			h.ServeHTTP(check, httptest.NewRequest(http.MethodGet, path, nil))
			if check.Code != http.StatusOK {
				b.Fatalf("%s: %d", path, check.Code)
			}
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
				if w.Code != http.StatusOK {
					b.Fatal(w.Code)
				}
			}
		})
	}
}
