package storetest

import (
	"fmt"
	"testing"

	"github.com/vouchgate/vouch/store"
)

// testCompressionDictionary writes alike reports, requests and events
// until the store has trained compression dictionaries on them (in the
// background; Close waits for the training), then more after reopening,
// compressed with those, and reads a sample of each back byte for byte,
// and every event.
func testCompressionDictionary(t *testing.T, h *harness) {
	ctx := t.Context()
	const n = 1200 // more than a dictionary's samples
	alike := func(i int) *store.Verification {
		v := sample(tenant, fmt.Sprintf("dict-%04d", i), 1, at(i%60))
		v.IdempotencyKey = ""
		v.Result = fmt.Appendf(nil, `{"id":"dict-%04d","verdict":"pass","criteria":[{"id":"c1","passed":true,"evidence":"the summary names %d of %d files"},{"id":"c2","passed":%t,"evidence":"%d words, at most 300"}],"feedback":"attempt %d: nothing to add, the work holds by every check that was run on it"}`,
			i, i%7, 7, i%2 == 0, 100+i%200, i%3+1)
		v.Request = fmt.Appendf(nil, `{"task":{"goal":"Summarise change %d of the release notes in at most 300 words","criteria":[{"id":"c1","text":"names the files"},{"id":"c2","text":"at most 300 words"}]},"output":{"summary":"change %d touches %d files and keeps every public name"}}`,
			i, i, i%9)
		return v
	}
	event := func(i int) store.Event {
		return store.Event{Tenant: tenant, Type: "dict", CreatedAt: at(i % 60), Data: fmt.Appendf(nil,
			`{"type":"verification:complete","id":"dict-%04d","tenant":%q,"interactionId":"run-%d","taskId":"","attempt":1,"data":{"selfAssessment":null,"n":%d}}`,
			i, tenant, i%11, i)}
	}
	vs := make([]*store.Verification, n)
	evs := make([]store.Event, n)
	for i := range vs {
		vs[i], evs[i] = alike(i), event(i)
	}
	if _, err := h.s.Import(ctx, vs); err != nil {
		t.Fatal(err)
	}
	if err := h.s.AppendEvents(ctx, evs); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Close(); err != nil {
		t.Fatal(err)
	}
	h.s = h.reopen()
	for i := n; i < n+20; i++ {
		vs = append(vs, h.insert(alike(i), event(i)))
	}
	for i := 0; i < len(vs); i += 37 {
		want := alike(i)
		got, err := h.s.Get(ctx, tenant, want.ID, 1)
		if err != nil {
			t.Fatalf("Get %s: %v", want.ID, err)
		}
		if string(got.Result) != string(want.Result) || string(got.Request) != string(want.Request) {
			t.Errorf("%s: report or request changed:\n%s\n%s", want.ID, got.Result, got.Request)
		}
	}
	last := alike(n + 19)
	if got, err := h.s.Get(ctx, tenant, last.ID, 1); err != nil || string(got.Result) != string(last.Result) {
		t.Errorf("the last written: %v", err)
	}
	var read int
	for after := int64(0); ; {
		page, err := h.s.Events(ctx, tenant, after, 500)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, e := range page {
			after = e.Seq
			if e.Type != "dict" {
				continue
			}
			if want := event(read).Data; string(e.Data) != string(want) {
				t.Fatalf("event %d: data changed:\n%s\nwant\n%s", read, e.Data, want)
			}
			read++
		}
	}
	if read != n+20 {
		t.Errorf("read %d events back, want %d", read, n+20)
	}
}
