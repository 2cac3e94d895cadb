package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/store"
)

// route is one endpoint: who may call it and how it is admitted.
type route struct {
	pattern string
	scope   string // "" for public
	admit   admission
	h       http.HandlerFunc
}

// admission says how a route is admitted (see admit.go).
type admission int

const (
	// free routes take no slot: public probes, /metrics, and the event
	// stream, which is bounded by its own caps.
	free admission = iota
	// held routes read their body whole first, then take an in-flight
	// slot of their caller's share.
	held
	// streamed routes (a batch upload) read their body as they store it:
	// they take an upload slot of their caller's share, never an
	// in-flight one.
	streamed
)

// routes builds the handler: the mux, and around each route tracing,
// metrics, the body read, authentication and the in-flight limit, in
// that order, so that no slot is taken before the body has arrived and
// the caller is known.
func (s *Server) routes(reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	for _, rt := range s.routeTable(promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})) {
		h := http.Handler(rt.h)
		switch rt.admit {
		case held:
			h = s.limitInFlight(h)
		case streamed:
			h = s.limitUploads(h)
		}
		if rt.scope != "" {
			h = s.requireScope(rt.scope, h)
		}
		if rt.admit == held {
			h = s.holdBody(s.cfg.MaxRequestBytes, h)
		}
		mux.Handle(rt.pattern, s.observe(rt.pattern, h))
	}
	if s.mcp != nil {
		// Every request is authenticated; its caller picks the tenant
		// the tools store into.
		mux.Handle(mcpPath, s.observe(mcpPath, s.holdBody(s.cfg.MaxRequestBytes, s.requireScope(store.ScopeVerify, s.limitInFlight(s.mcp)))))
	}
	if s.web != nil {
		for _, p := range s.web.Patterns() {
			h := http.Handler(s.web)
			// Pages read the store as the API does (the overview and
			// calibration over a whole window), so they count against
			// the in-flight limit, their caller told by address; static
			// files and the long-lived event stream (bounded by its own
			// cap) do not.
			if !strings.Contains(p, "/static/") && !strings.HasSuffix(p, "/ui/events") {
				h = s.holdBody(s.cfg.MaxRequestBytes, s.limitInFlight(h))
			}
			mux.Handle(p, s.observe(p, h))
		}
	}
	return mux
}

// routeTable lists the API's routes; openapi.json describes each. The
// dashboard's pages (package web) are mounted beside them and are not
// part of the API.
func (s *Server) routeTable(metricsHandler http.Handler) []route {
	return []route{
		{"POST /v1/verify", store.ScopeVerify, held, s.handleVerify},
		{"POST /verify-task", store.ScopeVerify, held, s.handleVerifyTask},
		{"POST /v1/batches", store.ScopeVerify, streamed, s.handleCreateBatch},
		{"GET /v1/batches/{id}", store.ScopeRead, held, s.handleGetBatch},
		{"GET /v1/batches/{id}/results", store.ScopeRead, held, s.handleBatchResults},
		{"GET /v1/verifications/{id}", store.ScopeRead, held, s.handleGetVerification},
		{"GET /v1/verifications", store.ScopeRead, held, s.handleListVerifications},
		{"POST /v1/verifications/{id}/override", store.ScopeReview, held, s.handleOverride},
		{"POST /v1/outcomes", store.ScopeReview, held, s.handleOutcome},
		{"GET /v1/metrics", store.ScopeRead, held, s.handleMetrics},
		{"GET /v1/alerts", store.ScopeRead, held, s.handleAlerts},
		{"GET /v1/calibration", store.ScopeRead, held, s.handleCalibration},
		{"GET /v1/examples", store.ScopeRead, held, s.handleExamples},
		{"GET /v1/events", store.ScopeRead, free, s.handleEvents},
		{"GET /healthz", "", free, s.handleHealth},
		{"GET /readyz", "", free, s.handleReady},
		{"GET /openapi.json", "", free, handleOpenAPI},
		{"GET /metrics", store.ScopeOperator, free, metricsHandler.ServeHTTP},
	}
}

// statusWriter records a response's status; Unwrap lets
// http.ResponseController reach the connection (flushes, deadlines).
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

var tracer = otel.Tracer("github.com/vouchgate/vouch/server")

// observe wraps a route with a trace span and the request metrics.
func (s *Server) observe(name string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer))
		defer span.End()
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r.WithContext(ctx))
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		span.SetAttributes(attribute.Int("http.response.status_code", sw.status))
		s.metrics.request(name, sw.status, time.Since(start))
		if sw.status >= 500 {
			s.log.Warn("request failed", "route", name, "status", sw.status)
		}
	})
}

func (s *Server) handleHealth(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.st.Ping(ctx); err != nil {
		// The error names the store's user, host and database: it goes to
		// the log, and the public answer says no more than that.
		s.log.Warn("readiness: the store does not answer", "err", err)
		writeError(w, http.StatusServiceUnavailable, "store_unavailable", "the store does not answer")
		return
	}
	select {
	case <-s.stopping:
		writeError(w, http.StatusServiceUnavailable, "shutting_down", "the server is shutting down")
		return
	default:
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// apiError is the body of every error answer.
type apiError struct {
	Error  *vouch.Error   `json:"error"`
	Errors []*vouch.Error `json:"errors,omitempty"`
}

// writeError answers an error with a code and a message.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, apiError{Error: &vouch.Error{Code: vouch.ErrorCode(code), Message: msg}})
}

// writeInputError answers 400 (413 when too large) with the problems of a
// bad input, as `vouch verify` reports them.
func writeInputError(w http.ResponseWriter, err error) {
	list := vouch.ErrorList(err)
	status := http.StatusBadRequest
	if len(list) > 0 && list[0].Code == vouch.ErrTooLarge {
		status = http.StatusRequestEntityTooLarge
	}
	body := apiError{Error: list[0]}
	if len(list) > 1 {
		body.Errors = list
	}
	writeJSON(w, status, body)
}

// writeStoreError answers a store failure: the work is not in the log, so
// it is not answered as done.
func (s *Server) writeStoreError(w http.ResponseWriter, what string, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	s.log.Error("store: "+what, "err", err)
	w.Header().Set("Retry-After", "1")
	writeError(w, http.StatusServiceUnavailable, "store_unavailable", what+": the store failed; nothing was recorded, retry")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"cannot encode the answer"}}`)
	}
	writeRaw(w, status, b)
}

func writeRaw(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(b)
	w.Write([]byte{'\n'})
}

// readBody reads a request body of at most max bytes; over it, the error
// is a too_large vouch.Error.
func readBody(r *http.Request, max int64) ([]byte, error) {
	if r.ContentLength > max {
		return nil, tooLarge(r.ContentLength, max)
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	if err != nil {
		return nil, bodyError(err)
	}
	if int64(len(b)) > max {
		return nil, tooLarge(-1, max)
	}
	return b, nil
}

// bodyError is the input error of a body that could not be read.
func bodyError(err error) error {
	return &vouch.Error{Code: vouch.ErrSyntax, Message: "reading the body: " + err.Error()}
}

func tooLarge(n, max int64) error {
	msg := fmt.Sprintf("the body is over the limit of %d bytes", max)
	if n > 0 {
		msg = fmt.Sprintf("the body is %d bytes, over the limit of %d", n, max)
	}
	return &vouch.Error{Code: vouch.ErrTooLarge, Message: msg}
}
