package web

import (
	"testing"
	"time"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/store"
)

// What the tests of package web_test (which drive the dashboard through
// a real server, and so cannot be in package web, which the server
// imports) borrow from this package's own tests.

// Epoch is the time the fixtures are stamped with by default.
var Epoch = epoch

// ComplexitySpan names a bin of score by complexity as the quality page
// does.
var ComplexitySpan = complexitySpan

// Fixture is a stored verification for a test, as [fixture] builds it:
// zero fields take the defaults of a retried subtask of tenant "default"
// whose output mentions a file that was read and a symbol that was not.
type Fixture struct {
	Tenant, ID string
	Attempt    int
	Summary    string
	Verdict    vouch.Verdict
	Review     bool
	Model      string
	Kind       vouch.Kind
	At         time.Time
	// Calls, when above 0, gives the request a trace of that many tool
	// calls, a failed test run at FailedRun(Calls), which the report's
	// check 4 (claims.tests) cites, refuting claim c3 ("the tests pass").
	Calls int
	// CallText is written into the input and the output of the trace's
	// first call.
	CallText string
}

// FailedRun is the index of the failed test run in a fixture's trace of
// n calls.
func FailedRun(n int) int { return failedRun(n) }

// Verification builds the stored row of f.
func (f Fixture) Verification(t testing.TB) *store.Verification {
	t.Helper()
	return fixture{tenant: f.Tenant, id: f.ID, attempt: f.Attempt, summary: f.Summary, verdict: f.Verdict,
		review: f.Review, model: f.Model, kind: f.Kind, at: f.At, calls: f.Calls, callText: f.CallText}.verification(t)
}

// AcceptReason is the reason of an override the review queue's accept
// records.
const AcceptReason = acceptReason
