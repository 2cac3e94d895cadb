package looptest

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/loop"
)

// Policy is the corpus's policy: the built-in one with failBelow 0.2, so
// that a score under 0.5 (but not under 0.2) reaches row 3 of the verdict
// table (retry, or reformulate when the verifier's confidence is under
// 0.4) rather than failing outright, as it would with the built-in
// failBelow of 0.5. The corpus verifies by rules alone, whose confidence
// on the release notes is 0.75, so its row-3 cases are retried.
func Policy() vouch.Policy {
	p := vouch.DefaultPolicy()
	p.FailBelow = 0.2
	return p
}

// The executor tiers of the corpus and what an attempt costs on each: the
// first attempt goes to small, retries to medium.
const (
	SmallUSD  = 0.01
	MediumUSD = 0.04
)

// Options configure [Measure].
type Options struct {
	// Runs is how many times each case runs; 0 means 1.
	Runs int
	// Loop are the options of each run (memory, events); Measure sets the
	// cascade, the attempt timeout and the clock.
	Loop loop.Options
}

// Figures are what a measurement found.
type Figures struct {
	// Runs is how many times each case ran.
	Runs int
	// Groups are the figures of each group.
	Groups map[Group]*GroupFigures
	// UnfixableAccepted names the unfixable cases that were accepted
	// (should be none).
	UnfixableAccepted []string
	// Attempts counts every attempt; Exec, Verify and Overhead sum the
	// time in the executors, in the verifier and in the loop itself
	// (prompt, memory, events, decisions) over them.
	Attempts               int
	Exec, Verify, Overhead time.Duration
	// Results are the results by case name, of the last run.
	Results map[string]*loop.Result
}

// GroupFigures are the figures of one group of cases.
type GroupFigures struct {
	// Tasks counts the group's tasks, Accepted those accepted.
	Tasks, Accepted int
	// Retries counts attempts after the first; RetriesPassed those of
	// tasks that ended accepted (DESIGN.md's retry success: retries whose
	// task ends in a pass ÷ retries).
	Retries, RetriesPassed int
	// RetriedTasks counts tasks retried at least once; RetriedAccepted
	// those accepted in the end.
	RetriedTasks, RetriedAccepted int
	// Attempts counts all attempts; AcceptedAttempts those of accepted
	// tasks.
	Attempts, AcceptedAttempts int
	// USD is what every attempt of the group cost (executors and judges).
	USD float64
}

