package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

const existing = `{
  "model": "opus",
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {
    "PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "gofmt -w"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}], "extra": true}]
  },
  "env": {"A": "1"}
}
`

func TestInstallKeepsEverythingElse(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(existing), 0o600); err != nil {
		t.Fatal(err)
	}
	const cmd = "'/opt/my tools/vouch' hook claude-code --policy /p.yaml"
	changed, err := Install(path, cmd)
	if err != nil || !changed {
		t.Fatalf("Install: %v, %v", changed, err)
	}
	got, _ := os.ReadFile(path)
	// The top-level keys keep their order; the new events follow the old.
	var order []string
	d := jsontext.NewDecoder(strings.NewReader(string(got)))
	d.ReadToken()
	for d.PeekKind() != '}' {
		k, _ := d.ReadToken()
		order = append(order, k.String())
		k = jsontext.Token{}
		d.SkipValue()
	}
	if strings.Join(order, ",") != "model,permissions,hooks,env" {
		t.Errorf("keys in order %v", order)
	}
	var s struct {
		Model string `json:"model"`
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
			Extra bool `json:"extra"`
		} `json:"hooks"`
		Env map[string]string `json:"env"`
	}
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatal(err)
	}
	if s.Model != "opus" || s.Env["A"] != "1" || len(s.Hooks["PostToolUse"]) != 1 || s.Hooks["PostToolUse"][0].Matcher != "Edit|Write" {
		t.Errorf("other settings changed:\n%s", got)
	}
	stop := s.Hooks["Stop"]
	if len(stop) != 2 || stop[0].Hooks[0].Command != "notify-send done" || !stop[0].Extra || stop[1].Hooks[0].Command != cmd || stop[1].Hooks[0].Timeout != TimeoutSeconds {
		t.Errorf("Stop hooks: %+v", stop)
	}
	for _, ev := range Events {
		n := 0
		for _, g := range s.Hooks[ev] {
			for _, h := range g.Hooks {
				if IsVouchCommand(h.Command) {
					n++
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: %d vouch entries, want 1", ev, n)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's own 0600", fi.Mode().Perm())
	}
	// Installing again changes nothing; a new command replaces the old.
	if changed, err := Install(path, cmd); err != nil || changed {
		t.Errorf("second Install: %v, %v; want no change", changed, err)
	}
	if changed, err := Install(path, "/usr/bin/vouch hook claude-code"); err != nil || !changed {
		t.Errorf("Install of another command: %v, %v", changed, err)
	}
	again, _ := os.ReadFile(path)
	if strings.Contains(string(again), "my tools") || strings.Count(string(again), "/usr/bin/vouch hook claude-code") != len(Events) {
		t.Errorf("the new command did not replace the old:\n%s", again)
	}
	// Uninstall leaves the settings as they were before, in meaning.
	if changed, err := Uninstall(path); err != nil || !changed {
		t.Fatalf("Uninstall: %v, %v", changed, err)
	}
	after, _ := os.ReadFile(path)
	a, b := jsontext.Value(after), jsontext.Value(existing)
	if err := a.Canonicalize(); err != nil {
		t.Fatal(err)
	}
	if err := b.Canonicalize(); err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Errorf("after Uninstall:\n%s\nwant\n%s", a, b)
	}
}

func TestInstallNewFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	if changed, err := Uninstall(path); err != nil || changed {
		t.Errorf("Uninstall of a missing file: %v, %v", changed, err)
	}
	if changed, err := Install(path, "/bin/vouch hook claude-code"); err != nil || !changed {
		t.Fatalf("Install: %v, %v", changed, err)
	}
	if changed, err := Uninstall(path); err != nil || !changed {
		t.Fatalf("Uninstall: %v, %v", changed, err)
	}
	if got, _ := os.ReadFile(path); strings.TrimSpace(string(got)) != "{}" {
		t.Errorf("after install and uninstall: %s", got)
	}
}

func TestInstallRefuses(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"hooks": [1, 2]}`), 0o644)
	if _, err := Install(bad, "/bin/vouch hook claude-code"); err == nil {
		t.Error("Install into a file whose hooks is not an object: no error")
	}
	notJSON := filepath.Join(dir, "x.json")
	os.WriteFile(notJSON, []byte(`{"a": `), 0o644)
	if _, err := Install(notJSON, "/bin/vouch hook claude-code"); err == nil {
		t.Error("Install into a broken file: no error")
	}
	if got, _ := os.ReadFile(notJSON); string(got) != `{"a": ` {
		t.Errorf("a broken file was rewritten: %q", got)
	}
	if _, err := Install(filepath.Join(dir, "s.json"), "rm -rf /"); err == nil {
		t.Error("Install of a command that is not vouch's hook: no error")
	}
}

func TestIsVouchCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"vouch hook claude-code":                           true,
		"/usr/local/bin/vouch hook claude-code --policy p": true,
		`"/a b/vouch" hook claude-code`:                    true,
		"'/a b/vouch' hook claude-code":                    true,
		"vouch verify x":                                   false,
		"notvouch hook claude-code":                        false,
		"'/a b/vouch hook claude-code":                     false,
		"":                                                 false,
	} {
		if got := IsVouchCommand(cmd); got != want {
			t.Errorf("IsVouchCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}
