package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/vouchgate/vouch"
	_ "github.com/vouchgate/vouch/check/all" // every built-in check kind
)

// Exit codes.
const (
	exitPass  = 0 // the output passed (or the command succeeded)
	exitNotOK = 1 // the output was sent back for a retry or failed
	exitInput = 2 // bad input or usage
	// exitUnverified: vouch verify found nothing false, but claims of the
	// output could not be checked (verdict unverified).
	exitUnverified = 3
	// exitUnavailable: the server or store a command reads or writes
	// could not be reached, or failed.
	exitUnavailable = 3
)

// Version is the release version, set at build time with
// -ldflags "-X main.Version=v1.2.3"; empty means the module version.
var Version = ""

// Streams are the command's standard streams. IsTerminal reports whether a
// stream is a terminal; nil means "ask the operating system".
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// IsTerminal overrides terminal detection (for tests).
	IsTerminal func(w any) bool
	// Getenv overrides the environment (for tests).
	Getenv func(string) string
}

func (s Streams) terminal(w any) bool {
	if s.IsTerminal != nil {
		return s.IsTerminal(w)
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func (s Streams) getenv(k string) string {
	if s.Getenv != nil {
		return s.Getenv(k)
	}
	return os.Getenv(k)
}

// color reports whether to colour output written to w.
func (s Streams) color(w any) bool {
	return s.terminal(w) && s.getenv("NO_COLOR") == "" && s.getenv("TERM") != "dumb"
}

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error // already reported when nil
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// usageErr marks an error as a usage or input error (exit 2).
func usageErr(err error) error { return &exitError{code: exitInput, err: err} }

// Main runs the vouch command with args and returns the exit code. It is the
// whole program but for signal handling, so tests run it in-process.
func Main(ctx context.Context, args []string, st Streams) int {
	root := newRoot(st)
	root.SetArgs(args)
	root.SetIn(st.In)
	root.SetOut(st.Out)
	root.SetErr(st.Err)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitPass
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		// Errors from cobra itself: unknown commands and flags.
		fmt.Fprintf(st.Err, "vouch: %v\nRun 'vouch --help' for usage.\n", err)
		ee = &exitError{code: exitInput, err: &vouch.Error{Code: vouch.ErrUsage, Message: err.Error()}}
	} else if ee.err != nil {
		printError(st.Err, ee.err)
	}
	if ee.err != nil && jsonOutput(cmd) {
		writeErrorJSON(st.Out, ee.code, ee.err)
	}
	return ee.code
}

// jsonOutput reports whether cmd was asked for JSON output (--json,
// --brief or --format json), so that its errors are JSON on standard
// output too.
func jsonOutput(cmd *cobra.Command) bool {
	if cmd == nil {
		return false
	}
	for _, name := range []string{"json", "brief"} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Value.String() == "true" {
			return true
		}
	}
	f := cmd.Flags().Lookup("format")
	return f != nil && f.Value.String() == "json"
}

// errUnavailable is the code, in JSON, of an error that exits 3: a server
// or store that could not be reached or failed.
const errUnavailable vouch.ErrorCode = "unavailable"

// writeErrorJSON writes an error as a command asked for JSON gets it, on
// one line: {"error": {...}} with the first problem, and "errors": [...]
// listing them all when there are several, as the server answers a bad
// request. A problem that is no *vouch.Error gets the code of the exit:
// usage (2) or unavailable (3).
func writeErrorJSON(w io.Writer, exit int, err error) {
	list := vouch.ErrorList(err)
	for i, e := range list {
		var ve *vouch.Error
		if e.Code != vouch.ErrInternal || errors.As(err, &ve) {
			continue
		}
		c := *e
		switch exit {
		case exitInput:
			c.Code = vouch.ErrUsage
		case exitUnavailable:
			c.Code = errUnavailable
		}
		list[i] = &c
	}
	body := struct {
		Error  *vouch.Error   `json:"error"`
		Errors []*vouch.Error `json:"errors,omitempty"`
	}{Error: list[0]}
	if len(list) > 1 {
		body.Errors = list
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if enc.Encode(body) != nil {
		io.WriteString(w, `{"error":{"code":"internal","message":"cannot encode the error"}}`+"\n")
	}
}

// printError prints an input error, one problem a line.
func printError(w io.Writer, err error) {
	list := vouch.ErrorList(err)
	if len(list) == 1 {
		fmt.Fprintf(w, "vouch: %v\n", list[0])
		return
	}
	fmt.Fprintf(w, "vouch: %d problems:\n", len(list))
	for _, e := range list {
		fmt.Fprintf(w, "  %v\n", e)
	}
}

func newRoot(st Streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "vouch",
		Short: "Verify the outputs of AI agents against ground truth and success criteria",
		Long: `vouch is a verification gate for AI agent outputs. Given the task an agent was
given and what it returned and claims to have done, it checks the claims against
ground truth, decides the task's success criteria by rule, and returns a verdict
(pass, retry or fail) with a score, a confidence, the evidence and feedback.

Exit codes: 0 pass, 1 retry or fail, 2 bad input or usage; review, outcome,
metrics and alerts, which call a server: 0 done, 2 bad usage or a call the
server refused (4xx), 3 a server or store that could not be reached or failed.`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(newVerifyCmd(st), newInitCmd(st), newSnapshotCmd(), newSchemaCmd(), newPolicyCmd(), newCodesCmd(), newVersionCmd(), newTraceCmd(), newFakeLLMCmd(st), newHookCmd(st), newRunCmd(st), newServeCmd(st), newWorkerCmd(st), newReverifyCmd(st), newKeysCmd(st),
		newReviewCmd(st), newOutcomeCmd(st), newMetricsCmd(st), newAlertsCmd(st), newCalibrateCmd(st), newExamplesCmd(st), newMCPCmd(st),
		newPRCmd(st))
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of vouch",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "vouch %s (%s)\n", version(), vouch.APIVersion)
			return nil
		},
	}
}

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
