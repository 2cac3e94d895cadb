package server

import (
	"bytes"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
)

// slowBody starts a POST whose body trickles in: its first bytes are
// sent, the rest when the returned finish is called. It returns the
// answer's status on done (0 when the request failed).
func (e *testEnv) slowBody(path string, header http.Header, length int64) (finish func(rest []byte), done <-chan int) {
	e.t.Helper()
	pr, pw := io.Pipe()
	req, err := http.NewRequest("POST", e.http.URL+path, pr)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header = header
	req.ContentLength = length
	c := make(chan int, 1)
	go func() {
		res, err := e.http.Client().Do(req)
		if err != nil {
			c <- 0
			return
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		c <- res.StatusCode
	}()
	e.t.Cleanup(func() { pw.Close() })
	pw.Write([]byte(`{"task":`))
	return func(rest []byte) {
		pw.Write(rest)
		pw.Close()
	}, c
}

// waitHeld waits until the server holds at least n body bytes.
func (e *testEnv) waitHeld(n int64) {
	for e.srv.bodies.used.Load() < n {
		runtime.Gosched()
	}
}

// A body that trickles in holds no in-flight slot: with one slot, a
// second request is served while the first one's body is still arriving
// (before, the first took the slot and every other caller got 429).
func TestSlowBodyHoldsNoSlot(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxInFlight = 1 })
	finish, done := e.slowBody("/v1/verify", http.Header{"Content-Type": {"application/json"}}, -1)
	e.waitHeld(1)
	if res := e.do("POST", "/v1/verify", "", request("other", 1, "DONE")); res.status != 200 {
		t.Fatalf("a request beside a slow body: %d %s", res.status, res.body)
	}
	finish([]byte(`{"goal":"g"},"output":{"summary":"DONE"}}`))
	if code := <-done; code != 200 {
		t.Errorf("the slow request once its body arrived: %d", code)
	}
	if n := e.srv.bodies.used.Load(); n != 0 {
		t.Errorf("%d body bytes still held after both requests", n)
	}
}

// Slow sign-in bodies with a made-up CSRF cookie, as many as there are
// slots, leave the API answering.
func TestSlowLoginsLeaveTheAPI(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxInFlight = 4 })
	secret, _ := e.key("acme", "verify")
	var finishes []func([]byte)
	var dones []<-chan int
	for range 4 {
		h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Cookie": {"vouch_csrf=bWFkZS11cC1ieS1hdHRhY2sh"}}
		f, d := e.slowBody("/login", h, -1)
		finishes, dones = append(finishes, f), append(dones, d)
	}
	e.waitHeld(4 * (16 << 10))
	if res := e.do("POST", "/v1/verify", secret, request("v", 1, "DONE")); res.status != 200 {
		t.Fatalf("a tenant's verify beside 4 slow sign-ins: %d %s", res.status, res.body)
	}
	for i, f := range finishes {
		f([]byte("x"))
		<-dones[i]
	}
}

// Each caller has its own share of the slots: a key at its share is
// answered 429, naming its share, while another key is served.
func TestInFlightSharePerCaller(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxInFlight = 4; c.MaxInFlightPerCaller = 2 })
	greedy, gk := e.key("greedy", "verify")
	other, _ := e.key("other", "verify")
	caller := "key:" + gk.ID
	for range 2 {
		if full := e.srv.slots.enter(caller); full != "" {
			t.Fatalf("taking the greedy key's share: %s", full)
		}
	}
	if full := e.srv.slots.enter(caller); full != "caller" {
		t.Fatalf("a third slot for one caller: %q, want caller", full)
	}
	res := e.do("POST", "/v1/verify", greedy, request("g", 1, "DONE"))
	if res.status != 429 || !bytes.Contains(res.body, []byte("its share")) {
		t.Fatalf("the greedy key past its share: %d %s", res.status, res.body)
	}
	if res := e.do("POST", "/v1/verify", other, request("o", 1, "DONE")); res.status != 200 {
		t.Fatalf("another key beside it: %d %s", res.status, res.body)
	}
	e.srv.slots.leave(caller)
	e.srv.slots.leave(caller)
	if n := e.srv.slots.inUse(caller); n != 0 {
		t.Errorf("%d slots left to the greedy key", n)
	}
	if res := e.do("POST", "/v1/verify", greedy, request("g", 1, "DONE")); res.status != 200 {
		t.Fatalf("the greedy key within its share again: %d %s", res.status, res.body)
	}
}

