package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/vouchgate/vouch/bench/internal/pgschema"
	"github.com/vouchgate/vouch/bench/internal/proccpu"
)

// serveBatchBench posts the text batch (n requests, each with an id of
// its own) to a fresh `vouch serve` as one batch, on a fresh SQLite file
// or, with dsn, a fresh schema of a PostgreSQL database (whose jobs the
// server then works itself, no worker running), and times it from the
// POST until the batch is done: the background path of a single server.
func serveBatchBench(n int, dsn string) error {
	dir, bin, lines, cleanup, err := buildWithBatch("vouch-bench-serve-batch-", n)
	if err != nil {
		return err
	}
	defer cleanup()
	store, kind := filepath.Join(dir, "vouch.db"), "a fresh SQLite file (synchronous=FULL)"
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		schemaDSN, drop, err := pgschema.Create(context.Background(), dsn, "vouch_bench_batch")
		if err != nil {
			return err
		}
		defer drop()
		store, kind = schemaDSN, "PostgreSQL (the server works the jobs)"
	} else if dsn != "" {
		return fmt.Errorf("-serve-batch: -store must be a postgres:// DSN, or empty for a fresh SQLite file")
	}
	url, pid, stop, err := startServe(bin, os.Stderr, nil, []string{"--store", store}, "VOUCH_LOG_LEVEL=warn")
	if err != nil {
		return err
	}
	defer stop()
	fmt.Printf("vouch serve with %s: one batch of %d requests x 5 text criteria, %d cores on the machine\n", kind, n, runtime.NumCPU())
	body := append(bytes.Join(lines, []byte("\n")), '\n')
	cpu0, cpuOK := proccpu.Stat(pid)
	start := time.Now()
	res, err := http.Post(url+"/v1/batches", "application/x-ndjson", bytes.NewReader(body))
	if err != nil {
		return err
	}
	var created struct {
		ID string `json:"id"`
	}
	data, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted || json.Unmarshal(data, &created) != nil {
		return fmt.Errorf("POST /v1/batches: %d %s", res.StatusCode, data)
	}
	posted := time.Since(start)
	deadline := start.Add(30 * time.Minute)
	for {
		var st struct {
			State        string `json:"state"`
			Done, Failed int
		}
		res, err := http.Get(url + "/v1/batches/" + created.ID)
		if err != nil {
			return err
		}
		err = json.NewDecoder(res.Body).Decode(&st)
		res.Body.Close()
		if err != nil {
			return err
		}
		if st.State == "done" {
			wall := time.Since(start)
			fmt.Printf("done in %v (the POST itself: %v): %.0f requests/s, %d verified, %d failed\n",
				wall.Round(10*time.Millisecond), posted.Round(10*time.Millisecond), float64(n)/wall.Seconds(), st.Done, st.Failed)
			if cpu1, ok := proccpu.Stat(pid); ok && cpuOK {
				used := cpu1.User + cpu1.System - cpu0.User - cpu0.System
				fmt.Printf("server CPU: %v (%.2f cores), %.0f µs a request\n", used.Round(10*time.Millisecond),
					used.Seconds()/wall.Seconds(), float64(used.Microseconds())/float64(n))
			}
			if w, err := storeWrites(url); err == nil {
				fmt.Printf("store commits since the server started: %.0f, %.1f writes each\n", w.commits, w.writes/max(w.commits, 1))
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("batch %s not done after 30 minutes: %s, %d done", created.ID, st.State, st.Done)
		}
		time.Sleep(50 * time.Millisecond) // polling the batch's state
	}
}
