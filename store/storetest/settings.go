package storetest

import (
	"bytes"
	"sync"
	"testing"

	"github.com/vouchgate/vouch/store"
)

// testSecret checks Secret: made once with the size asked, then the same
// bytes on every call, after a reopen, and to concurrent first callers of
// two stores on one database; names are independent.
func testSecret(t *testing.T, h *harness) {
	ctx := t.Context()
	first, err := h.s.Secret(ctx, "session", 32)
	if err != nil {
		t.Fatalf("Secret: %v", err)
	}
	if len(first) != 32 || bytes.Equal(first, make([]byte, 32)) {
		t.Fatalf("Secret(session, 32) = %x: want 32 random bytes", first)
	}
	again, err := h.s.Secret(ctx, "session", 64)
	if err != nil || !bytes.Equal(again, first) {
		t.Errorf("Secret again (another size) = %x, %v; want the first %x", again, err, first)
	}
	other, err := h.s.Secret(ctx, "other", 16)
	if err != nil || len(other) != 16 || bytes.Equal(other, first[:16]) {
		t.Errorf("Secret(other, 16) = %x, %v: want 16 bytes of its own", other, err)
	}
	for _, bad := range []struct {
		name string
		size int
	}{{"", 32}, {"x", 0}, {"x", -1}, {"x", 1 << 20}} {
		if got, err := h.s.Secret(ctx, bad.name, bad.size); err == nil {
			t.Errorf("Secret(%q, %d) = %x, want an error", bad.name, bad.size, got)
		}
	}
	h.s.Close()
	h.s = h.reopen()
	if got, err := h.s.Secret(ctx, "session", 32); err != nil || !bytes.Equal(got, first) {
		t.Errorf("Secret after a reopen = %x, %v; want %x", got, err, first)
	}

	// Concurrent first calls, through two stores on one database (two
	// servers starting at once), agree on one secret.
	stores := []store.Store{h.s, h.reopen()}
	const n = 16
	got := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			got[i], errs[i] = stores[i%2].Secret(ctx, "race", 32)
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("concurrent Secret %d: %v", i, errs[i])
		}
		if len(got[i]) != 32 || !bytes.Equal(got[i], got[0]) {
			t.Errorf("concurrent Secret %d = %x, caller 0 got %x", i, got[i], got[0])
		}
	}
}
