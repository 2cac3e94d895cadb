package hook

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/vouchgate/vouch/internal/atomicfile"
)

// Events are the hook events vouch installs itself on.
var Events = []string{EventSessionStart, EventUserPromptSubmit, EventStop, EventSubagentStop}

// TimeoutSeconds is the timeout vouch's hook entries give Claude Code.
const TimeoutSeconds = 60

// object is a JSON object read with its members in order, so that a
// settings file keeps its order and everything vouch does not touch.
type object struct {
	keys []string
	vals map[string]jsontext.Value
}

func readObject(data []byte) (*object, error) {
	o := &object{vals: map[string]jsontext.Value{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return o, nil
	}
	d := jsontext.NewDecoder(bytes.NewReader(data))
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	if tok.Kind() != '{' {
		return nil, fmt.Errorf("want a JSON object, got %s", tok.Kind())
	}
	for d.PeekKind() != '}' {
		name, err := d.ReadToken()
		if err != nil {
			return nil, err
		}
		k := name.String() // before the next read voids the token
		v, err := d.ReadValue()
		if err != nil {
			return nil, err
		}
		if _, dup := o.vals[k]; !dup {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = slices.Clone(v)
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, err
	}
	if _, err := d.ReadToken(); err == nil {
		return nil, errors.New("more than one JSON value")
	}
	return o, nil
}

func (o *object) set(k string, v jsontext.Value) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	delete(o.vals, k)
	o.keys = slices.DeleteFunc(o.keys, func(s string) bool { return s == k })
}

func (o *object) encode() (jsontext.Value, error) {
	var b bytes.Buffer
	e := jsontext.NewEncoder(&b)
	if err := e.WriteToken(jsontext.BeginObject); err != nil {
		return nil, err
	}
	for _, k := range o.keys {
		if err := e.WriteToken(jsontext.String(k)); err != nil {
			return nil, err
		}
		if err := e.WriteValue(o.vals[k]); err != nil {
			return nil, err
		}
	}
	if err := e.WriteToken(jsontext.EndObject); err != nil {
		return nil, err
	}
	return jsontext.Value(bytes.TrimSpace(b.Bytes())), nil
}

// hookGroup is one matcher group of a settings file's hook event.
type hookGroup struct {
	Matcher string      `json:"matcher,omitempty"`
	Hooks   []hookEntry `json:"hooks"`
	// Rest keeps the members vouch does not know.
	Rest jsontext.Value `json:",embed"`
}

type hookEntry struct {
	Type    string         `json:"type"`
	Command string         `json:"command,omitempty"`
	Timeout int            `json:"timeout,omitempty"`
	Rest    jsontext.Value `json:",embed"`
}

// IsVouchCommand reports a hook command that runs vouch's Claude Code
// hook: a program named vouch (any directory) with the arguments "hook
// claude-code".
func IsVouchCommand(cmd string) bool {
	cmd = strings.TrimSpace(cmd)
	var prog, rest string
	if q := cmd[:min(1, len(cmd))]; q == "'" || q == `"` {
		end := strings.Index(cmd[1:], q)
		if end < 0 {
			return false
		}
		prog, rest = cmd[1:1+end], cmd[2+end:]
	} else {
		prog, rest, _ = strings.Cut(cmd, " ")
	}
	f := strings.Fields(rest)
	return filepath.Base(prog) == "vouch" && len(f) >= 2 && f[0] == "hook" && f[1] == "claude-code"
}

// Install merges vouch's hook entries, running command, into the Claude
// Code settings file at path (created when missing): one entry on each of
// [Events], replacing an earlier vouch entry and leaving every other
// setting and hook as it was. It reports whether the file changed.
func Install(path, command string) (bool, error) {
	if !IsVouchCommand(command) {
		return false, fmt.Errorf("install: %q does not run vouch hook claude-code", command)
	}
	return edit(path, func(event string, groups []hookGroup) []hookGroup {
		groups = removeVouch(groups)
		return append(groups, hookGroup{Hooks: []hookEntry{{Type: "command", Command: command, Timeout: TimeoutSeconds}}})
	})
}

// Uninstall removes vouch's hook entries from the settings file at path,
// and the events and the hooks object they leave empty. It reports
// whether the file changed; a missing file is no change.
func Uninstall(path string) (bool, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return edit(path, func(_ string, groups []hookGroup) []hookGroup { return removeVouch(groups) })
}

// removeVouch drops vouch's entries, and the groups left without any.
func removeVouch(groups []hookGroup) []hookGroup {
	var out []hookGroup
	for _, g := range groups {
		n := len(g.Hooks)
		g.Hooks = slices.DeleteFunc(slices.Clone(g.Hooks), func(h hookEntry) bool { return IsVouchCommand(h.Command) })
		if len(g.Hooks) > 0 || n == 0 {
			out = append(out, g)
		}
	}
	return out
}

// edit applies change to the hook groups of each of [Events] in the
// settings file at path, and writes the file back when it changed.
func edit(path string, change func(event string, groups []hookGroup) []hookGroup) (bool, error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	settings, err := readObject(old)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	hooks := &object{vals: map[string]jsontext.Value{}}
	if v, ok := settings.vals["hooks"]; ok {
		if hooks, err = readObject(v); err != nil {
			return false, fmt.Errorf("%s: hooks: %w", path, err)
		}
	}
	for _, ev := range Events {
		var groups []hookGroup
		if v, ok := hooks.vals[ev]; ok {
			if err := json.Unmarshal(v, &groups); err != nil {
				return false, fmt.Errorf("%s: hooks.%s: %w", path, ev, err)
			}
		}
		groups = change(ev, groups)
		if len(groups) == 0 {
			hooks.del(ev)
			continue
		}
		v, err := json.Marshal(groups)
		if err != nil {
			return false, err
		}
		hooks.set(ev, v)
	}
	if len(hooks.keys) == 0 {
		settings.del("hooks")
	} else {
		v, err := hooks.encode()
		if err != nil {
			return false, err
		}
		settings.set("hooks", v)
	}
	v, err := settings.encode()
	if err != nil {
		return false, err
	}
	if err := v.Indent(jsontext.WithIndent("  ")); err != nil {
		return false, err
	}
	out := append([]byte(v), '\n')
	if oldV := jsontext.Value(bytes.Clone(old)); oldV.Compact() == nil {
		if newV := jsontext.Value(bytes.Clone(out)); newV.Compact() == nil && bytes.Equal(oldV, newV) {
			return false, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	return true, atomicfile.Write(path, out, mode)
}
