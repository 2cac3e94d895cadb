package event_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/vouchgate/vouch/event"
)

// A receiver checks each delivery's signature on the raw body before it
// decodes anything, and drops duplicates by the delivery id.
func ExampleVerifySignature() {
	secret := []byte("whsec-shared-with-the-receiver")
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err := event.VerifySignature(secret, r.Header, body, time.Now(), 5*time.Minute); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		got <- r.Header.Get(event.HeaderEvent)
	}))
	defer srv.Close()

	hook, err := event.NewWebhook(event.WebhookOptions{URL: srv.URL, Secret: secret})
	if err != nil {
		panic(err)
	}
	em := event.NewEmitter(event.Options{Tenant: "acme"}, hook)
	em.Emit(event.Event{Type: event.VerificationRetry, TaskID: "docs-7", Attempt: 1,
		Data: &event.Retry{Feedback: "Document tokenize, format and validate."}})
	if err := em.Close(context.Background()); err != nil { // waits for the delivery
		panic(err)
	}
	fmt.Println(<-got, hook.Stats().Delivered)
	// Output: verification:retry 1
}
