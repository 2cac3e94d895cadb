package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/fence"
	"github.com/vouchgate/vouch/internal/wait"
)

// Judge is a [vouch.Judge] that asks language models through providers.
// It reads its settings per query from the policy in force (q.Policy.Judge):
// which models, in which mode, how many samples, how they are combined,
// the budget. It is safe for concurrent use; create one per process and
// share it, so that its cache and circuit breakers serve every
// verification.
//
// For one query it makes one structured call per judge model and sample:
// every criterion and dimension the rules left undecided goes into that
// one call. It makes none when a bypass rule applies. Whatever goes wrong
// (a timeout, a rate limit that outlasts the retries, a refusal, an answer
// that is not the tool's, a score out of range) leaves the affected items
// undecided with the reason; nothing is ever passed by a fault, and
// nothing undecided is cached.
type Judge struct {
	providers map[string]Provider
	cache     Cache
	now       func() time.Time
	sleep     func(context.Context, time.Duration) error
	rand      func() float64
	token     func() string

	mu       sync.Mutex
	breakers map[string]*breaker
}

var _ vouch.Judge = (*Judge)(nil)

// Options configure a Judge. The zero value of each field is a sensible
// default.
type Options struct {
	// Providers are the model APIs the judge may call, by their Name.
	Providers []Provider
	// Cache keeps answers across verifications; nil is an in-memory LRU
	// of 4096 answers. The policy's judge.cache switches its use off.
	Cache Cache
	// Now is the clock of the circuit breakers; nil is time.Now.
	Now func() time.Time
	// Sleep waits between retries; nil waits on a timer. Tests give one
	// that returns at once and records the wait.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a number in [0, 1) for backoff jitter; nil is
	// math/rand/v2.
	Rand func() float64
	// Token returns a fresh, unguessable fence token for each call; nil
	// is 16 random bytes from crypto/rand in hex.
	Token func() string
}

// New returns a Judge. Two providers with one name are an error.
func New(o Options) (*Judge, error) {
	j := &Judge{providers: map[string]Provider{}, cache: o.Cache, now: o.Now, sleep: o.Sleep,
		rand: o.Rand, token: o.Token, breakers: map[string]*breaker{}}
	for _, p := range o.Providers {
		if p == nil {
			return nil, errors.New("judge: nil provider")
		}
		if _, dup := j.providers[p.Name()]; dup {
			return nil, fmt.Errorf("judge: two providers named %q", p.Name())
		}
		j.providers[p.Name()] = p
	}
	if j.cache == nil {
		j.cache = NewLRU(4096)
	}
	if j.now == nil {
		j.now = time.Now
	}
	if j.sleep == nil {
		j.sleep = wait.For
	}
	if j.rand == nil {
		j.rand = mrand.Float64
	}
	if j.token == nil {
		j.token = fence.Token
	}
	return j, nil
}

