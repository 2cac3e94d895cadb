package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/text/plural"
)

// run is the state of one verification.
type run struct {
	e    *Engine
	ctx  context.Context
	req  *vouch.Request
	kind vouch.Kind
	pol  *vouch.Policy
	subj *vouch.Subject

	f        vouch.Findings
	crits    []vouch.CriterionResult
	pending  []pendingCriterion // criteria left to the judge
	judged   *vouch.JudgeVerdict
	judgeErr error
	// claimRefs are the refs of the claims put to the judge, by id.
	claimRefs map[string]vouch.ClaimRef
	// judgeSpent holds the info and cost of a judge that failed.
	judgeSpent *vouch.JudgeVerdict
}

type pendingCriterion struct {
	index  int // into crits
	weight float64
	must   bool
	rubric string
}

// analyze runs the analyzers of the request's kind in pipeline order. A
// failing or crashing analyzer leaves a warning; what it would decide
// stays undecided.
func (r *run) analyze() {
	for _, a := range r.e.pipelines[r.kind] {
		if err := r.ctx.Err(); err != nil {
			r.f.Warnings = append(r.f.Warnings, vouch.Warning{
				Code:    vouch.CodeAnalyzerFailed,
				Message: fmt.Sprintf("analyzer %s did not run: the verification's deadline passed (%v)", a.name, err),
				Details: map[string]any{"analyzer": a.name},
			})
			continue
		}
		if err := r.safeAnalyze(a); err != nil {
			r.f.Warnings = append(r.f.Warnings, vouch.Warning{
				Code:    vouch.CodeAnalyzerFailed,
				Message: fmt.Sprintf("analyzer %s could not run: %v", a.name, err),
				Details: map[string]any{"analyzer": a.name},
			})
		}
	}
}

// conclude adds to rep the warnings of the analyzers of the request's kind
// that conclude from the verdict (see vouch.Concluder). A crashing one
// leaves an ANALYZER_FAILED warning instead.
func (r *run) conclude(rep *vouch.Report) {
	for _, a := range r.e.pipelines[r.kind] {
		if a.concluder == nil {
			continue
		}
		ws, err := r.safeConclude(a, rep)
		if err != nil {
			rep.Warnings = append(rep.Warnings, vouch.Warning{
				Code:    vouch.CodeAnalyzerFailed,
				Message: fmt.Sprintf("analyzer %s could not conclude: %v", a.name, err),
				Details: map[string]any{"analyzer": a.name},
			})
			continue
		}
		rep.Warnings = append(rep.Warnings, ws...)
	}
}

func (r *run) safeConclude(a namedAnalyzer, rep *vouch.Report) (ws []vouch.Warning, err error) {
	defer func() {
		if p := recover(); p != nil {
			ws, err = nil, fmt.Errorf("crashed: %v", p)
		}
	}()
	return a.concluder.Conclude(r.subj, rep), nil
}

func (r *run) safeAnalyze(a namedAnalyzer) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("crashed: %v", p)
		}
	}()
	return a.analyzer.Analyze(r.ctx, r.subj, &r.f)
}

// criteria decides every written criterion that has a rule and queues the
// rest for the judge.
func (r *run) criteria(rules []rule) {
	dim := vouch.CriteriaDimension(r.kind)
	r.f.Checks = slices.Grow(r.f.Checks, len(rules))
	r.crits = make([]vouch.CriterionResult, 0, len(rules))
	for _, ru := range rules {
		c := ru.crit
		res := vouch.CriterionResult{ID: c.ID, Text: c.Text, Must: c.Must, Status: vouch.CriterionUndecided}
		if res.Text == "" && c.Check != nil {
			res.Text = c.Check.Type + " check"
		}
		if ru.comp == nil || ru.comp.llm {
			p := pendingCriterion{index: len(r.crits), weight: c.EffectiveWeight(), must: c.Must}
			if ru.comp != nil {
				p.rubric = ru.comp.rubric
			}
			res.Reason = "no rule decides this criterion"
			r.pending = append(r.pending, p)
			r.crits = append(r.crits, res)
			continue
		}
		out := r.runCheck(ru.comp)
		strength := ru.comp.kind.Strength
		if out.Strength != "" {
			strength = out.Strength
		}
		cr := vouch.CheckResult{
			Name:      ru.comp.typ + ":" + c.ID,
			Level:     ru.comp.kind.Level,
			Strength:  strength,
			Status:    out.Status,
			Reason:    out.Reason,
			Evidence:  withCode(out.Evidence, out.Code, c.ID),
			Dimension: dim,
			Score:     out.Score,
			Weight:    c.EffectiveWeight(),
			Must:      c.Must,
			Code:      out.Code,
			Fix:       out.Fix,
		}
		if out.Status != vouch.StatusUndecided {
			cr.Confidence = strength.Weight()
		}
		res.Reason = out.Reason
		res.DecidedBy = vouch.DecidedByRule
		switch out.Status {
		case vouch.StatusPass:
			res.Status = vouch.CriterionMet
		case vouch.StatusFail:
			res.Status = vouch.CriterionUnmet
		default:
			res.DecidedBy = ""
		}
		if out.Status != vouch.StatusUndecided {
			res.Score = ptr(round(out.Score))
		}
		r.f.Checks = append(r.f.Checks, cr)
		r.crits = append(r.crits, res)
	}
}

