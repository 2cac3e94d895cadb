package wire_test

import (
	"fmt"
	"os"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/wire"
)

func ExampleDecodeRequest() {
	req, err := wire.DecodeRequest([]byte(`{
		"task": {"criteria": [{"text": "says DONE", "check": {"type": "contains", "value": "DONE"}}]},
		"output": {"summary": "DONE: all four documented"}
	}`), wire.Options{Name: "request.json"})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := req.Task.Criteria[0]
	fmt.Println(req.EffectiveKind(), c.ID, c.Check.Type, string(c.Check.Raw))
	// Output:
	// subtask c1 contains {"type": "contains", "value": "DONE"}
}

func ExampleDecodeRequest_errors() {
	_, err := wire.DecodeRequest([]byte(`task:
  criteria:
    - weight: -1
output:
  summary: done
  testResult: green
`), wire.Options{Name: "request.yaml"})
	for _, e := range vouch.ErrorList(err) {
		fmt.Println(e.Code, e)
	}
	// Output:
	// invalid_value request.yaml:3:15: task.criteria[0].weight: must be a finite number >= 0, got -1
	// invalid_value request.yaml:6:15: output.testResult: "green" is not one of "passed", "failed", "skipped"
}

func ExampleEncodeReport() {
	r := &vouch.Report{
		APIVersion: vouch.APIVersion,
		ID:         "r-1",
		Kind:       vouch.KindSubtask,
		Attempt:    1,
		Verdict:    vouch.VerdictUnverified,
		Action:     vouch.ActionAccept,
	}
	if err := wire.EncodeReport(os.Stdout, r, false); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"apiVersion":"vouch/v1","id":"r-1","kind":"subtask","attempt":1,"verdict":"unverified","action":"accept","score":null,"confidence":0,"needsReview":false,"claims":[],"coverage":null,"dimensions":{},"criteria":[],"checks":[],"mentions":{"verified":[],"unverified":[],"refuted":[]},"gaps":[],"issues":[],"suggestions":[],"warnings":[],"feedback":"","cost":{"judgeCalls":0,"cacheHits":0,"cacheMisses":0,"inputTokens":0,"outputTokens":0,"usd":0,"taskCostRatio":null},"answerChars":0,"durationMs":0}
}
