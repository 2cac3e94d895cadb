package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/vouchgate/vouch/server/demo"
	"github.com/vouchgate/vouch/store"
)

// startServe runs `vouch serve` (the test binary, as vouch) on a loopback
// port and returns its base URL once it listens.
func startServe(t *testing.T, dir string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	bin := filepath.Join(dir, "vouch")
	if _, err := os.Lstat(bin); err != nil {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(self, bin); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "VOUCH_CACHE=off")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		if _, rest, ok := strings.Cut(line, "listening on "); ok {
			url, _, _ := strings.Cut(rest, " ")
			go io.Copy(io.Discard, stderr)
			return cmd, url
		}
	}
	t.Fatalf("vouch serve ended before listening: %v", sc.Err())
	return nil, ""
}

// TestServeKill9LosesNoAcknowledgedRow runs a load loop against vouch
// serve, kills the server with SIGKILL while requests are in flight, and
// checks that every verification answered 200 is in the log.
func TestServeKill9LosesNoAcknowledgedRow(t *testing.T) {
	dir := t.TempDir()
	dsn := filepath.Join(dir, "vouch.db")
	cmd, url := startServe(t, dir, "--store", dsn)

	const workers, maxRequests, killAfter = 8, 4000, 300
	var (
		mu    sync.Mutex
		acked []string
		next  int
		wg    sync.WaitGroup
	)
	killed := make(chan struct{})
	var once sync.Once
	client := &http.Client{}
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= maxRequests {
					return
				}
				id := fmt.Sprintf("k-%d", i)
				body := fmt.Sprintf(`{"id":%q,"task":{"criteria":[{"check":{"type":"contains","value":"ok"}}]},"output":{"summary":"ok %d"}}`, id, i)
				res, err := client.Post(url+"/v1/verify", "application/json", strings.NewReader(body))
				if err != nil {
					return // the server is gone
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					t.Errorf("%s: status %d", id, res.StatusCode)
					return
				}
				mu.Lock()
				acked = append(acked, id)
				n := len(acked)
				mu.Unlock()
				if n == killAfter {
					once.Do(func() {
						cmd.Process.Signal(syscall.SIGKILL)
						close(killed)
					})
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-killed:
	default:
		t.Fatalf("the load loop ended before the kill: %d acknowledged", len(acked))
	}
	cmd.Wait()

	st, err := store.Open(context.Background(), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	missing := 0
	for _, id := range acked {
		if _, err := st.Get(context.Background(), "default", id, 1); err != nil {
			missing++
			if missing < 5 {
				t.Errorf("acknowledged %s is not in the log: %v", id, err)
			}
		}
	}
	st.Close()
	if missing > 0 {
		t.Fatalf("%d of %d acknowledged verifications lost", missing, len(acked))
	}
	t.Logf("%d acknowledged before and around the kill, all in the log", len(acked))

	// The server starts again on the same log and serves what it holds.
	_, url = startServe(t, dir, "--store", dsn)
	res, err := http.Get(url + "/v1/verifications/" + acked[len(acked)-1])
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.Contains(b, []byte(acked[len(acked)-1])) {
		t.Errorf("after restart: %d %s", res.StatusCode, b)
	}
}

func TestKeysCommands(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "v.db")
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: func(string) string { return "" }})
		return code, out.String(), errb.String()
	}
	code, out, _ := run("keys", "create", "--store", dsn, "--tenant", "acme", "--scope", "verify,review", "--name", "ci")
	secret := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(secret, "vk_") {
		t.Fatalf("create: %d %q", code, out)
	}
	id, _, ok := store.ParseSecret(secret)
	if !ok {
		t.Fatalf("unparsable key %q", secret)
	}
	code, out, _ = run("keys", "list", "--store", dsn)
	if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "verify,review") || strings.Contains(out, secret) {
		t.Errorf("list: %d\n%s", code, out)
	}
	if code, _, errs := run("keys", "create", "--store", dsn, "--tenant", "Bad Name"); code != 2 || !strings.Contains(errs, "--tenant") {
		t.Errorf("bad tenant: %d %s", code, errs)
	}
	if code, _, errs := run("keys", "create", "--store", dsn, "--tenant", "acme", "--scope", "root"); code != 2 || !strings.Contains(errs, "root") {
		t.Errorf("bad scope: %d %s", code, errs)
	}
	if code, _, errs := run("keys", "revoke", "--store", dsn, id); code != 0 || !strings.Contains(errs, "last live key") {
		t.Errorf("revoke of the last key: %d %s", code, errs)
	}
	if code, _, errs := run("keys", "revoke", "--store", dsn, "nope"); code != 2 || !strings.Contains(errs, "no key") {
		t.Errorf("revoke unknown: %d %s", code, errs)
	}
	st, err := store.Open(context.Background(), dsn, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, err := st.ActiveKeys(context.Background()); err != nil || n != 0 {
		t.Errorf("active keys after revoke: %d %v", n, err)
	}
}