// runCheck runs one compiled check, applying negation and turning a crash
// or a cancelled context into an undecided outcome.
func (r *run) runCheck(c *compiled) (out vouch.Outcome) {
	if err := r.ctx.Err(); err != nil {
		return vouch.Undecided(vouch.CodeCheckCancelled, "verification stopped before this check ran: "+err.Error())
	}
	func() {
		defer func() {
			if p := recover(); p != nil {
				out = vouch.Undecided(vouch.CodeCheckPanicked, fmt.Sprintf("the %s check crashed: %v", c.typ, p))
				out.Evidence = map[string]any{"stack": stack()}
			}
		}()
		out = c.checker.Check(r.ctx, r.subj)
	}()
	if out.Status == vouch.StatusUndecided && out.Code == "" {
		out.Code = vouch.CodeCheckUnavailable
	}
	if out.Status == "" {
		return vouch.Undecided(vouch.CodeCheckUnavailable, "the check returned no status")
	}
	if out.Score < 0 || out.Score > 1 || out.Score != out.Score {
		out.Score = 0
		if out.Status == vouch.StatusPass {
			out.Score = 1
		}
	}
	if !c.not {
		return out
	}
	switch out.Status {
	case vouch.StatusPass:
		out.Status, out.Score, out.Code = vouch.StatusFail, 0, vouch.CodeNegatedMatch
		out.Reason = "negated check matched: " + out.Reason
	case vouch.StatusFail:
		out.Status, out.Score, out.Code, out.Fix = vouch.StatusPass, 1, "", nil
		out.Reason = "negated check did not match: " + out.Reason
	}
	return out
}

func withCode(ev map[string]any, code, criterion string) map[string]any {
	if code == "" && criterion == "" {
		return ev
	}
	out := make(map[string]any, len(ev)+2)
	for k, v := range ev {
		out[k] = v
	}
	if code != "" {
		out["code"] = code
	}
	if criterion != "" {
		out["criterion"] = criterion
	}
	return out
}

// judge asks the judge about what no rule decided: pending criteria and
// applicable dimensions no check decided. It is skipped when a must-pass
// check already failed: the run ends before anything expensive is spent.
func (r *run) judge() {
	dims := r.undecidedDimensions()
	var claims []vouch.JudgeClaim
	if r.e.judge != nil && !r.claimIDsTaken() {
		claims, r.claimRefs = r.unverifiedClaims()
	}
	if len(r.pending) == 0 && len(dims) == 0 && len(claims) == 0 {
		return
	}
	if r.e.judge == nil {
		if len(r.pending) > 0 {
			r.f.Warnings = append(r.f.Warnings, vouch.Warning{
				Code: vouch.CodeNoJudge,
				Message: plural.Pick(len(r.pending), "1 criterion needs a judge and none is configured; it stays undecided",
					fmt.Sprintf("%d criteria need a judge and none is configured; they stay undecided", len(r.pending))),
			})
		}
		return
	}
	if r.mustFailed() {
		return
	}
	q := &vouch.JudgeQuery{Request: r.req, Dimensions: dims, Policy: r.pol, Findings: r.findingsText(), Claims: claims}
	for _, p := range r.pending {
		c := r.crits[p.index]
		q.Criteria = append(q.Criteria, vouch.JudgeCriterion{ID: c.ID, Text: c.Text, Rubric: p.rubric})
	}
	if msg, details := r.overCostShare(q); msg != "" {
		// Not asked: what the judge would decide stays undecided (criteria)
		// or unverified (claims), never passed or failed.
		v := &vouch.JudgeVerdict{Warnings: []vouch.Warning{{Code: vouch.CodeJudgeBudget, Message: msg, Details: details}}}
		for _, c := range q.Criteria {
			v.Criteria = append(v.Criteria, vouch.JudgedCriterion{ID: c.ID, Status: vouch.CriterionUndecided, Code: vouch.CodeJudgeBudget, Reason: msg})
		}
		r.applyJudge(v)
		return
	}
	ctx, cancel := context.WithTimeout(r.ctx, time.Duration(r.pol.Judge.Timeout))
	defer cancel()
	v, err := r.safeJudge(ctx, q)
	if err != nil {
		r.judgeErr = err
		if v != nil {
			// What the failed calls cost is reported, nothing else.
			r.judgeSpent = &vouch.JudgeVerdict{Info: v.Info, Cost: v.Cost}
		}
		r.f.Warnings = append(r.f.Warnings, vouch.Warning{
			Code:    vouch.CodeJudgeFailed,
			Message: "the judge failed; what it would decide stays undecided: " + err.Error(),
		})
		return
	}
	r.judged = v
	r.applyJudge(v)
}

