package claimtext

import (
	"strings"
	"testing"
)

// TestInstructionsAreNoClaims: instructions to the user in an honest
// summary are no claims of work done, in the imperative or not (else
// claims.work would hold them against the workspace: see check/claims
// TestHonestWork).
func TestInstructionsAreNoClaims(t *testing.T) {
	for _, tt := range []struct {
		summary     string
		instruction string // a clause that must not be read as a claim
	}{
		// A summary with no verb in the past: its imperatives are kept.
		{"`parseDate` now accepts ISO week dates; all tests pass.\n\nRename `config.example.yaml` to `config.yaml` before running.",
			"Rename `config.example.yaml` to `config.yaml` before running"},
		{"The `retry` helper now handles timeouts. Delete `cache.db` to reset the cache.",
			"Delete `cache.db` to reset the cache"},
		{"`parseDate` now accepts ISO week dates. Please remove `old.json` before merging; nothing reads it any more.",
			"remove `old.json` before merging"},
		{"## Changes\n- `parser.go`: new `ParseDuration` function\n\n## Setup\nRename `.env.example` to `.env` and fill in the keys.",
			"Rename `.env.example` to `.env` and fill in the keys"},
		// The first sentence is taken for a commit message's title, even
		// behind a label and before a body in the past.
		{"Heads up: rename `settings.example.toml` to `settings.toml` before starting.\n\nI updated the loader to read it.",
			"rename `settings.example.toml` to `settings.toml` before starting"},
		{"Delete `package-lock.json` before reinstalling: the registry changed.\n\nI moved the entry point to `src/index.ts` and updated the build script.",
			"Delete `package-lock.json` before reinstalling"},
	} {
		for _, st := range Statements(tt.summary) {
			if strings.Contains(st.Text, tt.instruction) || strings.Contains(tt.instruction, st.Text) && len(st.Text) > 10 {
				t.Errorf("%q:\n  the instruction %q is read as a claim: %s (names %+v)", tt.summary, tt.instruction, stmt(st), st.Names)
			}
		}
	}
}
