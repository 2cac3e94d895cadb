package support

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vouchgate/vouch/text/mention"
)

var companies = []string{"Acme Corp", "Globex", "Initech", "Umbrella Labs", "Stark Industries",
	"Wayne Enterprises", "Hooli", "Vandelay Imports", "Soylent", "Tyrell Systems"}

// traceRecords returns n trace-like records: tool calls with inputs and
// JSON outputs.
func traceRecords(n int) []Source {
	srcs := make([]Source, n)
	for i := range srcs {
		co := companies[i%len(companies)]
		raw := fmt.Sprintf(`{"id":"t%d","tool":"web_search","input":{"query":"%s revenue %d"},`+
			`"output":{"title":"%s annual report","revenue_usd":%d,"employees":%d,"growth_pct":%d.%d,`+
			`"published":"2024-%02d-%02d","ceo":"Jane Doe %d"},"latency_ms":%d,"isError":false}`,
			i, co, 2015+i%9, co, 1000000+i*37000, 20+i*3, i%20, i%10, 1+i%12, 1+i%28, i, 200+i*13)
		srcs[i] = FromJSON(fmt.Sprintf("trace[%d]", i), []byte(raw))
	}
	return srcs
}

// answer5KB returns an answer of about 5 KB about the trace records,
// mixing supported and unsupported statements.
func answer5KB() string {
	var b strings.Builder
	b.WriteString("## Findings\n\n")
	for i := 0; b.Len() < 5000; i++ {
		co := companies[i%len(companies)]
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "%s reported revenue of $%.2f million in %d, with %d employees. ", co, float64(1000000+i*37000)/1e6, 2015+i%9, 20+i*3)
		case 1:
			fmt.Fprintf(&b, "The report was published on %s %d, 2024 and the search took %d ms. ", []string{"January", "March", "June", "October"}[i%4], 1+i%28, 200+i*13)
		case 2:
			fmt.Fprintf(&b, "Growth at %s reached about %d%%, according to \"%s annual report\". ", co, i%20, co)
		case 3:
			fmt.Fprintf(&b, "Analysts expect the company to keep growing steadily next year.\n\n")
		}
	}
	return b.String()
}

// cpuTime returns the CPU time the process has used; on a shared machine
// it varies less than the wall time a benchmark reports.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs f b.N times and reports the CPU time per run as cpu-ns/op.
func loop(b *testing.B, f func()) {
	b.ReportAllocs()
	start := cpuTime()
	n := 0
	for b.Loop() {
		f()
		n++
	}
	if n > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(n), "cpu-ns/op")
	}
}

// BenchmarkNewIndex50 indexes 50 trace-like records read by FromJSON.
func BenchmarkNewIndex50(b *testing.B) {
	srcs := traceRecords(50)
	loop(b, func() { NewIndex(srcs) })
}

// BenchmarkFromJSON50 reads 50 trace-like records.
func BenchmarkFromJSON50(b *testing.B) {
	raws := make([][]byte, 50)
	for i := range raws {
		raws[i] = []byte(fmt.Sprintf(`{"id":"t%d","tool":"web_search","input":{"query":"Acme revenue"},"output":{"title":"Acme annual report","revenue_usd":%d,"employees":%d,"published":"2024-03-%02d"},"latency_ms":%d,"isError":false}`, i, 1000000+i, i, 1+i%28, 200+i))
	}
	loop(b, func() {
		for i, r := range raws {
			FromJSON(fmt.Sprint(i), r)
		}
	})
}

// BenchmarkClaims5KB checks the claims of a 5 KB answer, already parsed,
// against the index of 50 records.
func BenchmarkClaims5KB(b *testing.B) {
	ix := NewIndex(traceRecords(50))
	doc := mention.Parse(answer5KB())
	loop(b, func() { ix.Claims(doc) })
}

// BenchmarkIndexAndClaims5KB is the whole step for one answer: index 50
// records, then check a parsed 5 KB answer.
func BenchmarkIndexAndClaims5KB(b *testing.B) {
	srcs := traceRecords(50)
	doc := mention.Parse(answer5KB())
	loop(b, func() { NewIndex(srcs).Claims(doc) })
}

// BenchmarkParse5KB is the mention extraction of the same answer, which
// Claims takes already done.
func BenchmarkParse5KB(b *testing.B) {
	text := answer5KB()
	loop(b, func() { mention.Parse(text) })
}

// TestBenchFixture keeps the benchmark's answer meaningful: it has
// supported and unsupported claims.
func TestBenchFixture(t *testing.T) {
	ix := NewIndex(traceRecords(50))
	claims := ix.Claims(mention.Parse(answer5KB()))
	un := len(Unsupported(claims))
	if len(claims) < 40 || un == 0 || un == len(claims) {
		t.Errorf("%d claims, %d unsupported", len(claims), un)
	}
	t.Logf("%d claims, %d unsupported", len(claims), un)
}

// BenchmarkConflicts compares 8 agent outputs of about 400 bytes each (a
// large synthesis) and reads an answer's stance on what they disagree on.
func BenchmarkConflicts(b *testing.B) {
	srcs := make([]Source, 8)
	for i := range srcs {
		srcs[i] = Source{ID: fmt.Sprintf("o%d", i), Text: fmt.Sprintf(
			"The p99 latency of /svc%d is %d ms at 300 rps; p50 is %d ms. Before the fix, the queue depth of worker %d was %d messages. "+
				"parseConfig is %sthread-safe. Created db/m%d.sql with the index on orders(user_id). "+
				"In deploy/app.yaml the memory limit of the worker container is %d MB. The cache hit rate over 7 days is %d%%.",
			i%3, 100+i*40, 20+i, i, 1000*i, map[bool]string{true: "not ", false: ""}[i%2 == 0], i%4, 256*(1+i%2), 60+i)}
	}
	answer := mention.Parse("The p99 latency of /svc1 is 140 ms. parseConfig is thread-safe. The cache hit rate is 61%.")
	b.ReportAllocs()
	for b.Loop() {
		ix := NewIndex(srcs)
		for _, c := range ix.Conflicts() {
			ix.Stance(&c, answer)
		}
		ix.Drawn(answer.Text)
	}
}