// estimator is a judge that can work out, calling no model, the most
// judging a query could cost: *judge.Judge is one, and its estimate is
// the figure vouch verify --estimate prints.
type estimator interface {
	Estimate(q *vouch.JudgeQuery) (*judge.Estimate, error)
}

// overCostShare holds the judge's estimated cost for q against the cost
// rule: a verification may cost at most judge.maxCostShare of the task's
// cost (task.executor.costUsd). It returns why the judge is not asked, with
// the figures, or "" when it may be: no task cost, no share, a judge that
// cannot estimate, an estimate that fails or that the bypass rules skip
// (the judge then says so itself), or an estimate within the cap.
func (r *run) overCostShare(q *vouch.JudgeQuery) (string, map[string]any) {
	share := r.pol.Judge.MaxCostShare
	ex := r.req.Task.Executor
	if share <= 0 || ex == nil || ex.CostUSD == nil || *ex.CostUSD <= 0 {
		return "", nil
	}
	est, ok := r.e.judge.(estimator)
	if !ok {
		return "", nil
	}
	e, err := safeEstimate(est, q)
	if err != nil || e == nil || e.Bypassed != "" {
		return "", nil
	}
	limit := share * *ex.CostUSD
	if e.MaxUSD <= limit {
		return "", nil
	}
	msg := fmt.Sprintf("the judge was not asked: it could cost $%s, more than %s of the task's cost ($%s, judge.maxCostShare), which allows $%s",
		usd(e.MaxUSD), pct(share), usd(*ex.CostUSD), usd(limit))
	return msg, map[string]any{"estimateUsd": e.MaxUSD, "taskCostUsd": *ex.CostUSD, "maxCostShare": share, "capUsd": limit}
}

// safeEstimate asks est for its estimate; a panic is an error.
func safeEstimate(est estimator, q *vouch.JudgeQuery) (e *judge.Estimate, err error) {
	defer func() {
		if p := recover(); p != nil {
			e, err = nil, fmt.Errorf("estimate crashed: %v", p)
		}
	}()
	return est.Estimate(q)
}

// usd formats a dollar figure to a millionth of a dollar, without
// trailing zeros.
func usd(x float64) string { return strconv.FormatFloat(math.Round(x*1e6)/1e6, 'f', -1, 64) }

func (r *run) safeJudge(ctx context.Context, q *vouch.JudgeQuery) (v *vouch.JudgeVerdict, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, fmt.Errorf("judge crashed: %v", p)
		}
	}()
	v, err = r.e.judge.Evaluate(ctx, q)
	if err == nil && v == nil {
		err = fmt.Errorf("judge returned no verdict")
	}
	return v, err
}

