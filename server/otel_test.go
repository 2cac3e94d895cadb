package server

import (
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"go.opentelemetry.io/otel"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// collector is a fake OTLP/HTTP trace receiver: it decodes what the
// exporter posts to /v1/traces.
type collector struct {
	mu    sync.Mutex
	spans []*tracepb.Span
	posts int
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want a protobuf POST to /v1/traces", http.StatusBadRequest)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.posts++
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			c.spans = append(c.spans, ss.Spans...)
		}
	}
	c.mu.Unlock()
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// TestTracingExportsOTLP: with OTEL_EXPORTER_OTLP_ENDPOINT set, a request
// is exported to the collector as a server span named by its route, in the
// trace of the caller's traceparent, with its status code; shutting the
// tracing down flushes it.
func TestTracingExportsOTLP(t *testing.T) {
	col := &collector{}
	hs := httptest.NewServer(col)
	defer hs.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", hs.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	prevTP, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	t.Cleanup(func() {
		otel.SetTracerProvider(prevTP)
		otel.SetTextMapPropagator(prevProp)
	})
	shutdown, err := SetupTracing(t.Context(), os.Getenv, "test")
	if err != nil {
		t.Fatal(err)
	}

	e := newEnv(t, nil)
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	res := e.do("POST", "/v1/verify", "", request("traced", 1, "DONE"),
		"traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
	if res.status != http.StatusOK {
		t.Fatalf("verify: %d %s", res.status, res.body)
	}
	if err := shutdown(context.Background()); err != nil {
		t.Fatalf("shutting the tracing down: %v", err)
	}

	col.mu.Lock()
	defer col.mu.Unlock()
	if col.posts == 0 {
		t.Fatal("nothing was exported to the collector")
	}
	var found *tracepb.Span
	for _, s := range col.spans {
		if s.Name == "POST /v1/verify" {
			found = s
		}
	}
	if found == nil {
		names := []string{}
		for _, s := range col.spans {
			names = append(names, s.Name)
		}
		t.Fatalf("no span POST /v1/verify among %q", names)
	}
	if got := hex.EncodeToString(found.TraceId); got != traceID {
		t.Errorf("span trace id %s, want the caller's %s", got, traceID)
	}
	if found.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("span kind %v, want server", found.Kind)
	}
	status := int64(-1)
	for _, a := range found.Attributes {
		if a.Key == "http.response.status_code" {
			status = a.Value.GetIntValue()
		}
	}
	if status != http.StatusOK {
		t.Errorf("http.response.status_code = %d, want 200", status)
	}
}
