package engine

import (
	"hash/maphash"
	"strconv"
	"sync"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
)

// compiled is one criterion's compiled rule.
type compiled struct {
	checker vouch.Checker
	kind    check.Type
	not     bool
	llm     bool   // left to the judge
	rubric  string // the llm check's rubric
	typ     string
	err     error
}

// llmParams are the parameters of the "llm" check type, which is decided by
// the judge rather than by a registered kind.
type llmParams struct {
	check.Common `json:",inline"`
	Rubric       string `json:"rubric"`
}

// cache maps content to what was derived from it (a compiled criterion, a
// request's policy), keyed by a hash of the content. Entries keep the
// content, so a hash collision can never return the wrong value. Errors are
// cached too: a batch repeating a bad criterion pays for it once. Safe for
// concurrent use.
type cache[V any] struct {
	seed maphash.Seed
	mu   sync.RWMutex
	m    map[uint64][]cacheEntry[V]
	n    int
	max  int
}

type cacheEntry[V any] struct {
	a, b string
	v    V
}

func newCache[V any](max int) *cache[V] {
	return &cache[V]{seed: maphash.MakeSeed(), m: make(map[uint64][]cacheEntry[V]), max: max}
}

// get returns the value derived from the content (a, b), computing it with
// make on a miss. The two parts spare callers a concatenation.
func (c *cache[V]) get(a string, b []byte, make func() V) V {
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.WriteString(a)
	h.WriteByte(0)
	h.Write(b)
	key := h.Sum64()

	c.mu.RLock()
	for _, e := range c.m[key] {
		if e.a == a && e.b == string(b) {
			c.mu.RUnlock()
			return e.v
		}
	}
	c.mu.RUnlock()

	v := make()

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n >= c.max {
		// Forget everything rather than track recency: content repeats
		// within a batch, and recomputing is correct, only slower.
		clear(c.m)
		c.n = 0
	}
	for _, e := range c.m[key] {
		if e.a == a && e.b == string(b) {
			return e.v
		}
	}
	c.m[key] = append(c.m[key], cacheEntry[V]{a, string(b), v})
	c.n++
	return v
}

func compileSpec(spec *vouch.CheckSpec, env check.Env) *compiled {
	if spec.Type == "" {
		return &compiled{err: &vouch.Error{Code: vouch.ErrMissing, Path: "type", Message: "the check needs a type"}}
	}
	if spec.Type == "llm" {
		var p llmParams
		if err := check.DecodeParams(*spec, &p); err != nil {
			return &compiled{typ: spec.Type, err: err}
		}
		if p.Not {
			return &compiled{typ: spec.Type, err: check.Errorf("not", "an llm check cannot be negated; say what is wanted in the rubric")}
		}
		return &compiled{typ: spec.Type, llm: true, rubric: p.Rubric}
	}
	k, err := check.Lookup(spec.Type)
	if err != nil {
		return &compiled{typ: spec.Type, err: &vouch.Error{Code: vouch.ErrCriterion, Path: "type",
			Message: "unknown check type " + strconv.Quote(spec.Type) + " (vouch codes lists the check types; docs/reference/check-types.md)"}}
	}
	ch, err := safeCompile(k, *spec, env)
	if err != nil {
		return &compiled{typ: spec.Type, err: err}
	}
	return &compiled{checker: ch, kind: k, not: spec.Not, typ: spec.Type}
}

// safeCompile runs a factory, turning a panic into an internal error so
// that bad input can never crash the process.
func safeCompile(k check.Type, spec vouch.CheckSpec, env check.Env) (ch vouch.Checker, err error) {
	defer func() {
		if r := recover(); r != nil {
			ch, err = nil, &vouch.Error{Code: vouch.ErrInternal, Message: "compiling a " + k.Name + " check crashed; please report it"}
		}
	}()
	ch, err = k.New(spec, env)
	if err == nil && ch == nil {
		err = &vouch.Error{Code: vouch.ErrInternal, Message: "the " + k.Name + " factory returned no checker"}
	}
	return ch, err
}