func (j *Judge) providerNames() []string {
	out := make([]string, 0, len(j.providers))
	for n := range j.providers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// metAt is the score at which a judged criterion is met: the rubric's
// "mostly met".
const metAt = 0.7

// sameModelCap caps the confidence of a verification judged by the
// executor's own model.
const sameModelCap = 0.5

// Evaluate implements vouch.Judge, scoring criteria from 0 to 1.
func (j *Judge) Evaluate(ctx context.Context, q *vouch.JudgeQuery) (*vouch.JudgeVerdict, error) {
	return j.judge(ctx, q, ScaleUnit)
}

// judge answers a query with criteria scored on the given scale.
func (j *Judge) judge(ctx context.Context, q *vouch.JudgeQuery, scale Scale) (*vouch.JudgeVerdict, error) {
	pol := judgePolicy(q)
	adversarial := isAdversarial(q, pol)
	v := &vouch.JudgeVerdict{Dimensions: map[string]vouch.JudgedScore{}}
	if why := bypassed(q, pol); why != "" {
		v.Warnings = append(v.Warnings, vouch.Warning{Code: vouch.CodeJudgeBypassed, Message: why})
		undecideAll(v, q, vouch.CodeJudgeBypassed, why)
		return v, nil
	}
	targets, err := j.choose(q, pol, adversarial)
	if err != nil {
		return nil, err
	}
	p := buildPrompt(q, pol, adversarial, scale)
	st := &spend{pol: pol}
	type result struct {
		t   target
		a   *Answer
		err error
	}
	results := make([]result, len(targets)*pol.Samples)
	var wg sync.WaitGroup
	for ti, t := range targets {
		for s := 0; s < pol.Samples; s++ {
			k := ti*pol.Samples + s
			results[k].t = t
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[k].a, results[k].err = j.sample(ctx, t, p, s, pol, adversarial, st)
			}()
		}
	}
	wg.Wait()

	v.Info = vouch.JudgeInfo{Mode: vouch.JudgeSelf, Samples: pol.Samples}
	if adversarial {
		v.Info.Mode = vouch.JudgeAdversarial
	}
	for _, t := range targets {
		v.Info.Models = append(v.Info.Models, t.spec)
		if t.same {
			v.Info.SameModelAsExecutor = true
		}
	}
	if v.Info.SameModelAsExecutor {
		v.ConfidenceCap = sameModelCap
		v.Warnings = append(v.Warnings, vouch.Warning{Code: vouch.CodeSameModelJudge,
			Message: "the executor's own model judged its output (judge.allowSameModel): confidence is capped at 0.5"})
	}
	v.Cost = st.cost()
	for _, m := range st.unpriced() {
		v.Issues = append(v.Issues, "no price is known for "+m+": cost.usd leaves its calls out")
	}

	var answers []*Answer
	var failures []error
	budget := false
	for _, r := range results {
		if r.err != nil {
			failures = append(failures, fmt.Errorf("%s: %w", r.t.spec, r.err))
			budget = budget || errors.Is(r.err, ErrBudget)
			continue
		}
		answers = append(answers, r.a)
	}
	if len(answers) == 0 {
		if budget {
			msg := "no judge call fits the budget: " + failures[0].Error()
			v.Warnings = append(v.Warnings, vouch.Warning{Code: vouch.CodeJudgeBudget, Message: msg})
			undecideAll(v, q, vouch.CodeJudgeBudget, msg)
			return v, nil
		}
		// The calls were made and cost what they cost: the verdict goes
		// back with the error, for its Info and Cost, with every item
		// undecided.
		err := failures[0]
		if len(failures) > 1 {
			err = fmt.Errorf("%w (and %d more failures)", failures[0], len(failures)-1)
		}
		undecideAll(v, q, vouch.CodeJudgeFailed, err.Error())
		return v, err
	}
	if len(failures) > 0 {
		code := vouch.CodeJudgeFailed
		if budget {
			code = vouch.CodeJudgeBudget
		}
		v.Warnings = append(v.Warnings, vouch.Warning{Code: code,
			Message: fmt.Sprintf("%d of %d judge samples failed and count for nothing: %v", len(failures), len(results), failures[0])})
	}
	agg := aggregator{pol: pol, answers: answers}
	for _, c := range q.Criteria {
		v.Criteria = append(v.Criteria, agg.criterion(c.ID))
	}
	for _, c := range q.Claims {
		v.Claims = append(v.Claims, agg.claim(c.ID))
	}
	for _, d := range q.Dimensions {
		if s, ok := agg.dimension(d); ok {
			v.Dimensions[d] = s
		}
	}
	if len(answers) > 1 {
		a := agg.agreement()
		v.Info.Agreement = &a
	}
	v.Gaps, v.Issues, v.Unverified = agg.notes(v.Issues)
	return v, nil
}

// judgePolicy returns the judge section of the query's policy, or the
// default one.
func judgePolicy(q *vouch.JudgeQuery) *vouch.JudgePolicy {
	if q.Policy != nil {
		return &q.Policy.Judge
	}
	d := vouch.DefaultPolicy()
	return &d.Judge
}

// isAdversarial reports whether the query is judged by a critic: the
// policy's mode, or a task of high criticality.
func isAdversarial(q *vouch.JudgeQuery, pol *vouch.JudgePolicy) bool {
	return pol.Mode == vouch.JudgeAdversarial || q.Request.Task.Criticality == vouch.CriticalityHigh
}

// bypassed says why the policy's bypass rules skip the judge, or "".
func bypassed(q *vouch.JudgeQuery, pol *vouch.JudgePolicy) string {
	t := &q.Request.Task
	if min := pol.Bypass.BelowTaskCostUSD; min > 0 && t.Executor != nil && t.Executor.CostUSD != nil && *t.Executor.CostUSD < min {
		return fmt.Sprintf("the judge was skipped: the task cost $%s, below judge.bypass.belowTaskCostUsd ($%s)",
			formatFloat(*t.Executor.CostUSD), formatFloat(min))
	}
	if pol.Bypass.NoDependents && t.Dependents != nil && *t.Dependents == 0 {
		return "the judge was skipped: nothing depends on this task (task.dependents is 0, judge.bypass.noDependents)"
	}
	return ""
}

