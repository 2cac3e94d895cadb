package server

import (
	"context"
	"errors"
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
	return mcp.NewStreamableHTTPHandler(m.server, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		Logger:              s.log,
		MaxRequestBodyBytes: s.cfg.MaxRequestBytes + 64<<10, // the JSON-RPC envelope around the request
	}), nil
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
		Verify: func(ctx context.Context, req *vouch.Request, body []byte) ([]byte, error) {
			res, err := s.verifyStored(ctx, c.tenant, "", body, req, s.engineFor(req))
			if err != nil {
				return nil, err
			}
			return res.result, nil
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
