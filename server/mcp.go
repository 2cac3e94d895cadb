package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/mcpserver"
	"github.com/vouchgate/vouch/store"
)

// mcpPath is where the MCP endpoint is mounted.
const mcpPath = "/mcp"

// mcpServers hands out the MCP server of each caller: its tools store
// verifications in the caller's tenant, and its resources (with the read
// scope) read them from there. A caller is authenticated on every HTTP
// request, before its server is looked up.
type mcpServers struct {
	s    *Server
	mu   sync.Mutex
	byID map[mcpCaller]*mcp.Server
}

// mcpCaller is what an MCP server is bound to.
type mcpCaller struct {
	tenant string
	read   bool
}

// maxMCPServers bounds the cache of servers; past it the cache starts
// over (one server per tenant and read scope is the usual count).
const maxMCPServers = 1024

// newMCP returns the handler of /mcp: streamable HTTP, stateless, so that
// every POST stands alone and any of several servers behind a load
// balancer can answer it.
func (s *Server) newMCP() (http.Handler, error) {
	m := &mcpServers{s: s, byID: map[mcpCaller]*mcp.Server{}}
	// Build one now, so that a server that cannot serve MCP fails to
	// start rather than on its first call.
	if _, err := m.build(mcpCaller{tenant: DefaultTenant, read: true}); err != nil {
		return nil, err
	}
	max := s.cfg.MaxRequestBytes + 64<<10 // the JSON-RPC envelope around the request
	h := mcp.NewStreamableHTTPHandler(m.server, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		Logger:              s.log,
		MaxRequestBodyBytes: max,
		// The server checks the Host itself where it matters (open
		// mode answers loopback names only); the SDK's own check would
		// refuse a reverse proxy's Host on a key-authenticated call.
		DisableLocalhostProtection: true,
	})
	return noBatches(h, max), nil
}

// noBatches refuses JSON-RPC batches (a body that is a JSON array): each
// call of a batch runs at once beside the others, so one HTTP request
// would hold any number of verifications past the in-flight limit.
func noBatches(h http.Handler, max int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		body, err := readBody(r, max)
		if err != nil {
			writeInputError(w, err)
			return
		}
		if b := bytes.TrimLeft(body, " \t\r\n"); len(b) > 0 && b[0] == '[' {
			writeError(w, http.StatusBadRequest, string(vouch.ErrInvalid), "JSON-RPC batches are not served: send one message per request")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		h.ServeHTTP(w, r)
	})
}

// server returns the MCP server of r's caller.
func (m *mcpServers) server(r *http.Request) *mcp.Server {
	p := principalOf(r.Context())
	c := mcpCaller{tenant: p.tenant, read: p.has(store.ScopeRead)}
	m.mu.Lock()
	defer m.mu.Unlock()
	if srv := m.byID[c]; srv != nil {
		return srv
	}
	srv, err := m.build(c)
	if err != nil {
		m.s.log.Error("mcp: building the server", "err", err)
		return nil
	}
	if len(m.byID) >= maxMCPServers {
		clear(m.byID)
	}
	m.byID[c] = srv
	return srv
}

// build makes the MCP server of a caller.
func (m *mcpServers) build(c mcpCaller) (*mcp.Server, error) {
	s := m.s
	o := mcpserver.Options{
		Verify: func(ctx context.Context, req *vouch.Request, body []byte) (mcpserver.Verified, error) {
			res, err := s.verifyStored(ctx, c.tenant, "", body, req, s.engineFor(req))
			var ce *conflictError
			var se *storeError
			switch {
			case errors.As(err, &ce):
				return mcpserver.Verified{}, fmt.Errorf("verification %s attempt %d is already stored for other arguments: raise attempt, or give another id", ce.id, ce.attempt)
			case errors.As(err, &se):
				s.log.Error("store: "+se.what, "err", se.err)
			case errors.As(err, new(*internalError)):
				s.log.Error("mcp: verification", "err", err)
			}
			if err != nil {
				return mcpserver.Verified{}, err
			}
			return mcpserver.Verified{Report: res.result, Replayed: res.replayed}, nil
		},
		Workspace:       "The name of one of the server's workspaces (" + s.workspaceNames() + "), never a path.",
		MaxRequestBytes: s.cfg.MaxRequestBytes,
		Version:         s.version,
		Logger:          s.log,
	}
	if c.read {
		o.Report = func(ctx context.Context, id string) ([]byte, error) {
			v, err := s.st.Get(ctx, c.tenant, id, 0)
			if errors.Is(err, store.ErrNotFound) {
				return nil, mcpserver.ErrNotFound
			}
			if err != nil {
				return nil, &storeError{"reading the verification", err}
			}
			return v.Result, nil
		}
	}
	return mcpserver.New(o)
}
