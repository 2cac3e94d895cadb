package grounding

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/text/mention"
)

// profile is what grounding does for one checkpoint kind: which texts it
// grounds, which dimension it feeds, what counts as evidence and what a
// missing mention means. [profiles] holds one row per kind it serves, in
// place of branches on the kind.
type profile struct {
	// dim is the dimension grounding feeds: groundedness where the kind
	// has it, else the dimension that asks whether the answer rests on
	// evidence.
	dim string
	// texts returns the texts whose mentions are grounded.
	texts func(req *vouch.Request) []*mention.Doc
	// skipMade skips a mention (other than a URL) whose sentence says it
	// will be made ("add fixtures to db/users.sql"): a plan may name what
	// it will create.
	skipMade bool
	// refutes lets a mention be refuted when the place that would hold it
	// was examined and does not. A plan speaks of the future: what it
	// names may not exist yet.
	refutes bool
	// claims holds the answer's claims (numbers, dates, names, quotes)
	// against the sources, the trace's tool outputs among them.
	claims bool
	// madeFrom returns the texts the answer was made from, when it was
	// made from texts alone: a mention the ground truth does not show must
	// be in one of them, or it was made up (refuted).
	madeFrom func(c *vouch.Context) []evText
	// madeOf names those texts in the evidence of a refuted mention ("in
	// no agent output").
	madeOf string
}

// profiles has one row per checkpoint kind grounding serves.
var profiles = map[vouch.Kind]profile{
	vouch.KindSubtask:       {dim: vouch.DimGroundedness, texts: summary, refutes: true},
	vouch.KindAnswer:        {dim: vouch.DimGroundedness, texts: summary, refutes: true, claims: true},
	vouch.KindDecomposition: {dim: vouch.DimGroundedness, texts: subgoals, skipMade: true},
	vouch.KindSynthesis:     {dim: vouch.DimTraceability, texts: summary, refutes: true, madeFrom: outputs, madeOf: "agent output"},
	vouch.KindModeration:    {dim: vouch.DimFaithfulness, texts: summary, refutes: true, madeFrom: discussion, madeOf: "participant's words"},
}

// profileKinds returns the kinds [profiles] has a row for, in the order of
// vouch.Kinds: the kinds the analyzer serves.
func profileKinds() []vouch.Kind {
	var out []vouch.Kind
	for _, k := range vouch.Kinds {
		if _, ok := profiles[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

// summary returns the answer: the output's summary.
func summary(req *vouch.Request) []*mention.Doc {
	return []*mention.Doc{mention.Parse(req.Output.Summary)}
}

// subgoals returns a plan's subgoals' descriptions (the goal is context,
// not claim).
func subgoals(req *vouch.Request) []*mention.Doc {
	var docs []*mention.Doc
	if req.Context != nil && req.Context.Plan != nil {
		for _, sg := range req.Context.Plan.Subgoals {
			if strings.TrimSpace(sg.Description) != "" {
				docs = append(docs, mention.Parse(sg.Description))
			}
		}
	}
	return docs
}

// outputs returns the agent outputs a synthesis is made from.
func outputs(c *vouch.Context) []evText {
	var out []evText
	for i, o := range c.Outputs {
		where := "outputs[" + strconv.Itoa(i) + "]"
		if o.ID != "" {
			where = "output " + o.ID
		}
		out = append(out, labelled(where, o.Text))
	}
	return out
}

// discussion returns the turns of the discussion a moderator's summary is
// made from.
func discussion(c *vouch.Context) []evText {
	var out []evText
	for i, u := range c.Discussion {
		out = append(out, labelled(fmt.Sprintf("discussion[%d] %s", i, u.Speaker), u.Text))
	}
	return out
}
