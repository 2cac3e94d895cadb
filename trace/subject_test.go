package trace

import (
	"testing"

	"github.com/vouchgate/vouch"
)

func TestSubjectMemo(t *testing.T) {
	req := &vouch.Request{Trace: []vouch.TraceEntry{call("kb:lookup", in("query", "q"), "3 hits", false)}}
	s := &vouch.Subject{Request: req}
	if TableFor(s) != Builtin() {
		t.Error("no policy: want the built-in table")
	}
	pol := vouch.DefaultPolicy()
	pol.Tools = map[string]string{"kb:lookup": "search"}
	s = &vouch.Subject{Request: req, Policy: &pol}
	tbl := TableFor(s)
	if tbl == Builtin() || tbl != TableFor(s) || tbl.Op("kb:lookup") != OpSearch {
		t.Error("the policy's table is not built once")
	}
	sum := SummaryFor(s)
	if sum != SummaryFor(s) || len(sum.Searches) != 1 || len(sum.Plugins) != 0 {
		t.Errorf("summary %+v", sum)
	}
}
