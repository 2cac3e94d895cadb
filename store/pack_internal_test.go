package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// memDicts is a dictStore in memory.
type memDicts struct {
	mu     sync.Mutex
	dicts  map[uint32][]byte
	newest map[blobKind][]byte
	locked map[blobKind]bool // the training locks held
}

func newMemDicts() *memDicts {
	return &memDicts{dicts: map[uint32][]byte{}, newest: map[blobKind][]byte{}, locked: map[blobKind]bool{}}
}

func (m *memDicts) saveDict(_ context.Context, id uint32, kind blobKind, d []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dicts[id], m.newest[kind] = d, d
	return nil
}

func (m *memDicts) loadDict(_ context.Context, id uint32) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.dicts[id]
	return d, ok, nil
}

func (m *memDicts) newestDicts(context.Context) (map[blobKind][]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[blobKind][]byte{}
	for k, d := range m.newest {
		out[k] = d
	}
	return out, nil
}

func (m *memDicts) newestDict(_ context.Context, kind blobKind) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.newest[kind]
	return d, ok, nil
}

func (m *memDicts) trainLock(_ context.Context, kind blobKind) (func(), bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.locked[kind] {
		return nil, false, nil
	}
	m.locked[kind] = true
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.locked[kind] = false
	}, true, nil
}

// report makes the i-th of a set of alike reports.
func report(i int) []byte {
	return fmt.Appendf(nil, `{"id":"v-%06d","verdict":"%s","score":0.%d,"criteria":[{"id":"c1","kind":"text","passed":true,"evidence":"the summary names %d files"},{"id":"c2","kind":"text","passed":%t,"evidence":"word count %d of at most 300"}],"claims":{"checked":%d,"refuted":0},"feedback":"none needed for attempt %d"}`,
		i, []string{"pass", "retry", "fail"}[i%3], i%10, i%7, i%2 == 0, 100+i%200, i%5, i%3+1)
}

func frameDict(t *testing.T, b []byte) uint32 {
	t.Helper()
	var h zstd.Header
	if err := h.Decode(b); err != nil {
		t.Fatalf("not a zstd frame: %v", err)
	}
	return h.DictionaryID
}

// TestPackTrainsADictionary packs alike reports until the packer trains
// a dictionary on them, then checks that it compresses with it, better,
// that every blob reads back, and that a packer opened before the
// dictionary existed (another process) reads the new frames too.
func TestPackTrainsADictionary(t *testing.T) {
	ctx := t.Context()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ds := newMemDicts()
	other, err := newPacker(ctx, ds, log)
	if err != nil {
		t.Fatal(err)
	}
	defer other.close()
	p, err := newPacker(ctx, ds, log)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	trained := make(chan error, 1)
	p.trained = func(kind blobKind, id uint32, err error) {
		if kind == blobReport {
			trained <- err
		}
	}
	var before [][]byte
	for i := range packSamples {
		before = append(before, p.pack(blobReport, report(i)))
	}
	if err := <-trained; err != nil {
		t.Fatal(err)
	}
	if id := frameDict(t, before[0]); id != 0 {
		t.Errorf("a blob packed before the dictionary names dictionary %d", id)
	}
	after := p.pack(blobReport, report(packSamples+1))
	id := frameDict(t, after)
	if id == 0 {
		t.Fatal("a blob packed after training names no dictionary")
	}
	plain := p.plain.EncodeAll(report(packSamples+1), nil)
	if len(after) >= len(plain) {
		t.Errorf("with the dictionary %d bytes, without %d", len(after), len(plain))
	}
	for _, c := range []struct {
		name string
		p    *packer
	}{{"the trainer", p}, {"another process", other}} {
		for i, b := range append(before[:3:3], after) {
			want := report(i)
			if i == 3 {
				want = report(packSamples + 1)
			}
			got, err := c.p.unpack(ctx, b)
			if err != nil || string(got) != string(want) {
				t.Errorf("%s: blob %d: %v; got %.60q", c.name, i, err, got)
			}
		}
	}
	// A packer opened now compresses with the dictionary at once.
	late, err := newPacker(ctx, ds, log)
	if err != nil {
		t.Fatal(err)
	}
	defer late.close()
	if got := frameDict(t, late.pack(blobReport, report(7))); got != id {
		t.Errorf("a packer opened after training uses dictionary %d, want %d", got, id)
	}
	// A short blob stays as it is; JSON written before compression
	// reads as it is.
	if got := p.pack(blobReport, []byte(`{"a":1}`)); string(got) != `{"a":1}` {
		t.Errorf("a short blob became %q", got)
	}
	if got, err := p.unpack(ctx, report(1)); err != nil || string(got) != string(report(1)) {
		t.Errorf("raw JSON: %v", err)
	}
}

