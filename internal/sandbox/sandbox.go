// Package sandbox runs a program that the agent under verification wrote or
// chose (a test suite it claims passes), confined as far as the operating
// system allows, and removes every trace of the run but what it wrote in
// the workspace.
//
// A policy that allow-lists a command consents to running agent-written
// code; the sandbox is the limit on what that code can do:
//
//   - The run gets a fresh temporary directory outside the workspace for
//     its HOME, its caches (GOCACHE, XDG_CACHE_HOME, npm's) and its TMPDIR,
//     removed afterwards, and a minimal environment built from nothing:
//     PATH, those directories, a C locale and the operator's commands.env.
//     No variable of vouch's own environment (an API key) reaches it, and
//     no configuration file in the workspace is read as a user's (Go's
//     GOENV is off, GOFLAGS empty, GOTOOLCHAIN local).
//   - On Linux it runs under a supervisor (vouch itself, re-executed) that
//     is the init of a PID namespace of its own: when the command exits,
//     times out or is cancelled, the supervisor exits and the kernel kills
//     every process the run left, wherever it went, before Run returns; no
//     process of the run can kill the supervisor. Where the kernel refuses
//     the namespace, the supervisor is the subreaper of what the run
//     starts and kills it through /proc.
//   - Each process gets resource limits (setrlimit): CPU time, data size,
//     file size, no core dumps, and a bound on processes.
//   - On Linux with Landlock (5.13 and later), writes are confined to the
//     workspace, the run's temporary directory, /dev/shm and the policy's
//     commands.writable; from ABI 6, signals and abstract sockets cannot
//     reach processes outside the run, the supervisor among them. The
//     command is confined, the supervisor is not: it stays out of the
//     command's reach.
//   - On Linux, the network is denied unless the policy allows it: the run
//     gets a network namespace of its own with only a loopback interface
//     (a user namespace too when vouch does not run as root), so tests that
//     listen on 127.0.0.1 still work.
//
// What held is reported in [Result.Confinement]; where the kernel refuses a
// mechanism, the run goes on without it and says so. Reads are not
// confined: a run can read what the user running vouch can read, which is
// why vouch should run as an unprivileged user, and why the engine scrubs
// secrets from a report made after a command ran.
//
// On systems other than Linux only the temporary directories, the minimal
// environment and the timeout hold.
package sandbox

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"
)

// Config is one run.
type Config struct {
	// Argv is the program and its arguments. A program without a slash is
	// looked up in PATH.
	Argv []string
	// Dir is the working directory, the workspace: an absolute path. On
	// Linux it may be the /proc/self/fd/N name of an open directory (see
	// vouch.Subject.Dir): the run starts in that very directory, and the
	// write access Landlock grants is to the directory the run started in,
	// never to a path looked up again.
	Dir string
	// Env adds variables to the minimal environment (the operator's
	// commands.env); later wins.
	Env map[string]string
	// Timeout bounds the run; it must be positive.
	Timeout time.Duration
	// Limits bound each process.
	Limits Limits
	// Writable are directories the run may write besides Dir and its own
	// temporary directory.
	Writable []string
	// Network lets the run reach the network.
	Network bool
	// MaxOutput bounds the bytes kept of standard output and of standard
	// error each; 0 means 64 KiB.
	MaxOutput int
}

// Limits bound each process of a run; zero means no limit of that kind.
type Limits struct {
	CPU         time.Duration
	MemoryBytes int64
	FileBytes   int64
	Processes   int
}

// Result is what a run did.
type Result struct {
	// ExitCode is the command's exit code; -1 when it was killed by a
	// signal, timed out or was cancelled.
	ExitCode int
	// Signal names the signal that killed the command ("killed",
	// "CPU time limit exceeded"), if one did.
	Signal string
	// TimedOut is true when the command ran past the timeout and was
	// killed.
	TimedOut bool
	// Cancelled is true when the caller's context ended the run.
	Cancelled bool
	// Stdout and Stderr are the first MaxOutput bytes of each.
	Stdout, Stderr string
	// Truncated is true when output was dropped.
	Truncated bool
	// Duration is the wall time of the run.
	Duration time.Duration
	// Confinement says what confined the run.
	Confinement Confinement
}

// Confinement says which mechanisms held for one run.
type Confinement struct {
	// Supervised is true when a supervisor killed everything the run left
	// behind (Linux).
	Supervised bool `json:"supervised"`
	// PIDNamespace is true when the supervisor was the init of a PID
	// namespace of its own, out of the run's reach.
	PIDNamespace bool `json:"pidNamespace"`
	// Limits is true when the resource limits were set.
	Limits bool `json:"limits"`
	// Landlock is the Landlock ABI version that confined writes, 0 when
	// none did.
	Landlock int `json:"landlock"`
	// Network is "isolated" (a namespace of its own with only loopback),
	// "allowed" (the policy allows it) or "open" (it could not be
	// isolated).
	Network string `json:"network"`
	// Notes say why a mechanism did not hold.
	Notes []string `json:"notes,omitempty"`
}

// ErrEmpty is returned for a run without a program.
var ErrEmpty = errors.New("sandbox: empty command")

