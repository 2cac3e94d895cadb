package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/wire"
)

// ReverifyOptions select the stored verifications a re-verification
// verifies again, and the policy it verifies them under.
type ReverifyOptions struct {
	// Tenant whose verifications are re-verified.
	Tenant string
	// Since (inclusive) and Until (exclusive, zero: now) bound their
	// creation time.
	Since, Until time.Time
	// Kind keeps only the verifications of that kind; "" keeps all.
	Kind string
	// Policy is the policy to verify under, resolved (defaults and
	// layers applied).
	Policy vouch.Policy
	// Workspaces re-verifies requests that name a workspace too, against
	// the workspace as it is now; by default they are skipped, as the
	// state they were verified against is gone.
	Workspaces bool
}

// ErrNoneToReverify: no stored verification matches a re-verification's
// selection.
var ErrNoneToReverify = errors.New("reverify: no stored verification matches")

// reverifySpec is what a re-verification batch carries in its policy
// column.
type reverifySpec struct {
	Policy     vouch.Policy `json:"policy"`
	Workspaces bool         `json:"workspaces"`
}

// ReverifyResult is the result line of one item of a re-verification
// batch: the verdicts old and new of one stored verification.
type ReverifyResult struct {
	Line    int    `json:"line"`
	ID      string `json:"id"`
	Attempt int    `json:"attempt"`
	// Skipped says why the verification was not verified again (its
	// request names a workspace, or was too large to be kept).
	Skipped string           `json:"skipped,omitempty"`
	Old     *ReverifyVerdict `json:"old,omitempty"`
	New     *ReverifyVerdict `json:"new,omitempty"`
	// Changed: the verdict differs.
	Changed bool `json:"changed"`
	// Report is the new report, given when the verdict changed.
	Report json.RawMessage `json:"report,omitempty"`
}

// ReverifyVerdict is one side of a comparison.
type ReverifyVerdict struct {
	Verdict string   `json:"verdict"`
	Action  string   `json:"action,omitempty"`
	Score   *float64 `json:"score"`
	Codes   []string `json:"codes,omitempty"`
}

// Reverify creates a batch that verifies the selected stored
// verifications again under opt.Policy; the batch is worked as any other
// (by the job queue on PostgreSQL, by the server's pool on SQLite), and
// each of its results compares the old verdict with the new. The log is
// left as it is. It returns the batch, or an error when nothing matches
// or more than a batch's limit does.
func (s *Server) Reverify(ctx context.Context, opt ReverifyOptions) (*store.Batch, error) {
	if !store.ValidTenant(opt.Tenant) {
		return nil, fmt.Errorf("reverify: invalid tenant %q", opt.Tenant)
	}
	spec, err := json.Marshal(reverifySpec{Policy: opt.Policy, Workspaces: opt.Workspaces})
	if err != nil {
		return nil, fmt.Errorf("reverify: encoding the policy: %w", err)
	}
	if _, err := s.newEngine(opt.Policy); err != nil {
		return nil, fmt.Errorf("reverify: the policy: %w", err)
	}
	var items []store.BatchItem
	f := store.Filter{Kind: vouch.Kind(opt.Kind), Since: opt.Since, Until: opt.Until, Oldest: true, Limit: 1000}
	for {
		page, err := s.st.List(ctx, opt.Tenant, f)
		if err != nil {
			return nil, fmt.Errorf("reverify: listing the verifications: %w", err)
		}
		for _, v := range page.Items {
			items = append(items, store.BatchItem{State: store.ItemPending, RefID: v.ID, RefAttempt: v.Attempt})
		}
		if len(items) > maxBatchItems {
			return nil, fmt.Errorf("reverify: over %d verifications match: narrow the window", maxBatchItems)
		}
		if page.Next == 0 {
			break
		}
		f.After = page.Next
	}
	if len(items) == 0 {
		return nil, ErrNoneToReverify
	}
	b := &store.Batch{Tenant: opt.Tenant, ID: newID("r-"), State: store.BatchRunning, Kind: store.BatchReverify,
		Policy: spec, CreatedAt: s.now().UTC()}
	if s.jobs != nil {
		err = s.jobs.createBatch(ctx, b, items)
	} else {
		err = s.st.CreateBatch(ctx, b, items)
	}
	if err != nil {
		return nil, fmt.Errorf("reverify: %w", err)
	}
	if s.batches != nil {
		s.batches.added(len(items), b.Tenant, b.ID)
	}
	return b, nil
}

