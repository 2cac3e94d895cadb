package mcpserver

import (
	"context"
	"path/filepath"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/wire"
)

// Within returns the engine's workspace resolver for a server on the
// agent's own machine (stdio): a request's workspace is a path, taken
// relative to dir when it is not absolute, and honoured only inside one of
// roots ([engine.WithinRoots]: symlinks resolved, never the filesystem
// root or a kernel pseudo-filesystem). With no roots, no workspace is.
func Within(dir string, roots []string) func(*vouch.Request) (string, error) {
	return func(req *vouch.Request) (string, error) {
		if req.Workspace == "" {
			return "", nil
		}
		ws := req.Workspace
		if !filepath.IsAbs(ws) {
			ws = filepath.Join(dir, ws)
		}
		if err := engine.WithinRoots(ws, roots); err != nil {
			return "", err
		}
		return ws, nil
	}
}

// Engine returns a [VerifyFunc] that verifies with eng, in process, and
// keeps nothing.
func Engine(eng *engine.Engine) VerifyFunc {
	return func(ctx context.Context, req *vouch.Request, _ []byte) ([]byte, error) {
		rep, err := eng.Verify(ctx, req)
		if err != nil {
			return nil, err
		}
		return wire.MarshalReport(rep)
	}
}
