package server

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/store"
)

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "serve.yaml")
	os.WriteFile(path, []byte("addr: 127.0.0.1:9000\nstore: logs/v.db\npolicies: [team.yaml]\nworkspaces: {web: ws/web}\ncommandWorkspaces: [web]\nretention: 720h\ntimeouts: {verify: 30s}\n"), 0o644)
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:9000" || c.Store != filepath.Join(dir, "logs/v.db") || c.Policies[0] != filepath.Join(dir, "team.yaml") ||
		c.Workspaces["web"] != filepath.Join(dir, "ws/web") || c.Retention != vouch.Duration(720*time.Hour) ||
		c.Timeouts.Verify != vouch.Duration(30*time.Second) || c.Timeouts.ReadHeader != vouch.Duration(5*time.Second) || c.MaxInFlight != 256 {
		t.Errorf("config: %+v", c)
	}
	if !c.commandsAllowed("web") || c.commandsAllowed("") || c.commandsAllowed("api") {
		t.Error("commandsAllowed")
	}
	if c.Alerts != quality.DefaultAlerts() {
		t.Errorf("alerts without an alerts section: %+v, want the defaults", c.Alerts)
	}
	if !c.Dashboard || c.SessionKeyFile != "" {
		t.Errorf("dashboard %v, session key file %q: want on, none", c.Dashboard, c.SessionKeyFile)
	}
	os.WriteFile(path, []byte("dashboard: false\nsessionKeyFile: keys/session\n"), 0o644)
	if c, err = LoadConfig(path); err != nil || c.Dashboard || c.SessionKeyFile != filepath.Join(dir, "keys/session") {
		t.Errorf("dashboard: false: %v, %v %q", err, c.Dashboard, c.SessionKeyFile)
	}

	// One alert threshold changed alone keeps every other default.
	os.WriteFile(path, []byte("alerts: {catchRate: {threshold: 0.8}, taskCostRatio: {off: true}, interval: 5m}\n"), 0o644)
	if c, err = LoadConfig(path); err != nil {
		t.Fatal(err)
	}
	want := quality.DefaultAlerts()
	want.CatchRate.Threshold, want.TaskCostRatio.Off, want.Interval = 0.8, true, vouch.Duration(5*time.Minute)
	if c.Alerts != want {
		t.Errorf("alerts %+v, want %+v", c.Alerts, want)
	}
	for doc, want := range map[string]string{
		"adress: x\n":     `adress: unknown field (want one of addr,`,
		"addr: nowhere\n": "want HOST:PORT",
		"workspaces: {a: /x}\ncommandWorkspaces: [b]\n":     `"b" is not one of the workspaces`,
		"maxInFlight: 0\nretention: -1s\n":                  "retention must not be negative",
		"timeouts: {verify: soon}\n":                        `invalid duration "soon"`,
		"alerts: {retrySuccess: {severity: dire}}\n":        `severity "dire"`,
		"alerts: {catchRate: {below: 0.5}}\n":               `below: unknown field`,
		"maxInFlight: 8\nmaxInFlightPerCaller: 9\n":         "maxInFlightPerCaller must be between 1 and maxInFlight (8)",
		"maxHeldBodyBytes: 1000\n":                          "must hold at least one request",
		"maxEventStreams: 5\nmaxEventStreamsPerTenant: 6\n": "the share no more than the whole",
	} {
		os.WriteFile(path, []byte(doc), 0o644)
		if _, err := LoadConfig(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", doc, err, want)
		}
	}
	// The admission keys, and a share left out: a quarter of the slots.
	os.WriteFile(path, []byte("maxInFlight: 40\nmaxHeldBodyBytes: 8388608\nmaxEventStreams: 50\nmaxEventStreamsPerTenant: 5\ntimeouts: {body: 3s}\n"), 0o644)
	if c, err = LoadConfig(path); err != nil || c.perCaller() != 10 || c.MaxHeldBodyBytes != 8<<20 || c.MaxEventStreams != 50 ||
		c.MaxEventStreamsPerTenant != 5 || c.Timeouts.Body != vouch.Duration(3*time.Second) {
		t.Errorf("admission keys: %v %+v", err, c)
	}
	c = DefaultConfig()
	env := map[string]string{"VOUCH_ADDR": "127.0.0.1:1", "VOUCH_STORE": "postgres://u:secret@h/db", "VOUCH_MAX_IN_FLIGHT": "8"}
	if err := c.ApplyEnv(func(k string) string { return env[k] }); err != nil || c.Addr != "127.0.0.1:1" || c.MaxInFlight != 8 || !store.IsPostgres(c.Store) {
		t.Errorf("env: %v %+v", err, c)
	}
	if got := store.DisplayDSN(c.Store); strings.Contains(got, "secret") {
		t.Errorf("the DSN shown %q holds the password", got)
	}
	env["VOUCH_MAX_IN_FLIGHT"] = "many"
	if err := c.ApplyEnv(func(k string) string { return env[k] }); err == nil {
		t.Error("a bad VOUCH_MAX_IN_FLIGHT was accepted")
	}
}

// TestCommandsOnlyInOptedInWorkspaces: an allow-listed command runs for a
// workspace listed in commandWorkspaces, and for no other.
func TestCommandsOnlyInOptedInWorkspaces(t *testing.T) {
	open, shut := t.TempDir(), t.TempDir()
	for _, d := range []string{open, shut} {
		os.WriteFile(filepath.Join(d, "marker"), []byte("x"), 0o644)
	}
	pol := vouch.DefaultPolicy()
	pol.Commands.Allow = []vouch.CommandRule{vouch.NewCommandRule("true")}
	e := newEnvPolicy(t, &pol, func(c *Config) {
		c.Workspaces = map[string]string{"open": open, "shut": shut}
		c.CommandWorkspaces = []string{"open"}
	})
	body := func(ws string) []byte {
		return []byte(`{"id":"` + ws + `","workspace":"` + ws + `","task":{"criteria":[{"id":"run","must":true,"check":{"type":"command","run":["true"]}}]},"output":{"summary":"ran it"}}`)
	}
	ran := e.do("POST", "/v1/verify", "", body("open"))
	refused := e.do("POST", "/v1/verify", "", body("shut"))
	if ran.status != 200 || refused.status != 200 {
		t.Fatalf("%d %s / %d %s", ran.status, ran.body, refused.status, refused.body)
	}
	// "ran it" is a claim no check reads: the verdict is unverified or
	// fail, and the criterion says whether the command ran.
	if !bytes.Contains(ran.body, []byte(`"status":"met"`)) || !bytes.Contains(ran.body, []byte(`exited 0`)) {
		t.Errorf("the opted-in workspace did not run the command: %s", ran.body)
	}
	if bytes.Contains(refused.body, []byte(`"status":"met"`)) || !bytes.Contains(refused.body, []byte("allow")) {
		t.Errorf("the other workspace ran it, or did not say why not: %s", refused.body)
	}
}
