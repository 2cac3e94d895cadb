package trace

import "github.com/vouchgate/vouch"

// subjectKey memoises this package's work on a vouch.Subject.
type subjectKey int

const (
	tableKey subjectKey = iota
	summaryKey
)

// TableFor returns the tool table of the policy s verifies under: the
// built-in names with the policy's tools on top. It is built once per
// verification (memoised on s) and shared by every check of it.
func TableFor(s *vouch.Subject) *Table {
	if s.Policy == nil || len(s.Policy.Tools) == 0 {
		return defaultTable
	}
	return s.Memo(tableKey, func() any { return NewTable(s.Policy.Tools) }).(*Table)
}

// SummaryFor returns the summary of the trace of s's request, read with
// [TableFor]. It is computed once per verification (memoised on s) and
// shared by every check of it: callers must not modify it.
func SummaryFor(s *vouch.Subject) *Summary {
	return s.Memo(summaryKey, func() any { return Summarize(s.Request.Trace, TableFor(s)) }).(*Summary)
}
