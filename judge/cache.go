package judge

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/vouchgate/vouch/internal/atomicfile"
)

// Cache keeps validated judge answers by key: the judge model, the prompt
// version and a hash of everything in the prompt (see cacheKey). Only
// answers that decided every item asked are stored; an answer with an
// undecided item, a refusal or an error never is. Get and Put may be
// called concurrently. A cache that cannot read or write (a full disk)
// misses; it never fails a verification.
type Cache interface {
	Get(key string) ([]byte, bool)
	Put(key string, value []byte)
}

// cacheKey is the key of one sample of one prompt to one model.
func cacheKey(model string, p *prompt, adversarial bool, sample int, temperature float64, structured string) string {
	h := sha256.New()
	write := func(s string) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	write(PromptVersion)
	write(model)
	write(p.system)
	write(p.user)
	write(string(p.schema))
	if adversarial {
		write("adversarial")
	}
	write(structured)
	write(strconv.Itoa(sample))
	write(formatFloat(temperature))
	return hex.EncodeToString(h.Sum(nil))
}

// LRU is an in-memory Cache holding at most a given number of answers,
// dropping the least recently used.
type LRU struct {
	mu    sync.Mutex
	max   int
	order *list.List // front: most recent
	items map[string]*list.Element
}

type lruEntry struct {
	key   string
	value []byte
}

// NewLRU returns an in-memory cache of at most max answers (1 at least).
func NewLRU(size int) *LRU {
	return &LRU{max: max(size, 1), order: list.New(), items: map[string]*list.Element{}}
}

// Get implements Cache.
func (c *LRU) Get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*lruEntry).value, true
}

// Put implements Cache.
func (c *LRU) Put(key string, value []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		e.Value.(*lruEntry).value = value
		c.order.MoveToFront(e)
		return
	}
	c.items[key] = c.order.PushFront(&lruEntry{key, value})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*lruEntry).key)
	}
}

// Len returns the number of answers held.
func (c *LRU) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// Disk is a Cache in a directory: one file an answer, named by its key,
// written to a temporary file and renamed into place so that a crash
// leaves no half-written answer. Several processes may share it.
type Disk struct {
	dir string
}

// NewDisk returns a cache in dir, creating it.
func NewDisk(dir string) (*Disk, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &Disk{dir: dir}, nil
}

// DefaultDiskDir is where the command line keeps its cache: vouch/judge
// under the user's cache directory (os.UserCacheDir: XDG_CACHE_HOME, or
// ~/.cache, on Linux).
func DefaultDiskDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "vouch", "judge"), nil
}

func (c *Disk) path(key string) string {
	if len(key) < 3 {
		return filepath.Join(c.dir, "_", key)
	}
	return filepath.Join(c.dir, key[:2], key)
}

// Get implements Cache.
func (c *Disk) Get(key string) ([]byte, bool) {
	data, err := os.ReadFile(c.path(key))
	return data, err == nil
}

// Put implements Cache.
func (c *Disk) Put(key string, value []byte) {
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return
	}
	_ = atomicfile.Write(p, value, 0o600) // a cache write that fails is a miss next time
}

// Tiered is a Cache that looks in a fast cache first, then a slow one, and
// keeps what the slow one had in the fast one.
type Tiered struct {
	Fast, Slow Cache
}

// Get implements Cache.
func (t Tiered) Get(key string) ([]byte, bool) {
	if v, ok := t.Fast.Get(key); ok {
		return v, true
	}
	v, ok := t.Slow.Get(key)
	if ok {
		t.Fast.Put(key, v)
	}
	return v, ok
}

// Put implements Cache.
func (t Tiered) Put(key string, value []byte) {
	t.Fast.Put(key, value)
	t.Slow.Put(key, value)
}
