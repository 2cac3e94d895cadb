package wire

import (
	"math"
	"testing"

	gojson "github.com/go-json-experiment/json"

	"github.com/vouchgate/vouch"
)

// TestAppendReportMatchesReflection holds the hand-written report encoder
// to exactly the bytes json.Marshal writes with the report options.
func TestAppendReportMatchesReflection(t *testing.T) {
	odd := fullReport()
	odd.Feedback = "bad \xff utf8, <html> & \"quotes\"\n\ttabs \u2028 and \x01 control"
	odd.Checks[0].Evidence = map[string]any{
		"int": 3, "int64": int64(-7), "float": 0.1, "tiny": 1e-9, "huge": 1e22, "neg": -2.5,
		"bool": true, "nil": nil, "list": []any{"a", 1.5, false, map[string]any{"z": 1, "a": []string{"x"}}},
		"strings": []string{}, "nested": map[string]any{}, "struct": struct {
			A int `json:"a"`
		}{4}, "intList": []int{1, 2},
	}
	odd.Warnings[0].Details = map[string]any{}
	odd.Dimensions = nil
	odd.Judge.Models = nil
	odd.Score = ptr(0.0)
	odd.DurationMs = 1e-7

	for name, r := range map[string]*vouch.Report{
		"full": fullReport(), "nothing decided": nothingDecided(), "odd": odd,
	} {
		want, err := gojson.Marshal(r, reportOptions)
		if err != nil {
			t.Fatalf("%s: reflection: %v", name, err)
		}
		got, err := MarshalReport(r)
		if err != nil {
			t.Fatalf("%s: MarshalReport: %v", name, err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: encoders differ\n got: %s\nwant: %s", name, got, want)
		}
	}
}

func TestAppendReportRejectsNaN(t *testing.T) {
	r := fullReport()
	r.Confidence = math.NaN()
	if _, err := MarshalReport(r); err == nil {
		t.Error("NaN confidence encoded without error")
	}
	r = fullReport()
	r.Checks[0].Evidence = map[string]any{"ch": make(chan int)}
	if _, err := MarshalReport(r); err == nil {
		t.Error("a channel in evidence encoded without error")
	}
	if _, err := MarshalReport(nil); err == nil {
		t.Error("nil report encoded")
	}
}
