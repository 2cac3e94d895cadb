package main

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

func TestStartDebug(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:6060"} {
		if _, _, err := startDebug(addr, log); err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("startDebug(%q): %v, want refused: not loopback", addr, err)
		}
	}
	addr, stop, err := startDebug("127.0.0.1:0", log)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	res, err := http.Get("http://" + addr + "/debug/pprof/mutex?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(b), "mutex") {
		t.Errorf("the mutex profile: %d %.200s", res.StatusCode, b)
	}
}
