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
	for e.srv.bodies.inUse() < n {
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
	if n := e.srv.bodies.inUse(); n != 0 {
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
	if n := e.srv.bodies.inUse(); n != 0 {
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
	if res.status != 503 || res.header.Get("Retry-After") == "" || !bytes.Contains(res.body, []byte("limit of request bodies")) {
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
	if n := e.srv.bodies.inUse(); n != 0 {
		t.Errorf("%d body bytes still held", n)
	}
}

func TestReadHeldAccounts(t *testing.T) {
	s := &Server{bodies: newBudget(1<<20, 1<<20)}
	for _, n := range []int{0, 1, 16 << 10, 16<<10 + 1, 100_000} {
		data := bytes.Repeat([]byte("a"), n)
		for _, declared := range []int64{-1, int64(n)} {
			got, held, err := s.readHeld("a", io.MultiReader(bytes.NewReader(data)), declared, 200_000)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%d bytes (declared %d): %v, read %d", n, declared, err, len(got))
			}
			if held < int64(n) || held > 2*int64(n)+16<<10 || s.bodies.inUse() != held {
				t.Errorf("%d bytes (declared %d): held %d, budget counts %d", n, declared, held, s.bodies.inUse())
			}
			s.bodies.give("a", held)
		}
	}
	_, held, err := s.readHeld("a", bytes.NewReader(make([]byte, 1001)), -1, 1000)
	if err != errOverMax {
		t.Errorf("over the limit: %v", err)
	}
	s.bodies.give("a", held)
	// A declared length is no reservation: a body that says 1 MB and
	// sends 10 bytes holds its first buffer, not a megabyte.
	_, held, err = s.readHeld("a", strings.NewReader("0123456789"), 1<<20, 4<<20)
	if err == nil || held != 16<<10 {
		t.Errorf("a short body declared 1 MB: %v, held %d, want an error and 16 KiB", err, held)
	}
	s.bodies.give("a", held)
	// Each caller has its share; another caller is not refused for it.
	s.bodies = newBudget(64<<10, 32<<10)
	if _, held, err := s.readHeld("a", bytes.NewReader(make([]byte, 40<<10)), -1, 1<<20); err != errBodyBudget {
		t.Errorf("past a caller's share: %v, held %d", err, held)
	} else {
		s.bodies.give("a", held)
	}
	if _, held, err := s.readHeld("b", bytes.NewReader(make([]byte, 20<<10)), -1, 1<<20); err != nil {
		t.Errorf("another caller within its share: %v", err)
	} else {
		s.bodies.give("b", held)
	}
	if s.bodies.inUse() != 0 {
		t.Errorf("budget not given back: %d", s.bodies.inUse())
	}
}

// Slow bodies that announce a large length hold only what they sent:
// as many of them as there are slots leave the budget to everyone else.
// Before, a declared length was reserved whole, so 64 bodies announcing
// 4 MiB each took a 256 MiB budget without sending it.
func TestSlowBodiesHoldWhatTheySent(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.MaxHeldBodyBytes = 8 << 20 })
	var finishes []func([]byte)
	for range 16 {
		f, _ := e.slowBody("/v1/verify", http.Header{"Content-Type": {"application/json"}}, 4<<20)
		finishes = append(finishes, f)
	}
	e.waitHeld(16 * (16 << 10))
	if res := e.do("POST", "/v1/verify", "", request("v", 1, "DONE")); res.status != 200 {
		t.Fatalf("a request beside 16 slow bodies of 4 MiB announced: %d %s", res.status, res.body)
	}
	for _, f := range finishes {
		f(nil)
	}
}
