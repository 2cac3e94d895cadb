// Package pr verifies an agent's pull request: what its description
// claims against what its diff and its test run show.
//
// The description is the agent's claimed output, the diff between the
// merge base of --base and --head is the ground truth, and an optional
// test report (JUnit XML or go test -json, see package testreport) is the
// run. [Verify] does not check anything itself: it builds a vouch.Request
// of kind subtask whose summary is the description and whose base is the
// merge base, checks the head commit out into a directory of its own (see
// git.Checkout) as the request's workspace, turns the test reports into
// trace entries (one run of each runner, with its exit status and a
// digest of every test's outcome as output, as the agent's own "go test"
// would be), gives the patch as the request's source, and verifies the
// request with package engine. Every claim check of the engine applies as
// it does to any agent's work: files said to be changed (claims.git), the
// tests said to pass and how many (claims.tests), the symbols said to be
// added or changed and the tests said to be added (claims.code), "no
// behaviour change" (claims.behaviour), every file and symbol the
// description mentions (grounding), and the rest.
//
// # Which diff
//
// The diff is the one a code host shows for the pull request: from the
// merge base of the base and the head to the head, so that work merged
// into the base branch after the pull request branched off is not taken
// for the pull request's. A base and a head with no merge base in the
// repository (unrelated histories, or a shallow clone without the commits
// that join them) are an error: fetch more history.
//
// # Untrusted input
//
// The description, the refs, the test reports and the repository's
// content are all untrusted. Refs are resolved through git's standard
// input (never its command line); the checkout runs no program the
// repository names (no hook, no filter driver); nothing from the
// description or the reports runs, and no test is run again unless the
// policy's allow-list names its command. Every step is bounded by ctx, and
// the checkout is removed before Verify returns, on error too.
package pr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/git"
	"github.com/vouchgate/vouch/pr/testreport"
	"github.com/vouchgate/vouch/wire"
)

// MaxDescriptionBytes is the size of the largest description Verify takes.
const MaxDescriptionBytes = 1 << 20

// MaxPatchBytes is how much of the patch is given to the verification as
// its source: enough to find what a description names that the head no
// longer has (a removed function, a deleted file).
const MaxPatchBytes = 2 << 20

// Goal is the task goal of the request Verify builds: a pull request's
// description is held against its diff, with no task beyond it.
const Goal = "Open a pull request whose description says truly what its changes do."

// Options are the inputs of [Verify]. The zero values of the optional
// fields mean: the repository in the current directory, HEAD as the head,
// the built-in policy, no judge, the system clock.
type Options struct {
	// Repo is a directory of the repository; "" means ".".
	Repo string
	// Base names the commit the pull request goes into (a branch, a tag,
	// a hash); required. The diff starts at the merge base of Base and
	// Head.
	Base string
	// Head names the pull request's last commit; "" means HEAD.
	Head string
	// Description is the pull request's description: the claims, as
	// [Claimed] reads them.
	Description string
	// Tests are the test reports of a run on the head, if any.
	Tests []TestReport
	// Policy is the resolved policy; nil means vouch.DefaultPolicy().
	Policy *vouch.Policy
	// Judge decides what no rule can; nil means none.
	Judge vouch.Judge
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Timeout bounds the whole of Verify: resolving the refs, the
	// checkout and the verification; 0 means DefaultTimeout. What is
	// unchecked when it runs out during the verification stays
	// undecided; before it, Verify fails.
	Timeout time.Duration
}

// DefaultTimeout is the bound of a Verify whose Options name none.
const DefaultTimeout = 5 * time.Minute

// TestReport is one test report, parsed (see testreport.Parse), with the
// name it was given by (a file name), for messages.
type TestReport struct {
	Name   string
	Report *testreport.Report
}

// Result is the outcome of [Verify].
type Result struct {
	// Report is the engine's report on the request.
	Report *vouch.Report
	// Request is the request that was verified; its workspace, the
	// checkout of the head, no longer exists.
	Request *vouch.Request
	// Base and Head are the commit hashes Options.Base and Options.Head
	// resolved to; MergeBase is where the diff starts.
	Base, Head, MergeBase string
	// Files are the paths the diff changes, sorted.
	Files []string
	// PatchCut is set when the patch was longer than MaxPatchBytes and
	// only its start was given as the source.
	PatchCut bool
}

