package web

import (
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

// BenchmarkStatsPages draws the overview, quality and calibration pages
// over a SQLite store of 100,000 verifications spread over the 30 days
// they cover, 5 % of them labelled. The overview reads 30 daily windows
// of tallies and the labels; quality the window's tallies and labels;
// calibration reads every verification of the window (as GET
// /v1/calibration does), and the patch the same.
func BenchmarkStatsPages(b *testing.B) {
	total, batch := storetest.BenchSize(100_000), 2000
	st, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "vouch.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	now := epoch
	since := now.Add(-30 * 24 * time.Hour)
	step := now.Sub(since) / time.Duration(total)
	var shapes []*store.Verification
	codes := [][]string{{"COUNT_MISMATCH"}, {"UNVERIFIED_FILE", "TOO_MANY_UNVERIFIED"}, nil}
	for i, v := range []vouch.Verdict{vouch.VerdictRetry, vouch.VerdictFail, vouch.VerdictPass} {
		sh := fixture{id: "shape", verdict: v, review: v == vouch.VerdictFail, passDocs: v == vouch.VerdictPass, kind: vouch.Kinds[i], model: []string{"m1", "m2", "m3"}[i]}.verification(b)
		self := 0.9
		cost := 0.05
		sh.Codes, sh.SelfConfidence, sh.TaskCostUSD, sh.VerdictRow = codes[i], &self, &cost, 4+2*(i/2)
		shapes = append(shapes, sh)
	}
	start := time.Now()
	for n := 0; n < total; n += batch {
		rows := make([]*store.Verification, 0, batch)
		for i := n; i < n+batch; i++ {
			v := *shapes[i%len(shapes)]
			v.ID = fmt.Sprintf("v%06d", i)
			v.TaskID = "task-" + v.ID
			v.IdempotencyKey = v.ID + "/1"
			v.CreatedAt = since.Add(time.Duration(i) * step)
			rows = append(rows, &v)
		}
		if _, err := st.Import(b.Context(), rows); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < total; i += 20 {
		id := fmt.Sprintf("v%06d", i)
		if err := st.AddOutcome(b.Context(), &store.Outcome{Tenant: openTenant, VerificationID: id, Good: i%40 == 0}); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("filled %d verifications and %d labels in %s", total, total/20, time.Since(start).Round(time.Millisecond))
	h, err := New(Options{Store: st, Keys: openKeys{}, Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	for _, path := range []string{"/", "/quality", "/calibration", "/calibration/patch"} {
		name := strings.TrimPrefix(path, "/")
		if name == "" {
			name = "overview"
		}
		b.Run(name, func(b *testing.B) {
			check := httptest.NewRecorder()
			h.ServeHTTP(check, httptest.NewRequest(http.MethodGet, "http://localhost"+path, nil))
			if check.Code != http.StatusOK {
				b.Fatalf("%s: %d\n%s", path, check.Code, check.Body)
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
