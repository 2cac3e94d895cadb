package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/dict"
	"github.com/klauspost/compress/zstd"
)

// A store keeps each verification's report and request compressed
// (zstd, its fastest level): they are most of a row, JSON of a few
// kilobytes. They are compressed by the caller's goroutine before the
// write is queued (or its transaction begins), and decompressed when
// read. PostgreSQL's own compression (TOAST) is off for these columns
// (migration 0013): it takes only values over about 2 KB, and less well.
//
// Alone, zstd shrinks a report about threefold; the reports of one
// deployment are alike (the same criteria, checks and keys, verification
// after verification), and with a dictionary trained on them about
// sixfold. So the store trains its own: a process that finds no
// dictionary of a kind in the store, once it has compressed packSamples
// reports (or requests) without one, looks again, and uses one written
// meanwhile by another process; else it builds one from them in the
// background, writes it to pack_dicts (migration 0014) and compresses
// with it from then on. On PostgreSQL one process at a time trains a
// kind (an advisory lock): a process that finds another training
// compresses on without a dictionary, and looks again packSamples blobs
// later. A process that opens a store with one uses the newest. So a
// store holds one dictionary of each kind, seldom a few (processes that
// looked before another's was written). Training one costs a second or
// two of CPU: four workers on an empty store each training their own
// spent a fifth of their CPU on it over 20,000 requests. A zstd frame
// names its dictionary, and a dictionary is never deleted, so every blob
// can be read back: the newest are loaded when the store opens, any other when
// a blob first names it, and a decoder, once made, is kept.
//
// A row written before compression holds its JSON as it is; the two are
// told apart by zstd's frame magic, which no JSON text starts with.

// zstdMagic starts every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// Bounds of compression and of the dictionaries' training.
const (
	// packMin is the smallest report or request worth compressing, and
	// packMinEvent the smallest event: an event's data is mostly the same
	// few keys, which a dictionary holds (about 230 bytes to 85).
	packMin      = 256
	packMinEvent = 64
	// packSamples is how many blobs of a kind a dictionary is trained on.
	packSamples = 1000
	// packSampleMax is the largest blob kept as a sample, and
	// packSampleBytes the most bytes of samples of one kind.
	packSampleMax   = 64 << 10
	packSampleBytes = 16 << 20
	// packLook is how often, in blobs of a kind, a packer gathering
	// samples looks for a dictionary of the kind another process wrote
	// (see look).
	packLook = 100
	// packRetry is how many blobs of a kind are compressed after a
	// failed training before the next is tried.
	packRetry = 100_000
	// packDictMax bounds a dictionary's size, and packDictMatch is the
	// shortest string shared by samples that it holds (see buildDict).
	packDictMax   = 32 << 10
	packDictMatch = 8
	// maxUnpacked bounds what a stored blob may decompress to: more than
	// any request or report the server accepts.
	maxUnpacked = 1 << 30
	// dictLoadWait bounds the loading of a dictionary a blob names that
	// this process has not loaded yet (see packer.decoder).
	dictLoadWait = 10 * time.Second
)

// blobKind is what a blob holds: a report, a request or an event's data,
// each with dictionaries of its own.
type blobKind int

const (
	blobReport blobKind = iota
	blobRequest
	blobEvent
	blobKinds
)

// String returns the kind as pack_dicts names it.
func (k blobKind) String() string {
	switch k {
	case blobReport:
		return "report"
	case blobRequest:
		return "request"
	default:
		return "event"
	}
}

// dictStore is where a packer keeps its dictionaries.
type dictStore interface {
	// saveDict writes a dictionary of a kind under its zstd id.
	saveDict(ctx context.Context, id uint32, kind blobKind, d []byte) error
	// loadDict reads a dictionary by its id; ok is false when there is
	// none.
	loadDict(ctx context.Context, id uint32) (d []byte, ok bool, err error)
	// newestDicts reads each kind's newest dictionary.
	newestDicts(ctx context.Context) (map[blobKind][]byte, error)
	// newestDict reads a kind's newest dictionary; ok is false when
	// there is none.
	newestDict(ctx context.Context, kind blobKind) (d []byte, ok bool, err error)
	// trainLock takes the lock of training a kind's dictionary, held by
	// one process at a time, unless another holds it (ok false); unlock
	// releases it.
	trainLock(ctx context.Context, kind blobKind) (unlock func(), ok bool, err error)
}