// ErrNoDir is returned for a run without a directory to run in: an empty
// Dir is never taken as vouch's own working directory.
var ErrNoDir = errors.New("sandbox: no directory to run in")

// Run runs c.Argv in c.Dir, confined, and returns what it did. It returns
// an error only when the command could not be started (it does not exist,
// the temporary directory could not be made); a non-zero exit, a signal, a
// timeout and a cancellation are in the Result. When Run returns, every
// process of the run is gone (on Linux) and its temporary directory
// removed.
func Run(ctx context.Context, c Config) (Result, error) {
	if len(c.Argv) == 0 || c.Argv[0] == "" {
		return Result{}, ErrEmpty
	}
	if c.Dir == "" {
		return Result{}, ErrNoDir
	}
	if c.Timeout <= 0 {
		return Result{}, errors.New("sandbox: the timeout must be positive")
	}
	if c.MaxOutput <= 0 {
		c.MaxOutput = 64 << 10
	}
	tmp, err := os.MkdirTemp("", "vouch-run-")
	if err != nil {
		return Result{}, err
	}
	defer removeAll(tmp)
	for _, d := range []string{"home", "tmp", "cache"} {
		if err := os.Mkdir(filepath.Join(tmp, d), 0o700); err != nil {
			return Result{}, err
		}
	}
	return run(ctx, c, tmp, environ(c, tmp))
}

// environ builds the environment of a run from nothing: PATH, the run's own
// home, caches and temporary directory, a C locale, settings that keep
// tools from reading a user's configuration or the network, and the
// operator's variables.
func environ(c Config, tmp string) []string {
	home, cache, tdir := filepath.Join(tmp, "home"), filepath.Join(tmp, "cache"), filepath.Join(tmp, "tmp")
	vars := map[string]string{
		"PATH":            os.Getenv("PATH"),
		"HOME":            home,
		"USERPROFILE":     home,
		"TMPDIR":          tdir,
		"TMP":             tdir,
		"TEMP":            tdir,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_CACHE_HOME":  cache,
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
		"LANG":            "C",
		"LC_ALL":          "C",
		"CI":              "true",
		"NO_COLOR":        "1",
		"TERM":            "dumb",
		// Go: no user configuration, no flags, no toolchain or module
		// download, a cold build cache of the run's own (a shared one
		// could be poisoned by the code under test).
		"GOENV":       "off",
		"GOFLAGS":     "",
		"GOTOOLCHAIN": "local",
		"GOPROXY":     "off",
		"GOTELEMETRY": "off",
		"GOCACHE":     filepath.Join(cache, "go-build"),
		"GOPATH":      filepath.Join(home, "go"),
		// Python and Node: no bytecode or caches written into the
		// workspace, nothing asked.
		"PYTHONDONTWRITEBYTECODE":    "1",
		"PYTHONPYCACHEPREFIX":        filepath.Join(cache, "pycache"),
		"PYTEST_ADDOPTS":             "-p no:cacheprovider",
		"PIP_NO_INPUT":               "1",
		"npm_config_cache":           filepath.Join(cache, "npm"),
		"npm_config_update_notifier": "false",
	}
	// Modules already downloaded by the user running vouch can be read,
	// not written: tests of a module with dependencies still build.
	if mc := moduleCache(); mc != "" {
		vars["GOMODCACHE"] = mc
	}
	if runtime.GOOS == "windows" {
		for _, k := range []string{"SYSTEMROOT", "COMSPEC", "PATHEXT"} {
			vars[k] = os.Getenv(k)
		}
	}
	for k, v := range c.Env {
		vars[k] = v
	}
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	return out
}

// moduleCache returns the Go module cache of the user running vouch, or ""
// when it does not exist.
func moduleCache() string {
	dir := os.Getenv("GOMODCACHE")
	if dir == "" {
		gopath := os.Getenv("GOPATH")
		if gopath == "" {
			h, err := os.UserHomeDir()
			if err != nil {
				return ""
			}
			gopath = filepath.Join(h, "go")
		}
		dir = filepath.Join(filepath.SplitList(gopath)[0], "pkg", "mod")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || !filepath.IsAbs(dir) {
		return ""
	}
	return dir
}

// removeAll removes dir, first making writable the directories a run left
// read-only (Go's module cache does that).
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			chmodDir(p)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}

// capped keeps the first max bytes written to it and counts the rest.
type capped struct {
	buf     bytes.Buffer
	max     int
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	n := len(p)
	room := max(c.max-c.buf.Len(), 0)
	if room < len(p) {
		c.dropped += len(p) - room
		p = p[:room]
	}
	c.buf.Write(p)
	return n, nil
}

// signalName names the signal number n as the kernel's messages do.
func signalName(n int) string {
	switch n {
	case 9:
		return "killed"
	case 24:
		return "CPU time limit exceeded"
	case 25:
		return "file size limit exceeded"
	case 11:
		return "segmentation fault"
	case 6:
		return "aborted"
	case 15:
		return "terminated"
	}
	return "signal " + strconv.Itoa(n)
}
