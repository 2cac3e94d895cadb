package server

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/api"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/internal/strict"
	"github.com/vouchgate/vouch/judge"
	"github.com/vouchgate/vouch/text/critmatch"
	"github.com/vouchgate/vouch/wire"
)

var taskSchema = strict.NewSchema(reflect.TypeFor[api.TaskInput](), strict.SchemaOptions{})

// handleVerifyTask verifies the plain shape, stored in the log as the
// request it maps to (kind subtask; the criteria, with no rule named, are
// decided in the scoring mode asked, or stay undecided). Its id, and so
// its idempotency, covers the task, the scoring mode, the judge model and
// the server's policy: the same task under another mode, model or policy
// is verified afresh, never answered with another mode's report.
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
	header := r.Header.Get("Idempotency-Key")
	if len(header) > maxIdempotencyKey {
		writeError(w, http.StatusBadRequest, string(vouch.ErrInvalid), fmt.Sprintf("the Idempotency-Key header is over %d bytes", maxIdempotencyKey))
		return
	}
	mode, model, eng, err := s.taskEngine(&in)
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
	// verified again as it is; its id is the task's under this mode,
	// model and policy.
	canon, err := json.Marshal(req)
	if err == nil {
		req.ID = taskID(canon, mode, model, s.policyPrint)
		canon, err = json.Marshal(req)
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, string(vouch.ErrInternal), err.Error())
		return
	}
	if req, err = wire.DecodeRequest(canon, wire.Options{MaxBytes: 2 * s.cfg.MaxRequestBytes, Name: "task"}); err != nil {
		writeInputError(w, err)
		return
	}
	res, err := s.verifyStored(r.Context(), tenantOf(r.Context()), header, canon, req, eng)
	if err != nil {
		s.writeVerifyError(w, err)
		return
	}
	var rep vouch.Report
	if err := json.Unmarshal(res.result, &rep); err != nil {
		writeError(w, http.StatusInternalServerError, string(vouch.ErrInternal), "decoding the stored report: "+err.Error())
		return
	}
	if res.replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeJSON(w, http.StatusOK, taskResult(&rep, mode, model, in.TaskOutput))
}

// The scoring modes of verify-task.
const (
	modeRules         = "rules"
	modeJudge         = "judge"
	modeRubric        = "rubric"
	modeBinary        = "binary"
	modeCriteriaMatch = "criteria_match"
)

// taskModes lists the scoring modes, for messages.
var taskModes = []string{modeRules, modeJudge, modeRubric, modeBinary, modeCriteriaMatch}

