package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/internal/strict"
	"github.com/vouchgate/vouch/wire"
)

var taskSchema = strict.NewSchema(reflect.TypeFor[api.TaskInput](), strict.SchemaOptions{})

// handleVerifyTask verifies the plain shape, stored in the log as the
// request it maps to (kind subtask; the criteria, with no rule named, are
// the judge's to decide or stay undecided).
func (s *Server) handleVerifyTask(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r, s.cfg.MaxRequestBytes)
	if err != nil {
		writeInputError(w, err)
		return
	}
	var in api.TaskInput
	doc, err := strict.Parse(body, strict.Options{What: "task", MaxBytes: s.cfg.MaxRequestBytes, JSON: true})
	if err == nil {
		taskSchema.Decode(doc, &in)
		if errs := doc.Errors(); errs != nil {
			err = vouch.Errors(errs)
		}
	}
	if err != nil {
		writeInputError(w, err)
		return
	}
	eng, err := s.taskEngine(&in)
	if err != nil {
		writeInputError(w, err)
		return
	}
	req := &vouch.Request{APIVersion: "vouch/v1", Kind: vouch.KindSubtask,
		Task: vouch.Task{Goal: in.TaskDescription}, Output: vouch.Output{Summary: in.TaskOutput}}
	for _, c := range in.SuccessCriteria {
		req.Task.Criteria = append(req.Task.Criteria, vouch.Criterion{Text: c})
	}
	// The stored request is the one verified, so that the row can be
	// verified again as it is.
	canon, err := json.Marshal(req)
	if err != nil {
		writeError(w, http.StatusInternalServerError, string(vouch.ErrInternal), err.Error())
		return
	}
	if req, err = wire.DecodeRequest(canon, wire.Options{MaxBytes: 2 * s.cfg.MaxRequestBytes, Name: "task"}); err != nil {
		writeInputError(w, err)
		return
	}
	res, err := s.verifyStored(r.Context(), tenantOf(r.Context()), r.Header.Get("Idempotency-Key"), canon, req, eng)
	if err != nil {
		s.writeVerifyError(w, err)
		return
	}
	var rep vouch.Report
	if err := json.Unmarshal(res.result, &rep); err != nil {
		writeError(w, http.StatusInternalServerError, string(vouch.ErrInternal), "decoding the stored report: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, taskResult(&rep))
}

// taskEngine checks the verifier model and scoring mode and picks the
// engine: rules only, or the judge (limited to the model named).
func (s *Server) taskEngine(in *api.TaskInput) (*engine.Engine, error) {
	models := judgeModels(&s.policy.Judge)
	bad := func(path, format string, a ...any) error {
		return &vouch.Error{Code: vouch.ErrInvalid, Path: path, Message: fmt.Sprintf(format, a...)}
	}
	if in.VerifierModel != "" && !slices.Contains(models, in.VerifierModel) {
		if len(models) == 0 {
			return nil, bad("verifier_model", "no judge model is configured on this server")
		}
		return nil, bad("verifier_model", "%q is not a configured judge model (%s)", truncate(in.VerifierModel, 80), strings.Join(models, ", "))
	}
	switch in.ScoringMode {
	case "", "rules":
		return s.taskEngineFor(false, "")
	case "judge":
		if s.judge == nil || len(models) == 0 {
			return nil, bad("scoring_mode", "judge scoring needs a judge, and this server has none configured")
		}
		return s.taskEngineFor(true, in.VerifierModel)
	}
	return nil, bad("scoring_mode", "want rules or judge, got %q", truncate(in.ScoringMode, 40))
}

// taskEngineFor returns the engine of verify-task, made once: rules
// only, or judged by the configured judge (model "") or by one model. No
// command runs and no workspace is read: the plain shape names none.
func (s *Server) taskEngineFor(judged bool, model string) (*engine.Engine, error) {
	key := "rules"
	if judged {
		key = "judge:" + model
	}
	if e, ok := s.byModel.Load(key); ok {
		return e.(*engine.Engine), nil
	}
	p := s.policy
	p.Commands.Allow = nil
	opts := engine.Options{Policy: &p, Now: s.now, MaxRequestBytes: s.cfg.MaxRequestBytes,
		Workspace: func(*vouch.Request) (*os.Root, error) { return nil, nil }}
	if judged {
		opts.Judge = s.judge
		if model != "" {
			p.Judge.Models, p.Judge.Tiers, p.Judge.Cascade = []string{model}, nil, nil
		}
	}
	e, err := engine.New(opts)
	if err != nil {
		return nil, err
	}
	got, _ := s.byModel.LoadOrStore(key, e)
	return got.(*engine.Engine), nil
}

// judgeModels lists every model a judge policy names.
func judgeModels(p *vouch.JudgePolicy) []string {
	out := slices.Clone(p.Models)
	for _, tier := range p.Tiers {
		for _, m := range tier {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// taskResult maps a report to the plain shape.
func taskResult(rep *vouch.Report) api.TaskResult {
	out := api.TaskResult{Confidence: rep.Confidence, AggregateScore: rep.Score, ID: rep.ID,
		CriteriaScores: []api.CriterionScore{},
		TokensUsed:     rep.Cost.InputTokens + rep.Cost.OutputTokens, Cost: rep.Cost.USD}
	switch rep.Verdict {
	case vouch.VerdictPass:
		out.Verdict = "pass"
	case vouch.VerdictRetry:
		out.Verdict = "partial"
	case vouch.VerdictUnverified:
		out.Verdict = "unverified" // nothing was found false: never a fail
	default:
		out.Verdict = "fail"
	}
	for _, c := range rep.Criteria {
		cs := api.CriterionScore{Criterion: c.Text, Reasoning: c.Reason}
		switch c.Status {
		case vouch.CriterionMet, vouch.CriterionUnmet:
			met := c.Status == vouch.CriterionMet
			cs.Met, cs.Score = &met, c.Score
		}
		out.CriteriaScores = append(out.CriteriaScores, cs)
	}
	dim := func(name string) *float64 {
		if d, ok := rep.Dimensions[name]; ok && d.State == vouch.StateDecided {
			return d.Score
		}
		return nil
	}
	out.QualityScores = api.QualityScores{Completeness: dim(vouch.DimCompleteness), Accuracy: dim(vouch.DimGroundedness)}
	if rep.Judge != nil {
		out.QualityScores.Clarity, out.QualityScores.Relevance = dim("clarity"), dim("relevance")
	}
	return out
}
