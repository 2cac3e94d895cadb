package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/pr"
	"github.com/vouchgate/vouch/pr/testreport"
	"github.com/vouchgate/vouch/text/plural"
	"github.com/vouchgate/vouch/wire"
)

// prFlags are the flags of vouch pr.
type prFlags struct {
	repo        string
	base        string
	head        string
	description string
	tests       []string
	format      string
	policies    []string
	timeout     time.Duration
	noCache     bool
}

// defaultBase is the base of vouch pr without --base: the remote's
// default branch, as a clone records it.
const defaultBase = "origin/HEAD"

func newPRCmd(st Streams) *cobra.Command {
	var f prFlags
	cmd := &cobra.Command{
		Use:   "pr --base REF [--head REF] --description FILE|- [--tests FILE]... [flags]",
		Short: "Verify an agent's pull request: its description against its diff and test run",
		Long: `Verify an agent's pull request. The description (a file, or - for standard
input) is what the agent claims; the diff from the merge base of --base and
--head to --head is the ground truth, as a code host shows the pull request;
the test reports of --tests (JUnit XML or go test -json, told apart by their
content; repeatable) are the run. vouch checks what the description claims
against them with the same checks as vouch verify: files and functions said to
be changed, tests said to be added or passing and how many, "no behaviour
change", every file and symbol it mentions.

The head commit is checked out into a temporary directory of its own (removed
afterwards) and nothing of the repository's configuration, hooks or filters
runs; uncommitted work in --repo is not part of the pull request. HTML comments
and unticked task-list boxes of the description are not claims and are left
out. Without --base, the base is origin/HEAD, the remote's default branch.

--format text (default) prints the report for a person, json the report as
vouch verify --json does, markdown a comment ready to post on the pull request.

Exit codes: 0 pass (every claim checked and held); 1 retry or fail (a claim
found false); 3 unverified (nothing found false, but claims that neither the
diff nor the test run can show, such as what a function now returns); 2 bad
input or usage (a ref that names no commit, a base and head without a merge
base, an unreadable test report).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPR(cmd.Context(), st, cmd, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.repo, "repo", ".", "the repository `DIR`")
	fl.StringVar(&f.base, "base", "", "the branch or commit `REF` the pull request goes into (default origin/HEAD)")
	fl.StringVar(&f.head, "head", "HEAD", "the pull request's last commit `REF`")
	fl.StringVar(&f.description, "description", "", "the pull request's description: a `FILE`, or - for standard input (required)")
	fl.StringArrayVar(&f.tests, "tests", nil, "a test report `FILE` of a run on the head: JUnit XML or go test -json (repeatable)")
	fl.StringVar(&f.format, "format", "text", "the output `FORMAT`: text, json or markdown")
	fl.StringArrayVar(&f.policies, "policy", nil, "a policy `FILE` (YAML); repeat to layer, later wins")
	fl.DurationVar(&f.timeout, "timeout", pr.DefaultTimeout, "give up after `D`, the checkout and the verification together; what is unchecked then stays undecided")
	fl.BoolVar(&f.noCache, "no-cache", false, "neither read nor write the judge's answer cache")
	return cmd
}

func runPR(ctx context.Context, st Streams, cmd *cobra.Command, f *prFlags) error {
	switch f.format {
	case "text", "json", "markdown":
	default:
		return usageErr(fmt.Errorf("--format must be text, json or markdown, not %q", f.format))
	}
	if f.description == "" {
		return usageErr(errors.New("pr needs --description FILE (or - for standard input)"))
	}
	if f.timeout <= 0 {
		return usageErr(errors.New("--timeout must be positive"))
	}
	var desc []byte
	var err error
	if f.description == "-" {
		desc, err = io.ReadAll(io.LimitReader(st.In, pr.MaxDescriptionBytes+1))
	} else {
		desc, err = readLimited(f.description, pr.MaxDescriptionBytes)
	}
	if err != nil {
		return usageErr(fmt.Errorf("--description: %w", err))
	}
	var tests []pr.TestReport
	for _, name := range f.tests {
		data, err := readLimited(name, testreport.MaxBytes)
		if err != nil {
			return usageErr(fmt.Errorf("--tests: %w", err))
		}
		rep, err := testreport.Parse(data)
		if err != nil {
			return usageErr(fmt.Errorf("%s: %w", name, err))
		}
		tests = append(tests, pr.TestReport{Name: name, Report: rep})
	}
	pol, j, err := policyAndJudge(st, f.policies, f.noCache)
	if err != nil {
		return usageErr(err)
	}
	if cmd.Flags().Changed("timeout") {
		pol.Timeout = vouch.Duration(f.timeout)
	}
	base := f.base
	if base == "" {
		base = defaultBase
	}
	opts := pr.Options{Repo: f.repo, Base: base, Head: f.head, Description: string(desc), Tests: tests, Policy: &pol, Timeout: f.timeout}
	if j != nil {
		opts.Judge = j
	}
	res, err := pr.Verify(ctx, opts)
	if err != nil {
		var ve *vouch.Error
		if f.base == "" && errors.As(err, &ve) && ve.Path == "base" {
			err = fmt.Errorf("no --base given, and %s names no commit of the repository: name the branch the pull request goes into with --base", defaultBase)
		}
		return usageErr(err)
	}
	switch f.format {
	case "json":
		if err := wire.EncodeReport(st.Out, res.Report, true); err != nil {
			return &exitError{code: exitInput, err: err}
		}
	case "markdown":
		if err := res.Markdown(st.Out); err != nil {
			return &exitError{code: exitInput, err: err}
		}
	default:
		fmt.Fprintf(st.Out, "pull request %s..%s: merge base %s, head %s, %s changed, %s\n\n",
			base, f.head, shortHash(res.MergeBase), shortHash(res.Head), plural.Count(len(res.Files), "file"), plural.Count(len(res.Request.Trace), "test run"))
		render(st.Out, res.Report, st.color(st.Out))
	}
	return verdictExit(res.Report.Verdict)
}

// shortHash abbreviates a commit hash for a person.
func shortHash(h string) string { return h[:min(len(h), 12)] }