// packer compresses and decompresses the blobs of one store.
type packer struct {
	ds  dictStore
	log *slog.Logger
	// plain compresses without a dictionary; enc holds the encoder of
	// each kind's newest dictionary (nil: none yet).
	plain *zstd.Encoder
	enc   [blobKinds]atomic.Pointer[zstd.Encoder]

	mu sync.Mutex
	// decs decodes the frames of each dictionary by its id; 0: none.
	decs map[uint32]*zstd.Decoder
	// samples gathers the blobs the dictionary of each kind is trained
	// on, sampleBytes their size; since counts the blobs packed since the
	// start or the last failed training; training is set while a
	// dictionary of the kind is being built.
	samples     [blobKinds][][]byte
	sampleBytes [blobKinds]int
	since       [blobKinds]int
	training    [blobKinds]bool
	// looking is set while look reads the store's newest dictionary of
	// the kind.
	looking [blobKinds]bool
	// failed is set when the kind's last training failed: the next waits
	// for packRetry blobs.
	failed [blobKinds]bool
	// closing is set by close: no training starts after it.
	closing  bool
	trainers sync.WaitGroup
	// trained, when set, is called after each training (tests).
	trained func(kind blobKind, id uint32, err error)
}

// newPacker returns a packer with the dictionaries ds holds, each kind
// compressing with its newest.
func newPacker(ctx context.Context, ds dictStore, log *slog.Logger) (*packer, error) {
	plain, err := zstd.NewWriter(nil, encoderOptions()...)
	if err != nil {
		return nil, fmt.Errorf("zstd encoder: %w", err)
	}
	p := &packer{ds: ds, log: log, plain: plain, decs: map[uint32]*zstd.Decoder{}}
	if p.decs[0], err = zstd.NewReader(nil, decoderOptions()...); err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	newest, err := ds.newestDicts(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the compression dictionaries: %w", err)
	}
	for kind, d := range newest {
		if err := p.use(kind, d); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// maxEncoders bounds the encoder states of each of a packer's encoders:
// one with a dictionary holds about 700 KB once used, and compressing is
// a fifth of a verification's time, so 8 cover 16 cores and more.
const maxEncoders = 8

// encoderOptions are a packer's encoders': an encoder state per core, up
// to maxEncoders, as every request compresses its report and request on
// its own goroutine (with one state, they queued for it: 15% of a
// server's time under load was spent waiting there).
func encoderOptions(extra ...zstd.EOption) []zstd.EOption {
	return append([]zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderConcurrency(min(runtime.GOMAXPROCS(0), maxEncoders)), zstd.WithWindowSize(1 << 17), zstd.WithLowerEncoderMem(true)}, extra...)
}

func decoderOptions(extra ...zstd.DOption) []zstd.DOption {
	return append([]zstd.DOption{zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxUnpacked)}, extra...)
}

// use makes d the dictionary kind compresses with, and one it reads.
func (p *packer) use(kind blobKind, d []byte) error {
	id, err := dictID(d)
	if err != nil {
		return err
	}
	if err := p.register(id, d); err != nil {
		return err
	}
	e, err := zstd.NewWriter(nil, encoderOptions(zstd.WithEncoderDict(d))...)
	if err != nil {
		return fmt.Errorf("zstd encoder of dictionary %d: %w", id, err)
	}
	p.enc[kind].Store(e)
	return nil
}

