//go:build vouchfault

package main

// The failure tests build vouch with -tags vouchfault, which adds the
// check kind "fault" (cmd/vouch/internal/fault) to fail on purpose.
import _ "github.com/vouchgate/vouch/cmd/vouch/internal/fault"
