package quality

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/internal/fence"
	"github.com/vouchgate/vouch/store"
	"github.com/vouchgate/vouch/text/plural"
)

// Example classes: what the reviewer's verdict makes of an overridden
// verification, and the score its example carries.
const (
	ClassGood       = "good"       // the reviewer's pass: score 1
	ClassBorderline = "borderline" // the reviewer's retry: score 0.5
	ClassBad        = "bad"        // the reviewer's fail: score 0
)

// maxExampleOutput caps an example's output in bytes (the judge's
// prompt quotes at most 800 of it).
const maxExampleOutput = 800

// Example is a few-shot example made from an overridden verification:
// the judge example, with where it came from.
type Example struct {
	vouch.JudgeExample
	Class        string `json:"class"`
	Verification string `json:"verification"`
}

// ExampleSource is what [Examples] reads of a store: its labels, and the
// verifications they label.
type ExampleSource interface {
	store.Log
	store.LabelLog
}

// Examples makes few-shot examples for the judge from the latest
// overrides of a tenant's window that give a reason: the newest perClass
// of each class (good, borderline, bad), each with the verification's
// output and criteria from its stored request. Verifications stored
// without their request (over the size cap) are skipped.
func Examples(ctx context.Context, st ExampleSource, tenant string, w store.Window, perClass int) ([]Example, error) {
	labels, err := st.Labels(ctx, tenant, w)
	if err != nil {
		return nil, err
	}
	_, overrides := latest(labels)
	list := make([]*store.Labelled, 0, len(overrides))
	for _, l := range overrides {
		if strings.TrimSpace(l.Note) != "" {
			list = append(list, l)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].At.After(list[j].At) })
	taken := map[string]int{}
	var out []Example
	for _, l := range list {
		class, score := classOf(l.Verdict)
		if class == "" || taken[class] >= perClass {
			continue
		}
		v, err := st.Get(ctx, tenant, l.V.ID, l.V.Attempt)
		if err != nil {
			return nil, err
		}
		output, criterion, ok := exampleText(v.Request)
		if !ok {
			continue
		}
		taken[class]++
		out = append(out, Example{
			JudgeExample: vouch.JudgeExample{Output: output, Criterion: criterion, Score: score, Reason: fence.Clean(l.Note, 400)},
			Class:        class, Verification: fmt.Sprintf("%s/%d", v.ID, v.Attempt),
		})
	}
	order := map[string]int{ClassGood: 0, ClassBorderline: 1, ClassBad: 2}
	sort.SliceStable(out, func(i, j int) bool { return order[out[i].Class] < order[out[j].Class] })
	return out, nil
}

func classOf(verdict vouch.Verdict) (string, float64) {
	switch verdict {
	case vouch.VerdictPass:
		return ClassGood, 1
	case vouch.VerdictRetry:
		return ClassBorderline, 0.5
	case vouch.VerdictFail:
		return ClassBad, 0
	}
	return "", 0
}

// exampleText reads the output and the criteria (or, without criteria,
// the goal) of a stored request.
func exampleText(request []byte) (output, criterion string, ok bool) {
	if len(request) == 0 {
		return "", "", false
	}
	var req struct {
		Task struct {
			Goal     string `json:"goal"`
			Criteria []struct {
				Text string `json:"text"`
			} `json:"criteria"`
		} `json:"task"`
		Output struct {
			Summary string `json:"summary"`
		} `json:"output"`
	}
	if json.Unmarshal(request, &req) != nil {
		return "", "", false
	}
	var crits []string
	for _, c := range req.Task.Criteria {
		if t := strings.TrimSpace(c.Text); t != "" {
			crits = append(crits, t)
		}
	}
	criterion = strings.Join(crits, "; ")
	if criterion == "" {
		criterion = strings.TrimSpace(req.Task.Goal)
	}
	output = strings.TrimSpace(req.Output.Summary)
	if output == "" || criterion == "" {
		return "", "", false
	}
	return fence.Clean(output, maxExampleOutput), fence.Clean(criterion, 400), true
}

// ExamplesPatch writes examples as a policy file that sets
// judge.examples; each example is one JSON object on its line (valid
// YAML), so that no text from an agent's output can break the file's
// structure.
func ExamplesPatch(examples []Example) ([]byte, error) {
	if len(examples) == 0 {
		return nil, fmt.Errorf("%w: no override with a reason in the window", ErrNothingSuggested)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Few-shot examples for the judge, made from %s.\n", plural.Count(len(examples), "reviewer's override"))
	b.WriteString("# Review them before applying: the outputs are agents' text.\njudge:\n  examples:\n")
	for _, ex := range examples {
		line, err := json.Marshal(ex.JudgeExample)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "    # %s, from %q\n    - %s\n", ex.Class, ex.Verification, line)
	}
	return b.Bytes(), nil
}