// Verify verifies a pull request's description against its diff and test
// reports (see the package documentation). It returns an error, and no
// result, when the inputs are unusable: an empty or oversized description,
// a ref that names no commit (a *vouch.Error naming "base" or "head"), a
// base and head with no merge base, a repository git cannot read. What
// goes wrong in the checks themselves leaves parts of the report
// undecided.
func Verify(ctx context.Context, opts Options) (*Result, error) {
	if len(opts.Description) > MaxDescriptionBytes {
		return nil, &vouch.Error{Code: vouch.ErrTooLarge, Path: "description",
			Message: fmt.Sprintf("the description is %d bytes, over the limit of %d", len(opts.Description), MaxDescriptionBytes)}
	}
	desc := Claimed(strings.ToValidUTF8(strings.ReplaceAll(opts.Description, "\x00", ""), "\uFFFD"))
	if strings.TrimSpace(desc) == "" {
		return nil, &vouch.Error{Code: vouch.ErrMissing, Path: "description", Message: "the description claims nothing (it is empty, or only comments and unticked boxes): there is nothing to verify"}
	}
	repo := opts.Repo
	if repo == "" {
		repo = "."
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if opts.Base == "" {
		return nil, &vouch.Error{Code: vouch.ErrMissing, Path: "base", Message: "no base: name the branch or commit the pull request goes into"}
	}
	headRef := opts.Head
	if headRef == "" {
		headRef = "HEAD"
	}
	base, err := resolve(ctx, repo, opts.Base, "base")
	if err != nil {
		return nil, err
	}
	head, err := resolve(ctx, repo, headRef, "head")
	if err != nil {
		return nil, err
	}
	mb, err := git.MergeBase(ctx, repo, base, head)
	if err != nil {
		return nil, err
	}
	tree, err := git.Checkout(ctx, repo, head)
	if err != nil {
		return nil, err
	}
	defer tree.Close()

	ch, err := git.Read(ctx, tree.Dir, mb)
	if err != nil {
		return nil, err
	}
	patch, cut, err := git.Patch(ctx, tree.Dir, mb, MaxPatchBytes)
	if err != nil {
		return nil, err
	}
	src, err := json.Marshal(patchSource(mb, head, patch, cut))
	if err != nil {
		return nil, err
	}
	req := &vouch.Request{
		Kind:    vouch.KindSubtask,
		Attempt: 1,
		Task:    vouch.Task{Goal: Goal},
		Output:  vouch.Output{Summary: desc},
		Base:    mb,
		Trace:   TraceEntries(opts.Tests),
		Context: &vouch.Context{Sources: []json.RawMessage{src}},
	}
	// The id is a content hash of the request, as for a request file
	// without one.
	data, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	req.ID = wire.ContentID(data)
	eng, err := engine.New(engine.Options{
		Policy:    opts.Policy,
		Judge:     opts.Judge,
		Now:       opts.Now,
		Workspace: engine.WorkspaceAt(tree.Dir),
	})
	if err != nil {
		return nil, err
	}
	rep, err := eng.Verify(ctx, req)
	if err != nil {
		return nil, err
	}
	return &Result{Report: rep, Request: req, Base: base, Head: head, MergeBase: mb, Files: ch.Paths(), PatchCut: cut}, nil
}

// resolve resolves a ref, naming what it is for in an input error.
func resolve(ctx context.Context, repo, ref, what string) (string, error) {
	h, err := git.ResolveCommit(ctx, repo, ref)
	var ve *vouch.Error
	if errors.As(err, &ve) && ve.Code == vouch.ErrInvalid && ve.Path == "base" {
		return "", &vouch.Error{Code: vouch.ErrInvalid, Path: what,
			Message: fmt.Sprintf("--%s %q does not name a commit of the repository", what, ref)}
	}
	return h, err
}

// patchSource is the text given as the request's source: the patch, headed
// by what it is.
func patchSource(base, head, patch string, cut bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The pull request's diff, from %s (the merge base) to %s:\n\n", base, head)
	b.WriteString(patch)
	if cut {
		fmt.Fprintf(&b, "\n[the diff goes on past %d bytes; the rest is left out]\n", MaxPatchBytes)
	}
	return b.String()
}