// register adds a decoder for the frames of dictionary d, unless one is
// there already: a decoder is never replaced nor closed while the store
// is open, as reads may be using it.
func (p *packer) register(id uint32, d []byte) error {
	p.mu.Lock()
	_, ok := p.decs[id]
	p.mu.Unlock()
	if ok {
		return nil
	}
	dec, err := zstd.NewReader(nil, decoderOptions(zstd.WithDecoderDicts(d))...)
	if err != nil {
		return fmt.Errorf("zstd decoder of dictionary %d: %w", id, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.decs[id]; !ok {
		p.decs[id] = dec
	}
	return nil
}

// dictID reads a zstd dictionary's id.
func dictID(d []byte) (uint32, error) {
	info, err := zstd.InspectDictionary(d)
	if err != nil {
		return 0, fmt.Errorf("a compression dictionary: %w", err)
	}
	return info.ID(), nil
}

// pack returns b compressed, or b itself when it is short or does not
// shrink. It may start training the kind's next dictionary.
func (p *packer) pack(kind blobKind, b []byte) []byte {
	if len(b) < packMin && (kind != blobEvent || len(b) < packMinEvent) {
		return b
	}
	p.sample(kind, b)
	e := p.enc[kind].Load()
	if e == nil {
		e = p.plain
	}
	c := e.EncodeAll(b, make([]byte, 0, len(b)/3))
	if len(c) >= len(b) {
		return b
	}
	return c
}

// sample counts b, keeps a copy while the kind's next dictionary wants
// samples, and starts training it once it has them.
func (p *packer) sample(kind blobKind, b []byte) {
	if p.enc[kind].Load() != nil {
		return // trained: no lock on the path of every write
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.since[kind]++
	due := !p.failed[kind] || p.since[kind] >= packRetry
	if !due || p.training[kind] || p.closing || len(b) > packSampleMax {
		return
	}
	// Train on packSamples blobs, or on those that fit in
	// packSampleBytes when the blobs are large.
	full := p.sampleBytes[kind]+len(b) > packSampleBytes
	if !full {
		p.samples[kind] = append(p.samples[kind], bytes.Clone(b))
		p.sampleBytes[kind] += len(b)
	}
	if !full && len(p.samples[kind]) < packSamples {
		if p.since[kind]%packLook == 0 && !p.looking[kind] {
			p.looking[kind] = true
			p.trainers.Add(1)
			go p.look(kind)
		}
		return
	}
	samples := p.samples[kind]
	p.samples[kind], p.sampleBytes[kind], p.training[kind] = nil, 0, true
	p.trainers.Add(1)
	go p.train(kind, samples)
}

// errTrainingElsewhere is train's answer when another process is
// training the kind's dictionary.
var errTrainingElsewhere = errors.New("another process is training the dictionary")

// dictLookupWait bounds each look for a dictionary, and the taking of
// the training lock.
const dictLookupWait = 10 * time.Second

// train compresses kind with the store's newest dictionary of it when
// another process wrote one, or else builds one from samples, writes it
// and compresses with it. A failure is logged, and the kind tries again
// packRetry blobs later; a kind another process is training looks again
// packSamples blobs later.
func (p *packer) train(kind blobKind, samples [][]byte) {
	defer p.trainers.Done()
	id, built, err := p.adoptOrBuild(kind, samples)
	elsewhere := errors.Is(err, errTrainingElsewhere)
	p.mu.Lock()
	p.training[kind], p.since[kind], p.failed[kind] = false, 0, err != nil && !elsewhere
	p.mu.Unlock()
	switch {
	case elsewhere:
		p.log.Debug("store: another process is training a compression dictionary", "kind", kind.String())
	case err != nil:
		p.log.Warn("store: training a compression dictionary", "kind", kind.String(), "err", err)
	case built:
		p.log.Info("store: compressing with a new dictionary", "kind", kind.String(), "id", id)
	default:
		p.log.Info("store: compressing with a dictionary another process trained", "kind", kind.String(), "id", id)
	}
	if p.trained != nil {
		p.trained(kind, id, err)
	}
}

// look compresses kind with the store's newest dictionary of it when
// another process has written one, while this one gathers samples: a
// process that starts beside another on a store with no dictionary
// takes the first one written within packLook blobs, rather than
// compressing packSamples blobs without one (and as many again each time
// it finds another process training).
func (p *packer) look(kind blobKind) {
	defer p.trainers.Done()
	id, ok, err := p.adopt(kind)
	p.mu.Lock()
	p.looking[kind] = false
	if ok && !p.training[kind] {
		p.samples[kind], p.sampleBytes[kind] = nil, 0
	}
	p.mu.Unlock()
	switch {
	case err != nil:
		p.log.Debug("store: looking for a compression dictionary", "kind", kind.String(), "err", err)
	case ok:
		p.log.Info("store: compressing with a dictionary another process trained", "kind", kind.String(), "id", id)
		if p.trained != nil {
			p.trained(kind, id, nil)
		}
	}
}

// adoptOrBuild uses the store's newest dictionary of kind when there is
// one, or builds one from samples under the kind's training lock (built
// is then set).
func (p *packer) adoptOrBuild(kind blobKind, samples [][]byte) (id uint32, built bool, err error) {
	if id, ok, err := p.adopt(kind); ok || err != nil {
		return id, false, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), dictLookupWait)
	unlock, ok, err := p.ds.trainLock(ctx, kind)
	cancel()
	if err != nil {
		return 0, false, fmt.Errorf("the training lock: %w", err)
	}
	if !ok {
		return 0, false, errTrainingElsewhere
	}
	defer unlock()
	// Another process may have written one before the lock was taken.
	if id, ok, err := p.adopt(kind); ok || err != nil {
		return id, false, err
	}
	d, err := buildDict(samples)
	if err != nil {
		return 0, false, err
	}
	if id, err = dictID(d); err != nil {
		return 0, false, err
	}
	if err := p.ds.saveDict(context.Background(), id, kind, d); err != nil {
		return 0, false, err
	}
	return id, true, p.use(kind, d)
}

// adopt compresses kind with the store's newest dictionary of it, when
// there is one (ok).
func (p *packer) adopt(kind blobKind) (id uint32, ok bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), dictLookupWait)
	defer cancel()
	d, ok, err := p.ds.newestDict(ctx, kind)
	if err != nil || !ok {
		return 0, false, err
	}
	if id, err = dictID(d); err != nil {
		return 0, false, err
	}
	return id, true, p.use(kind, d)
}

