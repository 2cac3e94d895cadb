package mcpserver

import (
	"context"
	"os"
	"path/filepath"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/wire"
)

// Within returns the engine's workspace resolver for a server on the
// agent's own machine (stdio): a request's workspace is a path, taken
// relative to dir when it is not absolute, and honoured only inside one of
// roots, never the filesystem root or a kernel pseudo-filesystem. The
// roots are opened once, here, and each workspace is opened inside one of
// them ([engine.Roots.Open]): the engine is handed that open directory,
// and no symlink swapped or directory renamed afterwards changes what it
// reads. With no roots, no workspace is allowed. The roots stay open for
// the life of the process.
func Within(dir string, roots []string) func(*vouch.Request) (*os.Root, error) {
	rs := engine.OpenRoots(roots)
	return func(req *vouch.Request) (*os.Root, error) {
		if req.Workspace == "" {
			return nil, nil
		}
		ws := req.Workspace
		if !filepath.IsAbs(ws) {
			ws = filepath.Join(dir, ws)
		}
		return rs.Open(ws)
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
