package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// attackBench runs normal traffic against `vouch serve` (one tenant's
// key, conc clients, n verifications) twice: alone, then beside the
// attacks of a hostile caller, and prints the normal traffic's latency
// and failures in both runs and the server's memory. The attacks:
//   - slots: as many slow bodies as the server has in-flight slots, half
//     keyless POST /login with a made-up CSRF cookie, half POST
//     /v1/verify with the attacker's own key, each trickling a byte at a
//     time and started again when the server cuts it off;
//   - batch memory: batches uploads of batchMiB MiB each, at once, from
//     the attacker's key (their items are then verified in the
//     background, as any tenant's batch is).
//
// Every loop is bounded: the attacks stop when the normal traffic is
// done, and the normal traffic by its count.
func attackBench(n, conc, batches, batchMiB int) error {
	dir, bin, lines, cleanup, err := buildWithBatch("vouch-bench-attack-", n)
	if err != nil {
		return err
	}
	defer cleanup()
	db := filepath.Join(dir, "vouch.db")
	victim, err := createKey(bin, db, "victim")
	if err != nil {
		return err
	}
	attacker, err := createKey(bin, db, "attacker")
	if err != nil {
		return err
	}
	const slots = 64
	url, pid, stop, err := startServe(bin, io.Discard, nil, []string{"--store", db}, "VOUCH_LOG_LEVEL=warn", fmt.Sprintf("VOUCH_MAX_IN_FLIGHT=%d", slots))
	if err != nil {
		return err
	}
	defer stop()
	fmt.Printf("vouch serve, SQLite, maxInFlight %d: normal traffic of %d verifications from %d clients of one tenant\n", slots, n, conc)
	fmt.Printf("attacks: %d slow bodies (%d keyless POST /login, %d POST /v1/verify with the attacker's key); %d batch uploads of %d MiB at a time from the attacker's key\n\n",
		slots, slots/2, slots/2, batches, batchMiB)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc}}
	why := map[int]string{} // the first answer of each refused status
	normal := func(pass string) (lat []time.Duration, failed map[int]int) {
		lat = make([]time.Duration, 0, len(lines))
		failed = map[int]int{}
		var mu sync.Mutex
		var next atomic.Int64
		var wg sync.WaitGroup
		for range conc {
			wg.Go(func() {
				for {
					i := int(next.Add(1) - 1)
					if i >= len(lines) {
						return
					}
					body := bytes.Replace(lines[i], []byte(`"id":"req-`), fmt.Appendf(nil, `"id":"%s-req-`, pass), 1)
					req, _ := http.NewRequest("POST", url+"/v1/verify", bytes.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+victim)
					req.Header.Set("Content-Type", "application/json")
					t0 := time.Now()
					res, err := client.Do(req)
					status, answer := 0, ""
					if err == nil {
						b, _ := io.ReadAll(res.Body)
						res.Body.Close()
						status, answer = res.StatusCode, string(b)
					} else {
						answer = err.Error()
					}
					d := time.Since(t0)
					mu.Lock()
					if status == 200 {
						lat = append(lat, d)
					} else {
						failed[status]++
						if why[status] == "" {
							why[status] = strings.TrimSpace(answer)
						}
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return lat, failed
	}

	normal("warm")
	rss := watchRSS(pid)
	base, baseFailed := normal("base")
	basePeak := rss()

	ctx, cancel := context.WithCancel(context.Background())
	var attacks sync.WaitGroup
	var cut, batchDone, batchRefused atomic.Int64
	for i := range slots {
		attacks.Go(func() {
			for ctx.Err() == nil {
				path, key := "/login", ""
				if i%2 == 1 {
					path, key = "/v1/verify", attacker
				}
				if slowBody(ctx, url, path, key) {
					cut.Add(1)
				}
			}
		})
	}
	for range batches {
		attacks.Go(func() {
			switch code := bigBatch(ctx, url, attacker, batchMiB<<20); {
			case code == 202:
				batchDone.Add(1)
			case code != 0:
				batchRefused.Add(1)
			}
		})
	}
	rss = watchRSS(pid)
	under, underFailed := normal("attack")
	underPeak := rss()
	cancel()
	attacks.Wait()

	row := func(name string, lat []time.Duration, failed map[int]int, peak int64) {
		slices.Sort(lat)
		q := func(p float64) time.Duration {
			if len(lat) == 0 {
				return 0
			}
			return lat[min(len(lat)-1, int(p*float64(len(lat))))].Round(10 * time.Microsecond)
		}
		var fails []string
		for code, k := range failed {
			fails = append(fails, fmt.Sprintf("%d x %s", k, statusName(code)))
		}
		slices.Sort(fails)
		if len(fails) == 0 {
			fails = []string{"none"}
		}
		fmt.Printf("| %s | %d of %d | %v | %v | %s | %d MiB |\n", name, len(lat), len(lines), q(.5), q(.99), strings.Join(fails, ", "), peak>>20)
	}
	fmt.Println("| normal traffic | served | p50 | p99 | refused | server RSS peak |")
	fmt.Println("|---|---|---|---|---|---|")
	row("alone", base, baseFailed, basePeak)
	row("beside the attacks", under, underFailed, underPeak)
	for code, w := range why {
		fmt.Printf("\n%s: %.200s", statusName(code), w)
	}
	fmt.Printf("\nattacks during the run: %d slow bodies cut off by the server, %d batches of %d MiB stored, %d refused\n", cut.Load(), batchDone.Load(), batchMiB, batchRefused.Load())
	return nil
}

func statusName(code int) string {
	if code == 0 {
		return "connection error"
	}
	return fmt.Sprint(code)
}

// createKey makes an API key for tenant with the verify and read scopes
// in the store at db, and returns its secret.
func createKey(bin, db, tenant string) (string, error) {
	out, err := exec.Command(bin, "keys", "create", "--store", db, "--tenant", tenant, "--scope", "verify,read", "--json").Output()
	if err != nil {
		return "", fmt.Errorf("keys create: %w", err)
	}
	var k struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(out, &k); err != nil || k.Key == "" {
		return "", fmt.Errorf("keys create: %q: %v", out, err)
	}
	return k.Key, nil
}

// slowBody sends, over a connection of its own, the headers of a POST
// that announces a 1 MB body and then sends a byte of it every 100 ms,
// until the server answers or ctx ends; it reports whether the server
// cut it off (answered before the body was done).
func slowBody(ctx context.Context, base, path, key string) bool {
	host := strings.TrimPrefix(base, "http://")
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return false
	}
	defer conn.Close()
	h := "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nContent-Length: 1000000\r\n"
	if key != "" {
		h += "Authorization: Bearer " + key + "\r\nContent-Type: application/json\r\n"
	} else {
		h += "Content-Type: application/x-www-form-urlencoded\r\nCookie: vouch_csrf=bWFkZS11cC1ieS1hdHRhY2sh\r\n"
	}
	if _, err := conn.Write([]byte(h + "\r\n")); err != nil {
		return false
	}
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		io.Copy(io.Discard, conn) // ends when the server answers and closes, or ctx closes conn
	}()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			conn.Close()
			<-answered
			return false
		case <-answered:
			return true
		case <-t.C:
			if _, err := conn.Write([]byte("a")); err != nil {
				conn.Close()
				<-answered
				return ctx.Err() == nil
			}
		}
	}
}

