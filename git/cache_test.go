package git

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vouchgate/vouch"
)

// changedRepo builds a repository with committed, uncommitted and untracked
// changes since its returned base.
func changedRepo(t testing.TB, files int) (*repo, string) {
	r := newRepo(t)
	for i := range files {
		r.write("src/f"+strconv.Itoa(i)+".txt", lines("line ", 40))
	}
	base := r.commit("base")
	r.write("src/f0.txt", replaceLine(lines("line ", 40), 7, "seven"))
	r.commit("edit")
	r.write("src/f1.txt", replaceLine(lines("line ", 40), 20, "twenty"))
	r.write("src/f2.txt", lines("line ", 30))
	r.write("NEW.md", "# new\n")
	return r, base
}

func TestCacheDedupesConcurrentCalls(t *testing.T) {
	r, base := changedRepo(t, 4)
	ctx := context.Background()

	var perRead atomic.Int64
	one := &runner{hook: func([]string) { perRead.Add(1) }}
	want, err := one.read(ctx, r.dir, nil, base)
	if err != nil {
		t.Fatal(err)
	}

	var n atomic.Int64
	c := &Cache{r: &runner{hook: func([]string) { n.Add(1) }}}
	const callers = 16
	got := make([]*Changes, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range callers {
		wg.Go(func() {
			<-start
			got[i], errs[i] = c.Get(ctx, r.dir, base)
		})
	}
	close(start)
	wg.Wait()
	for i := range callers {
		if errs[i] != nil {
			t.Fatalf("caller %d: %v", i, errs[i])
		}
		if got[i] != got[0] {
			t.Fatalf("caller %d got a different *Changes", i)
		}
	}
	if n.Load() != perRead.Load() {
		t.Errorf("%d concurrent Gets ran git %d times; one read runs it %d times", callers, n.Load(), perRead.Load())
	}
	if len(got[0].Files) != len(want.Files) || !got[0].Touches("src/f0.txt", 7, 7) {
		t.Errorf("cached changes %v, want %v", got[0].Paths(), want.Paths())
	}

	// Later calls are served from the cache, under any spelling of the
	// directory that is the same absolute path.
	before := n.Load()
	again, err := c.Get(ctx, r.dir+"/src/..", base)
	if err != nil || again != got[0] || n.Load() != before {
		t.Errorf("second Get: same=%v err=%v, git runs %d, want 0", again == got[0], err, n.Load()-before)
	}
	// Another base is another read.
	if _, err := c.Get(ctx, r.dir, ""); err != nil || n.Load() == before {
		t.Errorf("Get without base: err=%v, git runs %d, want a read", err, n.Load()-before)
	}
}

func TestCacheDoesNotKeepErrors(t *testing.T) {
	r, _ := changedRepo(t, 1)
	var n atomic.Int64
	c := &Cache{r: &runner{hook: func([]string) { n.Add(1) }}}
	for i := range 2 {
		_, err := c.Get(context.Background(), r.dir, "no-such-base")
		if vouch.Code(err) != vouch.ErrInvalid {
			t.Fatalf("Get %d: err = %v, want %s", i, err, vouch.ErrInvalid)
		}
	}
	if n.Load() != 6 { // setup runs three processes per read
		t.Errorf("git ran %d times for two failed reads, want 6", n.Load())
	}
}

// TestCacheCallerGivesUp checks that a caller whose context ends stops
// waiting without failing the shared read for the others.
func TestCacheCallerGivesUp(t *testing.T) {
	r, base := changedRepo(t, 2)
	release := make(chan struct{})
	var once sync.Once
	blocked := make(chan struct{})
	c := &Cache{r: &runner{hook: func([]string) {
		once.Do(func() { close(blocked) })
		<-release
	}}}

	ctxA, cancelA := context.WithCancel(context.Background())
	doneA := make(chan error, 1)
	go func() {
		_, err := c.Get(ctxA, r.dir, base)
		doneA <- err
	}()
	<-blocked // the read is in flight
	type result struct {
		ch  *Changes
		err error
	}
	doneB := make(chan result, 1)
	go func() {
		ch, err := c.Get(context.Background(), r.dir, base)
		doneB <- result{ch, err}
	}()
	cancelA()
	if err := <-doneA; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled caller: err = %v, want context.Canceled", err)
	}
	close(release)
	res := <-doneB
	if res.err != nil || !res.ch.Repo || res.ch.File("NEW.md") == nil {
		t.Errorf("waiting caller: %+v, %v; want the changes", res.ch, res.err)
	}

	// A context that has already ended never starts a read.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := new(Cache).Get(ctx, r.dir, base); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with an ended context: err = %v", err)
	}
}

func BenchmarkRead(b *testing.B) {
	r, base := changedRepo(b, 10)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ch, err := Read(ctx, r.dir, base)
		if err != nil || len(ch.Files) != 4 {
			b.Fatalf("Read: %v, %v", ch.Paths(), err)
		}
	}
}

func BenchmarkCacheHit(b *testing.B) {
	r, base := changedRepo(b, 10)
	ctx := context.Background()
	var c Cache
	if _, err := c.Get(ctx, r.dir, base); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Get(ctx, r.dir, base); err != nil {
			b.Fatal(err)
		}
	}
}
