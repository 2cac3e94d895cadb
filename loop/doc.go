// Package loop acts on vouch's verdicts: it runs a task through an
// executor (an agent), verifies each attempt, and reacts to the report as
// an orchestrator should, until the task is accepted, escalated to a
// person, or stopped on a contradiction.
//
//	res, err := loop.Run(ctx, eng, task, executor, loop.Options{Memory: mem, Events: em})
//
// [Run] gives the executor an [Input] for each attempt: the goal, the
// criteria, the memory of earlier subtasks, the feedback on the previous
// attempt, and all of it rendered as one prompt (Input.Prompt) in which
// everything that quotes agent text is fenced as data. The executor
// returns a [Reply]: the agent's output (its claims) and its trace
// (evidence). The report of each attempt decides the next step ([Decide]),
// with the policy's thresholds:
//
//   - accept: the output passed, or is unverified (nothing found false,
//     claims nothing could check) under the policy's onUnverified accept:
//     [Result.Unverified] says which;
//   - ask (onUnverified follow_up): the agent is asked, once, how the
//     claims nothing could check can be shown; never told they are false;
//   - retry: the feedback goes into a "previous attempt" section that names
//     each claim found false and each thing to fix, with its evidence, more
//     specific on each retry (the exact items from the second attempt on,
//     and what is still not fixed); with more than maxRefuted mentions the
//     evidence contradicts, the agent is told to reference only what its
//     tools found, and given the list;
//   - reformulate (the report's action, for a score under 0.4): a
//     [Reformulator] rewrites the task around what was missed
//     ([RuleReformulator]; [JudgeReformulator] when a judge is configured)
//     for the next prompt; verification still holds the output to the task
//     as given;
//   - follow_up (completeness under 0.6 with gaps): the output is accepted
//     and at most two follow-up subtasks, linked to their parent, are
//     returned, or run when Options.RunFollowUps says so;
//   - a CONTRADICTION between outputs: a clarification request naming both
//     sides of each conflict, never a silent pick;
//   - escalate, or the retries (the policy's maxRetries, counted per task)
//     used up: a structured escalation {error, verdict, score, scores,
//     issues, suggestions} and needsReview.
//
// Retries may go to stronger executors (Options.Cascade); each attempt's
// task.executor.tier says which, so a judge chosen by tier stays a tier
// above. Whatever fails (the executor, a timeout, the verifier) is never
// an acceptance.
//
// [Synthesize] builds a final answer from subtask results with a
// quality-aware input ([SynthesisInput]: the reliable results, the
// uncertain ones with their warnings, the known gaps) and falls back to the
// outputs when the synthesis is not accepted.
//
// Memory (package memory) carries findings, known hallucinations, gaps and
// blockers from one subtask to the next; events (package event) tell the
// rest of the system what happened: verification:complete,
// verification:retry, subtask:followup, subtask:clarify, subtask:escalated
// and orchestrator:answer. The self-assessment an agent gives is recorded
// beside the verified confidence of each attempt; [Bias] gathers the
// difference per executor.
//
// The pieces a loop that runs elsewhere needs are exported on their own: a
// hook that sees one attempt at a time calls [Decide] and renders
// [NewFeedback]; a command runner (`vouch run`) implements [Executor] and
// calls Run.
package loop
