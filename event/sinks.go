package event

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
)

// Channel is a [Sink] that sends each event on a Go channel without
// waiting: when the channel has no room the event is dropped and counted,
// so a reader that falls behind never holds up a verification. Give it a
// buffered channel.
type Channel struct {
	ch      chan<- Event
	dropped atomic.Int64
}

var _ Sink = (*Channel)(nil)

// NewChannel returns a sink sending on ch.
func NewChannel(ch chan<- Event) *Channel { return &Channel{ch: ch} }

// Send implements [Sink]. It returns [ErrDropped] when ch had no room.
func (c *Channel) Send(ev *Event, _ []byte) error {
	select {
	case c.ch <- *ev:
		return nil
	default:
		c.dropped.Add(1)
		return fmt.Errorf("event: channel: %w (%s %s)", ErrDropped, ev.Type, ev.ID)
	}
}

// Dropped returns how many events found the channel full.
func (c *Channel) Dropped() int64 { return c.dropped.Load() }

// JSONL is a [Sink] that appends each event to a file as one JSON line.
// Each line is written whole, by one write of a file opened for
// appending, and synced to disk before Send returns: a line that is in the
// file survives a crash. A process killed during a write may leave part
// of a line at the end; the next JSONL opened on the file starts on a new
// line, and [ReadJSONL] reads only the lines that end. Safe for
// concurrent use.
type JSONL struct {
	mu     sync.Mutex
	f      *os.File
	newln  bool // the file ends mid-line: start with a newline
	closed bool
	sync   bool
}

var (
	_ Sink   = (*JSONL)(nil)
	_ Closer = (*JSONL)(nil)
)

// OpenJSONL opens (creating it, mode 0600: events carry agent output)
// the file at path for appending events.
func OpenJSONL(path string) (*JSONL, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("event: jsonl: %w", err)
	}
	j := &JSONL{f: f, sync: true}
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err != nil {
			f.Close()
			return nil, fmt.Errorf("event: jsonl: %w", err)
		}
		j.newln = last[0] != '\n'
	}
	return j, nil
}

// Send implements [Sink].
func (j *JSONL) Send(_ *Event, raw []byte) error {
	line := make([]byte, 0, len(raw)+2)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return errors.New("event: jsonl: closed")
	}
	if j.newln {
		line = append(line, '\n')
	}
	line = append(append(line, raw...), '\n')
	if _, err := j.f.Write(line); err != nil {
		// What reached the file, if anything, ends mid-line.
		j.newln = true
		return fmt.Errorf("event: jsonl: %w", err)
	}
	j.newln = false
	if j.sync {
		if err := j.f.Sync(); err != nil {
			return fmt.Errorf("event: jsonl: sync: %w", err)
		}
	}
	return nil
}

// Close implements [Closer].
func (j *JSONL) Close(context.Context) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil
	}
	j.closed = true
	return j.f.Close()
}

// ReadJSONL reads the events of a JSONL stream, one per line, skipping
// blank lines and a last line that does not end (a write cut short). A
// line that is not an event is an error naming its line number.
func ReadJSONL(r io.Reader) ([]Event, error) {
	br := bufio.NewReader(r)
	var out []Event
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			return out, nil // a last line without its newline was cut short
		}
		if err != nil {
			return out, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var ev Event
		if err := json.Unmarshal(line, &ev); err != nil {
			return out, fmt.Errorf("event: line %d: %w", n, err)
		}
		out = append(out, ev)
	}
}
