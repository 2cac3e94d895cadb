package support

import (
	"slices"
	"strings"
	"testing"

	"github.com/vouchgate/vouch/text/mention"
)

func sources(texts ...string) []Source {
	out := make([]Source, len(texts))
	for i, t := range texts {
		out[i] = Source{ID: string(rune('a' + i)), Text: t}
	}
	return out
}

func TestConflicts(t *testing.T) {
	cases := []struct {
		name    string
		texts   []string
		kind    string // "" for no conflict
		subject string // a word the subject holds
		a, b    string // the sides' texts
	}{
		{"value", []string{"The p99 latency of /search is 340 ms.", "Benchmark rerun: the p99 latency of /search is 120 ms."},
			ConflictValue, "latency", "340 ms", "120 ms"},
		{"units converted", []string{"The cold start of the pricing function is 1.8 s.", "From the metric: the cold start of the pricing function is 4200 ms."},
			ConflictValue, "cold", "1.8", "4200 ms"},
		{"count with a scale word", []string{"The backlog of the email queue peaked at 12,000 messages at 08:40.", "According to the dashboard, the backlog of the email queue peaked at 1.2k messages."},
			ConflictValue, "backlog", "12,000", "1.2k"},
		{"date", []string{"The maintenance window is on 2024-06-08.", "The board moved it: the maintenance window is on 2024-06-15."},
			ConflictValue, "window", "2024-06-08", "2024-06-15"},
		{"leading file is where, not what", []string{"In deploy/app.yaml the memory limit of the worker container is 512 MB.", "kubectl: the memory limit of the worker container is 2 GB."},
			ConflictValue, "memory", "512 MB", "2 GB"},
		{"records", []string{`{"service": "search", "p99_ms": 340}`, `{"service": "search", "p99_ms": 120}`},
			ConflictValue, "search", "340", "120"},
		{"polarity", []string{"parseConfig is thread-safe: it only reads the defaults table.", "parseConfig is not thread-safe."},
			ConflictPolarity, "parseConfig", "parseConfig is thread-safe", "parseConfig is not thread-safe"},
		{"contraction", []string{"decodeWebP isn't reachable from untrusted input.", "decodeWebP is reachable from untrusted input: the avatar handler calls it."},
			ConflictPolarity, "decodeWebP", "decodeWebP isn't reachable from untrusted input", "decodeWebP is reachable from untrusted input"},
		{"file", []string{"Created migrations/0042_idx.sql with the index.", "Deleted migrations/0042_idx.sql: the index exists."},
			ConflictFile, "migrations/0042_idx.sql", "created", "deleted"},
		{"file deleted first", []string{"Removed config/old.yaml.", "Wrote config/old.yaml with the defaults."},
			ConflictFile, "config/old.yaml", "created", "deleted"},

		{"same value written differently", []string{"The throughput is 1.5k notifications per second.", "The throughput is 1,500 notifications per second."}, "", "", "", ""},
		{"rounded", []string{"The users table holds 48.2 million rows.", "Exact count: the users table holds 48,196,551 rows."}, "", "", "", ""},
		{"other percentile", []string{"The p95 latency of the API is 80 ms.", "The p99 latency of the API is 340 ms."}, "", "", "", ""},
		{"before and after", []string{"Before the fix, the p99 load time of the page was 2.4 s.", "After the fix, the p99 load time of the page is 310 ms."}, "", "", "", ""},
		{"other endpoint", []string{"Checkout p99 latency is 340 ms.", "Search p99 latency is 120 ms."}, "", "", "", ""},
		{"range and point", []string{"The replication lag ranges from 2 to 6 seconds.", "The replication lag is typically 4 seconds."}, "", "", "", ""},
		{"other records", []string{`{"api": "search", "error_rate": 0.012}`, `{"api": "checkout", "error_rate": 0.0008}`}, "", "", "", ""},
		{"qualified statements", []string{"SessionCache is safe for concurrent reads.", "SessionCache is not safe for concurrent writes."}, "", "", "", ""},
		{"other symbols", []string{"parseConfig is thread-safe.", "loadConfig is not thread-safe."}, "", "", "", ""},
		{"one source", []string{"The p99 is 340 ms; the p99 latency of search was 120 ms before."}, "", "", "", ""},
		{"short key", []string{"Latency is 340 ms.", "Latency is 120 ms."}, "", "", "", ""},
		{"question", []string{"Is parseConfig thread-safe?", "parseConfig is not thread-safe."}, "", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := NewIndex(sources(c.texts...)).Conflicts()
			if c.kind == "" {
				if len(got) != 0 {
					t.Fatalf("conflicts %+v, want none", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("%d conflicts %+v, want 1", len(got), got)
			}
			g := got[0]
			if g.Kind != c.kind || !strings.Contains(strings.ToLower(g.Subject), strings.ToLower(c.subject)) || g.A.Text != c.a || g.B.Text != c.b {
				t.Errorf("conflict %s %q: %q vs %q; want %s on %q: %q vs %q", g.Kind, g.Subject, g.A.Text, g.B.Text, c.kind, c.subject, c.a, c.b)
			}
			if g.A.Source == g.B.Source || g.A.Sentence == "" || g.B.Sentence == "" {
				t.Errorf("sides %+v %+v", g.A, g.B)
			}
		})
	}
}

func TestStance(t *testing.T) {
	value := []string{"The p99 latency of /search is 340 ms.", "The p99 latency of /search is 120 ms."}
	polarity := []string{"parseConfig is thread-safe.", "parseConfig is not thread-safe: it writes a map."}
	file := []string{"Created db/0042.sql.", "Deleted db/0042.sql."}
	cases := []struct {
		name   string
		texts  []string
		answer string
		want   Stance
	}{
		{"value A", value, "After the rebuild the p99 latency of /search is 340 ms.", StanceA},
		{"value B", value, "The p99 latency is 120 ms, inside the objective.", StanceB},
		{"value both", value, "The p99 latency of /search was 340 ms in one run and 120 ms in the other.", StanceBoth},
		{"value disputed", value, "The p99 latency measurements of /search disagree; one saw 120 ms.", StanceBoth},
		{"value elsewhere", value, "The index shrank to 31 GB. Pulls take 120 ms.", StanceNone},
		{"value untouched", value, "The index shrank to 31 GB.", StanceNone},
		{"polarity A", polarity, "parseConfig is thread-safe, so reloads can run anytime.", StanceA},
		{"polarity B", polarity, "Reloads must be serialised: parseConfig isn't thread-safe.", StanceB},
		{"polarity whether", polarity, "The outputs disagree on whether parseConfig is thread-safe.", StanceBoth},
		{"polarity untouched", polarity, "The swap uses an atomic pointer.", StanceNone},
		{"file A", file, "The migration db/0042.sql adds the index.", StanceA},
		{"file deleted", file, "db/0042.sql was created and then deleted again.", StanceBoth},
		{"file untouched", file, "No migration is needed.", StanceNone},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ix := NewIndex(sources(c.texts...))
			cs := ix.Conflicts()
			if len(cs) != 1 {
				t.Fatalf("%d conflicts, want 1: %+v", len(cs), cs)
			}
			if got := ix.Stance(&cs[0], mention.Parse(c.answer)); got != c.want {
				t.Errorf("Stance(%q) = %d, want %d", c.answer, got, c.want)
			}
		})
	}
}

