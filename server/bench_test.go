package server

import (
	"bytes"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
)

// BenchmarkVerifyHTTP drives POST /v1/verify through a loopback HTTP
// server with a SQLite log (synchronous=FULL), requests in parallel, each
// with a fresh id so that each is verified and written, never replayed.
// The request is the text batch's shape: five text criteria over a 1 KB
// summary.
func BenchmarkVerifyHTTP(b *testing.B) {
	e := newEnv(b, nil)
	summary := bytes.Repeat([]byte("the parser reports errors with their line and column. "), 18)
	var n atomic.Int64
	client := e.http.Client()
	b.SetParallelism(16) // 32 clients on 2 cores
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			body := fmt.Appendf(nil, `{"id":"req-%d","kind":"subtask","task":{"goal":"Improve the parser's error reporting","criteria":[{"id":"done","must":true,"check":{"type":"contains","value":"DONE"}},{"id":"parser","check":{"type":"contains","value":"PARSER","ignoreCase":true}},{"id":"version","check":{"type":"regex","pattern":"v\\d+\\.\\d+"}},{"id":"notodo","check":{"type":"contains","value":"TODO","not":true}},{"id":"length","check":{"type":"length","minWords":50,"maxChars":4000}}]},"output":{"summary":"%sStatus: DONE. Version v1.2"}}`, n.Add(1), summary)
			res, err := client.Post(e.http.URL+"/v1/verify", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				b.Errorf("status %d", res.StatusCode)
				return
			}
		}
	})
}
