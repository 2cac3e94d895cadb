// Command vouch verifies the outputs of AI agents against ground truth and
// success criteria. See the README for the request and report contracts.
//
// Usage:
//
//	vouch verify [--workspace DIR] [--base REF] [--policy FILE]... [--json] [--timeout D] REQUEST|-
//	vouch verify --batch IN.jsonl --out OUT.jsonl [--concurrency N]
//	vouch pr --base REF [--head REF] [--repo DIR] --description FILE|- [--tests FILE]... [--format text|json|markdown] [--policy FILE]...
//	vouch schema request|report
//	vouch policy show [--policy FILE]...
//	vouch policy check FILE...
//	vouch codes [--json]
//	vouch serve [--addr HOST:PORT] [--store DSN | --demo [--demo-n N]] [--config FILE] [--no-dashboard] [--no-mcp]
//	vouch mcp [--workspace-root DIR]... [--policy FILE]... [--store DSN [--tenant T]]
//	vouch keys create|list|revoke --store DSN
//	vouch review ID --verdict pass|retry|fail [--reason TEXT] [--reviewer NAME] [--attempt N] [--json]
//	vouch outcome (ID [--attempt N] | --task T [--interaction I]) --good|--bad [--detail TEXT] [--reporter NAME] [--json]
//	vouch metrics [--server URL | --store DSN [--tenant T]] [--since T] [--until T] [--window D] [--kind K] [--executor-model M] [--criticality C] [--json]
//	vouch alerts [--server URL] [--json]
//	vouch version
//
// review, outcome, metrics, alerts, calibrate and examples call the server
// named by --server, else VOUCH_SERVER, else the address of VOUCH_ADDR,
// else 127.0.0.1:8080 (saying on standard error which), with the API key
// of --api-key-file FILE or VOUCH_API_KEY (metrics --store reads a store
// directly instead).
//
// Exit codes: 0 pass, 1 retry or fail, 2 bad input or usage. For review,
// outcome, metrics and alerts: 0 done, 2 bad usage or a call the server
// refused (4xx), 3 a server or store that could not be reached or failed.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Main(ctx, os.Args[1:], Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