func TestConflictsBounded(t *testing.T) {
	var texts []string
	for i := 0; i < 60; i++ {
		texts = append(texts, "The p99 latency of /search is "+string(rune('1'+i%9))+"00 ms.")
	}
	if got := NewIndex(sources(texts...)).Conflicts(); len(got) != maxConflicts {
		t.Errorf("%d conflicts, want the cap %d", len(got), maxConflicts)
	}
}

func TestDerived(t *testing.T) {
	cases := []struct {
		source, claim string
		supported     bool
	}{
		{"A trial copy moved 180 GB in 2 h 50 min.", "The copy takes about 3 hours.", true},
		{"A trial copy moved 180 GB in 2 h 50 min.", "The copy takes 170 minutes.", true},
		{"A trial copy moved 180 GB in 2 hours 50 minutes.", "The copy takes about 5 hours.", false},
		{"The 502s started at 14:02 and stopped at 14:16 on Tuesday.", "The spike lasted 14 minutes.", true},
		{"Internal DNS was down from 10:05 to 10:47.", "DNS was down for 42 minutes.", true},
		{"Internal DNS was down from 10:05 to 10:47.", "DNS was down for 45 minutes.", false},
		{"The job ran at 10:05. It failed at 10:47.", "The job ran for 42 minutes.", false}, // other sentences
		// A clock time or a spelled number is derived after the values
		// written in digits: an hour written last is not paired with it.
		{"At 9 pm the copy had run for 3 h.", "The copy ran for 3 hours.", true},
		{"The copy ran for two hours five minutes.", "The copy ran for 125 minutes.", true},
	}
	for _, c := range cases {
		claims := NewIndex([]Source{{ID: "s", Text: c.source}}).Claims(mention.Parse(c.claim))
		if got := !Hallucinated(claims); got != c.supported {
			t.Errorf("%q by %q: supported = %v, want %v (%+v)", c.claim, c.source, got, c.supported, claims)
		}
	}
	// Derived values never contradict.
	ix := NewIndex(sources("The outage lasted from 10:05 to 10:47.", "The outage lasted 40 minutes."))
	if cs := ix.Conflicts(); len(cs) != 0 {
		t.Errorf("conflicts %+v, want none", cs)
	}
}

