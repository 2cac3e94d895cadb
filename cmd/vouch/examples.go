package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/vouchgate/vouch/client"
	"github.com/vouchgate/vouch/quality"
	"github.com/vouchgate/vouch/text/plural"
)

type examplesFlags struct {
	metricsFlags
	perClass    int
	writePolicy string
}

func newExamplesCmd(st Streams) *cobra.Command {
	var f examplesFlags
	cmd := &cobra.Command{
		Use:   "examples [--server URL | --store DSN [--tenant T]] [--since T] [--until T] [--window D] [--per-class N] [--write-policy FILE] [--json]",
		Short: "Make few-shot judge examples from reviewers' overrides",
		Long: `Make few-shot examples for the judge's prompt (judge.examples) from the newest
overrides that give a reason: --per-class (default 3) of each class, good (the
reviewer's pass, score 1), borderline (retry, 0.5) and bad (fail, 0), each with
the verification's output and criteria from its stored request.

By default the policy file is printed; --json prints the examples with where
each came from; --write-policy FILE writes the policy file (a new file) for a
person to review (the outputs are agents' text), check with 'vouch policy
check FILE' and apply with --policy.

` + remoteHelp + `

` + remoteExitCodes,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runExamples(cmd, st, &f) },
	}
	fl := cmd.Flags()
	f.addWindow(fl)
	fl.IntVar(&f.perClass, "per-class", 3, "how many examples of each class, 1 to 50")
	fl.StringVar(&f.writePolicy, "write-policy", "", "write the policy file to `FILE` (a new file)")
	fl.BoolVar(&f.json, "json", false, "print the examples as JSON")
	return cmd
}

func runExamples(cmd *cobra.Command, st Streams, f *examplesFlags) error {
	if f.perClass < 1 || f.perClass > 50 {
		return usageErr(errors.New("--per-class: want 1 to 50"))
	}
	if f.writePolicy != "" {
		if _, err := os.Stat(f.writePolicy); err == nil {
			return usageErr(fmt.Errorf("--write-policy %s: the file exists; it is never overwritten", f.writePolicy))
		}
	}
	q, err := f.query(cmd)
	if err != nil {
		return err
	}
	var exs []quality.Example
	if f.store != "" {
		if f.server != "" {
			return usageErr(errors.New("give --server or --store, not both"))
		}
		if exs, err = examplesOfStore(cmd, f, q); err != nil {
			return err
		}
	} else {
		if f.tenant != "" {
			return usageErr(errors.New("--tenant goes with --store; a server takes the tenant from the API key"))
		}
		c, server, err := f.client(st)
		if err != nil {
			return err
		}
		b, err := c.Examples(cmd.Context(), q, f.perClass, false)
		if err != nil {
			return remoteErr(server, err)
		}
		var body struct {
			Examples []quality.Example `json:"examples"`
		}
		if err := json.Unmarshal(b, &body); err != nil {
			return &exitError{code: exitUnavailable, err: fmt.Errorf("the server's examples: %w", err)}
		}
		exs = body.Examples
	}
	if f.json {
		if exs == nil {
			exs = []quality.Example{}
		}
		return writeJSON(st.Out, map[string]any{"examples": exs})
	}
	patch, err := quality.ExamplesPatch(exs)
	if err != nil {
		return usageErr(err)
	}
	if f.writePolicy == "" {
		_, err := st.Out.Write(patch)
		return err
	}
	if err := os.WriteFile(f.writePolicy, patch, 0o644); err != nil {
		return usageErr(fmt.Errorf("--write-policy: %w", err))
	}
	fmt.Fprintf(st.Err, "vouch: wrote %s to %s\n", plural.Count(len(exs), "example"), f.writePolicy)
	return nil
}

func examplesOfStore(cmd *cobra.Command, f *examplesFlags, q client.MetricsQuery) ([]quality.Example, error) {
	s, tenant, w, err := f.localStore(cmd, q)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	exs, err := quality.Examples(cmd.Context(), s, tenant, w, f.perClass)
	if err != nil {
		return nil, &exitError{code: exitUnavailable, err: err}
	}
	return exs, nil
}
