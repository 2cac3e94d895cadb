package support

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vouchgate/vouch/text/mention"
)

// mentionOf returns the mention of kind k whose text is want in text.
func mentionOf(t *testing.T, text string, k mention.Kind, want string) mention.Mention {
	t.Helper()
	d := mention.Parse(text)
	for _, m := range d.Mentions {
		if m.Kind == k && m.Text == want {
			return m
		}
	}
	t.Fatalf("no %s %q in %q: %+v", k, want, text, d.Mentions)
	return mention.Mention{}
}

func TestFromJSON(t *testing.T) {
	cases := []struct{ raw, want string }{
		{`"plain text"`, "plain text"},
		{`{"company":"Acme","revenue_usd":3200000,"year":2023}`, "company: Acme; revenue usd: 3200000; year: 2023"},
		{`{"order":{"id":"A-1","total":{"amount":259.9,"currency":"USD"}},"reviewCount":12}`,
			"order.id: A-1; order.total.amount: 259.9; order.total.currency: USD; review count: 12"},
		{`{"tags":["red","green"],"items":[{"sku":"KB-01","qty":2},{"sku":"MS-07","qty":1}],"x":null,"ok":true}`,
			"tags: red, green; items.sku: KB-01; items.qty: 2; items.sku: MS-07; items.qty: 1; ok: true"},
		{`[{"city":"Oslo","population":709000},{"city":"Bergen","population":291000}]`,
			"city: Oslo; population: 709000\ncity: Bergen; population: 291000"},
		{`{"broken": `, `{"broken":`},
		{`1.5e6`, "1.5e6"},
	}
	for _, c := range cases {
		if got := FromJSON("s", []byte(c.raw)).Text; got != c.want {
			t.Errorf("FromJSON(%s).Text =\n%q, want\n%q", c.raw, got, c.want)
		}
	}
}

