package main

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// evalSet is one public labelled set, as answer rows.
type evalSet struct {
	name string
	rows []answerRow
}

// loadSets reads the public sets of dir: RAGTruth by task type, and each
// SummEdits domain.
func loadSets(dir string) ([]evalSet, error) {
	var sets []evalSet
	data, err := os.ReadFile(filepath.Join(dir, "ragtruth-dev.jsonl"))
	if err != nil {
		return nil, err
	}
	byTask := map[string][]answerRow{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r struct {
			ID        jsontext.Value   `json:"id"`
			TaskType  string           `json:"task_type"`
			Reference jsontext.Value   `json:"reference"`
			Response  string           `json:"response"`
			Labels    []jsontext.Value `json:"labels"`
		}
		if err := json.Unmarshal([]byte(line), &r, json.RejectUnknownMembers(false)); err != nil {
			return nil, fmt.Errorf("ragtruth-dev.jsonl:%d: %w", i+1, err)
		}
		label := "supported"
		if len(r.Labels) > 0 {
			label = "hallucinated"
		}
		byTask[r.TaskType] = append(byTask[r.TaskType], answerRow{ID: fmt.Sprintf("ragtruth-%d", i+1),
			Sources: []jsontext.Value{r.Reference}, Answer: r.Response, Label: label})
	}
	for _, t := range slices.Sorted(maps.Keys(byTask)) {
		sets = append(sets, evalSet{"RAGTruth " + t, byTask[t]})
	}
	files, err := filepath.Glob(filepath.Join(dir, "summedits_*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var rows []struct {
			Doc     string `json:"doc"`
			Summary string `json:"summary"`
			Label   int    `json:"label"`
		}
		if err := json.Unmarshal(data, &rows, json.RejectUnknownMembers(false)); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "summedits_"), ".json")
		set := evalSet{name: "SummEdits " + name}
		for i, r := range rows {
			label := "hallucinated" // 0: edited to be inconsistent
			if r.Label == 1 {
				label = "supported"
			}
			doc, _ := json.Marshal(r.Doc)
			set.rows = append(set.rows, answerRow{ID: fmt.Sprintf("%s-%d", name, i+1),
				Sources: []jsontext.Value{doc}, Answer: r.Summary, Label: label})
		}
		sets = append(sets, set)
	}
	return sets, nil
}

// evalSets scores vouch on every public set of dir.
func evalSets(dir string) error {
	sets, err := loadSets(dir)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "vouch-eval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin, err := buildVouch(tmp)
	if err != nil {
		return err
	}
	for _, set := range sets {
		rowsPath, in, out := filepath.Join(tmp, "rows.jsonl"), filepath.Join(tmp, "in.jsonl"), filepath.Join(tmp, "out.jsonl")
		if err := writeRows(rowsPath, set.rows); err != nil {
			return err
		}
		labels, err := writeAnswers(in, rowsPath)
		if err != nil {
			return err
		}
		cmd := exec.Command(bin, "verify", "--batch", in, "--out", out)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() != 1 && cmd.ProcessState.ExitCode() != 3 {
			return fmt.Errorf("%s: vouch exited %d: %v\n%s", set.name, cmd.ProcessState.ExitCode(), err, stderr.String())
		}
		fmt.Printf("%s (%d rows)\n", set.name, len(set.rows))
		if err := score(out, labels); err != nil {
			return fmt.Errorf("%s: %w", set.name, err)
		}
	}
	return nil
}

// writeRows writes answer rows as JSONL.
func writeRows(path string, rows []answerRow) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, r := range rows {
		b, err := json.Marshal(r, json.Deterministic(true))
		if err != nil {
			return err
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
