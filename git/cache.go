package git

import (
	"context"
	"path/filepath"
	"sync"
)

// Cache reads each workspace once: Get returns the [Changes] of a (dir,
// base) pair, reading them with [Read] the first time and handing the same
// value to every later caller. Concurrent Gets of the same pair share one
// read.
//
// A Cache does not notice later changes to the workspace; it holds a
// snapshot. Create one per verification batch (the workspace does not move
// while its claims are checked) and drop it afterwards. Directories are
// keyed by their absolute path and bases as written, so "HEAD~1" and its
// hash are read separately.
//
// A failed read is not kept: callers waiting on it get its error, and the
// next Get reads again. The shared read is not cancelled when a caller gives
// up (each caller's Get returns when its own context ends); it stops at
// Read's own timeout.
//
// The zero Cache is ready to use. A Cache is safe for concurrent use and
// must not be copied after first use.
type Cache struct {
	r     *runner // nil: defaultRunner
	mu    sync.Mutex
	calls map[cacheKey]*call
}

type cacheKey struct{ dir, base string }

// call is one read, in flight or done.
type call struct {
	done chan struct{} // closed when ch and err are set
	ch   *Changes
	err  error
}

// Get returns the changes in dir since base, as [Read] does, reading them
// at most once per (dir, base) for the life of the Cache.
func (c *Cache) Get(ctx context.Context, dir, base string) (*Changes, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if dir == "" {
		return nil, checkDir(dir) // Abs would make it the current directory
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	k := cacheKey{abs, base}
	c.mu.Lock()
	cl, ok := c.calls[k]
	if !ok {
		if c.calls == nil {
			c.calls = make(map[cacheKey]*call)
		}
		cl = &call{done: make(chan struct{})}
		c.calls[k] = cl
		go c.do(context.WithoutCancel(ctx), k, cl)
	}
	c.mu.Unlock()
	select {
	case <-cl.done:
		return cl.ch, cl.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// do runs the read of cl and publishes its result.
func (c *Cache) do(ctx context.Context, k cacheKey, cl *call) {
	r := c.r
	if r == nil {
		r = defaultRunner
	}
	cl.ch, cl.err = r.read(ctx, k.dir, nil, k.base)
	if cl.err != nil {
		c.mu.Lock()
		if c.calls[k] == cl {
			delete(c.calls, k)
		}
		c.mu.Unlock()
	}
	close(cl.done)
}
