package demo

import (
	"embed"
	"fmt"
	"path"
	"sync"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/wire"
)

// requests holds the requests the demo varies: real request shapes of
// every kind, none needing a workspace or running a command.
//
//go:embed requests/*.yaml
var requests embed.FS

// template is one request of the demo and how it behaves.
type template struct {
	// file is the request, under requests/.
	file string
	// weight is how often the template is drawn, relative to the others.
	weight int
	// quality is what a judge makes of the output, on average (0 to 1).
	quality float64
	// defect is true when the output carries a defect the rules catch (a
	// dropped point, an invented file, a cycle): downstream it is nearly
	// always bad. Otherwise whether it held up follows its quality.
	defect bool
	// fix is the template the executor sends back when the output is sent
	// back (the same task, mended); "" sends the same output again.
	fix string
	// cost is what the executor spends on the task, in US dollars, before
	// the executor's own price factor.
	cost float64
}

// templates are the demo's requests. Weights give roughly: answers 30 %,
// subtasks a third (coding agents' fixes, with their session's tool calls,
// among them), syntheses 20 %, plans 10 %, moderation 10 %.
var templates = []*template{
	{file: "answer-regions.yaml", weight: 8, quality: 0.86, cost: 0.018},
	{file: "answer-regions-unsupported.yaml", weight: 3, quality: 0.62, defect: true, fix: "answer-regions.yaml", cost: 0.02},
	{file: "answer-latency.yaml", weight: 7, quality: 0.8, cost: 0.025},
	{file: "answer-latency-vague.yaml", weight: 3, quality: 0.64, cost: 0.022},
	{file: "answer-pricing.yaml", weight: 5, quality: 0.84, cost: 0.02},
	{file: "answer-pricing-wrong-url.yaml", weight: 2, quality: 0.6, defect: true, fix: "answer-pricing.yaml", cost: 0.02},
	{file: "subtask-release-notes.yaml", weight: 6, quality: 0.82, cost: 0.04},
	{file: "subtask-release-notes-todo.yaml", weight: 4, quality: 0.6, defect: true, fix: "subtask-release-notes.yaml", cost: 0.04},
	{file: "subtask-handbook.yaml", weight: 6, quality: 0.8, cost: 0.015},
	{file: "subtask-handbook-error.yaml", weight: 2, quality: 0.5, defect: true, fix: "subtask-handbook.yaml", cost: 0.015},
	{file: "subtask-tickets.yaml", weight: 5, quality: 0.74, cost: 0.03},
	{file: "subtask-tickets-overcount.yaml", weight: 2, quality: 0.6, defect: true, fix: "subtask-tickets.yaml", cost: 0.03},
	{file: "subtask-export-fix.yaml", weight: 4, quality: 0.8, cost: 0.12},
	{file: "subtask-export-fix-untested.yaml", weight: 3, quality: 0.62, defect: true, fix: "subtask-export-fix.yaml", cost: 0.12},
	{file: "synthesis-webhooks.yaml", weight: 5, quality: 0.84, cost: 0.09},
	{file: "synthesis-session-invented-file.yaml", weight: 2, quality: 0.66, defect: true, cost: 0.09},
	{file: "synthesis-search-p99.yaml", weight: 4, quality: 0.8, cost: 0.07},
	{file: "synthesis-search-p99-one-side.yaml", weight: 3, quality: 0.7, defect: true, fix: "synthesis-search-p99.yaml", cost: 0.07},
	{file: "synthesis-grpc-upgrade.yaml", weight: 4, quality: 0.78, cost: 0.08},
	{file: "decomposition-oauth.yaml", weight: 4, quality: 0.82, cost: 0.01},
	{file: "decomposition-oauth-untested.yaml", weight: 2, quality: 0.7, defect: true, fix: "decomposition-oauth.yaml", cost: 0.01},
	{file: "decomposition-pipeline-cycle.yaml", weight: 2, quality: 0.66, defect: true, fix: "decomposition-pipeline.yaml", cost: 0.012},
	{file: "decomposition-pipeline.yaml", weight: 2, quality: 0.8, cost: 0.012},
	{file: "moderation-rollout.yaml", weight: 4, quality: 0.85, cost: 0.03},
	{file: "moderation-rollout-dropped.yaml", weight: 3, quality: 0.68, defect: true, fix: "moderation-rollout.yaml", cost: 0.03},
	{file: "moderation-incident-invented.yaml", weight: 2, quality: 0.7, defect: true, cost: 0.03},
}

// catalogue is the templates by file name, each with its request.
type catalogue struct {
	byFile map[string]*template
	data   map[*template][]byte
}

var (
	loadOnce sync.Once
	loaded   *catalogue
	loadErr  error
)

// load reads and checks every template once: each decodes with the
// server's own decoder, names no workspace, and its fix is a template.
func load() (*catalogue, error) {
	loadOnce.Do(func() {
		c := &catalogue{byFile: map[string]*template{}, data: map[*template][]byte{}}
		for _, t := range templates {
			c.byFile[t.file] = t
		}
		for _, t := range templates {
			if t.fix != "" && c.byFile[t.fix] == nil {
				loadErr = fmt.Errorf("demo: %s: fix %s is not a template", t.file, t.fix)
				return
			}
			data, err := requests.ReadFile(path.Join("requests", t.file))
			if err != nil {
				loadErr = fmt.Errorf("demo: %w", err)
				return
			}
			c.data[t] = data
			req, err := c.request(t)
			if err != nil {
				loadErr = err
				return
			}
			if req.Workspace != "" {
				loadErr = fmt.Errorf("demo: %s names a workspace", t.file)
				return
			}
		}
		loaded = c
	})
	return loaded, loadErr
}

// request returns a fresh copy of a template's request.
func (c *catalogue) request(t *template) (*vouch.Request, error) {
	req, err := wire.DecodeRequest(c.data[t], wire.Options{Name: t.file})
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	return req, nil
}