// buildDict builds a zstd dictionary from samples. The builder panics on
// some inputs (alike samples with nothing in common to index): that is
// an error here, not the end of the process.
//
// The builder indexes the strings of at least packDictMatch bytes that
// samples share. Eight, its most, keeps JSON's longer shared runs (a
// key with its quotes and colon, a code with its message) over short
// fragments: against six, reports compress 12-13 % smaller and a little
// quicker, on the benchmark set and on SWE-bench runs' reports alike.
func buildDict(samples [][]byte) (d []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			d, err = nil, fmt.Errorf("the dictionary builder failed: %v", v)
		}
	}()
	return dict.BuildZstdDict(samples, dict.Options{MaxDictSize: packDictMax, HashBytes: packDictMatch, ZstdLevel: zstd.SpeedFastest})
}

// unpack returns what a stored blob holds: decompressed when pack
// compressed it, as it is otherwise. A blob of a dictionary this packer
// does not know yet (written by another process) loads it.
func (p *packer) unpack(ctx context.Context, b []byte) ([]byte, error) {
	if !bytes.HasPrefix(b, zstdMagic) {
		return b, nil
	}
	var h zstd.Header
	if err := h.Decode(b); err != nil {
		return nil, fmt.Errorf("a compressed blob: %w", err)
	}
	dec, err := p.decoder(ctx, h.DictionaryID)
	if err != nil {
		return nil, err
	}
	out, err := dec.DecodeAll(b, nil)
	if err != nil {
		return nil, fmt.Errorf("a compressed blob: %w", err)
	}
	return out, nil
}

// errNoDict is returned for a blob whose dictionary the store lacks.
var errNoDict = errors.New("its compression dictionary is not in the store")

// decoder returns the decoder of dictionary id, loading it when needed.
func (p *packer) decoder(ctx context.Context, id uint32) (*zstd.Decoder, error) {
	p.mu.Lock()
	dec := p.decs[id]
	p.mu.Unlock()
	if dec != nil {
		return dec, nil
	}
	// A read inside a write transaction (a duplicate's, in a PostgreSQL
	// group) loads the dictionary through a connection of its own: its
	// wait for one is bounded, so that transactions that each hold one
	// and want another cannot wait on one another for ever.
	lctx, cancel := context.WithTimeout(ctx, dictLoadWait)
	defer cancel()
	d, ok, err := p.ds.loadDict(lctx, id)
	if err != nil {
		return nil, fmt.Errorf("a compressed blob of dictionary %d: %w", id, err)
	}
	if !ok {
		return nil, fmt.Errorf("a compressed blob of dictionary %d: %w", id, errNoDict)
	}
	if err := p.register(id, d); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.decs[id], nil
}

// close waits for the dictionary being trained, if any, and starts no
// other. The decoders are left to the garbage collector (reads may still
// be using them; decoding whole blobs runs no goroutine of theirs).
func (p *packer) close() {
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	p.trainers.Wait()
}
