package trace

import (
	"errors"
	"path"
	"strings"

	"github.com/vouchgate/vouch"
)

// Transcript is an agent session read from its native log: the tool calls
// it made (the evidence) and the output it claimed.
type Transcript struct {
	// Trace holds every tool call in order, each with its result; a call
	// the log holds no result for has no output.
	Trace []vouch.TraceEntry
	// Output is what the agent claimed: its last message as the summary,
	// the files it created and modified, the tools and commands it used.
	Output vouch.Output
	// Goal is the task: the first prompt a user gave the agent.
	Goal string
	// Executor names the model that ran the session, when the log says.
	Executor *vouch.Executor
	// Cwd is the directory the agent started in, when the log says.
	// Created and modified files under it are given relative to it.
	Cwd string
}

// Request builds a subtask request from the transcript: apiVersion
// vouch/v1, attempt 1, the goal as task.goal, the output and the trace. The
// request shares the transcript's slices.
func (t *Transcript) Request() *vouch.Request {
	return &vouch.Request{
		APIVersion: vouch.APIVersion,
		Kind:       vouch.KindSubtask,
		Attempt:    1,
		Task:       vouch.Task{Goal: t.Goal, Executor: t.Executor},
		Output:     t.Output,
		Trace:      t.Trace,
	}
}

// ErrNoMessages is returned by an importer for a log that holds no message
// of a session.
var ErrNoMessages = errors.New("trace: no session messages found")

// Rel returns p relative to the transcript's Cwd when p lies under it, else
// p.
func (t *Transcript) Rel(p string) string {
	dir := t.Cwd
	if dir == "" || !path.IsAbs(p) {
		return p
	}
	d := strings.TrimSuffix(path.Clean(dir), "/")
	if r, ok := strings.CutPrefix(path.Clean(p), d+"/"); ok && r != "" {
		return r
	}
	return p
}
