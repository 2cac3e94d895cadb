package server

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/policy"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/wire"
)

// Config is the server's configuration: defaults, then a YAML file
// ([LoadConfig]), then the environment ([Config.ApplyEnv]), then flags.
// Keys are camelCase, like a policy's; unknown keys are errors.
type Config struct {
	// Addr is where to listen (default 127.0.0.1:8080). Without API keys
	// in the store, only a loopback address is allowed.
	Addr string `json:"addr"`
	// Store is the log's DSN: a SQLite file (default ./vouch.db) or a
	// postgres:// URL.
	Store string `json:"store"`
	// Policies are policy files, layered in order over the built-in
	// defaults, as `vouch verify --policy` takes them.
	Policies []string `json:"policies"`
	// Workspaces maps the names a request may give as its workspace to
	// directories. A request naming any other workspace is refused.
	Workspaces map[string]string `json:"workspaces"`
	// CommandWorkspaces names the workspaces for which the policy's
	// allow-listed commands may run; for every other workspace (and for
	// requests with none) the allow-list is emptied.
	CommandWorkspaces []string `json:"commandWorkspaces"`
	// MaxRequestBytes bounds one request body (default: the CLI's, 4 MiB)
	// and each line of a batch.
	MaxRequestBytes int64 `json:"maxRequestBytes"`
	// MaxBatchBytes bounds a batch body (default 256 MiB).
	MaxBatchBytes int64 `json:"maxBatchBytes"`
	// StoredRequestBytes caps the request kept beside its report
	// (default 4 MiB, the default MaxRequestBytes: a session's request,
	// its trace with it, is kept for the run view and for re-verifying,
	// compressed on SQLite, by TOAST on PostgreSQL); a larger request is
	// logged without its body.
	StoredRequestBytes int `json:"storedRequestBytes"`
	// Retention deletes verifications older than this, in bounded
	// batches, every hour; 0 (the default) keeps everything.
	Retention vouch.Duration `json:"retention"`
	// MaxInFlight bounds the requests served at once (default 256); more
	// are answered 429 with Retry-After, not queued. A request takes its
	// slot only once its body has arrived.
	MaxInFlight int `json:"maxInFlight"`
	// MaxInFlightPerCaller is each caller's share of MaxInFlight (default
	// a quarter of it): an API key, or for requests without one (the
	// dashboard's pages, open mode) the client's address. One caller
	// cannot take every slot.
	MaxInFlightPerCaller int `json:"maxInFlightPerCaller"`
	// MaxHeldBodyBytes bounds the bytes of request bodies held in memory
	// at once, server-wide (default 256 MiB), each client address holding
	// at most a quarter of it (and at least maxRequestBytes); a body that
	// would go over is answered 503 with Retry-After. Bytes are counted
	// as they arrive, not as a body announces them. Batch bodies are
	// never held whole: they are stored as they arrive.
	MaxHeldBodyBytes int64 `json:"maxHeldBodyBytes"`
	// MaxEventStreams bounds the open event streams (API and dashboard)
	// of the server (default 1000), and MaxEventStreamsPerTenant each
	// tenant's share of them (default 100).
	MaxEventStreams          int `json:"maxEventStreams"`
	MaxEventStreamsPerTenant int `json:"maxEventStreamsPerTenant"`
	// BatchWorkers is how many batch items are verified at once (default:
	// the number of CPUs on SQLite; on PostgreSQL, where a job also waits
	// on the database, four times that).
	BatchWorkers int `json:"batchWorkers"`
	// Queue tunes the job queue that works batches on a PostgreSQL store
	// (on SQLite, each item is tried once, in the server).
	Queue QueueConfig `json:"queue"`
	// Timeouts bound each connection and request.
	Timeouts Timeouts `json:"timeouts"`
	// Alerts are the quality alerts' thresholds, the window they watch
	// and how often they are evaluated; keys left out keep their
	// defaults ([quality.DefaultAlerts]).
	Alerts quality.AlertConfig `json:"alerts"`
	// Dashboard serves the web dashboard beside the API (default true;
	// `dashboard: false` or `vouch serve --no-dashboard` turns it off).
	Dashboard bool `json:"dashboard"`
	// MCP serves the verify tools over the Model Context Protocol
	// (streamable HTTP) at /mcp, with the API's keys (default true;
	// `mcp: false` or `vouch serve --no-mcp` turns it off).
	MCP bool `json:"mcp"`
	// SessionKeyFile names a file of at least 32 bytes that signs the
	// dashboard's session cookies. Empty: a file of random bytes made at
	// the first start, mode 0600, never in the store (whoever reads the
	// database cannot sign a session): DATABASE.session-key beside a
	// SQLite store, so that every server on it accepts the same sessions,
	// or vouch/session-key in the user's configuration directory for
	// PostgreSQL, where servers sharing a store share sessions only when
	// given one sessionKeyFile. A new file (or a new key in it) signs
	// every session out.
	SessionKeyFile string `json:"sessionKeyFile"`
}

