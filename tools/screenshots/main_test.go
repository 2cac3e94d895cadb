package main

import (
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/vouchgate/vouch/internal/browsertest"
)

// TestScreenshots makes the pictures of a small demo into a temporary
// directory: each page the dashboard has is captured at each viewport,
// the coding agent's fix that was sent back among them.
func TestScreenshots(t *testing.T) {
	if bin, err := browsertest.Chromium(); err != nil || bin == "" {
		if err == nil && os.Getenv(browsertest.EnvRequired) == "" {
			t.Skip(browsertest.NoChromium)
		}
		t.Fatalf("%s (%v)", browsertest.NoChromium, err)
	}
	out := t.TempDir()
	if err := run(t.Context(), t.Output(), out, 60); err != nil {
		t.Fatal(err)
	}
	for _, vp := range viewports {
		for _, name := range []string{"verifications", "verification", "verification-call", "verification-attempt", "review"} {
			file := fmt.Sprintf("%s-%d.png", name, vp.width)
			f, err := os.Open(filepath.Join(out, file))
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := png.DecodeConfig(f)
			f.Close()
			if err != nil || int64(cfg.Width) != vp.width || int64(cfg.Height) != vp.height {
				t.Errorf("%s: %dx%d, %v; want a %dx%d PNG", file, cfg.Width, cfg.Height, err, vp.width, vp.height)
			}
		}
	}
}