func TestDrawn(t *testing.T) {
	ix := NewIndex([]Source{
		{ID: "queue", Text: "The write-ahead queue occupancy at the plateau is 0.5 of capacity."},
		{ID: "db", Text: "Database CPU stays below 40% at the plateau; the database is not the bottleneck."},
		{ID: "load", Text: "Throughput plateaus at 1,500 rps."},
		{ID: "reads", Text: "SessionCache is safe for concurrent reads; Get only loads from a sync.Map."},
		{ID: "writes", Text: "SessionCache is not safe for concurrent writes; Put must hold the shard lock."},
		{ID: "goal", Text: "Check the write-ahead queue and the database.", Aside: true},
	})
	got := ix.Drawn("The write-ahead queue stays half full, and the database is not the bottleneck. " +
		"SessionCache is safe for concurrent reads, but Put must hold the shard lock.")
	want := []bool{true, true, false, true, true, false}
	if !slices.Equal(got, want) {
		t.Errorf("Drawn = %v, want %v", got, want)
	}
}

func TestDiscourse(t *testing.T) {
	for text, want := range map[string]bool{
		"Three changes would cut the bill.": true,
		"Two medium issues remain.":         true,
		"The suite has 37 failing tests.":   false,
		"We found 40 issues in the audit.":  false,
	} {
		d := mention.Parse(text)
		found := false
		for _, m := range d.Mentions {
			if m.Kind == kindQuantity {
				found = true
				if got := Discourse(Atom{Kind: string(m.Kind), Text: m.Text, Norm: m.Norm}); got != want {
					t.Errorf("Discourse(%q) = %v, want %v", m.Text, got, want)
				}
			}
		}
		if !found && want {
			t.Errorf("no quantity in %q: %+v", text, d.Mentions)
		}
	}
}

func TestConflictsAntonyms(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"The new_checkout flag is ON in production.", "The new_checkout flag is OFF in production.", true},
		{"Storage encryption is enabled on orders-db.", "Storage encryption is disabled on orders-db.", true},
		{"Storage encryption is enabled on orders-db.", "Storage encryption is not disabled on orders-db.", false},
		{"The bucket is public.", "The bucket is private to the team.", false}, // two words: too few to tell
		{"The bucket is public.", "The bucket policy is private.", false},
		{"The health check is failing on web-1.", "The health check is passing on web-1.", true},
		{"We turned it on in staging.", "The flag turned out off-putting.", false},
	}
	for _, c := range cases {
		got := len(NewIndex(sources(c.a, c.b)).Conflicts()) > 0
		if got != c.want {
			t.Errorf("%q vs %q: conflict = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
