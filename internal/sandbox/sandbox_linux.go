package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// The supervisor is this same program, re-executed with helperEnv set: the
// init function below takes over before main runs. It reads its spec from
// file descriptor 3 and reports on file descriptor 4: first "pid N" once
// the command started, then one JSON status line.
const helperEnv = "VOUCH_SANDBOX_SUPERVISOR"

func init() {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(supervise())
	}
}

// spec is what the parent tells the supervisor.
type spec struct {
	Argv     []string      `json:"argv"`
	Env      []string      `json:"env"`
	Timeout  time.Duration `json:"timeout"`
	Limits   Limits        `json:"limits"`
	Writable []string      `json:"writable"`
	// Netns is true when the supervisor was started in a network
	// namespace of its own, whose loopback it brings up.
	Netns bool `json:"netns"`
}

// status is what the supervisor reports.
type status struct {
	Exit      int      `json:"exit"`
	Signal    int      `json:"signal,omitempty"`
	TimedOut  bool     `json:"timedOut,omitempty"`
	Cancelled bool     `json:"cancelled,omitempty"`
	StartErr  string   `json:"startErr,omitempty"`
	Limits    bool     `json:"limits"`
	Landlock  int      `json:"landlock"`
	Notes     []string `json:"notes,omitempty"`
}

// grace is how long the parent waits for the supervisor past the timeout
// before killing it and the command's process group itself.
const grace = 5 * time.Second

func run(ctx context.Context, c Config, tmp string, env []string) (Result, error) {
	res := Result{ExitCode: -1}
	writable := []string{c.Dir, tmp}
	for _, w := range c.Writable {
		if fi, err := os.Stat(w); err == nil && fi.IsDir() {
			writable = append(writable, w)
		} else {
			res.Confinement.Notes = append(res.Confinement.Notes, fmt.Sprintf("commands.writable %s is not a directory", w))
		}
	}
	sp := spec{Argv: c.Argv, Env: env, Timeout: c.Timeout, Limits: c.Limits, Writable: writable}

	out, errb := &capped{max: c.MaxOutput}, &capped{max: c.MaxOutput}
	start := time.Now()
	cmd, statusR, cancel, err := startSupervisor(ctx, c, &sp, out, errb, &res.Confinement)
	if err != nil {
		return res, err
	}
	defer cancel()
	var (
		lines []string
		wg    sync.WaitGroup
	)
	wg.Go(func() {
		sc := bufio.NewScanner(statusR)
		sc.Buffer(make([]byte, 4096), 1<<20)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
	})
	werr := cmd.Wait()
	wg.Wait()
	statusR.Close()
	res.Duration = time.Since(start)
	res.Stdout, res.Stderr = out.buf.String(), errb.buf.String()
	res.Truncated = out.dropped+errb.dropped > 0
	res.Confinement.Supervised = true

	var st *status
	pgid := 0
	for _, l := range lines {
		if p, ok := strings.CutPrefix(l, "pid "); ok {
			if pgid == 0 {
				pgid, _ = strconv.Atoi(p)
			}
			continue
		}
		var s status
		if json.Unmarshal([]byte(l), &s) == nil {
			st = &s
		}
	}
	if st == nil {
		// The supervisor died before reporting (killed at the end of the
		// grace period): its command's group may still run.
		if pgid > 0 {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
		if ctx.Err() != nil {
			res.Cancelled = true
			return res, nil
		}
		return res, fmt.Errorf("sandbox: the supervisor failed: %v", werr)
	}
	if st.StartErr != "" {
		return res, fmt.Errorf("sandbox: start %s: %s", c.Argv[0], st.StartErr)
	}
	res.Confinement.Limits, res.Confinement.Landlock = st.Limits, st.Landlock
	res.Confinement.Notes = append(res.Confinement.Notes, st.Notes...)
	res.TimedOut, res.Cancelled = st.TimedOut, st.Cancelled
	if st.Signal != 0 {
		res.Signal = signalName(st.Signal)
	} else if !st.TimedOut && !st.Cancelled {
		res.ExitCode = st.Exit
	}
	return res, nil
}

// startSupervisor starts the supervisor, in namespaces of its own when the
// network is denied, and hands it its spec.
func startSupervisor(ctx context.Context, c Config, sp *spec, out, errb *capped, conf *Confinement) (*exec.Cmd, *os.File, context.CancelFunc, error) {
	self, err := os.Executable()
	if err != nil {
		self = "/proc/self/exe"
	}
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		self = "/proc/self/exe" // the very binary running, even if replaced on disk since
	}
	attempt := func(clone uintptr) (*exec.Cmd, *os.File, context.CancelFunc, error) {
		specR, specW, err := os.Pipe()
		if err != nil {
			return nil, nil, nil, err
		}
		statusR, statusW, err := os.Pipe()
		if err != nil {
			specR.Close()
			specW.Close()
			return nil, nil, nil, err
		}
		// The supervisor enforces the timeout; the parent steps in only
		// past it, or when the caller cancels.
		cctx, cancel := context.WithTimeout(ctx, c.Timeout+grace)
		cmd := exec.CommandContext(cctx, self)
		// GORACE: a supervisor built with the race detector would
		// otherwise sleep a second at exit.
		cmd.Env = []string{helperEnv + "=1", "GORACE=atexit_sleep_ms=0"}
		cmd.Dir = c.Dir
		cmd.Stdout, cmd.Stderr = out, errb
		cmd.ExtraFiles = []*os.File{specR, statusW}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM, Cloneflags: clone}
		if clone&syscall.CLONE_NEWUSER != 0 {
			uid, gid := os.Getuid(), os.Getgid()
			cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
			cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		}
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = grace
		err = cmd.Start()
		specR.Close()
		statusW.Close()
		if err != nil {
			cancel()
			specW.Close()
			statusR.Close()
			return nil, nil, nil, err
		}
		sp.Netns = clone&syscall.CLONE_NEWNET != 0
		b, _ := json.Marshal(sp)
		_, werr := specW.Write(append(b, '\n'))
		specW.Close()
		if werr != nil {
			_ = cmd.Process.Kill()
		}
		return cmd, statusR, cancel, nil
	}
	if c.Network {
		conf.Network = "allowed"
		return attempt(0)
	}
	clone := uintptr(syscall.CLONE_NEWNET)
	if os.Geteuid() != 0 {
		clone |= syscall.CLONE_NEWUSER
	}
	cmd, statusR, cancel, err := attempt(clone)
	if err == nil {
		conf.Network = "isolated"
		return cmd, statusR, cancel, nil
	}
	conf.Network = "open"
	conf.Notes = append(conf.Notes, "the kernel refused a network namespace ("+err.Error()+"): the network is not isolated")
	return attempt(0)
}

