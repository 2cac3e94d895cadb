// Package server is `vouch serve`: the verification service and its
// durable log. It registers no check type: a program that runs it
// blank-imports github.com/vouchgate/vouch/check/all (or its own checks)
// in its main, as cmd/vouch does.
//
// The API (JSON; described by the OpenAPI 3.1 document served at
// /openapi.json and kept in this package as openapi.json):
//
//	POST /v1/verify                 one request → its report, synchronously; idempotent
//	POST /verify-task               the plain task/criteria/output shape → a plain verdict
//	POST /v1/batches                JSONL or a JSON array → 202 {id}; verified in the background
//	GET  /v1/batches/{id}           progress and counts; ?results=jsonl streams the results
//	GET  /v1/verifications/{id}     a stored report (with its overrides)
//	GET  /v1/verifications          filtered, newest first, cursor-paginated
//	GET  /v1/events                 Server-Sent Events; Last-Event-ID resumes
//	GET  /healthz, /readyz          liveness; readiness (the store answers)
//	GET  /metrics                   Prometheus, names prefixed vouch_
//
// Every verification is written to the store before its report is
// answered: a 200 means it is in the log. Every row carries a tenant, and
// every query filters by the caller's: API keys (kept hashed in the store,
// made with `vouch keys create`) name a tenant and scopes (verify, read,
// review, admin). With no key in the store the server listens only on
// loopback and takes requests without a key as tenant "default" with
// every scope.
//
// Beside the API, unless the configuration turns it off, the server
// mounts the web dashboard of package web (/, /verifications, /review,
// /login, /static/...), over the same store, key cache and event hub.
//
// Several servers may share one PostgreSQL store behind a load balancer:
// an event one of them stores wakes the streams of every other (through
// the store's [store.Notifier]), and the dashboard's session key is kept
// in the store, so that any of them accepts a session.
//
// A request's workspace is the name of a root the configuration allows,
// never a path; allow-listed commands run only in the workspaces that opt
// in. The server bounds what a client can hold: request and batch sizes,
// header and body read times, requests in flight (more are answered 429
// with Retry-After), and each verification's time.
package server