func TestKeyWords(t *testing.T) {
	for in, want := range map[string]string{
		"revenue_usd": "revenue usd", "reviewCount": "review count", "HTTPStatus": "httpstatus",
		"latency-ms": "latency ms", "Year": "year",
	} {
		if got := string(appendKeyWords(nil, in)); got != want {
			t.Errorf("appendKeyWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSingular(t *testing.T) {
	for in, want := range map[string]string{
		"companies": "company", "classes": "class", "boxes": "box", "churches": "church",
		"users": "user", "prizes": "prize", "status": "status", "analysis": "analysis",
		"class": "class", "bus": "bus", "people": "person", "news": "news", "its": "its",
		"series": "series", "tests": "test",
	} {
		if got := string(singular([]byte(in))); got != want {
			t.Errorf("singular(%q) = %q, want %q", in, got, want)
		}
	}
}

// findCase is a lookup of the mention want of kind k in text, against
// sources; ok is whether some source must hold it.
type findCase struct {
	sources []string
	text    string
	kind    mention.Kind
	want    string
	ok      bool
}

func runFind(t *testing.T, cases []findCase) {
	t.Helper()
	for _, c := range cases {
		srcs := make([]Source, len(c.sources))
		for i, s := range c.sources {
			if strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[") {
				srcs[i] = FromJSON("s", []byte(s))
			} else {
				srcs[i] = Source{ID: "s", Text: s}
			}
		}
		ix := NewIndex(srcs)
		m := mentionOf(t, c.text, c.kind, c.want)
		got := ix.Find(m) != nil
		if got != c.ok {
			t.Errorf("Find(%s %q) in %q = %v, want %v", c.kind, c.want, c.sources, got, c.ok)
		}
		// Claims reads the same atom with its context.
		claims := ix.Claims(mention.Parse(c.text))
		held := true
		for _, cl := range claims {
			for _, a := range cl.Unsupported {
				if a.Text == c.want {
					held = false
				}
			}
		}
		if held != c.ok && c.kind != kindNumber {
			t.Errorf("Claims: %s %q in %q held = %v, want %v", c.kind, c.want, c.sources, held, c.ok)
		}
	}
}

func TestFindNumbers(t *testing.T) {
	runFind(t, []findCase{
		{[]string{"It drew 1,500,000 visitors."}, "It drew 1.5 million visitors.", kindNumber, "1.5 million", true},
		{[]string{"It drew 1.5 million visitors."}, "It drew 1,500,000 visitors.", kindNumber, "1,500,000", true},
		{[]string{"The call took 2500 ms."}, "The call took 2.5 seconds.", kindNumber, "2.5 seconds", true},
		{[]string{"The call took 2.5 seconds."}, "The call took 2500 ms.", kindNumber, "2500 ms", true},
		{[]string{"The call took 2.5 seconds."}, "The call took 2.5 ms.", kindNumber, "2.5 ms", false},
		{[]string{"Margins were 25 percent."}, "Margins were 25%.", kindNumber, "25%", true},
		{[]string{`{"margin": 0.25}`}, "Margins were 25%.", kindNumber, "25%", true},
		{[]string{"Revenue was $3,215,000."}, "Revenue was $3.2 million.", kindNumber, "$3.2 million", true},
		{[]string{"Revenue was $3,215,000."}, "Revenue was $3,200,000.", kindNumber, "$3,200,000", false},
		{[]string{"Revenue was $3,215,000."}, "Revenue was €3.2 million.", kindNumber, "€3.2 million", false},
		{[]string{"It was founded in 2015."}, "It has 15 staff.", kindNumber, "15", false},
		{[]string{"It has 150 staff."}, "It has 15 staff.", kindNumber, "15", false},
		{[]string{"The file has 1.53 MB."}, "The file has 1.5 MB.", kindNumber, "1.5 MB", true},
		{[]string{`{"price": {"amount": 49.99, "currency": "EUR"}}`}, "It costs €49.99 now.", kindNumber, "€49.99", true},
	})
}

// TestHedges reads the words before a number, which only Claims sees.
func TestHedges(t *testing.T) {
	cases := []struct {
		source, answer string
		ok             bool
	}{
		{"Revenue was $3,215,000 last year.", "Revenue was about $3 million last year.", true},
		{"Revenue was $3,215,000 last year.", "Revenue was $3 million last year.", true},
		{"Revenue was $3,615,000 last year.", "Revenue was about $3 million last year.", false},
		{"The firm has 48 employees.", "The firm has about 50 employees.", true},
		{"The firm has 48 employees.", "The firm has 50 employees.", false},
		{"The firm has 44 employees.", "The firm has about 50 employees.", false},
		{"Lisbon had 545,796 inhabitants.", "Lisbon had roughly 546,000 inhabitants.", true},
		{"Lisbon had 545,796 inhabitants.", "Lisbon had roughly 556,000 inhabitants.", false},
		{"The app has 1.2 billion users.", "The app has more than a billion users.", true},
		{"The app has 0.9 billion users.", "The app has more than a billion users.", false},
		{"The app has 0.9 billion users.", "The app has under a billion users.", true},
		{`{"latency_ms": 1250}`, "It answered in 1.25 s overall.", true},
		{`{"latency_ms": 1250}`, "It answered in 1.25 ms overall.", false},
	}
	for _, c := range cases {
		ix := NewIndex([]Source{FromJSON("s", []byte(strconv.Quote(c.source)))})
		if strings.HasPrefix(c.source, "{") {
			ix = NewIndex([]Source{FromJSON("s", []byte(c.source))})
		}
		claims := ix.Claims(mention.Parse(c.answer))
		if got := !Hallucinated(claims); got != c.ok {
			t.Errorf("%q against %q: supported = %v, want %v (%+v)", c.answer, c.source, got, c.ok, claims)
		}
	}
}

func TestFindDates(t *testing.T) {
	runFind(t, []findCase{
		{[]string{"Released on 2024-03-05."}, "It shipped in March 2024.", kindDate, "March 2024", true},
		{[]string{"Released on 2024-03-05."}, "It shipped in 2024.", kindDate, "2024", true},
		{[]string{"Released in March 2024."}, "It shipped on March 5, 2024.", kindDate, "March 5, 2024", false},
		{[]string{"Released on 2024-03-05."}, "It shipped in April 2024.", kindDate, "April 2024", false},
		{[]string{`{"year": 2023}`}, "It opened in 2023.", kindDate, "2023", true},
		{[]string{`{"launch_date": "2023-09-12"}`}, "It opened on 12 September 2023.", kindDate, "12 September 2023", true},
	})
}

func TestFindEntities(t *testing.T) {
	runFind(t, []findCase{
		{[]string{"Shares of ACME Corp rose."}, "Analysts at Acme Corp's office agreed.", kindEntity, "Acme Corp", true},
		{[]string{"She won the Nobel Prize twice."}, "She won two Nobel Prizes.", kindEntity, "Nobel Prizes", true},
		{[]string{"John Adams met Samuel Smith."}, "We saw John Smith later.", kindEntity, "John Smith", false},
		{[]string{"The Parisian café was full."}, "They met in Paris later.", kindEntity, "Paris", false},
		{[]string{"Christine Lagarde spoke."}, "Then President Christine Lagarde spoke.", kindEntity, "President Christine Lagarde", true},
		{[]string{"Dr. Helen Park led the study at Johns Hopkins University."},
			"It was led by Helen Park of Johns Hopkins University.", kindEntity, "Helen Park of Johns Hopkins University", true},
		{[]string{"The European Central Bank raised rates."}, "Then the ECB raised rates.", kindEntity, "ECB", true},
		{[]string{"She moved to Zurich."}, "Later she moved to Zürich.", kindEntity, "Zürich", true},
	})
}

func TestFindQuantities(t *testing.T) {
	runFind(t, []findCase{
		{[]string{"PASS: 128 tests"}, "All 128 tests passed.", kindQuantity, "128 tests", true},
		{[]string{"PASS: 128 tests"}, "All 182 tests passed.", kindQuantity, "182 tests", false},
		{[]string{`{"tests": 128}`}, "All 128 tests passed.", kindQuantity, "128 tests", true},
		{[]string{"128 files changed"}, "All 128 tests passed.", kindQuantity, "128 tests", false},
	})
}

func TestFindVerbatim(t *testing.T) {
	ix := NewIndex([]Source{{ID: "a", Text: "see src/parser.ts and https://x.io/a"}, {ID: "b", Text: "src/parser.tsx"}})
	for _, c := range []struct {
		m    mention.Mention
		want []string
	}{
		{mention.Mention{Kind: "file", Text: "src/parser.ts"}, []string{"a"}},
		{mention.Mention{Kind: "url", Text: "https://x.io/a"}, []string{"a"}},
		{mention.Mention{Kind: "file", Text: "parser.go"}, nil},
	} {
		if got := ix.Find(c.m); !slices.Equal(got, c.want) {
			t.Errorf("Find(%q) = %q, want %q", c.m.Text, got, c.want)
		}
	}
}

func TestClaims(t *testing.T) {
	srcs := []Source{
		FromJSON("sources[0]", []byte(`{"company":"Acme","revenue_usd":3200000,"year":2023,"employees":48}`)),
		{ID: "sources[1]", Text: `The CEO, Jane Smith, said the year was "hard but rewarding". Acme was founded in 1998 in Denver.`},
		{ID: "sources[2]", Text: "Weather in Denver was mild all year."},
	}
	ix := NewIndex(srcs)
	answer := "# Acme in 2023\n\n" +
		"Acme reported revenue of $3.5 million in 2023 with 48 employees. " +
		"Jane Smith called it \"hard but rewarding\". " +
		"She said it was \"a record year for everyone\". " +
		"Acme was founded in 1996 in Denver. " +
		"The team worked hard all year.\n\n" +
		"```\nrevenue = 99\n```\n"
	claims := ix.Claims(mention.Parse(answer))
	if len(claims) != 5 {
		for _, c := range claims {
			t.Logf("claim %q", c.Sentence.Text)
		}
		t.Fatalf("got %d claims, want 5", len(claims))
	}
	type want struct {
		unsupported  []string
		contradicted map[string]string // atom text → found
		first        string
		checkable    bool
	}
	wants := []want{
		{[]string{"$3.5 million"}, map[string]string{"$3.5 million": "3200000"}, "sources[0]", true},
		{nil, nil, "sources[1]", true},
		{[]string{"a record year for everyone"}, nil, "", true},
		{[]string{"1996"}, map[string]string{"1996": "1998"}, "sources[1]", true},
		{nil, nil, "", false},
	}
	for i, w := range wants {
		c := claims[i]
		var un []string
		for _, a := range c.Unsupported {
			un = append(un, a.Text)
		}
		if !slices.Equal(un, w.unsupported) {
			t.Errorf("claim %d %q: unsupported %q, want %q", i, c.Sentence.Text, un, w.unsupported)
		}
		got := map[string]string{}
		for _, ct := range c.Contradicted {
			got[ct.Atom.Text] = ct.Found
		}
		if len(got) != len(w.contradicted) {
			t.Errorf("claim %d %q: contradicted %v, want %v", i, c.Sentence.Text, got, w.contradicted)
		}
		for k, v := range w.contradicted {
			if got[k] != v {
				t.Errorf("claim %d %q: contradicted %q found %q, want %q", i, c.Sentence.Text, k, got[k], v)
			}
		}
		first := ""
		if len(c.Sources) > 0 {
			first = c.Sources[0]
		}
		if w.first != "" && first != w.first {
			t.Errorf("claim %d %q: sources %q, want %s first", i, c.Sentence.Text, c.Sources, w.first)
		}
		if c.Checkable != w.checkable {
			t.Errorf("claim %d %q: checkable %v", i, c.Sentence.Text, c.Checkable)
		}
		if c.Overlap < 0 || c.Overlap > 1 {
			t.Errorf("claim %d: overlap %v", i, c.Overlap)
		}
	}
	if !Hallucinated(claims) || len(Unsupported(claims)) != 3 {
		t.Errorf("Hallucinated = %v, Unsupported = %d", Hallucinated(claims), len(Unsupported(claims)))
	}
	if g, ok := Groundedness(claims); !ok || g != 0.25 {
		t.Errorf("Groundedness = %v, %v; want 0.25, true", g, ok)
	}
}

// TestNoContradictionWithoutAnchor keeps contradictions conservative: a
// different number elsewhere in a source is not one.
func TestNoContradictionWithoutAnchor(t *testing.T) {
	ix := NewIndex([]Source{{ID: "s", Text: "Acme hired 40 engineers. Beta reported revenue of $2.9 million."}})
	claims := ix.Claims(mention.Parse("Acme reported revenue of $3.2 million."))
	if len(claims) != 1 || len(claims[0].Unsupported) != 1 || len(claims[0].Contradicted) != 0 {
		t.Errorf("claims %+v", claims)
	}
}

func TestGroundednessNotApplicable(t *testing.T) {
	ix := NewIndex(nil)
	claims := ix.Claims(mention.Parse("The team worked hard."))
	if _, ok := Groundedness(claims); ok {
		t.Error("prose claims made groundedness applicable")
	}
	if Hallucinated(claims) {
		t.Error("prose flagged")
	}
	if ix.Claims(nil) != nil {
		t.Error("nil doc")
	}
}

func TestPrecisionWindow(t *testing.T) {
	cases := []struct {
		text   string
		v      float64
		b      int
		lo, hi float64
	}{
		{"3.2 million", 3.2e6, boundExact, 3.15e6, 3.25e6},
		{"3,200,000", 3.2e6, boundExact, 3.2e6, 3.2e6},
		{"3 million", 3e6, boundApprox, 2.5e6, 3.5e6},
		{"3,000,000", 3e6, boundApprox, 2.7e6, 3.3e6},
		{"50", 50, boundApprox, 45, 55},
		{"1,200", 1200, boundApprox, 1150, 1250},
		{"4.1", 4.1, boundExact, 4.05, 4.15},
		{"a billion", 1e9, boundLower, 1e9, 2e9},
	}
	for _, c := range cases {
		lo, hi := window(c.v, precisionOf(c.text, c.v), c.b)
		if abs(lo-c.lo) > 1e-6*max(1, c.lo) || abs(hi-c.hi) > 1e-6*max(1, c.hi) {
			t.Errorf("window(%q, %d) = [%v, %v], want [%v, %v]", c.text, c.b, lo, hi, c.lo, c.hi)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestJSONText reads a Source whose Text is JSON as FromJSON would.
func TestJSONText(t *testing.T) {
	ix := NewIndex([]Source{{ID: "trace[0]", Text: ` {"tool":"http","output":{"status":200,"latency_ms":1250}}`}})
	claims := ix.Claims(mention.Parse("The call answered in 1,250 milliseconds."))
	if Hallucinated(claims) || len(claims) != 1 || !slices.Equal(claims[0].Sources, []string{"trace[0]"}) {
		t.Errorf("claims %+v", claims)
	}
	// A Source changed after FromJSON is read from its Text.
	s := FromJSON("s", []byte(`{"latency_ms":1250}`))
	s.Text = "The call took 3 s."
	claims = NewIndex([]Source{s}).Claims(mention.Parse("The call took 3 seconds."))
	if Hallucinated(claims) {
		t.Errorf("claims %+v", claims)
	}
}

// TestConcurrentClaims shares one index between goroutines; run with
// -race.
func TestConcurrentClaims(t *testing.T) {
	ix := NewIndex(traceRecords(20))
	doc := mention.Parse(answer5KB())
	want := len(Unsupported(ix.Claims(doc)))
	done := make(chan int)
	for range 4 {
		go func() { done <- len(Unsupported(ix.Claims(doc))) }()
	}
	for range 4 {
		if got := <-done; got != want {
			t.Errorf("unsupported %d, want %d", got, want)
		}
	}
}

func TestJSONDurations(t *testing.T) {
	ix := NewIndex([]Source{FromJSON("k6", []byte(`{"tool": "k6", "vus": 400, "duration": "15m", "warmup": "1h30m"}`))})
	for claim, want := range map[string]bool{
		"400 users ran for 15 minutes.":       true,
		"The warm-up took 90 minutes.":        true,
		"400 users ran for 15 metres.":        false,
		"The run lasted about 16 minutes.":    false,
		"400 users ran for a quarter of 1 h.": false,
	} {
		if got := !Hallucinated(ix.Claims(mention.Parse(claim))); got != want {
			t.Errorf("%q supported = %v, want %v", claim, got, want)
		}
	}
}

// TestOrdered: a sentence whose key words a source holds said together is
// ordered 1; one that takes the same words apart, changes a figure's
// digits or drops a negation loses the pairs it breaks.
func TestOrdered(t *testing.T) {
	ix := NewIndex([]Source{{ID: "s", Text: "The central bank expanded emergency bond buying on Tuesday. " +
		"The index touched 0.5% before noon. The suspect was not arrested."}})
	for _, tt := range []struct {
		sentence string
		full     bool
	}{
		{"The central bank expanded emergency bond buying on Tuesday.", true},
		{"Emergency bond buying was expanded by the central bank.", false}, // the same words, said apart
		{"The central bank expanded emergency loan buying on Tuesday.", false},
		{"The index touched 0.505% before noon.", false},
		{"The suspect was arrested.", false},
		{"The suspect was not arrested.", true},
	} {
		cs := ix.Claims(mention.Parse(tt.sentence))
		if len(cs) != 1 {
			t.Fatalf("%q: %d claims", tt.sentence, len(cs))
		}
		o := cs[0].Ordered
		if o < 0 || o > 1 || (o == 1) != tt.full {
			t.Errorf("%q: ordered %.2f, want full %v", tt.sentence, o, tt.full)
		}
	}
}
