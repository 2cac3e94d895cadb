package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/spf13/cobra"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/cmd/vouch/internal/hook"
	"github.com/vouchgate/vouch/engine"
)

func newHookCmd(st Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Run as a coding agent's hook, and install or remove that hook",
		Long: `Run vouch inside a coding agent, so the agent cannot claim "done" for work that
is not done.

  vouch hook claude-code                        the Claude Code hook (reads the hook's JSON on stdin)
  vouch hook install claude-code [--user]       add the hook to .claude/settings.json (or ~/.claude/settings.json)
  vouch hook uninstall claude-code [--user]     remove it`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageErr(errors.New("hook needs a subcommand: claude-code, install or uninstall"))
		},
	}
	cmd.AddCommand(newHookClaudeCmd(st), newHookInstallCmd(true), newHookInstallCmd(false))
	return cmd
}

func newHookClaudeCmd(st Streams) *cobra.Command {
	var policies []string
	var stateDir string
	cmd := &cobra.Command{
		Use:   "claude-code [--policy FILE]... [--state-dir DIR]",
		Short: "The Claude Code hook: record the base on SessionStart, verify the turn on Stop",
		Long: `The Claude Code hook. Claude Code runs it with one JSON object on stdin.

On SessionStart it records the workspace's HEAD commit and the files already
dirty; on UserPromptSubmit it records them if nothing is recorded yet, and starts
the turn's count of blocks afresh. On Stop and SubagentStop it reads the session
log, verifies the turn's claims against the trace, the workspace (the session's
cwd) and the recorded base, and then:

  pass            lets the agent stop, silently;
  retry           blocks the stop with the feedback, so the agent fixes its work
                  or its claims, at most the policy's maxRetries times a turn;
                  after that it lets the agent stop and says why;
  fail, escalate  lets the agent stop and tells the user, in a message that
                  begins "vouch: FAIL".

Its state lives outside the workspace, under $XDG_STATE_HOME/vouch/claude-code
(~/.local/state/vouch/claude-code): one file per session, the session's last
report beside it, and hook.log for errors. An error inside vouch never blocks the
agent: it is shown and logged. The judge is configured as for verify (policy or
VOUCH_JUDGE). The exit status is always 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			dir := stateDir
			if dir == "" {
				var err error
				if dir, err = hook.DefaultStateDir(); err != nil {
					return writeHookError(st, err)
				}
			}
			cfg, err := hookConfig(ctx, st, policies)
			if err != nil {
				return writeHookError(st, err)
			}
			cfg.StateDir = dir
			return hook.Run(ctx, st.In, st.Out, cfg)
		},
	}
	cmd.Flags().StringArrayVar(&policies, "policy", nil, "a policy `FILE` (YAML); repeat to layer, later wins")
	cmd.Flags().StringVar(&stateDir, "state-dir", "", "keep the sessions' state in `DIR` (default $XDG_STATE_HOME/vouch/claude-code)")
	return cmd
}

// hookConfig builds the hook's verifier from the policies and the judge's
// environment.
func hookConfig(_ context.Context, st Streams, policies []string) (hook.Config, error) {
	pol, j, err := policyAndJudge(st, policies, false)
	if err != nil {
		return hook.Config{}, err
	}
	var jv vouch.Judge
	if j != nil {
		jv = j
	}
	eng, err := engine.New(engine.Options{
		Policy: &pol,
		Judge:  jv,
		// The workspace is the session's cwd, from Claude Code's own input:
		// the hook sets it, the agent's log does not.
		Workspace: func(req *vouch.Request) (*os.Root, error) { return engine.OpenDir(req.Workspace) },
	})
	if err != nil {
		return hook.Config{}, err
	}
	return hook.Config{Verifier: eng, MaxBlocks: pol.MaxRetries}, nil
}

// writeHookError answers the hook with an error message that lets the
// agent go on: a hook that cannot start must not stop the agent's work.
func writeHookError(st Streams, err error) error {
	b, merr := json.Marshal(hook.Output{SystemMessage: "vouch: error: " + err.Error()})
	if merr != nil {
		return merr
	}
	_, werr := st.Out.Write(append(b, '\n'))
	return werr
}

// hookInstallHelp says what vouch hook install and uninstall change.
const hookInstallHelp = `--project (the default) edits .claude/settings.json in the current directory,
--user edits ~/.claude/settings.json. Install adds one entry on SessionStart,
UserPromptSubmit, Stop and SubagentStop that runs this vouch binary (by its
absolute path) with "hook claude-code" and the --policy files given, made
absolute; an earlier vouch entry is replaced. Every other setting and hook is
kept, in its order. Uninstall removes vouch's entries and nothing else.`

func newHookInstallCmd(install bool) *cobra.Command {
	verb, short := "install", "Add vouch's hook to Claude Code's settings, keeping everything else"
	if !install {
		verb, short = "uninstall", "Remove vouch's hook from Claude Code's settings"
	}
	var user, project bool
	var policies []string
	var program string
	cmd := &cobra.Command{
		Use:   verb + " claude-code [--project|--user]",
		Short: short,
		Long:  short + ".\n\n" + hookInstallHelp,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || args[0] != "claude-code" {
				return usageErr(fmt.Errorf("%s needs the agent: claude-code", verb))
			}
			if user && project {
				return usageErr(errors.New("--project and --user exclude each other"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := settingsPath(user)
			if err != nil {
				return usageErr(err)
			}
			var changed bool
			if install {
				command, err := hookCommand(program, policies)
				if err != nil {
					return usageErr(err)
				}
				if changed, err = hook.Install(path, command); err != nil {
					return usageErr(err)
				}
			} else if changed, err = hook.Uninstall(path); err != nil {
				return usageErr(err)
			}
			state := "unchanged"
			if changed {
				state = "updated"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", path, state)
			return nil
		},
	}
	cmd.Flags().BoolVar(&user, "user", false, "edit ~/.claude/settings.json")
	cmd.Flags().BoolVar(&project, "project", false, "edit .claude/settings.json in the current directory (the default)")
	if install {
		cmd.Flags().StringArrayVar(&policies, "policy", nil, "a policy `FILE` for the hook to use (repeatable)")
		cmd.Flags().StringVar(&program, "program", "", "the vouch binary the hook runs (default: this one)")
	}
	return cmd
}

// settingsPath is the Claude Code settings file to edit.
func settingsPath(user bool) (string, error) {
	if user {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, ".claude", "settings.json"), nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return filepath.Join(wd, ".claude", "settings.json"), nil
}

// hookCommand is the command line the hook entries run: the vouch binary
// by its absolute path, quoted for the shell Claude Code runs it with.
func hookCommand(program string, policies []string) (string, error) {
	if program == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("cannot find this vouch binary: %w (name it with --program)", err)
		}
		program = exe
	}
	program, err := filepath.Abs(program)
	if err != nil {
		return "", err
	}
	if filepath.Base(program) != "vouch" {
		return "", fmt.Errorf("the hook must run a binary named vouch, not %s (build it with go build -o vouch ./cmd/vouch, or name it with --program)", filepath.Base(program))
	}
	parts := []string{shellQuote(program), "hook", "claude-code"}
	for _, p := range policies {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(abs); err != nil {
			return "", fmt.Errorf("policy: %w", err)
		}
		parts = append(parts, "--policy", shellQuote(abs))
	}
	return strings.Join(parts, " "), nil
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain
// path characters.
func shellQuote(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
