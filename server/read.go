package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/store"
)

// handleGetVerification answers the stored report; ?attempt=N picks an
// attempt (default the latest). Once a person has overridden it, the
// report gains "overrides".
func (s *Server) handleGetVerification(w http.ResponseWriter, r *http.Request) {
	tenant := tenantOf(r.Context())
	id := r.PathValue("id")
	view, ok := reportView(w, r)
	if !ok {
		return
	}
	attempt := 0
	if a := r.URL.Query().Get("attempt"); a != "" {
		n, err := strconv.Atoi(a)
		if err != nil || n < 1 {
			writeError(w, http.StatusBadRequest, string(vouch.ErrInvalid), "attempt: want a positive integer")
			return
		}
		attempt = n
	}
	v, err := s.st.Get(r.Context(), tenant, id, attempt)
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no verification %q", truncate(id, 80)))
		return
	}
	if err != nil {
		s.writeStoreError(w, "reading the verification", err)
		return
	}
	ovs, err := s.st.Overrides(r.Context(), tenant, v.ID, v.Attempt)
	if err != nil {
		s.writeStoreError(w, "reading the overrides", err)
		return
	}
	if len(ovs) == 0 {
		writeReport(w, view, v.Result, "")
		return
	}
	if view == viewBrief {
		writeReport(w, view, v.Result, ovs[len(ovs)-1].Verdict)
		return
	}
	list := make([]api.Override, len(ovs))
	for i, o := range ovs {
		list[i] = api.Override{Verdict: string(o.Verdict), Reason: o.Reason, Reviewer: o.Reviewer, CreatedAt: o.CreatedAt.UTC()}
	}
	b, err := spliceMember(v.Result, "overrides", list)
	if err != nil {
		writeError(w, http.StatusInternalServerError, string(vouch.ErrInternal), err.Error())
		return
	}
	writeRaw(w, http.StatusOK, b)
}

// spliceMember adds a member at the end of a JSON object.
func spliceMember(obj []byte, name string, v any) ([]byte, error) {
	end := len(obj) - 1
	for end >= 0 && obj[end] != '}' {
		end--
	}
	if end < 1 {
		return nil, errors.New("stored report is not a JSON object")
	}
	val, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(obj)+len(name)+len(val)+4)
	out = append(out, obj[:end]...)
	out = append(out, `,"`...)
	out = append(out, name...)
	out = append(out, `":`...)
	out = append(out, val...)
	return append(out, '}'), nil
}

// handleListVerifications answers the caller's verifications, newest
// first, filtered by the query: kind, verdict, action, taskId,
// interactionId, executorModel, needsReview (true|false), since and until
// (RFC 3339), limit (1-1000, default 50) and cursor (the last page's
// next).
func (s *Server) handleListVerifications(w http.ResponseWriter, r *http.Request) {
	f, err := parseFilter(r.URL.Query())
	if err != nil {
		writeInputError(w, err)
		return
	}
	page, err := s.st.List(r.Context(), tenantOf(r.Context()), f)
	if err != nil {
		s.writeStoreError(w, "listing verifications", err)
		return
	}
	out := api.List{Items: make([]api.Summary, len(page.Items))}
	for i, v := range page.Items {
		out.Items[i] = api.Summary{ID: v.ID, Attempt: v.Attempt, Kind: string(v.Kind), Verdict: string(v.Verdict), Action: string(v.Action),
			Score: v.Score, Confidence: v.Confidence, NeedsReview: v.NeedsReview, TaskID: v.TaskID,
			InteractionID: v.InteractionID, TargetID: v.TargetID, Type: v.VerificationType, Goal: v.Goal,
			Criticality: v.Criticality, ExecutorModel: v.ExecutorModel, JudgeModels: v.JudgeModels,
			CostUSD: v.CostUSD, DurationMs: v.DurationMs, CreatedAt: v.CreatedAt.UTC()}
	}
	if page.Next > 0 {
		out.Next = strconv.FormatInt(page.Next, 10)
	}
	writeJSON(w, http.StatusOK, out)
}

// listParams are the query parameters of a list; others are refused.
var listParams = map[string]bool{"kind": true, "verdict": true, "action": true, "taskId": true, "interactionId": true,
	"executorModel": true, "needsReview": true, "since": true, "until": true, "limit": true, "cursor": true}

func parseFilter(q url.Values) (store.Filter, error) {
	var f store.Filter
	var errs vouch.Errors
	bad := func(param, format string, a ...any) {
		errs = append(errs, &vouch.Error{Code: vouch.ErrInvalid, Path: param, Message: fmt.Sprintf(format, a...)})
	}
	for k := range q {
		if !listParams[k] {
			errs = append(errs, &vouch.Error{Code: vouch.ErrUnknownField, Path: k, Message: "unknown query parameter"})
		}
	}
	f.Kind, f.Verdict, f.Action = vouch.Kind(q.Get("kind")), vouch.Verdict(q.Get("verdict")), vouch.Action(q.Get("action"))
	f.TaskID, f.InteractionID, f.ExecutorModel = q.Get("taskId"), q.Get("interactionId"), q.Get("executorModel")
	if f.Kind != "" && !f.Kind.Valid() {
		bad("kind", "unknown kind %q", truncate(string(f.Kind), 40))
	}
	if v := f.Verdict; v != "" && !v.Valid() {
		bad("verdict", "want pass, retry, fail or unverified, got %q", truncate(string(v), 40))
	}
	if v := q.Get("needsReview"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			bad("needsReview", "want true or false, got %q", truncate(v, 40))
		}
		f.NeedsReview = &b
	}
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"since", &f.Since}, {"until", &f.Until}} {
		if v := q.Get(p.name); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				bad(p.name, "want an RFC 3339 time (2026-01-02T15:04:05Z), got %q", truncate(v, 40))
			}
			*p.dst = t
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			bad("limit", "want 1 to 1000, got %q", truncate(v, 40))
		}
		f.Limit = n
	}
	if v := q.Get("cursor"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			bad("cursor", "not a cursor this server gave")
		}
		f.Before = n
	}
	if len(errs) == 1 {
		return f, errs[0]
	}
	if len(errs) > 1 {
		return f, errs
	}
	return f, nil
}
