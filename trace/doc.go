// Package trace reads what agents actually did: their tool-call traces.
//
// Agent frameworks name the same tools differently ("Read", "read_file",
// "fs:read", "view"); a [Table] maps each name to an [Op], what the call does
// (read a file, list a directory, write, run a command, search, fetch,
// delegate, or call a plugin), with the policy's own names on top of the
// built-in ones. The input helpers ([FilePath], [DirPath], [Command],
// [Query], [URL]) read the arguments a call was given whatever the framework
// called them.
//
// [Summarize] turns a trace into a [Summary]: the files read, listed and
// written, the commands run with their exit status, the searches, fetches,
// plugin calls and delegations, and the paths the agent saw in listings and
// search results. Grounding and the claim checks use it as evidence; its
// [Summary.Text] is a compact digest for a judge prompt or a report.
//
// The importers, in their own packages, turn native agent logs into vouch
// requests: trace/claudecode reads a Claude Code session log (JSONL),
// trace/miniswe a mini-swe-agent trajectory, trace/openai the messages of
// OpenAI's Chat Completions API or the items of its Responses API, and
// trace/otelgenai OpenTelemetry GenAI spans (OTLP JSON); trace/transcript
// detects which of these a log is and reads it. Each returns a
// [Transcript]: the trace, and the output the agent claimed (its last
// message, the tools and commands it used), from which
// [Transcript.Request] builds a request.
package trace
