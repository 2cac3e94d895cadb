package main

import (
	"errors"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/cobra"

	"github.com/vouchgate/vouch/git"
)

func newSnapshotCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "snapshot --workspace DIR",
		Short: "Print what to record before delegating a task: the base commit and the files already dirty",
		Long: `Print, as JSON, the state of a workspace to record before handing a task to an
agent: {"repo": true, "base": "<HEAD commit>", "dirty": [files already changed]}.
Pass the base as the request's "base" (or --base) when verifying the agent's work,
so that committed and uncommitted work are both evidence.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return usageErr(errors.New("snapshot needs --workspace DIR"))
			}
			info, err := git.Snapshot(cmd.Context(), dir)
			if err != nil {
				return usageErr(err)
			}
			return json.MarshalWrite(cmd.OutOrStdout(), info, jsontext.WithIndent("  "), json.FormatNilSliceAsNull(false))
		},
	}
	cmd.Flags().StringVar(&dir, "workspace", "", "the workspace `DIR`")
	return cmd
}