// bigBatch uploads a JSONL batch of about size bytes, generated as it is
// sent, and returns the answer's status (0 on a connection error).
func bigBatch(ctx context.Context, url, key string, size int) int {
	line := []byte(`{"id":"big-%d","task":{"goal":"g","criteria":[{"id":"c","text":"says ok","check":{"type":"contains","value":"ok"}}]},"output":{"summary":"` + strings.Repeat("x", 3900) + `"}}` + "\n")
	pr, pw := io.Pipe()
	go func() {
		sent := 0
		for i := 0; sent < size; i++ {
			if ctx.Err() != nil {
				pw.CloseWithError(ctx.Err())
				return
			}
			b := bytes.Replace(line, []byte("%d"), fmt.Append(nil, i), 1)
			if _, err := pw.Write(b); err != nil {
				return
			}
			sent += len(b)
		}
		pw.Close()
	}()
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/batches", pr)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/jsonl")
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		pr.CloseWithError(err)
		return 0
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// watchRSS samples the resident memory of process pid every 50 ms until
// the returned function is called, which returns the highest sample.
func watchRSS(pid int) func() int64 {
	stop := make(chan struct{})
	var peak atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			if st, err := procStatus(pid); err == nil {
				var kb int64
				fmt.Sscanf(st["VmRSS"], "%d", &kb)
				if kb<<10 > peak.Load() {
					peak.Store(kb << 10)
				}
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(stop)
		<-done
		return peak.Load()
	}
}