func TestServeDemoFlags(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := Main(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb,
			Getenv: func(k string) string {
				if k == "TMPDIR" {
					return dir
				}
				return ""
			}})
		return code, errb.String()
	}
	dsn := filepath.Join(dir, "x.db")
	if code, errs := run("serve", "--demo", "--store", dsn); code != 2 || !strings.Contains(errs, "--demo or --store, not both") {
		t.Errorf("--demo --store: %d %s", code, errs)
	}
	if _, err := os.Stat(dsn); !os.IsNotExist(err) {
		t.Errorf("--demo --store touched the store: %v", err)
	}
	if code, errs := run("serve", "--demo-n", "5"); code != 2 || !strings.Contains(errs, "go with --demo") {
		t.Errorf("--demo-n alone: %d %s", code, errs)
	}
	if code, errs := run("serve", "--demo", "--demo-n", "0"); code != 2 || !strings.Contains(errs, "--demo-n 0") {
		t.Errorf("--demo-n 0: %d %s", code, errs)
	}
}

// TestServeDemo runs `vouch serve --demo`: it fills a temporary store,
// says where and what URL to open, serves the data, and removes the store
// when it stops.
func TestServeDemo(t *testing.T) {
	tmp := t.TempDir()
	bin := filepath.Join(t.TempDir(), "vouch")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--demo", "--demo-n", "80")
	cmd.Env = append(os.Environ(), "VOUCH_CACHE=off", "TMPDIR="+tmp)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	var url, dir string
	sc := bufio.NewScanner(stderr)
	for url == "" && sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "demo data: "); ok {
			var n int
			if _, err := fmt.Sscanf(rest, "%d verifications in %s", &n, &dir); err != nil || n != 80 {
				t.Fatalf("demo line %q: %v", line, err)
			}
			dir = strings.TrimSuffix(dir, ";")
			_, url, _ = strings.Cut(rest, "open ")
		}
	}
	if url == "" {
		t.Fatalf("vouch serve --demo ended without saying where to look: %v", sc.Err())
	}
	go io.Copy(io.Discard, stderr)
	if !strings.HasPrefix(dir, tmp) || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/") {
		t.Errorf("demo in %q, at %q", dir, url)
	}
	if _, err := os.Stat(filepath.Join(dir, "demo.db")); err != nil {
		t.Errorf("the demo store: %v", err)
	}
	res, err := http.Get(url + "v1/metrics")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Verifications int64 `json:"verifications"`
		Labels        struct {
			Labelled int64 `json:"labelled"`
		} `json:"labels"`
	}
	err = json.NewDecoder(res.Body).Decode(&m)
	res.Body.Close()
	if err != nil || res.StatusCode != 200 || m.Verifications != 80 || m.Labels.Labelled == 0 {
		t.Errorf("metrics: %d %+v %v", res.StatusCode, m, err)
	}

	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("vouch serve --demo after SIGINT: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the demo's directory is left after the server stopped: %v", err)
	}
}

