package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
)

// reviewFlags are the flags of vouch review.
type reviewFlags struct {
	remoteFlags
	verdict  string
	reason   string
	reviewer string
	attempt  int
	json     bool
}

func newReviewCmd(st Streams) *cobra.Command {
	var f reviewFlags
	cmd := &cobra.Command{
		Use:   "review ID --verdict pass|retry|fail [--reason TEXT] [--reviewer NAME] [--attempt N] [--json]",
		Short: "Record a person's verdict on a stored verification (an override)",
		Long: `Record a person's verdict (pass, retry or fail) beside the verification ID in
a server's log: POST /v1/verifications/ID/override, with a key that has the
review scope. Unverified is the gate's verdict for what it could not check
either way, never a person's: a person who looks decides, and settles it. The report never changes; the override sits beside it and labels
the verification for the quality metrics (the latest label of a verification
counts). --attempt picks an attempt (default the latest); --reviewer defaults
to the API key's name. It prints the override as recorded.

` + remoteHelp + `

` + remoteExitCodes,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr(errors.New("review needs one verification ID"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			switch vouch.Verdict(f.verdict) {
			case vouch.VerdictPass, vouch.VerdictRetry, vouch.VerdictFail:
			case "":
				return usageErr(errors.New("review needs --verdict pass, retry or fail"))
			case vouch.VerdictUnverified:
				return usageErr(errors.New(`--verdict "unverified": a reviewer decides, want pass, retry or fail (unverified is the gate's verdict for what it could not check)`))
			default:
				return usageErr(fmt.Errorf("--verdict %q: want pass, retry or fail", f.verdict))
			}
			if f.attempt < 0 {
				return usageErr(errors.New("--attempt: want a positive number, or none for the latest"))
			}
			c, server, err := f.client(st)
			if err != nil {
				return err
			}
			o, err := c.Override(cmd.Context(), args[0], api.OverrideInput{Verdict: f.verdict, Reason: f.reason, Reviewer: f.reviewer, Attempt: f.attempt})
			if err != nil {
				return remoteErr(server, err)
			}
			if f.json {
				return writeJSON(st.Out, o)
			}
			fmt.Fprintf(st.Out, "override recorded: %s attempt %d is %s, by %s at %s\n", o.VerificationID, o.Attempt, o.Verdict, o.Reviewer, o.CreatedAt.UTC().Format(time.RFC3339))
			if o.Reason != "" {
				fmt.Fprintf(st.Out, "reason: %s\n", o.Reason)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	f.add(fl)
	fl.StringVar(&f.verdict, "verdict", "", "the person's `VERDICT`: pass, retry or fail")
	fl.StringVar(&f.reason, "reason", "", "a `TEXT` saying why")
	fl.StringVar(&f.reviewer, "reviewer", "", "the reviewer's `NAME` (default: the API key's name)")
	fl.IntVar(&f.attempt, "attempt", 0, "the verification's attempt `N` (default: its latest)")
	fl.BoolVar(&f.json, "json", false, "print the override as JSON")
	return cmd
}

// outcomeFlags are the flags of vouch outcome.
type outcomeFlags struct {
	remoteFlags
	attempt     int
	task        string
	interaction string
	good, bad   bool
	detail      string
	reporter    string
	json        bool
}

func newOutcomeCmd(st Streams) *cobra.Command {
	var f outcomeFlags
	cmd := &cobra.Command{
		Use:   "outcome (ID [--attempt N] | --task T [--interaction I]) --good|--bad [--detail TEXT] [--reporter NAME] [--json]",
		Short: "Record what happened downstream of a verification (an outcome)",
		Long: `Record whether an output held up once used: --good (it was used and held up)
or --bad (it broke something), for the verification ID (--attempt N, default
its latest) or for the latest verification of a task (--task T, and
--interaction I when one task id runs in several interactions), which is what
a CI job knows. POST /v1/outcomes, with a key that has the review scope. The
outcome labels the verification for the quality metrics (the latest label of a
verification counts). --reporter defaults to the API key's name. It prints the
outcome with the verification it labelled.

` + remoteHelp + `

` + remoteExitCodes,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErr(errors.New("outcome takes at most one verification ID"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			in := api.OutcomeInput{TaskID: f.task, InteractionID: f.interaction, Attempt: f.attempt, Detail: f.detail, Reporter: f.reporter}
			if len(args) == 1 {
				in.VerificationID = args[0]
			}
			var problems []string
			switch {
			case in.VerificationID == "" && f.task == "":
				problems = append(problems, "outcome needs a verification ID or --task T")
			case in.VerificationID != "" && f.task != "":
				problems = append(problems, "give a verification ID or --task, not both")
			}
			if f.attempt != 0 && in.VerificationID == "" {
				problems = append(problems, "--attempt goes with a verification ID")
			}
			if f.attempt < 0 {
				problems = append(problems, "--attempt: want a positive number, or none for the latest")
			}
			if f.interaction != "" && f.task == "" {
				problems = append(problems, "--interaction goes with --task")
			}
			if f.good == f.bad {
				problems = append(problems, "outcome needs one of --good and --bad")
			}
			if err := usageProblems(problems); err != nil {
				return err
			}
			good := f.good
			in.Good = &good
			c, server, err := f.client(st)
			if err != nil {
				return err
			}
			o, err := c.Outcome(cmd.Context(), in)
			if err != nil {
				return remoteErr(server, err)
			}
			if f.json {
				return writeJSON(st.Out, o)
			}
			word := "bad"
			if o.Good != nil && *o.Good {
				word = "good"
			}
			fmt.Fprintf(st.Out, "outcome recorded: %s attempt %d", o.VerificationID, o.Attempt)
			if o.TaskID != "" {
				fmt.Fprintf(st.Out, " (task %s", o.TaskID)
				if o.InteractionID != "" {
					fmt.Fprintf(st.Out, ", interaction %s", o.InteractionID)
				}
				fmt.Fprint(st.Out, ")")
			}
			fmt.Fprintf(st.Out, " was %s, by %s at %s\n", word, o.Reporter, o.CreatedAt.UTC().Format(time.RFC3339))
			if o.Detail != "" {
				fmt.Fprintf(st.Out, "detail: %s\n", o.Detail)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	f.add(fl)
	fl.IntVar(&f.attempt, "attempt", 0, "the verification's attempt `N` (default: its latest)")
	fl.StringVar(&f.task, "task", "", "label the latest verification of the task `ID`")
	fl.StringVar(&f.interaction, "interaction", "", "with --task: the interaction `ID`")
	fl.BoolVar(&f.good, "good", false, "the output was used and held up")
	fl.BoolVar(&f.bad, "bad", false, "the output broke something")
	fl.StringVar(&f.detail, "detail", "", "a `TEXT` saying what happened")
	fl.StringVar(&f.reporter, "reporter", "", "the reporter's `NAME` (default: the API key's name)")
	fl.BoolVar(&f.json, "json", false, "print the outcome as JSON")
	return cmd
}

// usageProblems is a usage error listing every problem, or nil when there
// is none.
func usageProblems(problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	es := make(vouch.Errors, len(problems))
	for i, p := range problems {
		es[i] = &vouch.Error{Code: vouch.ErrInvalid, Message: p}
	}
	return usageErr(es)
}

// writeJSON writes v as indented JSON, as the server encodes it.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
