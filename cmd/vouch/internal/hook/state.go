package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/atomicfile"
)

// State is what the hook keeps of one session between its calls.
type State struct {
	// Recorded is set once the session's start has been recorded.
	Recorded bool `json:"recorded"`
	// Cwd is the directory the base was recorded in.
	Cwd string `json:"cwd,omitempty"`
	// Base is the HEAD commit when the session started; empty outside a
	// repository.
	Base string `json:"base,omitempty"`
	// Dirty are the files that already differed from HEAD then.
	Dirty     []string  `json:"dirty,omitempty"`
	StartedAt time.Time `json:"startedAt,omitzero"`
	// Blocks counts the stops blocked in the current turn.
	Blocks int `json:"blocks"`
	// Asked is set once the agent was asked, this turn, about claims
	// nothing could check (onUnverified follow_up): it is asked once.
	Asked       bool      `json:"asked,omitempty"`
	LastVerdict string    `json:"lastVerdict,omitempty"`
	LastAt      time.Time `json:"lastAt,omitzero"`
}

// store reads and writes one session's state under dir.
type store struct {
	dir string
	id  string
}

// name is the file name of the session's state: its id when that is a
// plain name, else a hash of it (the id comes from the hook's input).
func (s *store) name() string {
	ok := len(s.id) > 0 && len(s.id) <= 128
	for _, r := range s.id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			ok = false
			break
		}
	}
	if ok {
		return s.id
	}
	h := sha256.Sum256([]byte(s.id))
	return "h-" + hex.EncodeToString(h[:16])
}

func (s *store) path(ext string) string { return filepath.Join(s.dir, s.name()+ext) }

// load returns the session's state; a session never seen has the zero
// state.
func (s *store) load() (*State, error) {
	if s.dir == "" {
		return nil, errors.New("no state directory")
	}
	var st State
	data, err := os.ReadFile(s.path(".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return &st, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the session state: %w", err)
	}
	if err := json.Unmarshal(data, &st, json.RejectUnknownMembers(false)); err != nil {
		return nil, fmt.Errorf("the session state %s is damaged: %w", s.path(".json"), err)
	}
	return &st, nil
}

// save writes the session's state whole: to a temporary file, synced, then
// renamed over the old one, so a crash leaves the old state or the new.
func (s *store) save(st *State) error {
	b, err := json.Marshal(st, jsontext.WithIndent("  "))
	if err != nil {
		return err
	}
	return writeAtomic(s.dir, s.path(".json"), b)
}

// saveReport keeps the last report of the session beside its state, for
// the user to read.
func (s *store) saveReport(rep *vouch.Report) error {
	b, err := json.Marshal(rep, jsontext.WithIndent("  "))
	if err != nil {
		return err
	}
	return writeAtomic(s.dir, s.path(".report.json"), b)
}

// writeAtomic writes data to path, in dir, through a synced temporary
// file, readable by the user alone.
func writeAtomic(dir, path string, data []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	if err := atomicfile.Write(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("writing the session state: %w", err)
	}
	return nil
}

// maxLogBytes caps the hook's error log; past it the log starts again.
const maxLogBytes = 1 << 20

// appendLog appends a line to the hook's error log in dir.
func appendLog(dir, line string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	path := filepath.Join(dir, "hook.log")
	flag := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLogBytes {
		flag |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
