// Package vouch is a verification gate for the outputs of AI agents.
//
// An orchestrator hands a specialist agent a task; the agent returns an answer
// and says what it did. Before the orchestrator builds on that output, vouch
// checks it: did the work really happen, does the answer rest on what the agent
// actually saw, does it meet the task's success criteria. The result is a
// [Report] with a [Verdict] (pass, retry or fail), a score, a confidence, the
// evidence behind them and feedback that can be handed back to the agent.
//
// This package holds the domain: the [Request] and [Report] contracts, the
// [Policy] that tunes verification, the [Checker], [Analyzer] (with the
// optional [Concluder]) and [Judge] contracts that checks and judges
// implement, the [Subject] the checks of one verification share, the [Error]
// type for invalid input and the catalogue of warning and check codes
// ([Codes]). It imports the standard library only.
//
// The implementations live in sub-packages: package engine compiles a policy
// once and verifies many requests concurrently; package check holds the
// registry of check kinds and of analyzers (each with the checkpoint [Kinds]
// it serves), and check/all registers every built-in one; package
// wire decodes requests from JSON or YAML with path-precise errors; package
// policy reads and layers policy files; cmd/vouch is the command-line tool.
package vouch

// APIVersion is the version tag carried by requests and reports.
const APIVersion = "vouch/v1"
