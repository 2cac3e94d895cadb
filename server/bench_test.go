package server

import (
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vouchgate/vouch/store"
)

// BenchmarkVerifyHTTP drives POST /v1/verify through a loopback HTTP
// server with a SQLite log (synchronous=FULL), requests in parallel, each
// with a fresh id so that each is verified and written, never replayed.
// The request is the text batch's shape: five text criteria over a 1 KB
// summary. The store has its compression dictionaries already, as a
// long-running server's has (see trainedStore).
func BenchmarkVerifyHTTP(b *testing.B) {
	e := newEnvOn(b, trainedStore(b, 1100), nil)
	var n atomic.Int64
	client := e.http.Client()
	b.SetParallelism(16) // 32 clients on 2 cores
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := postVerify(client, e.http.URL, benchRequest(fmt.Sprintf("req-%d", n.Add(1)))); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// benchSummary is the 1 KB summary of benchRequest.
var benchSummary = bytes.Repeat([]byte("the parser reports errors with their line and column. "), 18)

// benchRequest is a request of the text batch's shape, with id.
func benchRequest(id string) []byte {
	return fmt.Appendf(nil, `{"id":%q,"kind":"subtask","task":{"goal":"Improve the parser's error reporting","criteria":[{"id":"done","must":true,"check":{"type":"contains","value":"DONE"}},{"id":"parser","check":{"type":"contains","value":"PARSER","ignoreCase":true}},{"id":"version","check":{"type":"regex","pattern":"v\\d+\\.\\d+"}},{"id":"notodo","check":{"type":"contains","value":"TODO","not":true}},{"id":"length","check":{"type":"length","minWords":50,"maxChars":4000}}]},"output":{"summary":"%sStatus: DONE. Version v1.2"}}`, id, benchSummary)
}

// postVerify posts body to POST /v1/verify and reads the answer, which
// must be 200.
func postVerify(client *http.Client, url string, body []byte) error {
	res, err := client.Post(url+"/v1/verify", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", res.StatusCode)
	}
	return nil
}

// trainedStore returns the path of a SQLite store that holds n
// verifications of benchRequest's shape, verified by a server, and the
// compression dictionaries the store trained on them. Training is once
// in a store's life, a second or more of CPU in the background: on a
// fresh store it was two fifths of this benchmark's CPU.
func trainedStore(b *testing.B, n int) string {
	b.Helper()
	dsn := filepath.Join(b.TempDir(), "vouch.db")
	st, err := store.Open(b.Context(), dsn, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := New(Options{Config: DefaultConfig(), Store: st, Now: (&clock{}).now})
	if err != nil {
		st.Close()
		b.Fatal(err)
	}
	hs, stop := startHTTPTest(srv)
	var (
		wg   sync.WaitGroup
		next atomic.Int64
		errs = make(chan error, 1)
	)
	for range 16 {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				if err := postVerify(hs.Client(), hs.URL, benchRequest(fmt.Sprintf("warm-%d", i))); err != nil {
					select {
					case errs <- err:
					default:
					}
					return
				}
			}
		})
	}
	wg.Wait()
	stop()
	if err := st.Close(); err != nil { // it waits for the training
		b.Fatal(err)
	}
	select {
	case err := <-errs:
		b.Fatalf("warming the store: %v", err)
	default:
	}
	db, err := sql.Open("sqlite", "file:"+dsn+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var kinds int
	if err := db.QueryRow(`SELECT COUNT(DISTINCT kind) FROM pack_dicts`).Scan(&kinds); err != nil || kinds != 3 {
		b.Fatalf("the warmed store has dictionaries of %d kinds (%v), want 3: reports, requests and events", kinds, err)
	}
	return dsn
}