// supervise is the supervisor's main: confine itself, start the command,
// wait for it within the timeout, kill everything it left, report.
func supervise() int {
	specF, statusF := os.NewFile(3, "spec"), os.NewFile(4, "status")
	if specF == nil || statusF == nil {
		return 125
	}
	var sp spec
	if err := json.NewDecoder(specF).Decode(&sp); err != nil {
		return 125
	}
	specF.Close()
	// The command must not inherit the status pipe: it could forge a
	// report.
	syscall.CloseOnExec(4)
	report := func(st status) int {
		b, _ := json.Marshal(st)
		_, _ = statusF.Write(append(b, '\n'))
		return 0
	}
	var st status

	// Everything the command starts is reparented here when its parent
	// dies, so that it can be killed.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		st.Notes = append(st.Notes, "no subreaper: "+err.Error())
	}
	if sp.Netns {
		if err := loopbackUp(); err != nil {
			st.Notes = append(st.Notes, "loopback not up: "+err.Error())
		}
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)

	st.Limits = setLimits(sp, &st)
	st.Landlock = confine(sp, &st)

	os.Clearenv()
	for _, kv := range sp.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			_ = os.Setenv(k, v)
		}
	}
	prog, err := exec.LookPath(sp.Argv[0])
	if err != nil {
		st.StartErr = err.Error()
		return report(st)
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		st.StartErr = err.Error()
		return report(st)
	}
	pid, err := syscall.ForkExec(prog, sp.Argv, &syscall.ProcAttr{
		Env:   sp.Env,
		Files: []uintptr{devnull.Fd(), 1, 2},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	devnull.Close()
	if err != nil {
		st.StartErr = err.Error()
		return report(st)
	}
	_, _ = fmt.Fprintf(statusF, "pid %d\n", pid)

	type waited struct {
		ws  syscall.WaitStatus
		err error
	}
	exited := make(chan waited, 1)
	go func() {
		for {
			var ws syscall.WaitStatus
			p, err := syscall.Wait4(pid, &ws, 0, nil)
			if err == syscall.EINTR {
				continue
			}
			if p == pid || err != nil {
				exited <- waited{ws, err}
				return
			}
		}
	}()
	timer := time.NewTimer(sp.Timeout)
	select {
	case w := <-exited:
		ws := w.ws
		switch {
		case w.err != nil:
			st.StartErr = "wait: " + w.err.Error()
		case ws.Signaled():
			st.Signal = int(ws.Signal())
		default:
			st.Exit = ws.ExitStatus()
		}
	case <-timer.C:
		st.TimedOut = true
	case <-term:
		st.Cancelled = true
	}
	killAll(pid)
	return report(st)
}

// setLimits sets the resource limits every process of the run inherits.
func setLimits(sp spec, st *status) bool {
	ok := true
	set := func(what string, res int, soft, hard uint64) {
		if err := unix.Setrlimit(res, &unix.Rlimit{Cur: soft, Max: hard}); err != nil {
			ok = false
			st.Notes = append(st.Notes, fmt.Sprintf("limit on %s not set: %v", what, err))
		}
	}
	cpu := sp.Limits.CPU
	if cpu <= 0 {
		cpu = sp.Timeout
	}
	secs := uint64((cpu + time.Second - 1) / time.Second)
	set("CPU time", unix.RLIMIT_CPU, secs, secs+1)
	set("core dumps", unix.RLIMIT_CORE, 0, 0)
	if m := sp.Limits.MemoryBytes; m > 0 {
		set("data size", unix.RLIMIT_DATA, uint64(m), uint64(m))
	}
	if f := sp.Limits.FileBytes; f > 0 {
		set("file size", unix.RLIMIT_FSIZE, uint64(f), uint64(f))
	}
	if n := sp.Limits.Processes; n > 0 {
		set("processes", unix.RLIMIT_NPROC, uint64(n), uint64(n))
	}
	return ok
}

// confine restricts, with Landlock, what the supervisor and everything it
// starts may write, and which processes and abstract sockets outside the
// run they may reach. It returns the ABI version in force, 0 when Landlock
// is unavailable.
func confine(sp spec, st *status) int {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		st.Notes = append(st.Notes, "Landlock is not available: writes are not confined to the workspace")
		return 0
	}
	cfg, err := landlock.NewConfig(landlock.V11.HandledAccessFS, landlock.V11.Scoped)
	if err != nil {
		st.Notes = append(st.Notes, "Landlock: "+err.Error())
		return 0
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWDirs(sp.Writable...).WithRefer().WithResolveUnix(),
		landlock.RWDirs("/dev/shm").WithResolveUnix().IgnoreIfMissing(),
		landlock.RWFiles(os.DevNull, "/dev/zero", "/dev/full").WithIoctlDev().IgnoreIfMissing(),
	}
	if err := cfg.BestEffort().Restrict(rules...); err != nil {
		st.Notes = append(st.Notes, "Landlock: "+err.Error())
		return 0
	}
	return abi
}

// loopbackUp brings up the loopback interface of a new network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// killAll kills the command's process group and every process reparented
// to the supervisor, and reaps them, until none is left.
func killAll(pgid int) {
	self := os.Getpid()
	for round := 0; ; round++ {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		for _, p := range children(self) {
			_ = syscall.Kill(p, syscall.SIGKILL)
			_ = syscall.Kill(-p, syscall.SIGKILL)
		}
		var ws syscall.WaitStatus
		p, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.ECHILD):
			return
		case err == syscall.EINTR || p > 0:
			continue
		}
		// Children remain and none has exited yet: every one was sent
		// SIGKILL above, so a blocking wait returns.
		if _, err := syscall.Wait4(-1, &ws, 0, nil); errors.Is(err, syscall.ECHILD) {
			return
		}
	}
}

// children lists the processes whose parent is pid, from /proc.
func children(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) >= 2 {
			if pp, err := strconv.Atoi(f[1]); err == nil && pp == pid {
				out = append(out, p)
			}
		}
	}
	return out
}