// QueueConfig tunes the job queue of batches; zero fields take the
// defaults.
type QueueConfig struct {
	// Attempts is how many times a batch item's job is tried before the
	// item ends as an error (default 5): a verification that crashed, or
	// whose process died, is tried again.
	Attempts int `json:"attempts"`
	// RetryBackoff is the wait before the second try, doubled for each
	// try after it and capped at five minutes (default 1s).
	RetryBackoff vouch.Duration `json:"retryBackoff"`
	// RescueAfter is how long a job may run before it is taken for the
	// job of a process that died, and tried again elsewhere (default:
	// the verification timeout plus 71s; at least the verification
	// timeout plus 42s, the longest a job is let run and its last store
	// write). A live job taken for dead costs a second verification,
	// never a second report.
	RescueAfter vouch.Duration `json:"rescueAfter"`

	// runItems and runSlice, when set (by tests), replace the server's
	// runItems and runSlice.
	runItems func(n int) int
	runSlice time.Duration
}

// Timeouts bound the server's connections; zero fields take the defaults.
type Timeouts struct {
	// ReadHeader bounds reading a request's headers (default 5s): a
	// client that sends them slowly is cut off.
	ReadHeader vouch.Duration `json:"readHeader"`
	// Read bounds reading a whole request (default 1m).
	Read vouch.Duration `json:"read"`
	// Body bounds reading the body of a request that is held before it
	// is served (default 10s; a batch upload is bounded by Read alone).
	Body vouch.Duration `json:"body"`
	// Write bounds writing a response (default 5m); the event stream is
	// exempt.
	Write vouch.Duration `json:"write"`
	// Idle bounds a keep-alive connection's wait for its next request
	// (default 2m).
	Idle vouch.Duration `json:"idle"`
	// Verify bounds one verification (default: the policy's timeout).
	Verify vouch.Duration `json:"verify"`
	// Shutdown bounds the drain of in-flight requests and batch items on
	// shutdown (default 30s).
	Shutdown vouch.Duration `json:"shutdown"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{
		Addr:                     "127.0.0.1:8080",
		Store:                    "./vouch.db",
		MaxRequestBytes:          wire.DefaultMaxBytes,
		MaxBatchBytes:            256 << 20,
		StoredRequestBytes:       4 << 20,
		MaxInFlight:              256,
		MaxHeldBodyBytes:         256 << 20,
		MaxEventStreams:          1000,
		MaxEventStreamsPerTenant: 100,
		Alerts:                   quality.DefaultAlerts(),
		Dashboard:                true,
		MCP:                      true,
		Queue:                    QueueConfig{Attempts: 5, RetryBackoff: vouch.Duration(time.Second)},
		Timeouts: Timeouts{
			ReadHeader: vouch.Duration(5 * time.Second),
			Read:       vouch.Duration(time.Minute),
			Body:       vouch.Duration(10 * time.Second),
			Write:      vouch.Duration(5 * time.Minute),
			Idle:       vouch.Duration(2 * time.Minute),
			Shutdown:   vouch.Duration(30 * time.Second),
		},
	}
}

// LoadConfig reads a configuration file (YAML or JSON) over the
// defaults. Relative paths in it (store, policies, workspaces) are taken
// from the file's directory.
func LoadConfig(path string) (Config, error) {
	c := DefaultConfig()
	data, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	// Alerts decode over their defaults, so that a file may change one
	// threshold alone.
	// The dashboard and MCP switches too, so that leaving them out keeps
	// them on.
	file := Config{Alerts: c.Alerts, Dashboard: c.Dashboard, MCP: c.MCP}
	if err := policy.DecodeFile(path, data, &file); err != nil {
		return c, err
	}
	c.Alerts = file.Alerts
	c.Dashboard = file.Dashboard
	c.MCP = file.MCP
	dir := filepath.Dir(path)
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	if file.Addr != "" {
		c.Addr = file.Addr
	}
	if file.Store != "" {
		c.Store = file.Store
		if !store.IsPostgres(file.Store) {
			c.Store = rel(file.Store)
		}
	}
	for _, p := range file.Policies {
		c.Policies = append(c.Policies, rel(p))
	}
	if len(file.Workspaces) > 0 {
		c.Workspaces = map[string]string{}
		for name, p := range file.Workspaces {
			c.Workspaces[name] = rel(p)
		}
	}
	c.CommandWorkspaces = file.CommandWorkspaces
	c.SessionKeyFile = rel(file.SessionKeyFile)
	setIf(&c.MaxRequestBytes, file.MaxRequestBytes)
	setIf(&c.MaxBatchBytes, file.MaxBatchBytes)
	setIf(&c.StoredRequestBytes, file.StoredRequestBytes)
	setIf(&c.Retention, file.Retention)
	setIf(&c.MaxInFlight, file.MaxInFlight)
	setIf(&c.MaxInFlightPerCaller, file.MaxInFlightPerCaller)
	setIf(&c.MaxHeldBodyBytes, file.MaxHeldBodyBytes)
	setIf(&c.MaxEventStreams, file.MaxEventStreams)
	setIf(&c.MaxEventStreamsPerTenant, file.MaxEventStreamsPerTenant)
	setIf(&c.BatchWorkers, file.BatchWorkers)
	setIf(&c.Queue.Attempts, file.Queue.Attempts)
	setIf(&c.Queue.RetryBackoff, file.Queue.RetryBackoff)
	setIf(&c.Queue.RescueAfter, file.Queue.RescueAfter)
	t := file.Timeouts
	setIf(&c.Timeouts.ReadHeader, t.ReadHeader)
	setIf(&c.Timeouts.Read, t.Read)
	setIf(&c.Timeouts.Body, t.Body)
	setIf(&c.Timeouts.Write, t.Write)
	setIf(&c.Timeouts.Idle, t.Idle)
	setIf(&c.Timeouts.Verify, t.Verify)
	setIf(&c.Timeouts.Shutdown, t.Shutdown)
	return c, c.Validate()
}

func setIf[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}

// ApplyEnv applies the environment over c: VOUCH_ADDR, VOUCH_STORE and
// VOUCH_MAX_IN_FLIGHT.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	if v := getenv("VOUCH_ADDR"); v != "" {
		c.Addr = v
	}
	if v := getenv("VOUCH_STORE"); v != "" {
		c.Store = v
	}
	if v := getenv("VOUCH_MAX_IN_FLIGHT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("VOUCH_MAX_IN_FLIGHT: want a positive integer, got %q", v)
		}
		c.MaxInFlight = n
	}
	return nil
}

// Validate checks the configuration as a whole.
func (c *Config) Validate() error {
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("config: addr %q: want HOST:PORT", c.Addr)
	}
	if c.Store == "" {
		return fmt.Errorf("config: store must not be empty")
	}
	names := make([]string, 0, len(c.Workspaces))
	for name := range c.Workspaces {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == "" {
			return fmt.Errorf("config: workspaces: a workspace needs a name")
		}
		if !filepath.IsAbs(c.Workspaces[name]) {
			abs, err := filepath.Abs(c.Workspaces[name])
			if err != nil {
				return fmt.Errorf("config: workspaces.%s: %w", name, err)
			}
			c.Workspaces[name] = abs
		}
	}
	for _, name := range c.CommandWorkspaces {
		if _, ok := c.Workspaces[name]; !ok {
			return fmt.Errorf("config: commandWorkspaces: %q is not one of the workspaces", name)
		}
	}
	switch {
	case c.MaxRequestBytes <= 0:
		return fmt.Errorf("config: maxRequestBytes must be positive")
	case c.MaxBatchBytes <= 0:
		return fmt.Errorf("config: maxBatchBytes must be positive")
	case c.StoredRequestBytes < 0:
		return fmt.Errorf("config: storedRequestBytes must not be negative")
	case c.MaxInFlight < 1:
		return fmt.Errorf("config: maxInFlight must be at least 1")
	case c.MaxInFlightPerCaller < 0 || c.MaxInFlightPerCaller > c.MaxInFlight:
		return fmt.Errorf("config: maxInFlightPerCaller must be between 1 and maxInFlight (%d); 0 means a quarter of it", c.MaxInFlight)
	case c.MaxHeldBodyBytes < c.MaxRequestBytes:
		return fmt.Errorf("config: maxHeldBodyBytes (%d) must hold at least one request of maxRequestBytes (%d)", c.MaxHeldBodyBytes, c.MaxRequestBytes)
	case c.MaxEventStreams < 1 || c.MaxEventStreamsPerTenant < 1 || c.MaxEventStreamsPerTenant > c.MaxEventStreams:
		return fmt.Errorf("config: maxEventStreams and maxEventStreamsPerTenant must be at least 1, the share no more than the whole")
	case c.Timeouts.Body <= 0:
		return fmt.Errorf("config: timeouts.body must be positive")
	case c.BatchWorkers < 0:
		return fmt.Errorf("config: batchWorkers must not be negative")
	case c.Retention < 0:
		return fmt.Errorf("config: retention must not be negative")
	case c.Queue.Attempts < 1 || c.Queue.Attempts > 100:
		return fmt.Errorf("config: queue.attempts must be between 1 and 100")
	case c.Queue.RetryBackoff < 0 || c.Queue.RescueAfter < 0:
		return fmt.Errorf("config: queue.retryBackoff and queue.rescueAfter must not be negative")
	}
	if err := c.Alerts.Check(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

// heldPerCaller returns each address's share of the held body bytes: a
// quarter of the budget, and at least one request of the largest size.
func (c *Config) heldPerCaller() int64 {
	return min(c.MaxHeldBodyBytes, max(c.MaxRequestBytes, c.MaxHeldBodyBytes/4))
}

// perCaller returns each caller's share of the in-flight slots.
func (c *Config) perCaller() int {
	if c.MaxInFlightPerCaller > 0 {
		return c.MaxInFlightPerCaller
	}
	return max(1, c.MaxInFlight/4)
}

// commandsAllowed reports whether allow-listed commands may run in the
// named workspace.
func (c *Config) commandsAllowed(name string) bool {
	return name != "" && slices.Contains(c.CommandWorkspaces, name)
}
