// Package benchreq writes the benchmarks' text requests: subtasks with
// five text criteria (contains, case-insensitive contains, regex, negated
// contains, length) over a summary of about 1 KB, as most gate checks
// are. Most pass; some miss a word they need, some hold one they must
// not. The same n gives the same requests.
package benchreq

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/go-json-experiment/json"
)

var words = strings.Fields(`the parser now reports errors with line and column numbers and the
tokenizer handles unicode identifiers correctly while the formatter keeps comments in place
and the validator rejects duplicate keys before any evaluation happens in the pipeline`)

// Write writes n requests to w as JSONL, with ids req-0000000 on.
func Write(w io.Writer, n int) error {
	bw := bufio.NewWriter(w)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		var sb strings.Builder
		for sb.Len() < 1000 {
			sb.WriteString(words[r.IntN(len(words))])
			sb.WriteByte(' ')
		}
		if r.IntN(10) > 0 {
			fmt.Fprintf(&sb, "Status: DONE. Version v1.%d", i%50)
		}
		if r.IntN(20) == 0 {
			sb.WriteString(" TODO: finish the docs")
		}
		req := map[string]any{
			"id":   fmt.Sprintf("req-%07d", i),
			"kind": "subtask",
			"task": map[string]any{
				"goal": "Improve the parser's error reporting",
				"criteria": []any{
					map[string]any{"id": "done", "must": true, "check": map[string]any{"type": "contains", "value": "DONE"}},
					map[string]any{"id": "parser", "check": map[string]any{"type": "contains", "value": "PARSER", "ignoreCase": true}},
					map[string]any{"id": "version", "check": map[string]any{"type": "regex", "pattern": `v\d+\.\d+`}},
					map[string]any{"id": "notodo", "check": map[string]any{"type": "contains", "value": "TODO", "not": true}},
					map[string]any{"id": "length", "check": map[string]any{"type": "length", "minWords": 50, "maxChars": 4000}},
				},
			},
			"output": map[string]any{"summary": sb.String()},
		}
		b, err := json.Marshal(req, json.Deterministic(true))
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
