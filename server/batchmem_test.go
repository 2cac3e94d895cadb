package server

import (
	"bytes"
	"io"
	"os"
	"runtime"
	rtmetrics "runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vouchgate/vouch/api"
)

// batchGen makes a JSONL batch body of about size bytes as it is read,
// in one buffer of a line: requests to verify of about 7 KiB (so that
// chunks are cut by their bytes), every fiftieth line JSON that is no
// request, and, past the first MiB, one line of 8 MiB (over the default
// MaxRequestBytes, 4 MiB) made a piece at a time.
type batchGen struct {
	size, made int64
	// lines counts the lines made, bad those of them that fail.
	lines, bad int
	// buf holds the line being read, line what is left of it; filler is
	// the bytes of the big line's output still to make.
	buf, line []byte
	filler    int64
	big       bool
	// head and tail are a request's around its id.
	head, tail []byte
}

// bigLine is the size of batchGen's line over the limit.
const bigLine = 8 << 20

func newBatchGen(size int64) *batchGen {
	head, tail, _ := bytes.Cut(request("ID", 1, "DONE "+strings.Repeat("z", 7000)), []byte(`"ID"`))
	return &batchGen{size: size, head: head, tail: tail}
}

func (g *batchGen) Read(p []byte) (int, error) {
	if g.filler > 0 {
		k := min(int64(len(p)), g.filler)
		for i := range k {
			p[i] = 'x'
		}
		g.filler -= k
		if g.filler == 0 {
			g.line = append(g.buf[:0], "\"}}\n"...)
		}
		return int(k), nil
	}
	if len(g.line) == 0 {
		if g.made >= g.size {
			return 0, io.EOF
		}
		b := g.buf[:0]
		switch {
		case !g.big && g.made > 1<<20:
			g.big = true
			b = append(b, `{"id":"big","output":{"summary":"`...)
			g.filler = bigLine
			g.bad++
		case g.lines%50 == 49:
			b = strconv.AppendInt(append(b, `{"n":`...), int64(g.lines), 10)
			b = append(b, "}\n"...)
			g.bad++
		default:
			b = strconv.AppendInt(append(append(b, g.head...), `"m`...), int64(g.lines), 10)
			b = append(append(append(b, '"'), g.tail...), '\n')
		}
		g.buf, g.line = b, b
		g.lines++
		g.made += int64(len(b)) + g.filler
	}
	n := copy(p, g.line)
	g.line = g.line[n:]
	return n, nil
}

// memSampler keeps the highest heap in use (the bytes of heap objects,
// live or not yet swept) and resident size it was shown and, when live
// is set, the highest live heap, after a collection it forces.
type memSampler struct {
	mu              sync.Mutex
	live            bool
	samples         []rtmetrics.Sample
	heap, rss, held uint64
}

func newMemSampler(live bool) *memSampler {
	return &memSampler{live: live, samples: []rtmetrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}}
}

func (m *memSampler) sample() {
	m.mu.Lock()
	defer m.mu.Unlock()
	rtmetrics.Read(m.samples)
	m.heap = max(m.heap, m.samples[0].Value.Uint64())
	m.rss = max(m.rss, residentBytes())
	if m.live {
		runtime.GC()
		rtmetrics.Read(m.samples)
		m.held = max(m.held, m.samples[0].Value.Uint64())
	}
}

// residentBytes is the process's resident size, 0 where /proc does not
// tell it.
func residentBytes() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// TestBatchUploadMemory posts a batch of tens of MiB, made as it is sent,
// and checks that the heap in use while it is stored, sampled as each
// chunk is written, stays well below the body's size: an upload holds a
// chunk and a line, not the batch. VOUCH_TEST_BATCH_MIB sets the body's
// size in MiB (default 64; up to 255 within the default MaxBatchBytes;
// the bounds, fractions of the body, assume tens of MiB at least); the
// test logs the peaks. Run it without -race for figures of a real build.
func TestBatchUploadMemory(t *testing.T) {
	mib := int64(64)
	if v := os.Getenv("VOUCH_TEST_BATCH_MIB"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			t.Fatalf("VOUCH_TEST_BATCH_MIB=%q: want a number of MiB", v)
		}
		mib = n
	}
	size := mib << 20
	// Every eighth chunk, the live heap too (a collection is slow).
	m, live := newMemSampler(false), newMemSampler(true)
	var chunks atomic.Int32
	hookBatches(t, func(event, _, _ string) {
		if event == "stored" {
			m.sample()
			if chunks.Add(1)%8 == 1 {
				live.sample()
			}
		}
	})
	e := newEnv(t, func(c *Config) {
		c.BatchWorkers = 1
		c.MaxBatchBytes = max(c.MaxBatchBytes, size+bigLine+(1<<20))
	})
	runtime.GC()
	before := newMemSampler(false)
	before.sample()
	g := newBatchGen(size)
	res, err := e.post(g)
	if err != nil {
		t.Fatal(err)
	}
	if res.status != 202 {
		t.Fatalf("%d %.300s", res.status, res.body)
	}
	st := decode[api.BatchStatus](t, res.body)
	if st.Total != g.lines || st.Failed < g.bad || chunks.Load() < 2 {
		t.Fatalf("a batch of %d lines (%d bad) stored in %d chunks: %+v", g.lines, g.bad, chunks.Load(), st)
	}
	mb := func(n uint64) float64 { return float64(n) / (1 << 20) }
	t.Logf("a batch of %.0f MiB, %d requests, stored in %d chunks: heap in use at most %.1f MiB (%.1f MiB before the upload; live at most %.1f MiB), resident at most %.1f MiB (%.1f MiB before)",
		mb(uint64(g.made)), g.lines, chunks.Load(), mb(m.heap), mb(before.heap), mb(live.held), mb(max(m.rss, live.rss)), mb(before.rss))
	// The heap's collector lets it grow to about twice what is live, and
	// the process held some before: what bounds the upload is what it
	// keeps live (a chunk, a line), far below the body.
	if m.heap > uint64(size)/2 {
		t.Errorf("the heap in use reached %.1f MiB while a body of %d MiB was stored, over half of it", mb(m.heap), mib)
	}
	if grew := live.held - min(live.held, before.heap); grew > uint64(size)/8 {
		t.Errorf("the live heap grew by %.1f MiB while a body of %d MiB was stored, over an eighth of it", mb(grew), mib)
	}
}