// taskID is the id of a verify-task request: "t-" and the first 16 hex
// digits of the SHA-256 of the request (without id), the scoring mode,
// the resolved judge model and the policy's fingerprint.
func taskID(canon []byte, mode, model, policy string) string {
	h := sha256.New()
	for _, part := range [][]byte{canon, []byte(mode), []byte(model), []byte(policy)} {
		h.Write(part)
		h.Write([]byte{0})
	}
	return "t-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// scaler is a judge that can score criteria on another scale:
// *judge.Judge is one.
type scaler interface {
	WithScale(judge.Scale) vouch.Judge
}

// taskEngine checks the scoring mode and the verifier model and picks the
// engine. It returns the mode (rules when none is given) and the judge
// model the request's verifier_model resolved to.
func (s *Server) taskEngine(in *api.TaskInput) (mode, model string, eng *engine.Engine, err error) {
	bad := func(path, format string, a ...any) error {
		return &vouch.Error{Code: vouch.ErrInvalid, Path: path, Message: fmt.Sprintf(format, a...)}
	}
	mode = in.ScoringMode
	if mode == "" {
		mode = modeRules
	}
	if !slices.Contains(taskModes, mode) {
		return "", "", nil, bad("scoring_mode", "want %s, got %q", strings.Join(taskModes, ", "), truncate(in.ScoringMode, 40))
	}
	models := judgeModels(&s.policy.Judge)
	if in.VerifierModel != "" {
		if model, err = resolveModel(in.VerifierModel, models); err != nil {
			return "", "", nil, err
		}
	}
	judged := mode == modeJudge || mode == modeRubric || mode == modeBinary
	if model != "" && !judged {
		return "", "", nil, bad("verifier_model", "scoring_mode %s asks no judge, so it takes no verifier_model", mode)
	}
	var j vouch.Judge
	switch mode {
	case modeCriteriaMatch:
		j = criteriaMatcher{}
	case modeJudge, modeRubric, modeBinary:
		if s.judge == nil || len(models) == 0 {
			return "", "", nil, bad("scoring_mode", "%s scoring needs a judge, and this server has none configured", mode)
		}
		j = s.judge
		if mode != modeJudge {
			sc, ok := s.judge.(scaler)
			if !ok {
				return "", "", nil, bad("scoring_mode", "this server's judge cannot score on the %s scale", mode)
			}
			j = sc.WithScale(judge.Scale(mode))
		}
	}
	eng, err = s.taskEngineFor(mode, model, j)
	return mode, model, eng, err
}

// resolveModel resolves a verifier_model against the configured judge
// models (provider:model): one of them as it is, or a bare model name
// that is the model part of exactly one of them.
func resolveModel(name string, models []string) (string, error) {
	bad := func(format string, a ...any) error {
		return &vouch.Error{Code: vouch.ErrInvalid, Path: "verifier_model", Message: fmt.Sprintf(format, a...)}
	}
	if len(models) == 0 {
		return "", bad("no judge model is configured on this server")
	}
	if slices.Contains(models, name) {
		return name, nil
	}
	var found []string
	if !strings.Contains(name, ":") {
		for _, m := range models {
			if _, part, ok := strings.Cut(m, ":"); ok && part == name {
				found = append(found, m)
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", bad("%q is not a configured judge model (%s)", truncate(name, 80), strings.Join(models, ", "))
	}
	return "", bad("%q is ambiguous: it is the model of %s; name one as provider:model", truncate(name, 80), strings.Join(found, ", "))
}

// taskEngineFor returns the engine of verify-task for a mode and model,
// made once: rules only (j nil), or with j as its judge, limited to the
// model when one is named. No command runs and no workspace is read: the
// plain shape names none.
func (s *Server) taskEngineFor(mode, model string, j vouch.Judge) (*engine.Engine, error) {
	key := mode + "\x00" + model
	if e, ok := s.byModel.Load(key); ok {
		return e.(*engine.Engine), nil
	}
	p := s.policy
	p.Commands.Allow = nil
	opts := engine.Options{Policy: &p, Now: s.now, MaxRequestBytes: s.cfg.MaxRequestBytes,
		Workspace: func(*vouch.Request) (*os.Root, error) { return nil, nil }, Judge: j}
	if model != "" {
		p.Judge.Models, p.Judge.Tiers, p.Judge.Cascade = []string{model}, nil, nil
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

// taskResult maps a report to the plain shape. In criteria_match mode
// each criterion the matcher decided carries what matched, worked out
// again from the output (matching is deterministic, so a replay gives
// the same lists).
func taskResult(rep *vouch.Report, mode, model, output string) api.TaskResult {
	out := api.TaskResult{Confidence: rep.Confidence, AggregateScore: rep.Score, ID: rep.ID,
		CriteriaScores: []api.CriterionScore{}, ScoringMode: mode, VerifierModel: model, JudgeModels: []string{},
		TokensUsed: rep.Cost.InputTokens + rep.Cost.OutputTokens, Cost: rep.Cost.USD}
	if rep.Judge != nil && mode != modeCriteriaMatch {
		out.JudgeModels = append(out.JudgeModels, rep.Judge.Models...)
	}
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
	var ix *critmatch.Index
	if mode == modeCriteriaMatch {
		ix = critmatch.NewIndex(output)
	}
	for _, c := range rep.Criteria {
		cs := api.CriterionScore{Criterion: c.Text, Reasoning: c.Reason}
		switch c.Status {
		case vouch.CriterionMet, vouch.CriterionUnmet:
			met := c.Status == vouch.CriterionMet
			cs.Met, cs.Score = &met, c.Score
		}
		if c.DecidedBy == vouch.DecidedByJudge {
			if mode == modeRubric && cs.Score != nil {
				n := math.Round((1+4**cs.Score)*1e4) / 1e4
				cs.RubricScore = &n
			}
			if ix != nil {
				m := ix.Match(c.Text)
				cs.Match = &api.CriterionMatch{MatchedWords: nonNil(m.MatchedWords), UnmatchedWords: nonNil(m.UnmatchedWords),
					MatchedNumbers: nonNil(m.MatchedNumbers), UnmatchedNumbers: nonNil(m.UnmatchedNumbers)}
			}
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
	return out
}

// nonNil gives an empty list for nil, so that JSON holds [] not null.
func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
