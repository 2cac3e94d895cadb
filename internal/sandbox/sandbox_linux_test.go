package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// TestMain lets the test binary be the command a run starts: with
// SANDBOX_TEST_ACT set (through Config.Env), it does that and exits.
func TestMain(m *testing.M) {
	switch os.Getenv("SANDBOX_TEST_ACT") {
	case "":
		os.Exit(m.Run())
	case "dial":
		c, err := net.DialTimeout("tcp", os.Getenv("SANDBOX_TEST_ADDR"), 2*time.Second)
		if err != nil {
			fmt.Println("dial failed:", err)
			os.Exit(3)
		}
		c.Close()
		fmt.Println("dial ok")
	case "loopback":
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Println("listen failed:", err)
			os.Exit(3)
		}
		go func() {
			if c, err := l.Accept(); err == nil {
				c.Close()
			}
		}()
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			fmt.Println("dial failed:", err)
			os.Exit(3)
		}
		c.Close()
		fmt.Println("loopback ok")
	}
	os.Exit(0)
}

func runIn(t *testing.T, c Config) Result {
	t.Helper()
	if c.Dir == "" {
		c.Dir = t.TempDir()
	}
	if c.Timeout == 0 {
		c.Timeout = 30 * time.Second
	}
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatalf("Run(%q): %v", c.Argv, err)
	}
	return res
}

func TestExitCodeAndOutput(t *testing.T) {
	res := runIn(t, Config{Argv: []string{"sh", "-c", "echo out; echo err >&2; exit 3"}})
	if res.ExitCode != 3 || res.Stdout != "out\n" || res.Stderr != "err\n" || res.TimedOut || res.Signal != "" {
		t.Errorf("got %+v", res)
	}
	if !res.Confinement.Supervised || !res.Confinement.Limits {
		t.Errorf("confinement %+v", res.Confinement)
	}
}

func TestStartError(t *testing.T) {
	_, err := Run(context.Background(), Config{Argv: []string{"no-such-program-vouch"}, Dir: t.TempDir(), Timeout: time.Minute})
	if err == nil || !strings.Contains(err.Error(), "no-such-program-vouch") {
		t.Fatalf("err = %v", err)
	}
}

// TestEnvironment: the run sees a minimal environment with a HOME, caches
// and TMPDIR of its own, outside the workspace, removed afterwards; none
// of vouch's own variables.
func TestEnvironment(t *testing.T) {
	t.Setenv("VOUCH_TEST_API_KEY", "sk-test-0123456789")
	ws := t.TempDir()
	res := runIn(t, Config{Argv: []string{"env"}, Dir: ws, Env: map[string]string{"OPERATOR_SET": "yes"}})
	env := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		k, v, _ := strings.Cut(l, "=")
		env[k] = v
	}
	if _, ok := env["VOUCH_TEST_API_KEY"]; ok || strings.Contains(res.Stdout, "sk-test") {
		t.Error("vouch's environment reached the run")
	}
	if _, ok := env[stageEnv]; ok {
		t.Error("the supervisor's marker reached the run")
	}
	for _, k := range []string{"HOME", "TMPDIR", "GOCACHE", "XDG_CACHE_HOME"} {
		v := env[k]
		if v == "" || strings.HasPrefix(v, ws) {
			t.Errorf("%s = %q: want a directory outside the workspace %s", k, v, ws)
		}
	}
	if env["GOENV"] != "off" || env["GOFLAGS"] != "" || env["GOTOOLCHAIN"] != "local" || env["OPERATOR_SET"] != "yes" {
		t.Errorf("env = %v", env)
	}
	for _, k := range []string{"HOME", "TMPDIR", "GOCACHE"} {
		if _, err := os.Stat(env[k]); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the run's %s %s is still there (%v)", k, env[k], err)
		}
	}
}

// alive reports whether a process whose command line holds token still
// runs anywhere on the machine: the pids a run prints are those of its own
// PID namespace, so processes are found by a token of their arguments.
func alive(token string) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), token) {
			return true
		}
	}
	return false
}

