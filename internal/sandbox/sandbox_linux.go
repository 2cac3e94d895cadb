package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// A run is three processes, all this same program re-executed with
// stageEnv set (the init function below takes over before main runs):
//
//   - the supervisor, started by Run in namespaces of its own: a PID
//     namespace, whose init it is (when it exits the kernel kills every
//     process left in it, and no process in it can kill it), and a network
//     namespace with only a loopback interface. It is not confined
//     itself: it times the command, kills what is left and reports, on file
//     descriptor 4, one JSON status line. It reads its spec on file
//     descriptor 3.
//   - the confiner, started by the supervisor, which sets the resource
//     limits and the Landlock ruleset on itself and then executes the
//     command in its place: the command runs confined, in a Landlock domain
//     the supervisor is outside of, so that it can neither signal the
//     supervisor nor read its file descriptors through /proc.
//   - the command.
const stageEnv = "VOUCH_SANDBOX_STAGE"

func init() {
	switch os.Getenv(stageEnv) {
	case "supervise":
		os.Exit(supervise())
	case "confine":
		os.Exit(confineAndExec())
	}
}

// spec is what the parent tells the supervisor, and the supervisor the
// confiner.
type spec struct {
	Argv     []string      `json:"argv"`
	Env      []string      `json:"env"`
	Timeout  time.Duration `json:"timeout"`
	Limits   Limits        `json:"limits"`
	Writable []string      `json:"writable"`
	// Netns is true when the supervisor was started in a network
	// namespace of its own, whose loopback it brings up; Pidns when it is
	// the init of a PID namespace.
	Netns bool `json:"netns"`
	Pidns bool `json:"pidns"`
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

// confined is what the confiner reports before it executes the command.
type confined struct {
	Limits   bool     `json:"limits"`
	Landlock int      `json:"landlock"`
	Notes    []string `json:"notes,omitempty"`
	Err      string   `json:"err,omitempty"`
}

// grace is how long the parent waits for the supervisor past the timeout
// before killing it.
const grace = 5 * time.Second

func run(ctx context.Context, c Config, tmp string, env []string) (Result, error) {
	res := Result{ExitCode: -1}
	// The supervisor starts in c.Dir and the confiner, which applies the
	// Landlock rules, inherits its working directory: "." there is the
	// directory the run started in, not c.Dir looked up again (which, as
	// /proc/self/fd/N, would name another file in another process).
	writable := []string{".", tmp}
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
	lines := make(chan []string, 1)
	go func() {
		var ls []string
		sc := bufio.NewScanner(statusR)
		sc.Buffer(make([]byte, 4096), 1<<20)
		for sc.Scan() && len(ls) < 4 {
			ls = append(ls, sc.Text())
		}
		_, _ = io.Copy(io.Discard, statusR)
		lines <- ls
	}()
	werr := cmd.Wait()
	// Whatever is left of the supervisor's process group (all of the run
	// when there was no PID namespace) goes with it.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	var ls []string
	select {
	case ls = <-lines:
	case <-time.After(grace):
		// Something still holds the status pipe: no status is trusted.
	}
	statusR.Close()
	res.Duration = time.Since(start)
	res.Stdout, res.Stderr = out.buf.String(), errb.buf.String()
	res.Truncated = out.dropped+errb.dropped > 0
	res.Confinement.Supervised = true

	// The status counts only from a supervisor that exited cleanly after
	// writing exactly one line.
	var st status
	if werr != nil || len(ls) != 1 || json.Unmarshal([]byte(ls[0]), &st) != nil {
		if ctx.Err() != nil {
			res.Cancelled = true
			return res, nil
		}
		return res, fmt.Errorf("sandbox: the supervisor failed (%v, %d status lines)", werr, len(ls))
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

// self is the program to re-execute for a stage: the very binary running,
// even if it was replaced on disk since.
func self() string {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe"
	}
	p, _ := os.Executable()
	return p
}

// stageEnviron is the whole environment of a stage: its marker, and
// GORACE for a binary built with the race detector, which would otherwise
// sleep a second at exit.
func stageEnviron(stage string) []string {
	return []string{stageEnv + "=" + stage, "GORACE=atexit_sleep_ms=0"}
}

// startSupervisor starts the supervisor, in namespaces of its own when the
// kernel allows, and hands it its spec.
func startSupervisor(ctx context.Context, c Config, sp *spec, out, errb *capped, conf *Confinement) (*exec.Cmd, *os.File, context.CancelFunc, error) {
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
		cmd := exec.CommandContext(cctx, self())
		cmd.Env = stageEnviron("supervise")
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
		sp.Pidns = clone&syscall.CLONE_NEWPID != 0
		b, _ := json.Marshal(sp)
		_, werr := specW.Write(append(b, '\n'))
		specW.Close()
		if werr != nil {
			_ = cmd.Process.Kill()
		}
		return cmd, statusR, cancel, nil
	}
	clone := uintptr(syscall.CLONE_NEWPID)
	if !c.Network {
		clone |= syscall.CLONE_NEWNET
	}
	if os.Geteuid() != 0 {
		clone |= syscall.CLONE_NEWUSER
	}
	cmd, statusR, cancel, err := attempt(clone)
	if err == nil {
		conf.PIDNamespace = true
		conf.Network = "isolated"
		if c.Network {
			conf.Network = "allowed"
		}
		return cmd, statusR, cancel, nil
	}
	conf.Network = "open"
	if c.Network {
		conf.Network = "allowed"
	}
	conf.Notes = append(conf.Notes, "the kernel refused namespaces ("+err.Error()+"): the network is not isolated, and processes that leave the run's process group are found through /proc")
	return attempt(0)
}

// readStage reads a stage's spec from file descriptor 3 and returns file
// descriptor 4, on which it reports. Neither reaches the command (they
// close on exec): it could forge a report.
func readStage() (spec, *os.File, bool) {
	var sp spec
	specF, repF := os.NewFile(3, "spec"), os.NewFile(4, "report")
	if specF == nil || repF == nil {
		return sp, nil, false
	}
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	err := json.NewDecoder(specF).Decode(&sp)
	specF.Close()
	return sp, repF, err == nil
}

// supervise is the supervisor's main: start the confined command, wait for
// it within the timeout, kill everything it left, report.
func supervise() int {
	sp, statusF, ok := readStage()
	if !ok {
		return 125
	}
	report := func(st status) int {
		b, _ := json.Marshal(st)
		if _, err := statusF.Write(append(b, '\n')); err != nil {
			return 125
		}
		return 0
	}
	var st status
	// Not dumpable: where Landlock cannot keep the command from it, its
	// /proc entries (the status pipe among them) are still the kernel's.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	// Everything the command starts is reparented here when its parent
	// dies, so that it can be killed (without a PID namespace; with one,
	// the supervisor is its init).
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

	pid, conf, err := startConfined(sp)
	if err != nil {
		st.StartErr = err.Error()
		return report(st)
	}
	st.Limits, st.Landlock, st.Notes = conf.Limits, conf.Landlock, append(st.Notes, conf.Notes...)

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
	if !sp.Pidns {
		killAll()
	}
	// With a PID namespace, the kernel kills every process left in it
	// when the supervisor, its init, exits: before the parent sees the
	// exit.
	return report(st)
}

// startConfined starts the confiner, hands it the spec, and waits for it to
// report its confinement and to execute the command (the report pipe
// closes on exec).
func startConfined(sp spec) (int, confined, error) {
	var conf confined
	specR, specW, err := os.Pipe()
	if err != nil {
		return 0, conf, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		return 0, conf, err
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return 0, conf, err
	}
	defer devnull.Close()
	pid, err := syscall.ForkExec(self(), []string{"vouch-sandbox"}, &syscall.ProcAttr{
		Env:   stageEnviron("confine"),
		Files: []uintptr{devnull.Fd(), 1, 2, specR.Fd(), repW.Fd()},
	})
	specR.Close()
	repW.Close()
	if err != nil {
		specW.Close()
		repR.Close()
		return 0, conf, err
	}
	b, _ := json.Marshal(sp)
	_, _ = specW.Write(append(b, '\n'))
	specW.Close()
	data, _ := io.ReadAll(io.LimitReader(repR, 1<<20))
	repR.Close()
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if json.Unmarshal([]byte(lines[0]), &conf) != nil {
		return pid, conf, errors.New("the confiner reported nothing")
	}
	if conf.Err != "" {
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
		return 0, conf, errors.New(conf.Err)
	}
	return pid, conf, nil
}

// confineAndExec is the confiner's main: it sets the limits and the
// Landlock ruleset on itself, reports them on file descriptor 4, and
// executes the command in its place (file descriptor 4 closes on exec). It
// returns only when it could not.
func confineAndExec() int {
	sp, repF, ok := readStage()
	if !ok {
		return 125
	}
	var c confined
	fail := func(err error) int {
		c.Err = err.Error()
		b, _ := json.Marshal(c)
		_, _ = repF.Write(append(b, '\n'))
		return 127
	}
	os.Clearenv()
	for _, kv := range sp.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			_ = os.Setenv(k, v)
		}
	}
	prog, err := exec.LookPath(sp.Argv[0])
	if err != nil {
		return fail(err)
	}
	// The ruleset is enforced on this thread, which executes the command.
	runtime.LockOSThread()
	c.Limits = setLimits(sp, &c.Notes)
	c.Landlock = confine(sp, &c.Notes)
	if os.Geteuid() == 0 {
		c.Notes = append(c.Notes, "the command runs as root: Landlock does not confine changes to files' modes, owners and times")
	}
	b, _ := json.Marshal(c)
	if _, err := repF.Write(append(b, '\n')); err != nil {
		return 125
	}
	err = syscall.Exec(prog, sp.Argv, sp.Env)
	return fail(fmt.Errorf("exec %s: %w", sp.Argv[0], err))
}

