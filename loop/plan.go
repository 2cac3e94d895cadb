package loop

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/text/plural"
)

// PlanResult is how a plan went: each subgoal's result, in the order the
// subgoals were taken (dependency order, the plan's order among equals).
type PlanResult struct {
	Subgoals []SubgoalResult `json:"subgoals"`
	// Accepted: every subgoal ran and was accepted.
	Accepted bool `json:"accepted"`
}

// SubgoalResult is how one subgoal of a plan went.
type SubgoalResult struct {
	ID string `json:"id"`
	// Criticality is the subgoal's: low, normal (the default) or high.
	Criticality string `json:"criticality"`
	// Result is the subgoal's run of the loop; nil when it did not run.
	Result *Result `json:"result,omitempty"`
	// BlockedBy names the high-criticality subgoal whose failure kept
	// this one from running (it depends on it, directly or not), and Why
	// says how that subgoal failed.
	BlockedBy string `json:"blockedBy,omitempty"`
	Why       string `json:"why,omitempty"`
}

// RunPlan runs a plan's subgoals with the loop, one after another in
// dependency order: each subgoal's task (taskFor makes it, just before
// the subgoal runs, so that it can record the workspace's base then) is
// executed and verified as [Run] does a task. A subgoal of high criticality that
// ends without an accepted output (escalated, out of retries, a
// contradiction to clarify) stops every subgoal that depends on it,
// directly or through others: they do not run, and their results name it
// and why it failed. Independent branches go on, and a failed subgoal of
// low or normal criticality stops nothing. A plan whose dependencies name
// an unknown subgoal, repeat an id, or form a cycle is bad input (a
// *vouch.Error), and nothing runs.
func RunPlan(ctx context.Context, v Verifier, plan *vouch.Plan, taskFor func(context.Context, vouch.Subgoal) (Task, error), exec Executor, opts Options) (*PlanResult, error) {
	order, err := planOrder(plan)
	if err != nil {
		return nil, err
	}
	res := &PlanResult{Accepted: true}
	// blocked maps a high-criticality subgoal that failed, and each
	// subgoal it kept from running, to that high-criticality subgoal; why
	// says how it failed.
	blocked := map[string]string{}
	why := map[string]string{}
	for _, i := range order {
		sg := plan.Subgoals[i]
		sr := SubgoalResult{ID: sg.ID, Criticality: criticalityOf(sg)}
		for _, d := range sg.DependsOn {
			if root, ok := blocked[d]; ok {
				sr.BlockedBy, sr.Why = root, why[root]
				break
			}
		}
		if sr.BlockedBy != "" {
			blocked[sg.ID] = sr.BlockedBy
			res.Accepted = false
			res.Subgoals = append(res.Subgoals, sr)
			continue
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		task, err := taskFor(ctx, sg)
		if err != nil {
			return res, fmt.Errorf("subgoal %s: %w", sg.ID, err)
		}
		r, err := Run(ctx, v, task, exec, opts)
		if err != nil {
			return res, fmt.Errorf("subgoal %s: %w", sg.ID, err)
		}
		sr.Result = r
		if r.Outcome != Accepted {
			res.Accepted = false
			if sr.Criticality == vouch.CriticalityHigh {
				blocked[sg.ID] = sg.ID
				why[sg.ID] = failure(r)
			}
		}
		res.Subgoals = append(res.Subgoals, sr)
	}
	return res, nil
}

// criticalityOf is a subgoal's criticality, normal when it names none.
func criticalityOf(sg vouch.Subgoal) string {
	if sg.Criticality == "" {
		return vouch.CriticalityNormal
	}
	return sg.Criticality
}

// failure says in a line how a subgoal's run ended without acceptance.
func failure(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s after %s", r.Outcome, plural.Count(len(r.Attempts), "attempt"))
	switch {
	case r.Escalation != nil && r.Escalation.Error != "":
		fmt.Fprintf(&b, ": %s", r.Escalation.Error)
	case r.Report != nil && r.Report.Reason != "":
		fmt.Fprintf(&b, ": %s", r.Report.Reason)
	}
	return b.String()
}

// planOrder returns the indexes of a plan's subgoals in dependency order
// (a subgoal after every one it depends on; the plan's order among those
// free at once), or an input error: a repeated id, an unknown
// dependency, a cycle.
func planOrder(plan *vouch.Plan) ([]int, error) {
	bad := func(path, format string, args ...any) error {
		return &vouch.Error{Code: vouch.ErrInvalid, Path: path, Message: fmt.Sprintf(format, args...)}
	}
	index := make(map[string]int, len(plan.Subgoals))
	for i, sg := range plan.Subgoals {
		if sg.ID == "" {
			return nil, bad(fmt.Sprintf("plan.subgoals[%d].id", i), "a subgoal needs an id")
		}
		if _, dup := index[sg.ID]; dup {
			return nil, bad(fmt.Sprintf("plan.subgoals[%d].id", i), "subgoal id %q is used twice", sg.ID)
		}
		index[sg.ID] = i
	}
	waiting := make([]int, len(plan.Subgoals)) // dependencies not yet taken
	dependents := make([][]int, len(plan.Subgoals))
	for i, sg := range plan.Subgoals {
		for j, d := range sg.DependsOn {
			k, ok := index[d]
			if !ok {
				return nil, bad(fmt.Sprintf("plan.subgoals[%d].dependsOn[%d]", i, j), "subgoal %s depends on %q, which the plan does not have", sg.ID, d)
			}
			waiting[i]++
			dependents[k] = append(dependents[k], i)
		}
	}
	var order, ready []int
	for i := range plan.Subgoals {
		if waiting[i] == 0 {
			ready = append(ready, i)
		}
	}
	for len(ready) > 0 {
		slices.Sort(ready)
		i := ready[0]
		ready = ready[1:]
		order = append(order, i)
		for _, k := range dependents[i] {
			if waiting[k]--; waiting[k] == 0 {
				ready = append(ready, k)
			}
		}
	}
	if len(order) < len(plan.Subgoals) {
		var stuck []string
		for i, sg := range plan.Subgoals {
			if waiting[i] > 0 {
				stuck = append(stuck, sg.ID)
			}
		}
		return nil, bad("plan.subgoals", "the dependencies of %s form a cycle (or wait on one): no order runs them", strings.Join(stuck, ", "))
	}
	return order, nil
}