// sleeper is a sleep of about 1000 seconds whose argument is unique to the
// test, to find it with alive.
func sleeper(t *testing.T) string {
	return fmt.Sprintf("1000.%d", time.Now().UnixNano()%1_000_000_000)
}

// TestLeftoversKilled: a process the command left behind, in a session of
// its own, is killed when the command exits.
func TestLeftoversKilled(t *testing.T) {
	tok := sleeper(t)
	res := runIn(t, Config{Argv: []string{"sh", "-c", "setsid sleep " + tok + " & echo started"}})
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "started") {
		t.Fatalf("got %+v", res)
	}
	if alive(tok) {
		t.Errorf("the detached sleep %s outlived the run", tok)
	}
}

// TestTimeoutKillsEverything: at the timeout the command and everything it
// started are killed, and the run reports the timeout.
func TestTimeoutKillsEverything(t *testing.T) {
	tok := sleeper(t)
	res := runIn(t, Config{Argv: []string{"sh", "-c", "setsid sleep " + tok + " & exec sleep " + tok}, Timeout: 300 * time.Millisecond})
	if !res.TimedOut || res.ExitCode != -1 {
		t.Errorf("got %+v, want a timeout", res)
	}
	if alive(tok) {
		t.Errorf("a sleep %s outlived the run", tok)
	}
}