// undecideAll leaves every criterion and claim of the query undecided for
// a reason.
func undecideAll(v *vouch.JudgeVerdict, q *vouch.JudgeQuery, code, why string) {
	for _, c := range q.Criteria {
		v.Criteria = append(v.Criteria, vouch.JudgedCriterion{ID: c.ID, Status: vouch.CriterionUndecided, Code: code, Reason: why})
	}
	for _, c := range q.Claims {
		v.Claims = append(v.Claims, vouch.JudgedClaim{ID: c.ID, State: vouch.ClaimUnverified, Reason: why})
	}
}

// ErrBudget is the error of a judge call not made because it could exceed
// judge.budgetUsd.
var ErrBudget = errors.New("judge: over budget")

// ErrRefused is the error of a model that refused to judge.
var ErrRefused = errors.New("judge: the model refused")

// sample asks one model one prompt once: from the cache when it holds the
// answer, else through the provider with one repair re-ask for an answer
// that is not the tool's.
func (j *Judge) sample(ctx context.Context, t target, p *prompt, i int, pol *vouch.JudgePolicy, adversarial bool, st *spend) (*Answer, error) {
	temperature := 0.0
	if pol.Samples > 1 {
		temperature = 0.7 // samples must be able to differ
	}
	key := cacheKey(t.spec, p, adversarial, i, temperature, pol.Structured)
	if pol.Cache {
		if data, ok := j.cache.Get(key); ok {
			var a Answer
			if json.Unmarshal(data, &a) == nil {
				st.hit()
				return &a, nil
			}
		}
		st.miss()
	}
	token := j.token()
	user := strings.ReplaceAll(p.user, boundaryMark, token)
	call := &Call{Model: t.model, System: p.system, Messages: []Message{{Role: "user", Content: user}},
		Tool:      Tool{Name: ToolName, Description: "Submit your verification: reasoning first, then a score and reason for every item.", Schema: p.schema},
		MaxTokens: pol.MaxTokens, Temperature: temperature, Structured: pol.Structured}
	a, repair, err := j.ask(ctx, t, call, p, pol, st)
	if repair != "" {
		// One repair re-ask: the model's answer was cut off, not the tool's
		// or not valid; tell it so, once.
		call.Messages = append(call.Messages, Message{Role: "assistant", Content: repair},
			Message{Role: "user", Content: "Your answer could not be read: " + err.Error() +
				". Call submit_verification again with complete, valid arguments; keep the reasoning short."})
		if errors.Is(err, errCutOff) {
			call.MaxTokens *= 2
		}
		a, _, err = j.ask(ctx, t, call, p, pol, st)
	}
	if err != nil {
		return nil, err
	}
	if pol.Cache && len(a.Invalid) == 0 {
		if data, err := json.Marshal(a); err == nil {
			j.cache.Put(key, data)
		}
	}
	return a, nil
}

// errCutOff and errNoTool are answers worth a repair re-ask.
var (
	errCutOff = errors.New("the answer was cut off at the token limit")
	errNoTool = errors.New("the answer did not call submit_verification")
)

// ask makes one call and reads its answer. When the answer deserves a
// repair re-ask, it returns what the model wrote (for the conversation)
// and the reason.
func (j *Judge) ask(ctx context.Context, t target, call *Call, p *prompt, pol *vouch.JudgePolicy, st *spend) (*Answer, string, error) {
	r, err := j.do(ctx, t, call, pol, st)
	if err != nil {
		return nil, "", err
	}
	written := string(r.Arguments)
	if written == "" {
		written = r.Text
	}
	if written == "" {
		written = "(nothing)"
	}
	switch {
	case r.Stop == StopRefusal:
		return nil, "", fmt.Errorf("%w: %s", ErrRefused, clean(r.Text, 200))
	case r.Stop == StopMaxTokens:
		return nil, written, errCutOff
	case len(r.Arguments) == 0:
		return nil, written, errNoTool
	}
	a, err := parseAnswer(r.Arguments, p)
	if err != nil {
		return nil, written, err
	}
	return a, "", nil
}

// Backoff between retries: exponential from backoffBase, at most
// backoffMax, with jitter; a Retry-After the API asks for wins when
// longer.
const (
	backoffBase   = 500 * time.Millisecond
	backoffMax    = 20 * time.Second
	maxRetryAfter = time.Minute
)

func (j *Judge) backoff(attempt int) time.Duration {
	d := backoffBase << attempt
	if d > backoffMax || d <= 0 {
		d = backoffMax
	}
	// Equal jitter: half the step, plus up to the other half at random.
	return d/2 + time.Duration(j.rand()*float64(d/2))
}

