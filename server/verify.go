package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/event"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/wire"
)

// maxIdempotencyKey bounds the Idempotency-Key header.
const maxIdempotencyKey = 255

// storeTimeout bounds a write of a finished verification; it is detached
// from the client, whose leaving must not lose a verification done.
const storeTimeout = 30 * time.Second

func (s *Server) handleVerify(w http.ResponseWriter, r *http.Request) {
	view, ok := reportView(w, r)
	if !ok {
		return
	}
	body, err := readBody(r, s.cfg.MaxRequestBytes)
	if err != nil {
		writeInputError(w, err)
		return
	}
	req, err := wire.DecodeRequest(body, wire.Options{MaxBytes: s.cfg.MaxRequestBytes, Name: "request"})
	if err != nil {
		writeInputError(w, err)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if len(key) > maxIdempotencyKey {
		writeError(w, http.StatusBadRequest, string(vouch.ErrInvalid), fmt.Sprintf("the Idempotency-Key header is over %d bytes", maxIdempotencyKey))
		return
	}
	res, err := s.verifyStored(r.Context(), tenantOf(r.Context()), key, body, req, s.engineFor(req))
	if err != nil {
		s.writeVerifyError(w, err)
		return
	}
	if res.replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeReport(w, view, res.result, "")
}

// stored is a verification in the log: its report as JSON, and whether
// it was already there (a replay of the same key and body).
type storedResult struct {
	result   []byte
	replayed bool
}

// conflictError is a replay of an idempotency key (or an id and attempt)
// with another body, or with the same body under another server policy.
type conflictError struct {
	id      string
	attempt int
	policy  bool
}

func (e *conflictError) Error() string {
	if e.policy {
		return fmt.Sprintf("verification %s attempt %d is already stored for this request, verified under another server policy; send a new Idempotency-Key, id or attempt to verify it under this one", e.id, e.attempt)
	}
	return fmt.Sprintf("verification %s attempt %d is already stored for another request body under the same idempotency key (or id and attempt); send a new Idempotency-Key, id or attempt", e.id, e.attempt)
}

// storeError is a failure of the store: nothing was recorded.
type storeError struct {
	what string
	err  error
}

func (e *storeError) Error() string {
	return e.what + ": the store failed; nothing was recorded, retry"
}

func (e *storeError) Unwrap() error { return e.err }

// writeVerifyError answers a failure of verifyStored: a conflicting
// replay 409, a failed store 503, an internal error 500, else the
// request's problems, 400 (413).
func (s *Server) writeVerifyError(w http.ResponseWriter, err error) {
	var ce *conflictError
	var se *storeError
	switch {
	case errors.As(err, &ce):
		writeError(w, http.StatusConflict, "idempotency_conflict", ce.Error())
	case errors.As(err, &se):
		s.writeStoreError(w, se.what, se.err)
	case errors.As(err, new(*internalError)):
		writeError(w, http.StatusInternalServerError, string(vouch.ErrInternal), err.Error())
	default:
		writeInputError(w, err)
	}
}

// internalError is a failure of the server's own making (encoding what it
// verified), not of the request's.
type internalError struct{ err error }

func (e *internalError) Error() string { return e.err.Error() }
func (e *internalError) Unwrap() error { return e.err }

// verifyStored verifies a decoded request and writes it to the log, or
// finds it there already: the key (the Idempotency-Key header, or the
// request's id and attempt) with the same body gives the stored report,
// with another body a *conflictError. A failure of the store is a
// *storeError, a bad request a vouch error.
func (s *Server) verifyStored(ctx context.Context, tenant, header string, body []byte, req *vouch.Request, eng *engine.Engine) (storedResult, error) {
	key := idempotencyKey(header, req)
	hash := s.requestHash(body)
	// A replay is found before verifying when verifying calls out (a
	// judge, a program); otherwise verifying costs less than the lookup,
	// and the insert finds the replay just as well.
	if eng.CallsOut() {
		if v, err := s.st.ByKey(ctx, tenant, key); err == nil {
			return replay(v, hash)
		} else if !errors.Is(err, store.ErrNotFound) {
			return storedResult{}, &storeError{"looking up the idempotency key", err}
		}
	}
	rep, err := s.verify(ctx, eng, req)
	if err != nil {
		return storedResult{}, err
	}
	row, evs, err := s.record(tenant, key, hash, body, req, rep)
	if err != nil {
		return storedResult{}, &internalError{err}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	got, err := s.st.Insert(sctx, row, evs)
	if errors.Is(err, store.ErrDuplicate) {
		// A concurrent request with the same key, or the same id and
		// attempt, was stored first.
		return replay(got, hash)
	}
	if err != nil {
		return storedResult{}, &storeError{"storing the verification", err}
	}
	s.stored(tenant, rep)
	return storedResult{result: row.Result}, nil
}

// idempotencyKey is the Idempotency-Key header or, without one, the
// request's id and attempt. The two live apart: a header can never match
// an id/attempt key.
func idempotencyKey(header string, req *vouch.Request) string {
	if header != "" {
		return "key:" + header
	}
	return req.ID + "/" + strconv.Itoa(req.EffectiveAttempt())
}

func hashBody(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// requestHash is the stored request hash of a body verified under the
// server's policy: the body's SHA-256, "/" and the policy's fingerprint.
// A server with no fingerprint (Record's) hashes the body alone.
func (s *Server) requestHash(body []byte) string {
	if s.policyPrint == "" {
		return hashBody(body)
	}
	return hashBody(body) + "/" + s.policyPrint
}

// policyFingerprint is the first 16 hex digits of the SHA-256 of the
// policy's JSON encoding (maps are encoded in key order, so it is stable).
func policyFingerprint(p *vouch.Policy) string {
	b, err := json.Marshal(p)
	if err != nil {
		return ""
	}
	return hashBody(b)[:16]
}

// replay gives the stored report when the body and policy are the ones
// stored under the key, and a *conflictError when either is another. A
// row hashed without a policy (written by Record, or before policies
// were hashed) is held to its body alone.
func replay(v *store.Verification, hash string) (storedResult, error) {
	storedBody, storedPolicy, _ := strings.Cut(v.RequestHash, "/")
	body, policy, _ := strings.Cut(hash, "/")
	switch {
	case storedBody != body:
		return storedResult{}, &conflictError{id: v.ID, attempt: v.Attempt}
	case storedPolicy != "" && policy != "" && storedPolicy != policy:
		return storedResult{}, &conflictError{id: v.ID, attempt: v.Attempt, policy: true}
	}
	return storedResult{result: v.Result, replayed: true}, nil
}

// verify runs one verification.
func (s *Server) verify(ctx context.Context, eng *engine.Engine, req *vouch.Request) (*vouch.Report, error) {
	ctx, span := tracer.Start(ctx, "verify")
	defer span.End()
	return eng.Verify(ctx, req)
}

// stored is what follows a new verification in the log: its metrics and
// the wake-up of the event streams.
func (s *Server) stored(tenant string, rep *vouch.Report) {
	s.metrics.verified(rep)
	s.hub.notify(tenant)
}

// verificationType is the verification_type column: agent, orchestrator
// or moderator, from the kind.
func verificationType(k vouch.Kind) string {
	switch k {
	case vouch.KindDecomposition, vouch.KindSynthesis:
		return "orchestrator"
	case vouch.KindModeration:
		return "moderator"
	}
	return "agent"
}

// record builds the log row of a verification and the events it raises.
func (s *Server) record(tenant, key, hash string, body []byte, req *vouch.Request, rep *vouch.Report) (*store.Verification, []store.Event, error) {
	result, err := wire.MarshalReport(rep)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding the report: %w", err)
	}
	now := s.now().UTC()
	v := &store.Verification{
		Tenant:           tenant,
		ID:               rep.ID,
		Attempt:          rep.Attempt,
		IdempotencyKey:   key,
		RequestHash:      hash,
		InteractionID:    req.InteractionID,
		TargetID:         req.Target,
		VerificationType: verificationType(rep.Kind),
		TaskID:           req.Task.ID,
		Goal:             truncate(req.Task.Goal, 2000),
		Kind:             rep.Kind,
		Verdict:          rep.Verdict,
		Action:           rep.Action,
		Score:            rep.Score,
		Confidence:       rep.Confidence,
		NeedsReview:      rep.NeedsReview,
		Criticality:      req.Task.Criticality,
		CostUSD:          rep.Cost.USD,
		DurationMs:       rep.DurationMs,
		Result:           result,
		RequestBytes:     len(body),
		CreatedAt:        now,
	}
	if v.Criticality == "" {
		v.Criticality = vouch.CriticalityNormal
	}
	complexity := req.Complexity()
	v.Complexity = &complexity
	if ex := req.Task.Executor; ex != nil {
		v.ExecutorModel = ex.Model
		if ex.Provider != "" && ex.Model != "" {
			v.ExecutorModel = ex.Provider + ":" + ex.Model
		}
	}
	if rep.Judge != nil {
		v.JudgeModels = rep.Judge.Models
	}
	// What the quality metrics sum and calibration decides again from:
	// the row, dimensions, codes, judge counts and the claim ledger.
	quality.Fill(v, rep)
	if ex := req.Task.Executor; ex != nil {
		v.TaskCostUSD = ex.CostUSD
	}
	if sa := req.Output.SelfAssessment; sa != nil {
		v.SelfConfidence = sa.Confidence
	}
	if len(body) <= s.cfg.StoredRequestBytes {
		v.Request = bytes.Clone(body)
	}
	evs, err := s.events(tenant, now, req, rep, result)
	return v, evs, err
}

// events are the events a verification raises: verification:complete,
// then verification:retry when it is sent back, or subtask:escalated.
// The report, already encoded as result, is written into the complete
// event as it is rather than encoded a second time.
func (s *Server) events(tenant string, now time.Time, req *vouch.Request, rep *vouch.Report, result []byte) ([]store.Event, error) {
	base := event.Event{Tenant: tenant, Time: now, InteractionID: req.InteractionID, TaskID: req.Task.ID, Attempt: rep.Attempt}
	sa, err := json.Marshal(event.NewSelfAssessment(&req.Output, rep, req.Task.Executor))
	if err != nil {
		return nil, fmt.Errorf("encoding the self-assessment: %w", err)
	}
	// The complete event's data, {"report":...,"selfAssessment":...}, is
	// written straight into the event (see encodeEvent).
	complete := [][]byte{[]byte(`{"report":`), result, []byte(`,"selfAssessment":`), sa, []byte(`}`)}
	list := []event.Event{withData(base, event.VerificationComplete, rawParts(complete))}
	switch rep.Action {
	case vouch.ActionRetry, vouch.ActionReformulate:
		list = append(list, withData(base, event.VerificationRetry, &event.Retry{Feedback: rep.Feedback, Action: rep.Action}))
	case vouch.ActionEscalate:
		reason := rep.Reason
		if reason == "" {
			reason = "the verifier escalated the task"
		}
		list = append(list, withData(base, event.SubtaskEscalated, event.NewEscalation(reason, rep)))
	}
	out := make([]store.Event, len(list))
	for i := range list {
		raw, at, err := encodeEvent(list[i])
		if err != nil {
			return nil, fmt.Errorf("encoding the %s event: %w", list[i].Type, err)
		}
		out[i] = store.Event{Tenant: tenant, Type: string(list[i].Type), Data: raw, CreatedAt: now}
		if list[i].Type == event.VerificationComplete {
			// Its data begins with the report: the store keeps that
			// once, in the verification's row.
			out[i].ReportAt = at + len(`{"report":`)
		}
	}
	return out, nil
}

// rawParts is an event's data that is already JSON, in parts written one
// after the other (see encodeEvent).
type rawParts [][]byte

// encodeEvent encodes an event as package event does, writing data that
// is already JSON (a json.RawMessage, or rawParts) as it is: data is the
// event's last member, so the envelope is encoded with null data and the
// data put in its place, in a buffer of the event's size, sparing
// encoding/json's validation of a report it just received from the report
// encoder. at is the data's offset in the encoding (0 when it was encoded
// whole).
func encodeEvent(ev event.Event) (b []byte, at int, err error) {
	var parts rawParts
	switch d := ev.Data.(type) {
	case json.RawMessage:
		parts = rawParts{d}
	case rawParts:
		parts = d
	default:
		b, err = json.Marshal(&ev)
		return b, 0, err
	}
	ev.Data = nil
	env, err := json.Marshal(&ev)
	if err != nil {
		return nil, 0, err
	}
	const tail = `"data":null}`
	if !bytes.HasSuffix(env, []byte(tail)) {
		return nil, 0, fmt.Errorf("event envelope does not end with its data")
	}
	at = len(env) - len("null}")
	size := at + 1
	for _, p := range parts {
		size += len(p)
	}
	b = append(make([]byte, 0, size), env[:at]...)
	for _, p := range parts {
		b = append(b, p...)
	}
	return append(b, '}'), at, nil
}

func withData(base event.Event, t event.Type, data any) event.Event {
	base.Type, base.Data, base.ID = t, data, newID("")
	return base
}

// Record stores a verification made outside a server (by `vouch mcp` over
// stdio) in st as a server stores its own: the row under the request's id
// and attempt, with its events, in tenant. It returns the stored report:
// the one given, or, when the same request was stored before, that one
// (replayed true). The same id and attempt stored for another request
// body is an error.
func Record(ctx context.Context, st store.Log, tenant string, body []byte, req *vouch.Request, rep *vouch.Report) (report []byte, replayed bool, err error) {
	s := &Server{cfg: DefaultConfig(), now: time.Now}
	hash := hashBody(body)
	row, evs, err := s.record(tenant, idempotencyKey("", req), hash, body, req, rep)
	if err != nil {
		return nil, false, err
	}
	got, err := st.Insert(ctx, row, evs)
	if errors.Is(err, store.ErrDuplicate) {
		res, err := replay(got, hash)
		return res.result, res.replayed, err
	}
	if err != nil {
		return nil, false, &storeError{"storing the verification", err}
	}
	return row.Result, false, nil
}