// setLimits sets the resource limits the command and everything it starts
// inherit.
func setLimits(sp spec, notes *[]string) bool {
	ok := true
	set := func(what string, res int, soft, hard uint64) {
		if err := unix.Setrlimit(res, &unix.Rlimit{Cur: soft, Max: hard}); err != nil {
			ok = false
			*notes = append(*notes, fmt.Sprintf("limit on %s not set: %v", what, err))
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
		if os.Geteuid() == 0 {
			*notes = append(*notes, "the limit on processes does not hold for root")
		}
	}
	return ok
}

// landlockConfigs are the access rights each Landlock ABI version handles,
// by version (landlockConfigs[0] is ABI 1).
var landlockConfigs = []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
	landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// The file access rights of a rule.
const (
	readRights = llsys.AccessFSExecute | llsys.AccessFSReadFile | llsys.AccessFSReadDir
	// fileRights are the rights that apply to a file, not a directory.
	fileRights = llsys.AccessFSExecute | llsys.AccessFSWriteFile | llsys.AccessFSReadFile |
		llsys.AccessFSTruncate | llsys.AccessFSIoctlDev
)

// confine restricts, with Landlock, what the calling thread, and the
// command it is about to execute, may write, and which processes and
// abstract sockets outside the run it may reach. The thread must stay
// locked until the exec: the ruleset is enforced on it alone (the
// command's image inherits its domain), so that nothing depends on
// enumerating the process's threads through /proc, which in a PID
// namespace of its own shows another process. It returns the ABI version
// in force, 0 when Landlock is unavailable, and notes what this version
// leaves open.
func confine(sp spec, notes *[]string) int {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		*notes = append(*notes, "Landlock is not available: writes are not confined to the workspace")
		return 0
	}
	cfg := landlockConfigs[min(abi, len(landlockConfigs))-1]
	handled := uint64(cfg.HandledAccessFS)
	attr := llsys.RulesetAttr{HandledAccessFS: handled, Scoped: uint64(cfg.Scoped)}
	fd, err := llsys.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		*notes = append(*notes, "Landlock: cannot create a ruleset: "+err.Error())
		return 0
	}
	defer unix.Close(fd)
	add := func(path string, rights uint64, optional bool) error {
		pfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			if optional && errors.Is(err, unix.ENOENT) {
				return nil
			}
			return fmt.Errorf("%s: %w", path, err)
		}
		defer unix.Close(pfd)
		var st unix.Stat_t
		if err := unix.Fstat(pfd, &st); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			rights &= fileRights
		}
		return llsys.LandlockAddPathBeneathRule(fd, &llsys.PathBeneathAttr{AllowedAccess: rights & handled, ParentFd: pfd}, 0)
	}
	rules := []struct {
		path     string
		rights   uint64
		optional bool
	}{
		{"/", readRights, false},
		{"/dev/shm", handled, true},
		{os.DevNull, fileRights, true},
		{"/dev/zero", fileRights, true},
		{"/dev/full", fileRights, true},
	}
	for _, w := range sp.Writable {
		rules = append(rules, struct {
			path     string
			rights   uint64
			optional bool
		}{w, handled, false})
	}
	for _, r := range rules {
		if err := add(r.path, r.rights, r.optional); err != nil {
			*notes = append(*notes, "Landlock: not enforced: "+err.Error())
			return 0
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		*notes = append(*notes, "Landlock: not enforced: no_new_privs: "+err.Error())
		return 0
	}
	if err := llsys.LandlockRestrictSelf(fd, 0); err != nil {
		*notes = append(*notes, "Landlock: not enforced: "+err.Error())
		return 0
	}
	for _, gap := range []struct {
		below int
		what  string
	}{
		{3, "truncating files outside the workspace"},
		{6, "signals to, and abstract sockets of, processes outside the run"},
		{9, "connecting to Unix sockets outside the workspace"},
	} {
		if abi < gap.below {
			*notes = append(*notes, fmt.Sprintf("Landlock ABI %d does not confine %s (ABI %d does)", abi, gap.what, gap.below))
		}
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

// killAll kills every process reparented to the supervisor (it is their
// subreaper) and every process of its group but itself, and reaps them,
// until none is left. It is needed without a PID namespace only.
func killAll() {
	self := os.Getpid()
	for {
		for _, p := range children(self) {
			_ = syscall.Kill(p, syscall.SIGKILL)
			if pg, err := syscall.Getpgid(p); err == nil && pg == p && pg != self {
				_ = syscall.Kill(-p, syscall.SIGKILL)
			}
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

// chmodDir makes the directory at p writable by its owner without
// following a symlink: a run that swapped a directory of its temporary
// tree for a link cannot make vouch change the mode of what it points to.
func chmodDir(p string) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	_ = unix.Fchmod(fd, 0o700)
}