// TestServeDashboard checks that vouch serve serves the dashboard beside
// the API, and the API alone with --no-dashboard.
func TestServeDashboard(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		status int
	}{{nil, http.StatusOK}, {[]string{"--no-dashboard"}, http.StatusNotFound}} {
		dir := t.TempDir()
		_, url := startServe(t, dir, append([]string{"--store", filepath.Join(dir, "vouch.db")}, tc.args...)...)
		res, err := http.Get(url + "/static/style.css")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tc.status {
			t.Errorf("serve %v: GET /static/style.css: %d, want %d", tc.args, res.StatusCode, tc.status)
		}
		if res, err := http.Get(url + "/healthz"); err != nil || res.StatusCode != http.StatusOK {
			t.Errorf("serve %v: healthz: %v", tc.args, err)
		} else {
			res.Body.Close()
		}
	}
}

// TestKeysCreateFirstKeyNote checks that making the first key of a store
// that holds open mode's verifications (tenant "default") says what
// becomes of them and how to reach them, and that nothing is said once
// the store has a key, or when it holds no such verification.
func TestKeysCreateFirstKeyNote(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: func(string) string { return "" }})
		return code, out.String(), errb.String()
	}
	seeded := func() string {
		dsn := filepath.Join(t.TempDir(), "v.db")
		s, err := store.Open(t.Context(), dsn, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = demo.Seed(t.Context(), s, demo.Options{N: 2})
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		return dsn
	}

	dsn := seeded()
	// Without --tenant: a usage error that names the tenant of open mode.
	if code, _, errs := run("keys", "create", "--store", dsn); code != 2 || !strings.Contains(errs, "--tenant default keeps them readable") {
		t.Errorf("keys create without --tenant: %d %s", code, errs)
	}
	code, out, errs := run("keys", "create", "--store", dsn, "--tenant", "acme")
	if code != 0 || !strings.HasPrefix(out, "vk_") {
		t.Fatalf("first key: %d %q %s", code, out, errs)
	}
	for _, want := range []string{"this is the store's first key", `belong to tenant "default"`, `this key, of tenant "acme"`,
		"vouch keys create --store " + dsn + " --tenant default --scope read,review"} {
		if !strings.Contains(errs, want) {
			t.Errorf("first key for acme: stderr lacks %q:\n%s", want, errs)
		}
	}
	if code, _, errs := run("keys", "create", "--store", dsn, "--tenant", "default", "--scope", "read"); code != 0 || strings.Contains(errs, "first key") {
		t.Errorf("second key: %d, said %q", code, errs)
	}

	// The first key made for tenant "default" reads them, and says so.
	code, _, errs = run("keys", "create", "--store", seeded(), "--tenant", "default", "--json")
	if code != 0 || !strings.Contains(errs, "first key") || !strings.Contains(errs, `tenant "default", this key's: it reads them`) {
		t.Errorf("first key for default: %d %s", code, errs)
	}

	// A store with nothing of open mode: nothing to say.
	if code, _, errs := run("keys", "create", "--store", filepath.Join(t.TempDir(), "empty.db"), "--tenant", "acme"); code != 0 || strings.Contains(errs, "note:") {
		t.Errorf("first key of an empty store: %d %s", code, errs)
	}
}

// TestServeDemoBindsFirst checks that serve --demo on a port already
// taken fails at once, before it fills its store.
func TestServeDemoBindsFirst(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var out, errb bytes.Buffer
	// 100,000 verifications would take minutes to make: the test ends at
	// once only if the port is tried first.
	code := Main(t.Context(), []string{"serve", "--demo", "--demo-n", "100000", "--addr", ln.Addr().String()},
		Streams{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: func(string) string { return "" }})
	if code != 1 || !strings.Contains(errb.String(), "cannot listen on "+ln.Addr().String()) || strings.Contains(errb.String(), "making") {
		t.Errorf("serve --demo on a taken port: exit %d: %s", code, errb.String())
	}
}