// reverifyEngines caches the engines of the re-verification batches
// being worked, by batch; a few at a time.
type reverifyEngines struct {
	mu      sync.Mutex
	engines map[[2]string]*reverifyEngine
}

type reverifyEngine struct {
	eng        *engine.Engine
	workspaces bool
}

// maxReverifyEngines bounds the cache; past it, it starts again.
const maxReverifyEngines = 8

// reverifyEngine returns the engine of a re-verification batch.
func (s *Server) reverifyEngine(ctx context.Context, tenant, batchID string) (*reverifyEngine, error) {
	c := &s.reverify
	k := [2]string{tenant, batchID}
	c.mu.Lock()
	e := c.engines[k]
	c.mu.Unlock()
	if e != nil {
		return e, nil
	}
	b, err := s.st.Batch(ctx, tenant, batchID)
	if err != nil {
		return nil, err
	}
	spec := reverifySpec{Policy: vouch.DefaultPolicy()}
	if err := json.Unmarshal(b.Policy, &spec); err != nil {
		return nil, fmt.Errorf("the batch's policy: %w", err)
	}
	// Commands never run: the workspace a command would run in has
	// moved on since.
	spec.Policy.Commands.Allow = nil
	if s.cfg.Timeouts.Verify > 0 {
		spec.Policy.Timeout = s.cfg.Timeouts.Verify
	}
	eng, err := s.newEngine(spec.Policy)
	if err != nil {
		return nil, fmt.Errorf("the batch's policy: %w", err)
	}
	e = &reverifyEngine{eng: eng, workspaces: spec.Workspaces}
	c.mu.Lock()
	if c.engines == nil || len(c.engines) >= maxReverifyEngines {
		c.engines = map[[2]string]*reverifyEngine{}
	}
	c.engines[k] = e
	c.mu.Unlock()
	return e, nil
}

// reverifyItem verifies a stored verification again under its batch's
// policy; the outcome's result compares the verdicts.
func (s *Server) reverifyItem(ctx context.Context, it store.BatchItem) (out itemOutcome) {
	fail := func(err error) itemOutcome { return itemOutcome{err: wire.ErrorLine(it.Index+1, err)} }
	done := func(r ReverifyResult) itemOutcome {
		r.Line, r.ID, r.Attempt = it.Index+1, it.RefID, it.RefAttempt
		b, err := json.Marshal(r)
		if err != nil {
			return fail(err)
		}
		return itemOutcome{result: b}
	}
	e, err := s.reverifyEngine(ctx, it.Tenant, it.BatchID)
	if err != nil {
		return fail(err)
	}
	v, err := s.st.Get(ctx, it.Tenant, it.RefID, it.RefAttempt)
	if errors.Is(err, store.ErrNotFound) {
		return done(ReverifyResult{Skipped: "the verification is no longer in the log (pruned)"})
	}
	if err != nil {
		return fail(err)
	}
	if v.Request == nil {
		return done(ReverifyResult{Skipped: fmt.Sprintf("its request (%d bytes) was over storedRequestBytes, so it was not kept", v.RequestBytes)})
	}
	req, err := wire.DecodeRequest(v.Request, wire.Options{MaxBytes: s.cfg.MaxRequestBytes, Name: "stored request"})
	if err != nil {
		return fail(err)
	}
	if req.Workspace != "" && !e.workspaces {
		return done(ReverifyResult{Skipped: fmt.Sprintf("its request names workspace %q, whose state then is gone (re-verify with workspaces to verify against it as it is now)", truncate(req.Workspace, 80))})
	}
	rep, err := s.verify(ctx, e.eng, req)
	if err != nil {
		return fail(err)
	}
	if msg := crashedCheck(rep); msg != "" {
		return itemOutcome{panic: msg}
	}
	newRes, err := wire.MarshalReport(rep)
	if err != nil {
		return fail(err)
	}
	r := ReverifyResult{
		Old: &ReverifyVerdict{Verdict: string(v.Verdict), Action: string(v.Action), Score: v.Score, Codes: v.Codes},
		New: &ReverifyVerdict{Verdict: string(rep.Verdict), Action: string(rep.Action), Score: rep.Score, Codes: quality.CodesOf(rep)},
	}
	if r.Changed = r.Old.Verdict != r.New.Verdict; r.Changed {
		r.Report = newRes
	}
	return done(r)
}