// do sends a call, retrying what may pass (a rate limit, a server error, a
// dropped connection) up to judge.maxRetries times, through the model's
// circuit breaker.
func (j *Judge) do(ctx context.Context, t target, call *Call, pol *vouch.JudgePolicy, st *spend) (*Reply, error) {
	b := j.breakerFor(t.spec)
	cooldown := time.Duration(pol.Breaker.Cooldown)
	for attempt := 0; ; attempt++ {
		held, err := st.reserve(t, call)
		if err != nil {
			return nil, err
		}
		if err := b.allow(j.now(), cooldown); err != nil {
			st.release(held)
			return nil, err
		}
		r, err := t.provider.Complete(ctx, call)
		st.called(t, r, held)
		if err == nil {
			b.done(true, j.now(), pol.Breaker.Failures)
			return r, nil
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, ctx.Err() // the caller gave up: no fault of the model
		}
		b.done(false, j.now(), pol.Breaker.Failures)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: %v", ctx.Err(), err)
		}
		var ae *APIError
		var ue *url.Error
		// What may pass: an API error the API calls passing (a rate limit,
		// a server error), or no answer at all (a refused or dropped
		// connection). A reply that cannot be read, or a call the client
		// refuses to send, would fail the same way again.
		retryable := errors.As(err, &ae) && ae.Retryable() || ae == nil && errors.As(err, &ue)
		if !retryable || attempt >= pol.MaxRetries {
			return nil, err
		}
		wait := j.backoff(attempt)
		if ae != nil && ae.RetryAfter > wait {
			if ae.RetryAfter > maxRetryAfter {
				return nil, fmt.Errorf("%w (it asks to wait %s; the judge waits at most %s)", err, ae.RetryAfter, maxRetryAfter)
			}
			wait = ae.RetryAfter
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, fmt.Errorf("%w (waiting %s for a retry would pass the deadline)", err, wait)
		}
		if err := j.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func (j *Judge) breakerFor(spec string) *breaker {
	j.mu.Lock()
	defer j.mu.Unlock()
	b, ok := j.breakers[spec]
	if !ok {
		b = &breaker{}
		j.breakers[spec] = b
	}
	return b
}

// spend counts what one query's calls cost, and holds its budget.
type spend struct {
	pol *vouch.JudgePolicy

	mu           sync.Mutex
	calls        int
	hits, misses int
	in, out      int
	usd          float64
	reserved     float64
	noPrice      map[string]bool
}

func (s *spend) hit()  { s.mu.Lock(); s.hits++; s.mu.Unlock() }
func (s *spend) miss() { s.mu.Lock(); s.misses++; s.mu.Unlock() }

// reserve holds the most a call could cost against the budget: its prompt
// and the most tokens it may answer with. A budgeted judge does not call a
// model it has no price for.
func (s *spend) reserve(t target, c *Call) (float64, error) {
	if s.pol.BudgetUSD <= 0 {
		return 0, nil
	}
	price, ok := priceOf(t.model, s.pol)
	if !ok {
		return 0, fmt.Errorf("%w: no price is known for %s, so its cost cannot be held to judge.budgetUsd", ErrBudget, t.model)
	}
	in := estimateTokens(c.System) + estimateTokens(string(c.Tool.Schema))
	for _, m := range c.Messages {
		in += estimateTokens(m.Content)
	}
	most := usd(price, in, c.MaxTokens)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.usd+s.reserved+most > s.pol.BudgetUSD {
		return 0, fmt.Errorf("%w: a call to %s could cost $%.4f, and $%.4f of the $%s budget is spent or held",
			ErrBudget, t.model, most, s.usd+s.reserved, formatFloat(s.pol.BudgetUSD))
	}
	s.reserved += most
	return most, nil
}

// release gives back what was held for a call not made.
func (s *spend) release(held float64) {
	s.mu.Lock()
	s.reserved -= held
	s.mu.Unlock()
}

// called records a call made, with what its reply says it used, and
// releases what was held for it.
func (s *spend) called(t target, r *Reply, held float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	s.reserved -= held
	if r == nil {
		return
	}
	s.in += r.Usage.InputTokens
	s.out += r.Usage.OutputTokens
	if price, ok := priceOf(t.model, s.pol); ok {
		s.usd += usd(price, r.Usage.InputTokens, r.Usage.OutputTokens)
	} else {
		if s.noPrice == nil {
			s.noPrice = map[string]bool{}
		}
		s.noPrice[t.model] = true
	}
}

func (s *spend) cost() vouch.Cost {
	s.mu.Lock()
	defer s.mu.Unlock()
	return vouch.Cost{JudgeCalls: s.calls, CacheHits: s.hits, CacheMisses: s.misses,
		InputTokens: s.in, OutputTokens: s.out, USD: math.Round(s.usd*1e6) / 1e6}
}

func (s *spend) unpriced() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for m := range s.noPrice {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}
