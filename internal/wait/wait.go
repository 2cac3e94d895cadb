// Package wait sleeps for a time unless a context ends first.
package wait

import (
	"context"
	"time"
)

// For waits d, or until ctx is done, and returns ctx's error if it ended
// first. A d of 0 or less returns at once, with ctx's error if it is done.
func For(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