// applyJudge records the judge's decisions as checks of level judge. A
// judged item with a status other than met/unmet, or a score or confidence
// out of range, stays undecided.
func (r *run) applyJudge(v *vouch.JudgeVerdict) {
	dim := vouch.CriteriaDimension(r.kind)
	byID := make(map[string]vouch.JudgedCriterion, len(v.Criteria))
	for _, jc := range v.Criteria {
		byID[jc.ID] = jc
	}
	for _, p := range r.pending {
		res := &r.crits[p.index]
		jc, ok := byID[res.ID]
		cr := vouch.CheckResult{
			Name: "judge:" + res.ID, Level: vouch.LevelJudge, Strength: vouch.StrengthJudge,
			Status: vouch.StatusUndecided, Dimension: dim, Weight: p.weight, Must: p.must,
			Evidence: map[string]any{"criterion": res.ID},
		}
		valid := ok && inUnit(jc.Score) && inUnit(jc.Confidence) &&
			(jc.Status == vouch.CriterionMet || jc.Status == vouch.CriterionUnmet)
		if valid && jc.Confidence == 0 {
			// A decision its judge puts no confidence in decides nothing.
			valid, jc.Status, jc.Reason = false, vouch.CriterionUndecided, "the judge decided with confidence 0: "+jc.Reason
			jc.Code = vouch.CodeJudgeFailed
		}
		if !valid {
			cr.Reason, cr.Code = "the judge gave no valid decision", vouch.CodeJudgeFailed
			if ok && jc.Status == vouch.CriterionUndecided && jc.Reason != "" {
				cr.Reason = jc.Reason
				if _, known := vouch.LookupCode(jc.Code); known {
					cr.Code = jc.Code
				}
			}
			cr.Evidence["code"] = cr.Code
			res.Reason = cr.Reason
			r.f.Checks = append(r.f.Checks, cr)
			continue
		}
		cr.Confidence, cr.Reason, cr.Score = jc.Confidence, jc.Reason, jc.Score
		cr.Status = vouch.StatusPass
		if jc.Status == vouch.CriterionUnmet {
			cr.Status = vouch.StatusFail
		}
		res.Status, res.Score, res.DecidedBy, res.Reason = jc.Status, ptr(round(jc.Score)), vouch.DecidedByJudge, jc.Reason
		r.f.Checks = append(r.f.Checks, cr)
	}
	for _, d := range vouch.Dimensions(r.kind) {
		js, ok := v.Dimensions[d]
		if !ok || !inUnit(js.Score) || !inUnit(js.Confidence) || js.Confidence == 0 {
			continue
		}
		st := vouch.StatusPass
		if js.Score < r.pol.PassAt {
			st = vouch.StatusFail
		}
		r.f.Checks = append(r.f.Checks, vouch.CheckResult{
			Name: "judge:" + d, Level: vouch.LevelJudge, Strength: vouch.StrengthJudge,
			Status: st, Confidence: js.Confidence, Reason: js.Reason, Score: js.Score,
			Evidence: map[string]any{"dimension": d}, Dimension: d, Weight: 1,
		})
	}
	// The claims the judge decided: each a check of level judge citing its
	// claim, in the dimension the kind's claims feed. One the judge holds
	// false sends the work back, as a claim refuted by rule does.
	for _, jc := range v.Claims {
		ref, ok := r.claimRefs[jc.ID]
		if !ok || jc.State == vouch.ClaimUnverified || !inUnit(jc.Confidence) || jc.Confidence == 0 {
			continue
		}
		cr := vouch.CheckResult{
			Name: "judge:claim " + jc.ID, Level: vouch.LevelJudge, Strength: vouch.StrengthJudge,
			Status: vouch.StatusPass, Confidence: jc.Confidence, Reason: jc.Reason, Score: 1,
			Dimension: claimsDimension(r.kind), Weight: 1, Claims: []vouch.ClaimRef{ref},
			Evidence: map[string]any{"claim": jc.ID},
		}
		if jc.State == vouch.ClaimRefuted {
			cr.Status, cr.Score, cr.Must, cr.Code = vouch.StatusFail, 0, true, vouch.CodeJudgeRefuted
			cr.Evidence["code"] = vouch.CodeJudgeRefuted
		}
		r.f.Checks = append(r.f.Checks, cr)
	}
	r.f.Warnings = append(r.f.Warnings, v.Warnings...)
	r.f.Gaps = append(r.f.Gaps, v.Gaps...)
	for _, is := range v.Issues {
		r.f.Issues = append(r.f.Issues, "judge: "+is)
	}
	r.f.Mentions.Unverified = append(r.f.Mentions.Unverified, v.Unverified...)
}

// claimsDimension is the dimension of a kind that the checks of its
// claims feed: what the output says it did, or, for a text made from
// sources, what it rests on.
func claimsDimension(k vouch.Kind) string {
	switch k {
	case vouch.KindSubtask:
		return vouch.DimClaims
	case vouch.KindSynthesis:
		return vouch.DimTraceability
	case vouch.KindModeration:
		return vouch.DimFaithfulness
	case vouch.KindDecomposition:
		return vouch.DimConsistency
	}
	return vouch.DimGroundedness
}

// claimIDsTaken reports a criterion whose id could be taken for a claim's
// in the judge's answer ("claim c3"): the claims are then not asked.
func (r *run) claimIDsTaken() bool {
	for _, c := range r.req.Task.Criteria {
		if strings.HasPrefix(c.ID, "claim ") {
			return true
		}
	}
	return false
}

// maxFindings bounds the rule findings given to the judge.
const maxFindings = 40

// findingsText lists what the rules decided, for the judge to take as
// fact: each decided check with its status and reason.
func (r *run) findingsText() string {
	var b strings.Builder
	n := 0
	for i := range r.f.Checks {
		c := &r.f.Checks[i]
		if c.Status == vouch.StatusUndecided {
			continue
		}
		if n++; n > maxFindings {
			fmt.Fprintf(&b, "- ... and %d more checks\n", countDecided(r.f.Checks)-maxFindings)
			break
		}
		fmt.Fprintf(&b, "- %s: %s (%s)\n", c.Name, c.Status, c.Reason)
	}
	return b.String()
}

func countDecided(cs []vouch.CheckResult) int {
	n := 0
	for i := range cs {
		if cs[i].Status != vouch.StatusUndecided {
			n++
		}
	}
	return n
}

func inUnit(x float64) bool { return x >= 0 && x <= 1 }
