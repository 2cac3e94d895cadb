package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/check"
	"github.com/vouchgate/vouch/policy"
	"github.com/vouchgate/vouch/schema"
	"github.com/vouchgate/vouch/text/plural"
)

func newSchemaCmd() *cobra.Command {
	return &cobra.Command{
		Use:       "schema request|report",
		Short:     "Print the JSON Schema of the request or the report",
		ValidArgs: []string{"request", "report"},
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr(errors.New("schema needs one argument: request or report"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := schema.Lookup(args[0])
			if err != nil {
				return usageErr(err)
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	}
}

func newPolicyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Show the merged policy or check policy files",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageErr(errors.New("policy needs a subcommand: show or check"))
		},
	}
	var files []string
	show := &cobra.Command{
		Use:   "show [--policy FILE]...",
		Short: "Print the policy in force: built-in defaults, then each file in order",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := policy.Load(files...)
			if err != nil {
				return usageErr(err)
			}
			b, err := policy.Show(p)
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	}
	show.Flags().StringArrayVar(&files, "policy", nil, "a policy `FILE`; repeat to layer, later wins")
	chk := &cobra.Command{
		Use:   "check FILE...",
		Short: "Report every problem in the policy files",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr(errors.New("policy check needs at least one FILE"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			problems := policy.Check(args...)
			if len(problems) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "%s OK\n", plural.Count(len(args), "policy file"))
				return nil
			}
			return usageErr(vouch.Errors(problems))
		},
	}
	cmd.AddCommand(show, chk)
	return cmd
}

func newCodesCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "codes",
		Short: "List every check, warning and error code with its meaning, the check types, and the analyzers with the checkpoint kinds they serve",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			if asJSON {
				type kindInfo struct {
					Type     string         `json:"type"`
					Params   string         `json:"params"`
					Strength vouch.Strength `json:"strength"`
					Doc      string         `json:"doc"`
				}
				type analyzerInfo struct {
					Name  string       `json:"name"`
					Level vouch.Level  `json:"level"`
					Kinds []vouch.Kind `json:"kinds"`
				}
				var kinds []kindInfo
				for _, k := range check.All() {
					kinds = append(kinds, kindInfo{k.Name, k.Params, k.Strength, k.Doc})
				}
				var analyzers []analyzerInfo
				for _, a := range check.Analyzers() {
					analyzers = append(analyzers, analyzerInfo{a.Name, a.Level, a.Kinds})
				}
				return json.MarshalWrite(out, map[string]any{"codes": vouch.Codes(), "checkTypes": kinds, "analyzers": analyzers}, jsontext.WithIndent("  "))
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			var last vouch.CodeKind
			for _, c := range vouch.Codes() {
				if c.Kind != last {
					fmt.Fprintf(tw, "\n%s codes:\n", c.Kind)
					last = c.Kind
				}
				fmt.Fprintf(tw, "  %s\t%s\n", c.Code, c.Meaning)
			}
			fmt.Fprintf(tw, "\ncheck types (check.type):\n")
			for _, k := range check.All() {
				fmt.Fprintf(tw, "  %s %s\t%s (%s)\n", k.Name, k.Params, k.Doc, k.Strength)
			}
			fmt.Fprintf(tw, "  llm {rubric}\tleft to the judge; undecided without one (judge)\n")
			fmt.Fprintf(tw, "\nanalyzers, in pipeline order (level; the checkpoint kinds each serves):\n")
			for _, a := range check.Analyzers() {
				fmt.Fprintf(tw, "  %s\t%s; %s\n", a.Name, a.Level, kindList(a))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

// kindList names the checkpoint kinds an analyzer serves: "every kind", or
// the kinds separated by commas.
func kindList(a check.AnalyzerInfo) string {
	if a.ServesEveryKind() {
		return "every kind"
	}
	names := make([]string, len(a.Kinds))
	for i, k := range a.Kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}
