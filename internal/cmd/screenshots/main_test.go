package main

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/vouchgate/vouch/internal/browsertest"
)

// TestScreenshots makes the pictures of a small demo into a temporary
// directory: each page the dashboard has is captured at the fixed
// viewport.
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
	for _, name := range []string{"verifications", "verification", "review"} {
		f, err := os.Open(filepath.Join(out, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != width || cfg.Height != height {
			t.Errorf("%s.png: %dx%d, %v; want a %dx%d PNG", name, cfg.Width, cfg.Height, err, width, height)
		}
	}
}