func TestCancel(t *testing.T) {
	tok := sleeper(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res, err := Run(ctx, Config{Argv: []string{"sh", "-c", "setsid sleep " + tok + " & exec sleep " + tok}, Dir: t.TempDir(), Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled || res.ExitCode != -1 {
		t.Errorf("got %+v, want cancelled", res)
	}
	if alive(tok) {
		t.Errorf("a sleep %s outlived the cancelled run", tok)
	}
}

func TestFileSizeLimit(t *testing.T) {
	ws := t.TempDir()
	res := runIn(t, Config{Argv: []string{"sh", "-c", "head -c 3000000 /dev/zero > big"}, Dir: ws, Limits: Limits{FileBytes: 1 << 20}})
	fi, err := os.Stat(filepath.Join(ws, "big"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 1<<20 || res.ExitCode == 0 {
		t.Errorf("wrote %d bytes, exit %d: the file size limit did not hold", fi.Size(), res.ExitCode)
	}
}

func TestCPULimit(t *testing.T) {
	res := runIn(t, Config{Argv: []string{"sh", "-c", "while :; do :; done"}, Limits: Limits{CPU: time.Second}})
	if res.Signal != "CPU time limit exceeded" && res.Signal != "killed" {
		t.Errorf("got %+v, want the loop killed by its CPU limit", res)
	}
	if res.TimedOut {
		t.Error("the wall-clock timeout, not the CPU limit, ended the loop")
	}
}

// TestWritesConfined: with Landlock, the run can write the workspace and its
// own temporary directory, and nothing else.
func TestWritesConfined(t *testing.T) {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		t.Skipf("this kernel has no Landlock (%v): writes cannot be confined here", err)
	}
	ws, outside := t.TempDir(), t.TempDir()
	script := fmt.Sprintf(`echo in > inside; echo tmp > "$TMPDIR/t" && echo tmp-ok; echo out > %s/escaped; exit 0`, outside)
	res := runIn(t, Config{Argv: []string{"sh", "-c", script}, Dir: ws})
	if res.Confinement.Landlock != abi {
		t.Errorf("Landlock ABI %d in force, want %d (notes %v)", res.Confinement.Landlock, abi, res.Confinement.Notes)
	}
	if _, err := os.Stat(filepath.Join(ws, "inside")); err != nil {
		t.Errorf("the run could not write its workspace: %v (%s)", err, res.Stderr)
	}
	if !strings.Contains(res.Stdout, "tmp-ok") {
		t.Errorf("the run could not write its TMPDIR: %s", res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the run wrote outside the workspace (%v)", err)
	}
}

// TestNetworkIsolated: the run cannot reach a server of the host, but can
// use its own loopback.
func TestNetworkIsolated(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SANDBOX_TEST_ACT": "dial", "SANDBOX_TEST_ADDR": l.Addr().String(), "GORACE": "atexit_sleep_ms=0"}
	res := runIn(t, Config{Argv: []string{self}, Env: env})
	if res.Confinement.Network != "isolated" {
		t.Skipf("the kernel gave no network namespace: %v", res.Confinement.Notes)
	}
	if res.ExitCode != 3 || !strings.Contains(res.Stdout, "dial failed") {
		t.Errorf("the isolated run reached the host's server: %+v", res)
	}
	res = runIn(t, Config{Argv: []string{self}, Env: env, Network: true})
	if res.ExitCode != 0 || res.Confinement.Network != "allowed" {
		t.Errorf("with the network allowed, the dial failed: %+v", res)
	}
	res = runIn(t, Config{Argv: []string{self}, Env: map[string]string{"SANDBOX_TEST_ACT": "loopback", "GORACE": "atexit_sleep_ms=0"}})
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "loopback ok") {
		t.Errorf("the isolated run could not use its own loopback: %+v", res)
	}
}

// TestStatusNotForgeable: the command cannot write to the supervisor's
// status pipe, so it cannot forge its own result.
func TestStatusNotForgeable(t *testing.T) {
	res := runIn(t, Config{Argv: []string{"sh", "-c", `echo '{"exit":0}' >&4; echo 'pid 1' >&4; exit 7`}})
	if res.ExitCode != 7 {
		t.Errorf("exit %d, want 7: the command reached the status pipe", res.ExitCode)
	}
}

// TestSupervisorOutOfReach: the command can neither kill its supervisor
// (the init of its PID namespace) nor write to its status pipe, so it can
// neither escape the kill nor forge its result nor hang the run.
func TestSupervisorOutOfReach(t *testing.T) {
	tok := sleeper(t)
	res := runIn(t, Config{Argv: []string{"sh", "-c", "setsid sleep " + tok + " & kill -9 $PPID; kill -9 1; exit 7"}})
	if !res.Confinement.PIDNamespace {
		t.Skipf("the kernel gave no PID namespace: %v", res.Confinement.Notes)
	}
	if res.ExitCode != 7 {
		t.Errorf("exit %d, want 7: the command reached its supervisor (%+v)", res.ExitCode, res)
	}
	if alive(tok) {
		t.Errorf("a sleep %s outlived the run", tok)
	}
	// No write to the supervisor's status pipe, no hold on it.
	script := `if [ "$PPID" != 1 ]; then printf '{"exit":0}\n' > /proc/$PPID/fd/4; fi; ` +
		`( exec 5>/proc/$PPID/fd/4 ); setsid sleep ` + tok + ` & exit 7`
	start := time.Now()
	res = runIn(t, Config{Argv: []string{"sh", "-c", script}, Timeout: 20 * time.Second})
	if res.ExitCode != 7 {
		t.Errorf("exit %d, want 7: a forged status was believed (%+v)", res.ExitCode, res)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the run took %v: something held it", took)
	}
	if alive(tok) {
		t.Errorf("a sleep %s outlived the run", tok)
	}
}

// TestConfinementNotes: what this kernel's Landlock leaves open is said.
func TestConfinementNotes(t *testing.T) {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		t.Skip("no Landlock")
	}
	res := runIn(t, Config{Argv: []string{"true"}})
	notes := strings.Join(res.Confinement.Notes, "; ")
	if abi < 9 && !strings.Contains(notes, "Unix sockets") {
		t.Errorf("ABI %d: no note on Unix sockets: %q", abi, notes)
	}
	if os.Geteuid() == 0 && !strings.Contains(notes, "root") {
		t.Errorf("running as root: no note: %q", notes)
	}
}

// BenchmarkRun measures what the sandbox adds to a command that does
// nothing: the temporary directories, the supervisor and the confiner (two
// re-executions of this binary), the namespaces and the Landlock ruleset.
func BenchmarkRun(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		res, err := Run(context.Background(), Config{Argv: []string{"true"}, Dir: dir, Timeout: time.Minute})
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("%+v %v", res, err)
		}
	}
}