// A body that does not arrive within the body timeout is answered 408;
// the bytes it held are given back.
func TestBodyTimeout(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.Timeouts.Body = vouch.Duration(50 * time.Millisecond) })
	_, done := e.slowBody("/v1/verify", http.Header{"Content-Type": {"application/json"}}, -1)
	if code := <-done; code != http.StatusRequestTimeout {
		t.Fatalf("a body that never ends: %d, want 408", code)
	}
	if n := e.srv.bodies.used.Load(); n != 0 {
		t.Errorf("%d body bytes still held", n)
	}
}

// The server holds no more body bytes than its budget: past it, a
// request is answered 503 with Retry-After, and served once the bytes
// are given back.
func TestBodyBudget(t *testing.T) {
	const max = 2000
	e := newEnv(t, func(c *Config) { c.MaxRequestBytes = max; c.MaxHeldBodyBytes = max })
	body := request("b", 1, "DONE")
	finish, done := e.slowBody("/v1/verify", http.Header{"Content-Type": {"application/json"}}, max)
	e.waitHeld(max)
	res := e.do("POST", "/v1/verify", "", body)
	if res.status != 503 || res.header.Get("Retry-After") == "" || !bytes.Contains(res.body, []byte("bytes of request bodies")) {
		t.Fatalf("a body past the budget: %d %s", res.status, res.body)
	}
	rest := `{"goal":"g"},"output":{"summary":"DONE"}}`
	finish([]byte(rest + strings.Repeat(" ", max-len(`{"task":`)-len(rest))))
	if code := <-done; code != 200 {
		t.Fatalf("the held request: %d", code)
	}
	if res := e.do("POST", "/v1/verify", "", body); res.status != 200 {
		t.Fatalf("with the budget given back: %d %s", res.status, res.body)
	}
}

// Bodies over the limit are refused before they are held, whether their
// length is declared or not.
func TestHeldBodyTooLarge(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxRequestBytes = 1000; c.MaxHeldBodyBytes = 1000 })
	big := bytes.Repeat([]byte(" "), 1001)
	if res := e.do("POST", "/v1/verify", "", big); res.status != 413 {
		t.Errorf("declared length over the limit: %d %s", res.status, res.body)
	}
	req, _ := http.NewRequest("POST", e.http.URL+"/v1/verify", io.MultiReader(bytes.NewReader(big)))
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = -1
	res, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 413 {
		t.Errorf("chunked body over the limit: %d %s", res.StatusCode, b)
	}
	if n := e.srv.bodies.used.Load(); n != 0 {
		t.Errorf("%d body bytes still held", n)
	}
}

func TestReadHeldAccounts(t *testing.T) {
	s := &Server{bodies: &budget{max: 1 << 20}}
	for _, n := range []int{0, 1, 16 << 10, 16<<10 + 1, 100_000} {
		data := bytes.Repeat([]byte("a"), n)
		got, held, err := s.readHeld(io.MultiReader(bytes.NewReader(data)), -1, 200_000)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%d bytes: %v, read %d", n, err, len(got))
		}
		if held < int64(n) || s.bodies.used.Load() != held {
			t.Errorf("%d bytes: held %d, budget counts %d", n, held, s.bodies.used.Load())
		}
		s.bodies.give(held)
	}
	_, held, err := s.readHeld(bytes.NewReader(make([]byte, 1001)), -1, 1000)
	if err != errOverMax {
		t.Errorf("over the limit: %v", err)
	}
	s.bodies.give(held)
	s.bodies.max = 10
	if _, held, err := s.readHeld(strings.NewReader("x"), -1, 1000); err != errBodyBudget || held != 0 {
		t.Errorf("past the budget: %v, held %d", err, held)
	}
	if s.bodies.used.Load() != 0 {
		t.Errorf("budget not given back: %d", s.bodies.used.Load())
	}
}
