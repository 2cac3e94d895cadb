package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/vouchgate/vouch/internal/atomicfile"
)

// Store keeps a memory's [State]. View calls f with the state as it is;
// f must neither modify it nor keep it after returning. Update calls f
// with a state it may modify, and saves the result only if f returns nil,
// atomically: a reader sees the state before or after, never part of it.
// Both may be called concurrently; a Store serialises its updates so that
// none is lost. Both return ctx's error, without calling f, once ctx is
// done.
type Store interface {
	View(ctx context.Context, f func(*State) error) error
	Update(ctx context.Context, f func(*State) error) error
}

// stateVersion is the version of the state's JSON form.
const stateVersion = 1

// State is everything a memory holds.
type State struct {
	// Version is the version of the state's form (1).
	Version int `json:"version"`
	// Interactions are the items of each interaction, by its id.
	Interactions map[string]*Interaction `json:"interactions"`
	// Shared are the promoted hallucinations every interaction reads.
	Shared []Item `json:"shared"`
	// Sightings count, for each unverified mention, the interactions it
	// was unverified in (the latest 100).
	Sightings map[string]*Sighting `json:"sightings"`
}

// Interaction is the memory of one interaction.
type Interaction struct {
	// Updated is when the interaction last recorded a report.
	Updated time.Time `json:"updated"`
	// Items are what it recorded.
	Items []Item `json:"items"`
}

// Sighting is where one unverified mention has been seen.
type Sighting struct {
	// Interactions are the interactions it was unverified in.
	Interactions []string `json:"interactions"`
	// Last is when it was last seen.
	Last time.Time `json:"last"`
}

// NewState returns an empty state.
func NewState() *State {
	return &State{Version: stateVersion, Interactions: map[string]*Interaction{}, Sightings: map[string]*Sighting{}}
}

func (st *State) interaction(id string) *Interaction {
	in := st.Interactions[id]
	if in == nil {
		in = &Interaction{}
		st.Interactions[id] = in
	}
	return in
}

// upsert adds it, or refreshes the item with its key.
func (in *Interaction) upsert(it Item) {
	k := it.key()
	for i := range in.Items {
		if in.Items[i].key() == k {
			seen := in.Items[i].Seen + 1
			in.Items[i] = it
			in.Items[i].Seen = seen
			return
		}
	}
	in.Items = append(in.Items, it)
}

// sight counts a hallucination in an interaction and promotes it to the
// shared memory once it has been seen in promoteAfter interactions.
func (st *State) sight(it Item, interactionID string, promoteAfter int, now time.Time) {
	k := it.key()
	s := st.Sightings[k]
	if s == nil {
		s = &Sighting{}
		st.Sightings[k] = s
	}
	s.Last = now
	if !slices.Contains(s.Interactions, interactionID) {
		s.Interactions = append(s.Interactions, interactionID)
		if len(s.Interactions) > maxSighted {
			s.Interactions = slices.Delete(s.Interactions, 0, len(s.Interactions)-maxSighted)
		}
	}
	for i := range st.Shared {
		if sh := &st.Shared[i]; sh.key() == k {
			sh.Time, sh.Detail, sh.TaskID, sh.InteractionID = now, it.Detail, it.TaskID, interactionID
			sh.Seen = max(sh.Seen, len(s.Interactions))
			return
		}
	}
	if len(s.Interactions) >= promoteAfter {
		sh := it
		sh.Shared, sh.Seen, sh.Time = true, len(s.Interactions), now
		st.Shared = append(st.Shared, sh)
	}
}

// maxSighted bounds the interactions a sighting lists.
const maxSighted = 100

// trim forgets the least recently updated interactions beyond
// maxInteractions, and the oldest items beyond maxItems in each list; the
// sightings are bounded like the items of one list, ten times over.
func (st *State) trim(maxInteractions, maxItems int) {
	if len(st.Interactions) > maxInteractions {
		ids := make([]string, 0, len(st.Interactions))
		for id := range st.Interactions {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool {
			return st.Interactions[ids[i]].Updated.Before(st.Interactions[ids[j]].Updated)
		})
		for _, id := range ids[:len(ids)-maxInteractions] {
			delete(st.Interactions, id)
		}
	}
	oldestFirst := func(items []Item) []Item {
		if len(items) <= maxItems {
			return items
		}
		slices.SortStableFunc(items, func(a, b Item) int { return a.Time.Compare(b.Time) })
		return slices.Clone(items[len(items)-maxItems:])
	}
	for _, in := range st.Interactions {
		in.Items = oldestFirst(in.Items)
	}
	st.Shared = oldestFirst(st.Shared)
	if max := 10 * maxItems; len(st.Sightings) > max {
		keys := make([]string, 0, len(st.Sightings))
		for k := range st.Sightings {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return st.Sightings[keys[i]].Last.Before(st.Sightings[keys[j]].Last) })
		for _, k := range keys[:len(keys)-max] {
			delete(st.Sightings, k)
		}
	}
}

