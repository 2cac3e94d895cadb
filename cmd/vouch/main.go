// Command vouch verifies the outputs of AI agents against ground truth and
// success criteria. See the README for the request and report contracts.
//
// Usage (vouch COMMAND --help for each; docs/reference/cli.md for all):
//
//	vouch init [DIR] [--force]                 a commented first request and policy
//	vouch init hook [--user]                   install the Claude Code hook
//	vouch verify [--workspace DIR] [--base REF] [--policy FILE]... [--json|--brief] REQUEST|-
//	vouch verify --batch IN.jsonl --out OUT.jsonl [--concurrency N]
//	vouch run --task FILE [--plan FILE] [--workspace DIR] -- AGENT [ARGS...]
//	vouch pr --base REF [--head REF] --description FILE|- [--tests FILE]...
//	vouch hook claude-code | install claude-code | uninstall claude-code
//	vouch snapshot --workspace DIR
//	vouch trace from|from-claude|from-mini-swe|from-openai|from-otel|detect|summary FILE|-
//	vouch schema request|report
//	vouch policy show|check [FILE]...
//	vouch codes [--json]
//	vouch mcp [--workspace-root DIR]... [--policy FILE]... [--store DSN [--tenant T]]
//	vouch serve [--addr HOST:PORT] [--store DSN | --demo] [--config FILE] [--debug-addr HOST:PORT]
//	vouch worker --store postgres://...
//	vouch keys create|list|revoke --store DSN
//	vouch review ID --verdict pass|retry|fail [--reason TEXT]
//	vouch outcome (ID | --task T) --good|--bad
//	vouch metrics [--server URL | --store DSN] [--window D] [--json]
//	vouch alerts [--server URL] [--json]
//	vouch calibrate [--server URL | --store DSN | --reports FILE --labels FILE]
//	vouch examples [--server URL | --store DSN]
//	vouch reverify --since T [--policy FILE]...
//	vouch fake-llm [--addr HOST:PORT] [--script FILE]
//	vouch version
//
// review, outcome, metrics, alerts, calibrate and examples call the server
// named by --server, else VOUCH_SERVER, else the address of VOUCH_ADDR or
// of the config file VOUCH_CONFIG names,
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
