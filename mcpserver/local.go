package mcpserver

import (
	"context"
	"fmt"
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
		// The directory checked, not a name a symlink could be swapped
		// under since.
		real, err := filepath.EvalSymlinks(ws)
		if err != nil {
			return "", &vouch.Error{Code: vouch.ErrInvalid, Path: "workspace", Message: fmt.Sprintf("cannot open workspace %s: %v", ws, err)}
		}
		return real, nil
	}
}

// Engine returns a [VerifyFunc] that verifies with eng, in process, and
// keeps nothing.
func Engine(eng *engine.Engine) VerifyFunc {
	return func(ctx context.Context, req *vouch.Request, _ []byte) (Verified, error) {
		rep, err := eng.Verify(ctx, req)
		if err != nil {
			return Verified{}, err
		}
		b, err := wire.MarshalReport(rep)
		return Verified{Report: b}, err
	}
}
