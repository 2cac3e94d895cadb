package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/cmd/vouch/internal/agentcmd"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/event"
	"github.com/vouchgate/vouch/git"
	"github.com/vouchgate/vouch/loop"
	"github.com/vouchgate/vouch/memory"
	"github.com/vouchgate/vouch/text/plural"
	"github.com/vouchgate/vouch/wire"
)

// runFlags are the flags of vouch run.
type runFlags struct {
	task           string
	workspace      string
	events         string
	memory         string
	interaction    string
	policies       []string
	prompt         string
	result         string
	attemptTimeout time.Duration
	json           bool
	noCache        bool
	plan           string
}

func newRunCmd(st Streams) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run --task TASK.yaml [flags] -- AGENT [ARGS...]",
		Short: "Run an agent command on a task, verify each attempt, and retry with feedback until it holds",
		Long: `Run an agent that is a command, verify what it did, and act on the verdict:
retry with the feedback (what to fix, more specific each time), reformulate the
task around what was missed, escalate, or stop on a contradiction. It loops
until the work is accepted, escalated or out of retries (the policy's maxRetries).

TASK.yaml is a request without an output: task (goal, criteria), and optionally
kind, context and base. Before the first attempt vouch records the workspace's
HEAD as the base (unless the task names one), so committed and uncommitted work
are both evidence.

The agent gets its prompt (the goal, the criteria, the memory and the previous
attempt's feedback, with quoted agent text fenced as data) on stdin
(--prompt stdin, the default), as every argument's {prompt} (--prompt arg), or
only in VOUCH_PROMPT (--prompt env; VOUCH_PROMPT and VOUCH_ATTEMPT are always
set). AGENT is found as a shell finds it: a path from the current directory (not
from the workspace), or a program on PATH; a missing one is a usage error,
before any attempt. It runs in the workspace, as you; --attempt-timeout kills
it and everything it started. Its result is read by --result:

  stdout          its standard output is its summary (the default)
  claude          its standard output is a Claude Code stream-json transcript
                  (claude -p --output-format stream-json --verbose): claims from
                  its final report, evidence from its tool calls
  request:FILE    it writes a request (JSON or YAML) to FILE in the workspace;
                  its output and trace are read

Progress goes to stderr; the end is a summary of the attempts, verdicts, feedback
and cost (--json: the loop's result as JSON on stdout). --events FILE appends the
loop's events as JSONL; --memory FILE carries findings and known hallucinations
between runs of the same --interaction.

--plan PLAN.yaml runs a plan instead of one task: its subgoals (id,
description, dependsOn, criticality low|normal|high) in dependency order, each
a task made from --task (its id TASK.SUBGOAL, its goal the subgoal's
description, its base the workspace's HEAD when the subgoal starts) and run as
above. When a high-criticality subgoal is not accepted, the subgoals that
depend on it do not run, and the summary names it and why; independent
branches go on. A plan with a cycle or an unknown dependency is bad input.

Exit codes: 0 accepted (also when the last attempt is unverified: nothing found
false, but claims nothing could check, and the policy's onUnverified is accept;
the summary says so and lists them); 1 escalated, out of retries or a
contradiction to clarify; 2 usage or bad input.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if f.task == "" {
				return usageErr(errors.New("run needs --task TASK.yaml"))
			}
			if cmd.ArgsLenAtDash() != 0 || len(args) == 0 {
				return usageErr(errors.New("run needs the agent after --: vouch run --task TASK.yaml -- AGENT [ARGS...]"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAgent(cmd.Context(), st, &f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.task, "task", "", "the task: a request without output (`TASK.yaml`)")
	fl.StringVar(&f.workspace, "workspace", "", "the workspace `DIR` the agent works in (default: the current directory)")
	fl.StringVar(&f.events, "events", "", "append the loop's events to `FILE` (JSONL)")
	fl.StringVar(&f.memory, "memory", "", "keep the memory (findings, known hallucinations) in `FILE`")
	fl.StringVar(&f.interaction, "interaction", "", "the interaction `ID` the memory is kept under (default: the task's id)")
	fl.StringArrayVar(&f.policies, "policy", nil, "a policy `FILE` (YAML); repeat to layer, later wins")
	fl.StringVar(&f.prompt, "prompt", "stdin", "how the agent gets its prompt: `stdin`, arg ({prompt} in its arguments) or env")
	fl.StringVar(&f.result, "result", agentcmd.ResultStdout, "how its result is read: `stdout`, claude or request:FILE")
	fl.DurationVar(&f.attemptTimeout, "attempt-timeout", 30*time.Minute, "kill an attempt of the agent after `D` (0: no limit)")
	fl.BoolVar(&f.json, "json", false, "print the loop's result as JSON")
	fl.BoolVar(&f.noCache, "no-cache", false, "neither read nor write the judge's answer cache")
	fl.StringVar(&f.plan, "plan", "", "run a plan (`PLAN.yaml`: goal, subgoals with id, description, dependsOn, criticality): each subgoal as a task made from --task, in dependency order")
	return cmd
}

func runAgent(ctx context.Context, st Streams, f *runFlags, argv []string) error {
	// The agent is found as a shell finds it, from the current
	// directory, before anything runs: it then runs in the workspace.
	name := argv[0]
	prog, err := agentProgram(name)
	if err != nil {
		return usageErr(err)
	}
	argv = append([]string{prog}, argv[1:]...)
	pol, j, err := policyAndJudge(st, f.policies, f.noCache)
	if err != nil {
		return usageErr(err)
	}
	if f.attemptTimeout < 0 {
		return usageErr(errors.New("--attempt-timeout must not be negative"))
	}
	req, err := readTask(f.task)
	if err != nil {
		return usageErr(err)
	}
	ws := f.workspace
	if ws == "" {
		if ws, err = os.Getwd(); err != nil {
			return usageErr(err)
		}
	}
	if ws, err = filepath.Abs(ws); err != nil {
		return usageErr(err)
	}
	if fi, err := os.Stat(ws); err != nil || !fi.IsDir() {
		return usageErr(fmt.Errorf("workspace %s is not a directory", ws))
	}
	req.Workspace = ws
	if req.Base == "" {
		info, err := git.Snapshot(ctx, ws)
		if err != nil {
			return usageErr(fmt.Errorf("recording the base of %s: %w", ws, err))
		}
		req.Base = info.Base
	}
	agent := &agentcmd.Command{Argv: argv, Dir: ws, Stderr: st.Err}
	switch f.prompt {
	case "stdin":
		agent.Stdin = true
	case "arg":
		if !strings.Contains(strings.Join(argv, "\x00"), agentcmd.PromptPlaceholder) {
			return usageErr(errors.New("--prompt arg needs {prompt} in the agent's arguments"))
		}
	case "env":
	default:
		return usageErr(fmt.Errorf("--prompt %q: want stdin, arg or env", f.prompt))
	}
	switch kind, file, _ := strings.Cut(f.result, ":"); kind {
	case agentcmd.ResultStdout, agentcmd.ResultClaude:
		if file != "" {
			return usageErr(fmt.Errorf("--result %s takes no file", kind))
		}
		agent.Result = kind
	case agentcmd.ResultRequest:
		if file == "" {
			return usageErr(errors.New("--result request:FILE needs the FILE the agent writes"))
		}
		agent.Result, agent.ResultFile = kind, file
	default:
		return usageErr(fmt.Errorf("--result %q: want stdout, claude or request:FILE", f.result))
	}
	var jv vouch.Judge
	if j != nil {
		jv = j
	}
	eng, err := engine.New(engine.Options{Policy: &pol, Judge: jv,
		// The workspace is the operator's (--workspace or the current
		// directory), never one the agent's result names.
		Workspace: engine.WorkspaceAt(ws)})
	if err != nil {
		return usageErr(err)
	}
	opts := loop.Options{Policy: &pol, Judge: j, AttemptTimeout: f.attemptTimeout}
	if f.events != "" {
		sink, err := event.OpenJSONL(f.events)
		if err != nil {
			return usageErr(err)
		}
		opts.Events = event.NewEmitter(event.Options{}, sink)
		defer func() {
			cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := opts.Events.Close(cctx); err != nil {
				fmt.Fprintf(st.Err, "vouch: events: %v\n", err)
			}
		}()
	}
	if f.memory != "" {
		store, err := memory.OpenFile(f.memory)
		if err != nil {
			return usageErr(err)
		}
		opts.Memory = memory.New(store, memory.Options{PromoteAfter: pol.Memory.PromoteAfter})
	}
	task := loop.Task{Request: *req, InteractionID: f.interaction}
	if task.InteractionID == "" {
		task.InteractionID = req.Task.ID
	}
	var plan *vouch.Plan
	if f.plan != "" {
		if plan, err = readPlan(f.plan); err != nil {
			return usageErr(err)
		}
	}
	progress := st.Err
	exec := loop.ExecutorFunc(func(ctx context.Context, in *loop.Input) (*loop.Reply, error) {
		fmt.Fprintf(progress, "vouch: attempt %d: running %s\n", in.Attempt, name)
		res, err := agent.Run(ctx, in.Prompt, in.Attempt)
		if err != nil {
			fmt.Fprintf(progress, "vouch: attempt %d: %v\n", in.Attempt, err)
			return nil, err
		}
		if res.ExitCode != 0 {
			fmt.Fprintf(progress, "vouch: attempt %d: the agent exited %d\n", in.Attempt, res.ExitCode)
		}
		return &loop.Reply{Output: res.Output, Trace: res.Trace}, nil
	})
	if plan != nil {
		return runPlan(ctx, st, f, eng, plan, task, exec, opts)
	}
	result, err := loop.Run(ctx, eng, task, exec, opts)
	if err != nil {
		return &exitError{code: exitInput, err: err}
	}
	if f.json {
		if err := json.MarshalWrite(st.Out, result, jsontext.WithIndent("  ")); err != nil {
			return err
		}
		fmt.Fprintln(st.Out)
	} else {
		printRunSummary(st.Out, result)
	}
	if result.Outcome != loop.Accepted {
		return &exitError{code: exitNotOK}
	}
	return nil
}

// agentProgram finds the agent's program as a shell would, from the
// current directory: a name with a slash is a path from it, any other is
// looked up on PATH (exec.LookPath). The program is returned as an
// absolute path, for the agent runs in the workspace.
func agentProgram(name string) (string, error) {
	p, err := osexec.LookPath(name)
	if err == nil {
		return filepath.Abs(p)
	}
	cause := err
	var ee *osexec.Error
	if errors.As(err, &ee) {
		cause = ee.Err
	}
	switch {
	case errors.Is(cause, osexec.ErrDot):
		return "", fmt.Errorf("cannot run the agent %s: it is found on PATH only through the current directory; write ./%s to run it from there", name, name)
	case !strings.ContainsRune(name, '/') && !strings.ContainsRune(name, filepath.Separator):
		return "", fmt.Errorf("cannot run the agent %s: no such program on PATH (one in the current directory is written ./%s)", name, name)
	}
	why := "not an executable file"
	if errors.Is(cause, fs.ErrNotExist) {
		why = "no such file"
	}
	wd, _ := os.Getwd()
	return "", fmt.Errorf("cannot run the agent %s: %s (a path is taken from the current directory, %s, not from the workspace)", name, why, wd)
}

// runPlan runs a plan's subgoals, each a task made from the template:
// its id the template's and the subgoal's, its goal the subgoal's
// description (the template's goal when it has none), its criticality
// the subgoal's, and its base the workspace's HEAD when it starts.
func runPlan(ctx context.Context, st Streams, f *runFlags, eng *engine.Engine, plan *vouch.Plan, template loop.Task, exec loop.Executor, opts loop.Options) error {
	taskFor := func(ctx context.Context, sg vouch.Subgoal) (loop.Task, error) {
		t := template
		t.Request.Task.ID = sg.ID
		if template.Request.Task.ID != "" {
			t.Request.Task.ID = template.Request.Task.ID + "." + sg.ID
		}
		if sg.Description != "" {
			t.Request.Task.Goal = sg.Description
		}
		if sg.Criticality != "" {
			t.Request.Task.Criticality = sg.Criticality
		}
		info, err := git.Snapshot(ctx, t.Request.Workspace)
		if err != nil {
			return t, fmt.Errorf("recording the base: %w", err)
		}
		t.Request.Base = info.Base
		fmt.Fprintf(st.Err, "vouch: subgoal %s\n", sg.ID)
		return t, nil
	}
	res, err := loop.RunPlan(ctx, eng, plan, taskFor, exec, opts)
	var ve *vouch.Error
	if errors.As(err, &ve) {
		return usageErr(fmt.Errorf("%s: %s", f.plan, err)) // bad input: the plan file named
	}
	if err != nil {
		return &exitError{code: exitInput, err: err}
	}
	if f.json {
		if err := json.MarshalWrite(st.Out, res, jsontext.WithIndent("  ")); err != nil {
			return err
		}
		fmt.Fprintln(st.Out)
	} else {
		for _, sr := range res.Subgoals {
			switch {
			case sr.Result == nil:
				fmt.Fprintf(st.Out, "%s (%s): not run: %s failed (%s)\n", sr.ID, sr.Criticality, sr.BlockedBy, sr.Why)
			default:
				fmt.Fprintf(st.Out, "%s (%s): %s after %s\n", sr.ID, sr.Criticality, sr.Result.Outcome, plural.Count(len(sr.Result.Attempts), "attempt"))
			}
		}
	}
	if !res.Accepted {
		return &exitError{code: exitNotOK}
	}
	return nil
}

// readPlan reads PLAN.yaml: a plan (goal, subgoals, phases), checked as a
// request's context.plan is.
func readPlan(path string) (*vouch.Plan, error) {
	doc, err := readMapping(path, "a plan: a mapping with subgoals")
	if err != nil {
		return nil, err
	}
	req, err := decodeMapping(path, map[string]any{"apiVersion": vouch.APIVersion, "kind": string(vouch.KindSubtask),
		"task": map[string]any{"goal": "plan"}, "context": map[string]any{"plan": doc}, "output": map[string]any{"summary": ""}})
	if err != nil {
		return nil, err
	}
	if req.Context == nil || req.Context.Plan == nil || len(req.Context.Plan.Subgoals) == 0 {
		return nil, fmt.Errorf("%s: the plan has no subgoals", path)
	}
	return req.Context.Plan, nil
}

// readMapping reads a YAML (or JSON) mapping of at most a request's size
// from path; want says what it should be, for the error when it is empty.
func readMapping(path, want string) (map[string]any, error) {
	data, err := readLimited(path, wire.DefaultMaxBytes)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc) == 0 {
		return nil, fmt.Errorf("%s: want %s", path, want)
	}
	return doc, nil
}

// decodeMapping decodes doc as a request, strictly, its errors named by
// path.
func decodeMapping(path string, doc map[string]any) (*vouch.Request, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	req, err := wire.DecodeRequest(b, wire.Options{Name: path})
	if err != nil {
		return nil, withoutPositions(err)
	}
	return req, nil
}

// readTask reads TASK.yaml: a request without an output. apiVersion and
// kind may be left out (vouch/v1, subtask).
func readTask(path string) (*vouch.Request, error) {
	doc, err := readMapping(path, "a task: a mapping with task.goal")
	if err != nil {
		return nil, err
	}
	if _, ok := doc["output"]; ok {
		return nil, fmt.Errorf("%s: a task has no output: the agent's output is what gets verified", path)
	}
	if _, ok := doc["apiVersion"]; !ok {
		doc["apiVersion"] = vouch.APIVersion
	}
	if _, ok := doc["kind"]; !ok {
		doc["kind"] = string(vouch.KindSubtask)
	}
	doc["output"] = map[string]any{"summary": ""}
	req, err := decodeMapping(path, doc)
	if err != nil {
		return nil, err
	}
	if req.Workspace != "" {
		return nil, fmt.Errorf("%s: workspace is given by --workspace (or the current directory), not by the task", path)
	}
	return req, nil
}

// printRunSummary writes what the loop did: each attempt's verdict and
// what it was told, the outcome, and the cost.
func printRunSummary(w io.Writer, r *loop.Result) {
	for _, a := range r.Attempts {
		switch {
		case a.Report != nil:
			score := "n/a"
			if a.Report.Score != nil {
				score = fmt.Sprintf("%.2f", *a.Report.Score)
			}
			fmt.Fprintf(w, "attempt %d: %s (score %s, %s): %s\n", a.Number, strings.ToUpper(string(a.Report.Verdict)), score, a.Reaction, a.Report.Reason)
		default:
			fmt.Fprintf(w, "attempt %d: did not finish (%s): %s\n", a.Number, a.Reaction, a.Error)
		}
		if a.Feedback != nil {
			for _, it := range a.Feedback.Items {
				fmt.Fprintf(w, "  told to fix: %s\n", it.Reason)
			}
		}
	}
	switch r.Outcome {
	case loop.Accepted:
		if !r.Unverified {
			fmt.Fprintf(w, "accepted after %s\n", plural.Count(len(r.Attempts), "attempt"))
			for _, fu := range r.FollowUps {
				fmt.Fprintf(w, "follow-up for a gap: %s\n", fu.Gap)
			}
			break
		}
		fmt.Fprintf(w, "accepted UNVERIFIED after %s: nothing was found false, but these claims could not be checked:\n", plural.Count(len(r.Attempts), "attempt"))
		if n := len(r.Attempts); n > 0 && r.Attempts[n-1].Report != nil {
			for _, c := range r.Attempts[n-1].Report.Claims {
				if c.State == vouch.ClaimUnverified {
					fmt.Fprintf(w, "  %s %q: %s\n", c.ID, clipLine(c.Text, 100), c.Reason)
				}
			}
		}
		for _, fu := range r.FollowUps {
			fmt.Fprintf(w, "follow-up for a gap: %s\n", fu.Gap)
		}
	case loop.NeedsClarification:
		fmt.Fprintf(w, "stopped: the outputs contradict each other; a person must say which holds\n")
	default:
		msg := "escalated"
		if r.Escalation != nil {
			msg += ": " + r.Escalation.Error
		}
		fmt.Fprintln(w, msg)
	}
	fmt.Fprintf(w, "cost: verification $%.4f, agent $%.4f (as it reported)\n", r.Cost.VerifyUSD, r.Cost.ExecutorUSD)
}
