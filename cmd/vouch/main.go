// Command vouch verifies the outputs of AI agents against ground truth and
// success criteria. See the README for the request and report contracts.
//
// Usage:
//
//	vouch verify [--workspace DIR] [--base REF] [--policy FILE]... [--json] [--timeout D] REQUEST|-
//	vouch verify --batch IN.jsonl --out OUT.jsonl [--concurrency N]
//	vouch schema request|report
//	vouch policy show [--policy FILE]...
//	vouch policy check FILE...
//	vouch codes [--json]
//	vouch version
//
// Exit codes: 0 pass, 1 retry or fail, 2 bad input or usage.
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