// watchedPacker returns a packer over an empty dictionary store, closed
// when the test ends, and the outcome of each training it runs.
func watchedPacker(t *testing.T) (*packer, <-chan error) {
	t.Helper()
	p, err := newPacker(t.Context(), newMemDicts(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	trained := make(chan error, 1)
	p.trained = func(_ blobKind, _ uint32, err error) { trained <- err }
	return p, trained
}

// TestUnpackMissingDictionary reads a frame whose dictionary the store
// does not hold: an error, not a guess.
func TestUnpackMissingDictionary(t *testing.T) {
	ctx := t.Context()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	p, trained := watchedPacker(t)
	for i := range packSamples {
		p.pack(blobRequest, report(i))
	}
	if err := <-trained; err != nil {
		t.Fatal(err)
	}
	b := p.pack(blobRequest, report(1))
	stranger, err := newPacker(ctx, newMemDicts(), log)
	if err != nil {
		t.Fatal(err)
	}
	defer stranger.close()
	if _, err := stranger.unpack(ctx, b); !errors.Is(err, errNoDict) {
		t.Errorf("unpack without the dictionary: %v, want errNoDict", err)
	}
}

// TestStoreCompressesWithItsDictionary fills an SQLite store past a
// dictionary's samples, reopens it, and finds a new row compressed with
// the dictionary it trained, and smaller than without.
func TestStoreCompressesWithItsDictionary(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "d.db")
	s, _ := openGated(t, path, writerHooks{})
	vs := make([]*Verification, packSamples)
	for i := range vs {
		vs[i] = testVerification("acme", fmt.Sprintf("v%04d", i), 1)
		vs[i].Result = report(i)
	}
	if _, err := s.Import(ctx, vs); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // waits for the training
		t.Fatal(err)
	}
	s, _ = openGated(t, path, writerHooks{})
	v := testVerification("acme", "after", 1)
	v.Result = report(packSamples + 3)
	if _, err := s.Insert(ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	var stored []byte
	if err := s.eng.reader().queryRow(ctx, `SELECT result FROM verification_logs WHERE id = 'after'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if frameDict(t, stored) == 0 {
		t.Error("a row written after reopening names no dictionary")
	}
	if plain := s.packs.plain.EncodeAll(v.Result, nil); len(stored) >= len(plain) {
		t.Errorf("stored in %d bytes, %d without the dictionary", len(stored), len(plain))
	}
	if got, err := s.Get(ctx, "acme", "after", 1); err != nil || string(got.Result) != string(v.Result) {
		t.Errorf("Get: %v", err)
	}
}

// TestStoreCompressesEvents writes events until the store has trained a
// dictionary on their data, then one more after reopening: it is stored
// compressed with that dictionary, smaller than without it, and read
// back as it was; an event written before compression is read as it is.
func TestStoreCompressesEvents(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "e.db")
	s, _ := openGated(t, path, writerHooks{})
	data := func(i int) []byte {
		return fmt.Appendf(nil, `{"type":"verification:complete","id":"v%04d","time":"2026-11-03T09:00:%02dZ","tenant":"acme","interactionId":"run-%d","taskId":"","attempt":%d,"data":{"selfAssessment":null}}`,
			i, i%60, i%17, i%3+1)
	}
	// An event as the store kept it before it compressed events.
	if _, err := s.eng.(*sqliteEngine).wdb.ExecContext(ctx, `INSERT INTO events (tenant, type, data, created_at) VALUES ('acme', 'old', ?, ?)`,
		string(data(-1)), sqliteDialect.ts(t0)); err != nil {
		t.Fatal(err)
	}
	evs := make([]Event, packSamples)
	for i := range evs {
		evs[i] = Event{Tenant: "acme", Type: "e", Data: data(i)}
	}
	if err := s.AppendEvents(ctx, evs); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // waits for the training
		t.Fatal(err)
	}
	s, _ = openGated(t, path, writerHooks{})
	after := Event{Tenant: "acme", Type: "after", Data: data(packSamples + 3)}
	if err := s.AppendEvents(ctx, []Event{after}); err != nil {
		t.Fatal(err)
	}
	var stored []byte
	if err := s.eng.reader().queryRow(ctx, `SELECT data FROM events WHERE type = 'after'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if frameDict(t, stored) == 0 {
		t.Error("an event written after reopening names no dictionary")
	}
	if plain := s.packs.plain.EncodeAll(after.Data, nil); len(stored) >= len(plain) || len(stored) >= len(after.Data)/2 {
		t.Errorf("stored in %d bytes, %d without the dictionary, %d as it is", len(stored), len(plain), len(after.Data))
	}
	got, err := s.Events(ctx, "acme", 0, packSamples+10)
	if err != nil || len(got) != packSamples+2 {
		t.Fatalf("Events: %d, %v", len(got), err)
	}
	if got[0].Type != "old" || string(got[0].Data) != string(data(-1)) {
		t.Errorf("the event written before compression: %s %s", got[0].Type, got[0].Data)
	}
	if last := got[len(got)-1]; string(last.Data) != string(after.Data) {
		t.Errorf("read back %s, want %s", last.Data, after.Data)
	}
}

// TestPackSurvivesTheDictionaryBuilder feeds the dictionary builder
// samples that are all the same, on which it panics: the training fails,
// is logged, and the packer goes on compressing without a dictionary,
// not trying again before packRetry blobs.
func TestPackSurvivesTheDictionaryBuilder(t *testing.T) {
	ctx := t.Context()
	p, trained := watchedPacker(t)
	same := report(1)
	for range packSamples {
		p.pack(blobReport, same)
	}
	if err := <-trained; err == nil {
		t.Fatal("the builder made a dictionary of identical samples; this test needs samples it fails on")
	}
	for range packSamples {
		p.pack(blobReport, same)
	}
	p.mu.Lock()
	sampled, training := len(p.samples[blobReport]), p.training[blobReport]
	p.mu.Unlock()
	if sampled != 0 || training {
		t.Errorf("right after a failed training: %d samples kept, training %v; want none", sampled, training)
	}
	b := p.pack(blobReport, same)
	if frameDict(t, b) != 0 {
		t.Error("compressed with a dictionary after the training failed")
	}
	if got, err := p.unpack(ctx, b); err != nil || string(got) != string(same) {
		t.Errorf("unpack: %v", err)
	}
}

// TestPackTrainsOnLargeBlobs packs blobs so large that fewer than
// packSamples fit in packSampleBytes: the packer trains on those that
// fit rather than waiting for samples it will never keep.
func TestPackTrainsOnLargeBlobs(t *testing.T) {
	p, trained := watchedPacker(t)
	large := func(i int) []byte {
		var b []byte
		for j := 0; len(b) < packSampleMax-1024; j++ {
			b = append(b, report(i*1000+j)...)
		}
		return b
	}
	n := packSampleBytes/len(large(0)) + 1
	if n >= packSamples {
		t.Fatalf("%d blobs fill the samples' bytes: not large enough for this test", n)
	}
	for i := range n {
		p.pack(blobReport, large(i))
	}
	if err := <-trained; err != nil {
		t.Fatal(err)
	}
	if frameDict(t, p.pack(blobReport, large(n))) == 0 {
		t.Error("no dictionary after training on large blobs")
	}
}

// TestPackAdoptsAnotherProcessDictionary: a packer whose samples are
// full uses the dictionary another process wrote meanwhile rather than
// train one of its own; one that finds another process training gathers
// packSamples blobs again before it would train, compressing without a
// dictionary till one is written (see also
// TestPackLooksForAnotherProcessDictionary).
func TestPackAdoptsAnotherProcessDictionary(t *testing.T) {
	ctx := t.Context()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ds, first, second := twoPackers(t)
	firstDone, secondDone := trainedBy(first), trainedBy(second)
	id := trainReports(t, first, firstDone)
	for i := range packSamples {
		second.pack(blobReport, report(i))
	}
	if err := <-secondDone; err != nil {
		t.Fatal(err)
	}
	if got := frameDict(t, second.pack(blobReport, report(1))); got != id || id == 0 {
		t.Errorf("the second packer compresses with dictionary %d, want the first's, %d", got, id)
	}
	if len(ds.dicts) != 1 {
		t.Errorf("the store holds %d dictionaries, want 1", len(ds.dicts))
	}

	// Another process holds the training lock of requests.
	other := newMemDicts()
	unlock, ok, _ := other.trainLock(ctx, blobRequest)
	if !ok {
		t.Fatal("the training lock of an empty store is taken")
	}
	p, err := newPacker(ctx, other, log)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	done := make(chan error, 1)
	p.trained = func(kind blobKind, id uint32, err error) {
		if kind == blobRequest {
			done <- err
		}
	}
	for i := range packSamples {
		p.pack(blobRequest, report(i))
	}
	if err := <-done; !errors.Is(err, errTrainingElsewhere) {
		t.Fatalf("training while another process trains: %v, want errTrainingElsewhere", err)
	}
	if got := frameDict(t, p.pack(blobRequest, report(1))); got != 0 {
		t.Errorf("compressing with dictionary %d while another process trains, want none", got)
	}
	if len(other.dicts) != 0 {
		t.Errorf("%d dictionaries written while another process trains", len(other.dicts))
	}
	// The other process writes its dictionary: the next look finds it.
	samples := make([][]byte, packSamples)
	for i := range samples {
		samples[i] = report(i)
	}
	d, err := buildDict(samples)
	if err != nil {
		t.Fatal(err)
	}
	want, err := dictID(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.saveDict(ctx, want, blobRequest, d); err != nil {
		t.Fatal(err)
	}
	unlock()
	for i := range packSamples {
		p.pack(blobRequest, report(i))
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := frameDict(t, p.pack(blobRequest, report(1))); got != want {
		t.Errorf("after the other process wrote its dictionary: dictionary %d, want %d", got, want)
	}
	if len(other.dicts) != 1 {
		t.Errorf("the store holds %d dictionaries, want the other process's alone", len(other.dicts))
	}
}

// TestPackLooksForAnotherProcessDictionary checks that a packer
// gathering samples takes a dictionary another process wrote within
// packLook blobs, not after packSamples.
func TestPackLooksForAnotherProcessDictionary(t *testing.T) {
	_, first, second := twoPackers(t)
	firstDone := trainedBy(first)
	adopted := make(chan uint32, 1)
	second.trained = func(kind blobKind, id uint32, err error) {
		if kind == blobReport && err == nil {
			adopted <- id
		}
	}
	id := trainReports(t, first, firstDone)
	for i := range packLook {
		second.pack(blobReport, report(i))
	}
	second.trainers.Wait() // its look
	select {
	case got := <-adopted:
		if got != id || id == 0 {
			t.Errorf("the second packer took dictionary %d, want the first's, %d", got, id)
		}
	default:
		t.Fatalf("after %d blobs the second packer has taken no dictionary", packLook)
	}
	if got := frameDict(t, second.pack(blobReport, report(1))); got != id {
		t.Errorf("the second packer compresses with dictionary %d, want %d", got, id)
	}
}

// trainedBy returns a channel that gets what came of p's dictionary of
// reports (its training or adoption): nil or the error.
func trainedBy(p *packer) chan error {
	c := make(chan error, 1)
	p.trained = func(kind blobKind, _ uint32, err error) {
		if kind == blobReport {
			c <- err
		}
	}
	return c
}

// trainReports packs reports with p until it has trained a dictionary of
// them (done is trainedBy's channel), and returns the dictionary's id.
func trainReports(t *testing.T, p *packer, done chan error) uint32 {
	t.Helper()
	for i := range packSamples {
		p.pack(blobReport, report(i))
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return frameDict(t, p.pack(blobReport, report(1)))
}

// twoPackers opens two packers on one store with no dictionary, as two
// processes would, both closed when the test ends.
func twoPackers(t *testing.T) (ds *memDicts, first, second *packer) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ds = newMemDicts()
	var err error
	if first, err = newPacker(t.Context(), ds, log); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(first.close)
	if second, err = newPacker(t.Context(), ds, log); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(second.close)
	return ds, first, second
}
