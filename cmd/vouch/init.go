package main

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"text/template"

	"github.com/spf13/cobra"

	"github.com/vouchgate/vouch/git"
)

// The files vouch init writes, and their templates.
const (
	initRequest = "vouch-request.yaml"
	initPolicy  = "vouch-policy.yaml"
)

var (
	//go:embed initfiles/request.yaml
	initRequestTemplate string
	//go:embed initfiles/policy.yaml
	initPolicyFile []byte
)

// initFlags are the flags of vouch init.
type initFlags struct {
	force bool
}

func newInitCmd(st Streams) *cobra.Command {
	var f initFlags
	cmd := &cobra.Command{
		Use:   "init [DIR] [--force]",
		Short: "Write a commented first request and policy to start from",
		Long: `Write two commented files into DIR (default: the current directory) to start
from: ` + initRequest + `, a request that verifies as it is, every field explained,
with the trace's tool vocabulary; and ` + initPolicy + `, the policy's main keys at
their defaults. Edit them, then:

  vouch verify ` + initRequest + ` --policy ` + initPolicy + `

When DIR is in a git repository, the request names it as the workspace and its
HEAD as the base (what 'vouch snapshot --workspace DIR' prints), so that the
agent's commits and changes since are evidence. When the repository has Claude
Code's settings (.claude/), it says that 'vouch init hook' installs vouch as its
Stop hook.

An existing file is never overwritten unless --force (exit 2).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return runInit(cmd, st, dir, f)
		},
	}
	cmd.Flags().BoolVar(&f.force, "force", false, "overwrite the files if they exist")
	cmd.AddCommand(newInitHookCmd())
	return cmd
}

// newInitHookCmd is vouch hook install claude-code under another name,
// where a newcomer looks for it.
func newInitHookCmd() *cobra.Command {
	cmd := newHookInstallCmd(true)
	cmd.Use = "hook [--project|--user] [--policy FILE]..."
	cmd.Short = "Install vouch as Claude Code's Stop hook (vouch hook install claude-code)"
	cmd.Long = cmd.Short + `: every time the agent says it is done, vouch verifies
its claims against the workspace and the session, and sends the agent back with
the findings when one is false.` + "\n\n" + hookInstallHelp
	args := cmd.Args
	cmd.Args = func(c *cobra.Command, a []string) error {
		if len(a) > 0 {
			return usageErr(fmt.Errorf("init hook takes no argument, got %q", a[0]))
		}
		return args(c, []string{"claude-code"})
	}
	return cmd
}

func runInit(cmd *cobra.Command, st Streams, dir string, f initFlags) error {
	out := cmd.OutOrStdout()
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return usageErr(fmt.Errorf("init: %s is not a directory", dir))
	}
	paths := []string{filepath.Join(dir, initRequest), filepath.Join(dir, initPolicy)}
	if !f.force {
		for _, p := range paths {
			if _, err := os.Lstat(p); err == nil {
				return usageErr(fmt.Errorf("init: %s exists: edit it, or give --force to write it again", p))
			} else if !errors.Is(err, fs.ErrNotExist) {
				return usageErr(fmt.Errorf("init: %w", err))
			}
		}
	}
	// The workspace, as the request names it: relative to the request.
	data := struct{ Workspace, Base string }{Workspace: "."}
	snap, err := git.Snapshot(cmd.Context(), dir)
	if err == nil && snap.Repo && snap.Base != "" {
		data.Base = snap.Base
	}
	var req bytes.Buffer
	if err := template.Must(template.New("request").Parse(initRequestTemplate)).Execute(&req, data); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	for i, content := range [][]byte{req.Bytes(), initPolicyFile} {
		if err := os.WriteFile(paths[i], content, 0o644); err != nil {
			return usageErr(fmt.Errorf("init: %w", err))
		}
		fmt.Fprintf(out, "wrote %s\n", paths[i])
	}
	if data.Base != "" {
		fmt.Fprintf(out, "%s is a git repository: the request verifies it from its HEAD, %.12s (vouch snapshot --workspace %s)\n", dir, data.Base, dir)
	}
	if claudeSettings(dir) {
		fmt.Fprintln(out, "Claude Code is set up here: 'vouch init hook' makes vouch its Stop hook.")
	}
	fmt.Fprintf(out, "next: vouch verify %s --policy %s\n", paths[0], paths[1])
	return nil
}

// claudeSettings reports whether dir, or a directory above it up to the
// root of its repository, holds Claude Code's project settings.
func claudeSettings(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for {
		if fi, err := os.Stat(filepath.Join(abs, ".claude")); err == nil && fi.IsDir() {
			return true
		}
		if _, err := os.Stat(filepath.Join(abs, ".git")); err == nil {
			return false // the repository's root
		}
		up := filepath.Dir(abs)
		if up == abs {
			return false
		}
		abs = up
	}
}