// clone returns a deep copy of st.
func (st *State) clone() *State {
	c := &State{Version: st.Version, Shared: slices.Clone(st.Shared),
		Interactions: make(map[string]*Interaction, len(st.Interactions)),
		Sightings:    make(map[string]*Sighting, len(st.Sightings))}
	for id, in := range st.Interactions {
		c.Interactions[id] = &Interaction{Updated: in.Updated, Items: slices.Clone(in.Items)}
	}
	for k, s := range st.Sightings {
		c.Sightings[k] = &Sighting{Interactions: slices.Clone(s.Interactions), Last: s.Last}
	}
	return c
}

// Mem is a [Store] in memory: what it holds lasts as long as the process.
type Mem struct {
	mu sync.RWMutex
	st *State
}

var _ Store = (*Mem)(nil)

// NewMem returns an empty in-memory store.
func NewMem() *Mem { return &Mem{st: NewState()} }

// View implements [Store].
func (m *Mem) View(ctx context.Context, f func(*State) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return f(m.st)
}

// Update implements [Store]: f works on a copy, which replaces the state
// when f succeeds.
func (m *Mem) Update(ctx context.Context, f func(*State) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	next := m.st.clone()
	if err := f(next); err != nil {
		return err
	}
	m.st = next
	return nil
}

// File is a [Store] in a JSON file. Every update reads the file, applies
// the change and writes the whole state to a temporary file in the same
// directory, synced, then renames it over the file (and syncs the
// directory): a reader, or a crash, sees the old state or the new, never a
// part. Updates are serialised within the process by a mutex and across
// processes by an advisory lock on PATH.lock (on systems with flock), so
// concurrent subtasks and hooks never lose each other's records.
type File struct {
	path string
	mu   sync.Mutex

	// The state last read or written, and the file it was in: a file
	// replaced since is another file (a rename gives a new inode), so an
	// unchanged one need not be read and parsed again.
	cmu    sync.Mutex
	cached *State
	cfile  os.FileInfo
}

var _ Store = (*File)(nil)

// OpenFile returns a store over the file at path, creating its directory
// (mode 0700) if needed. A file that exists must hold a state: one that
// does not is an error, here and on every later call, rather than a
// memory silently emptied.
func OpenFile(path string) (*File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	f := &File{path: path}
	if _, err := f.load(); err != nil {
		return nil, err
	}
	return f, nil
}

// view returns the state for reading: the cached one when the file is
// still the one it was read from or written to, else the file's. The
// caller must not modify it.
func (f *File) view() (*State, error) {
	// Stat before the read: a file replaced between the two is cached
	// under the older file's identity, so it is read anew next time.
	fi, serr := os.Stat(f.path)
	f.cmu.Lock()
	if serr == nil && f.cfile != nil && os.SameFile(fi, f.cfile) && fi.Size() == f.cfile.Size() && fi.ModTime().Equal(f.cfile.ModTime()) {
		st := f.cached
		f.cmu.Unlock()
		return st, nil
	}
	f.cmu.Unlock()
	st, err := f.load()
	if err == nil && serr == nil {
		f.remember(st, fi)
	}
	return st, err
}

func (f *File) remember(st *State, fi os.FileInfo) {
	f.cmu.Lock()
	f.cached, f.cfile = st, fi
	f.cmu.Unlock()
}

// load reads the state, or an empty one when the file does not exist.
func (f *File) load() (*State, error) {
	data, err := os.ReadFile(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return NewState(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	st := NewState()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(st); err != nil {
		return nil, fmt.Errorf("memory: %s is not a memory file: %w", f.path, err)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("memory: %s has version %d, want %d", f.path, st.Version, stateVersion)
	}
	if st.Interactions == nil {
		st.Interactions = map[string]*Interaction{}
	}
	if st.Sightings == nil {
		st.Sightings = map[string]*Sighting{}
	}
	return st, nil
}

// save writes st atomically.
func (f *File) save(st *State) error {
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	if err := atomicfile.Write(f.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("memory: save: %w", err)
	}
	return nil
}

// View implements [Store].
func (f *File) View(ctx context.Context, fn func(*State) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// The file is replaced whole, never written in place: reading needs
	// no lock.
	st, err := f.view()
	if err != nil {
		return err
	}
	return fn(st)
}

// Update implements [Store].
func (f *File) Update(ctx context.Context, fn func(*State) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	unlock, err := lockFile(f.path + ".lock")
	if err != nil {
		return fmt.Errorf("memory: lock: %w", err)
	}
	defer unlock()
	st, err := f.view()
	if err != nil {
		return err
	}
	st = st.clone()
	if err := fn(st); err != nil {
		return err
	}
	if err := f.save(st); err != nil {
		return err
	}
	// Under the lock no one else writes: the file is the one just saved.
	if fi, err := os.Stat(f.path); err == nil {
		f.remember(st, fi)
	}
	return nil
}