// RetrySuccess is RetriesPassed ÷ Retries (0 without retries).
func (g *GroupFigures) RetrySuccess() float64 { return ratio(g.RetriesPassed, g.Retries) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Measure runs every case of the corpus against v, Runs times, each in a
// fresh workspace under a temporary directory.
func Measure(ctx context.Context, v loop.Verifier, o Options) (*Figures, error) {
	if o.Runs <= 0 {
		o.Runs = 1
	}
	f := &Figures{Runs: o.Runs, Groups: map[Group]*GroupFigures{Honest: {}, Fixable: {}, Unfixable: {}}, Results: map[string]*loop.Result{}}
	root, err := os.MkdirTemp("", "vouch-looptest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(root)
	pol := Policy()
	for run := range o.Runs {
		for i, c := range Cases() {
			res, err := runCase(ctx, v, c, filepath.Join(root, fmt.Sprintf("%d-%d", run, i)), fmt.Sprintf("corpus-%d", run), &pol, o.Loop)
			if err != nil {
				return nil, fmt.Errorf("case %s: %w", c.Name, err)
			}
			f.add(c, res)
		}
	}
	return f, nil
}

// runCase runs one case in dir.
func runCase(ctx context.Context, v loop.Verifier, c Case, dir, interaction string, pol *vouch.Policy, lo loop.Options) (*loop.Result, error) {
	for name, body := range c.Files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	clock := &clock{}
	env := &Env{Dir: dir, Elapse: clock.elapse}
	tier := func(name string, usd float64) loop.Executor {
		return loop.ExecutorFunc(func(ctx context.Context, in *loop.Input) (*loop.Reply, error) {
			r, err := c.Agent(ctx, env, in)
			if r != nil {
				cost := usd
				r.Executor = &vouch.Executor{Provider: "scripted", Model: c.Name + "-" + name, Tier: name, CostUSD: &cost}
			}
			return r, err
		})
	}
	task := loop.Task{InteractionID: interaction, Request: vouch.Request{Kind: c.Kind, Task: c.Task, Workspace: dir}}
	task.Request.Task.ID = c.Name
	task.Request.Task.Executor = &vouch.Executor{Tier: "small"}
	if len(c.Files) == 0 {
		task.Request.Workspace = ""
	}
	lo.Policy = pol
	lo.Cascade = []loop.Tier{{Name: "medium", Executor: tier("medium", MediumUSD)}}
	lo.AttemptTimeout = time.Minute
	lo.AfterFunc = clock.afterFunc
	return loop.Run(ctx, v, task, tier("small", SmallUSD), lo)
}

func (f *Figures) add(c Case, res *loop.Result) {
	g := f.Groups[c.Group]
	g.Tasks++
	n := len(res.Attempts)
	retries := res.Retries()
	g.Attempts += n
	g.Retries += retries
	if retries > 0 {
		g.RetriedTasks++
	}
	g.USD += res.Cost.ExecutorUSD + res.Cost.VerifyUSD
	if res.Outcome == loop.Accepted {
		g.Accepted++
		g.AcceptedAttempts += n
		g.RetriesPassed += retries
		if retries > 0 {
			g.RetriedAccepted++
		}
		if c.Group == Unfixable && !slices.Contains(f.UnfixableAccepted, c.Name) {
			f.UnfixableAccepted = append(f.UnfixableAccepted, c.Name)
		}
	}
	for _, a := range res.Attempts {
		f.Attempts++
		f.Exec += time.Duration(a.ExecDuration)
		f.Verify += time.Duration(a.VerifyDuration)
		f.Overhead += max(time.Duration(a.Duration-a.ExecDuration-a.VerifyDuration), 0)
	}
	f.Results[c.Name] = res
}

// Print writes the figures as a table.
func (f *Figures) Print(w io.Writer) {
	fmt.Fprintf(w, "%d cases x %d runs; policy: built-in with failBelow 0.2; retries on a medium tier ($%.2f an attempt, small $%.2f)\n",
		len(Cases()), f.Runs, MediumUSD, SmallUSD)
	fmt.Fprintf(w, "%-10s %6s %9s %8s %14s %16s %14s %12s\n", "group", "tasks", "accepted", "retries", "retry success", "retried→accept", "attempts/acc", "cost/acc")
	for _, name := range []Group{Honest, Fixable, Unfixable} {
		g := f.Groups[name]
		perAcc := func(x float64) string {
			if g.Accepted == 0 {
				return "-"
			}
			return fmt.Sprintf("%.3f", x/float64(g.Accepted))
		}
		success := "-"
		if g.Retries > 0 {
			success = fmt.Sprintf("%.2f (%d/%d)", g.RetrySuccess(), g.RetriesPassed, g.Retries)
		}
		fmt.Fprintf(w, "%-10s %6d %9d %8d %14s %16s %14s %12s\n", name, g.Tasks, g.Accepted, g.Retries, success,
			fmt.Sprintf("%d/%d", g.RetriedAccepted, g.RetriedTasks),
			perAcc(float64(g.Attempts)), "$"+perAcc(g.USD))
	}
	all := &GroupFigures{}
	for _, g := range f.Groups {
		all.Accepted += g.Accepted
		all.Attempts += g.Attempts
		all.USD += g.USD
	}
	if all.Accepted > 0 {
		fmt.Fprintf(w, "all tasks: %.2f attempts and $%.3f per accepted task (every attempt of every task, unfixable ones included)\n",
			float64(all.Attempts)/float64(all.Accepted), all.USD/float64(all.Accepted))
	}
	un := "none"
	if len(f.UnfixableAccepted) > 0 {
		un = strings.Join(f.UnfixableAccepted, ", ")
	}
	fmt.Fprintf(w, "unfixable accepted: %s\n", un)
	if f.Attempts > 0 {
		per := func(d time.Duration) time.Duration { return d / time.Duration(f.Attempts) }
		fmt.Fprintf(w, "per attempt (%d): verification %v, loop overhead %v (%.1f%% of verification), executor %v\n",
			f.Attempts, per(f.Verify), per(f.Overhead), 100*float64(f.Overhead)/float64(max(f.Verify, 1)), per(f.Exec))
	}
}

// clock runs the loop's timers when an agent says its time ran out.
type clock struct{ timers []func() }

func (c *clock) afterFunc(_ time.Duration, f func()) func() bool {
	i := len(c.timers)
	c.timers = append(c.timers, f)
	return func() bool { c.timers[i] = nil; return true }
}

func (c *clock) elapse() {
	for i, f := range c.timers {
		if f != nil {
			c.timers[i] = nil
			f()
		}
	}
}
