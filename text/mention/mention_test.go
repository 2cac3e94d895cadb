package mention

import (
	"fmt"
	"strings"
	"testing"
)

// show formats the mentions of text as "kind Text=Norm", one per mention.
func show(text string) []string {
	var out []string
	for _, m := range Parse(text).Mentions {
		s := fmt.Sprintf("%s %s", m.Kind, m.Text)
		if m.Norm != m.Text {
			s += "=" + m.Norm
		}
		out = append(out, s)
	}
	return out
}

type mcase struct {
	text string
	want []string // every mention of the text, in order
}

func runCases(t *testing.T, cases []mcase) {
	t.Helper()
	for _, c := range cases {
		got := show(c.text)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("Parse(%q):\n got  %q\n want %q", c.text, got, c.want)
		}
	}
}

func TestFiles(t *testing.T) {
	runCases(t, []mcase{
		{"Edited src/parser.ts and parser.ts.", []string{"file src/parser.ts", "file parser.ts"}},
		{"See ./lib/a.ex and /abs/path/x.go.", []string{"file ./lib/a.ex=lib/a.ex", "file /abs/path/x.go"}},
		{"Updated docs/README.md", []string{"file docs/README.md"}},
		{"The bug is in src/parser.ts:45 and lexer.go:45:7.", []string{"file src/parser.ts:45=src/parser.ts", "file lexer.go:45:7=lexer.go"}},
		{"See parser.ts#L45 for it.", []string{"file parser.ts#L45=parser.ts"}},
		{"Look at `src/parser.ts:12`.", []string{"file src/parser.ts:12=src/parser.ts"}},
		{"Touched Makefile, Dockerfile, go.mod, package.json and .gitignore.", []string{"file Makefile", "file Dockerfile", "file go.mod", "file package.json", "file .gitignore"}},
		{"Wrote `tsconfig.base.json` and jest.config.js", []string{"file tsconfig.base.json", "file jest.config.js"}},
		{"Copied files into `priv/static/assets/` and cmd/vouch.", []string{"file priv/static/assets/=priv/static/assets", "file cmd/vouch"}},
		{"Ran go test ./mention/... and it passed.", []string{"file ./mention/...=mention"}},
		{"Added .env.local and .eslintrc to the repo.", []string{"file .env.local", "file .eslintrc"}},
		{"The `.github/workflows/ci.yml` file runs it.", []string{"file .github/workflows/ci.yml"}},
		{"Fixed main.c and util.h.", []string{"file main.c", "file util.h"}},
		// Not files.
		{"Use a tool, e.g. grep, i.e. a search.", nil},
		{"Upgraded to v1.2.3 from 1.2.3 with pi at 3.14 percent.", []string{"number 3.14 percent=3.14"}},
		{"Built with Node.js, Vue.js, Next.js and ASP.NET on docs.rs.", nil},
		{"We used highlight.js and socket.io for it.", nil},
		{"The input/output and read/write paths, and/or TCP/IP.", nil},
		{"Pushed to `origin/spotter-gqc` and origin/main.", nil},
		{"Closed spotter-dov.1 and gqc.6 today.", nil},
		{"Meet at 9 a.m. in the U.S. office.", []string{"number 9"}},
		{"Visit https://example.com/src/parser.ts today.", []string{"url https://example.com/src/parser.ts"}},
		{"The site example.com is up.", nil},
		{"All .ts files and the .js ones.", nil},
		{"It is 50/50 and 1/2 done.", nil},
		{"Read the `README` and LICENSE.", nil},
		{"The api/users route returns 404.", []string{"file api/users", "number 404"}},
		{"Go to /api/users in the browser.", nil},
	})
}

func TestFileLine(t *testing.T) {
	for text, want := range map[string]int{
		"src/parser.ts:45":                 45,
		"src/parser.ts:45:7":               45,
		"parser.ts#L45":                    45,
		"parser.ts#L45-L50":                45,
		"a.go:10-20":                       10,
		"`subagent_live.ex:25:guard_fail`": 25,
		"parser.ts":                        0,
	} {
		d := Parse(text)
		if len(d.Mentions) != 1 || d.Mentions[0].Kind != "file" || d.Mentions[0].Line != want {
			t.Errorf("Parse(%q) = %+v, want a file at line %d", text, d.Mentions, want)
		}
	}
}

func TestPackages(t *testing.T) {
	runCases(t, []mcase{
		{"Installed @scope/pkg and @types/node@20.1.0.", []string{"package @scope/pkg", "package @types/node@20.1.0=@types/node"}},
		{"Imported github.com/x/y and golang.org/x/sync/errgroup.", []string{"package github.com/x/y", "package golang.org/x/sync/errgroup"}},
		{"Pinned gopkg.in/yaml.v3 and github.com/google/go-cmp@v0.7.0.", []string{"package gopkg.in/yaml.v3", "package github.com/google/go-cmp@v0.7.0=github.com/google/go-cmp"}},
		{"It calls `numpy.linalg` and os.path.", []string{"package numpy.linalg", "package os.path"}},
		{"Use `from collections.abc import Mapping` here.", []string{"package collections.abc"}},
		{"The code does from numpy.linalg import norm.", []string{"package numpy.linalg"}},
		{"Add `import numpy as np` at the top.", []string{"package numpy"}},
		{"It has `import React from 'react'` first.", []string{"package react"}},
		{"Ran npm install express lodash then built.", []string{"package express", "package lodash"}},
		{"Run `npm install -D vitest @testing-library/react`.", []string{"package vitest", "package @testing-library/react"}},
		{"Then pip install requests and go get golang.org/x/sync.", []string{"package requests", "package golang.org/x/sync"}},
		{"Use `go get golang.org/x/sync@latest`.", []string{"package golang.org/x/sync@latest=golang.org/x/sync"}},
		{"The lodash package is used by the `zod` library.", []string{"package lodash", "package zod"}},
		{"Need the `lazy_html` dependency.", []string{"package lazy_html"}},
		{"Need `lazy_html` as a dependency.", []string{"symbol lazy_html"}},
		// Not packages.
		{"The new package is ready and the standard library helps.", nil},
		{"We need a logging library and the full module paths.", nil},
		{"The Python package and the npm package exist.", nil},
		{"Ran `go test ./...` and `npm test` and `pip list`.", nil},
		{"The `requests` module is used.", []string{"package requests"}},
		{"Please install the update today.", nil},
		{"Mail me at a@b.com or @someone.", nil},
		{"Read github.com/x/y/blob/main/README.md first.", nil},
		{"`pip install -r requirements.txt` then test.", nil},
	})
}

func TestSymbols(t *testing.T) {
	runCases(t, []mcase{
		{"Added ClassName and parseConfig.", []string{"symbol ClassName", "symbol parseConfig"}},
		{"Call functionName() and obj.method() then Type.method.", []string{"symbol functionName()=functionName", "symbol obj.method()=obj.method", "symbol Type.method"}},
		{"Renamed snake_case_name() and MAX_RETRIES.", []string{"symbol snake_case_name()=snake_case_name", "symbol MAX_RETRIES"}},
		{"Documented `parseConfig`, `parse` and __init__.", []string{"symbol parseConfig", "symbol parse", "symbol __init__"}},
		{"The XMLParser wraps an HTTPServer and S3Client.", []string{"symbol XMLParser", "symbol HTTPServer", "symbol S3Client"}},
		{"Use std::vector and Parser::parse and Array#map.", []string{"symbol std::vector", "symbol Parser::parse", "symbol Array#map"}},
		{"Called `render/1` and `Tmux.launch_project_review/3`.", []string{"symbol render/1=render", "symbol Tmux.launch_project_review/3=Tmux.launch_project_review"}},
		{"Call `Phoenix.ConnTest.build_conn()` now.", []string{"symbol Phoenix.ConnTest.build_conn()=Phoenix.ConnTest.build_conn"}},
		{"Then `parse(input, opts)` returns.", []string{"symbol parse"}},
		{"It calls parse(input) later.", []string{"symbol parse"}},
		{"The Parser class and the Session resource.", []string{"symbol Parser", "symbol Session"}},
		{"Use `valid?` and `save!` in Ruby.", []string{"symbol valid?=valid", "symbol save!=save"}},
		{"Hooks `useState` and useEffect() re-render.", []string{"symbol useState", "symbol useEffect()=useEffect"}},
		{"A `Map<string, int>` and `x = 1` and `{:ok, v}`.", nil},
		{"The `kind` field and `id`.", []string{"symbol kind", "symbol id"}},
		// Not symbols.
		{"Added JSDoc comments. The API returns JSON over HTTP via the CLI.", nil},
		{"Written in TypeScript and JavaScript, hosted on GitHub with PostgreSQL, Docker and Kubernetes.", nil},
		{"The CI on GitHub Actions runs Docker Compose; main.go is in Go.", []string{"file main.go"}},
		{"Update the README with iPhone and macOS notes, and the APIs and IDs.", nil},
		{"Claude Code hooks and LiveView and LiveViews.", nil},
		{"Set `true`, `nil`, `string`, `--verbose`, `:auto` and `x`.", nil},
		{"Commit `3bb8701` and `af81c43` landed.", nil},
		{"Run `mix test` and `go vet ./...` now.", nil},
		{"The file(s) are here.", nil},
		{"Fixed it.Then we left.", nil},
		{"Met Mr. McCarthy and Leonardo DiCaprio.", []string{"entity McCarthy=mccarthy", "entity Leonardo DiCaprio=leonardo dicaprio"}},
	})
}

func TestURLs(t *testing.T) {
	runCases(t, []mcase{
		{"See https://example.com/a/b.", []string{"url https://example.com/a/b"}},
		{"See [docs](https://example.com/docs/) now.", []string{"url https://example.com/docs/=https://example.com/docs"}},
		{"Link (https://en.wikipedia.org/wiki/Foo_(bar)) here.", []string{"url https://en.wikipedia.org/wiki/Foo_(bar)"}},
		{"At <http://Example.COM/Path#frag>, ok?", []string{"url http://Example.COM/Path#frag=http://example.com/Path"}},
		{"Query https://x.io/?q=1&b=2; done", []string{"url https://x.io/?q=1&b=2"}},
		{"In `https://x.io/a` code.", []string{"url https://x.io/a"}},
		{"Not a url: http:// alone or ftp://x.com.", nil},
		{"Served at http://localhost:8080/api, then https://x.com/a?b=c#d.", []string{"url http://localhost:8080/api", "url https://x.com/a?b=c#d=https://x.com/a?b=c"}},
		{"Quoted \"https://x.com/q\" and (https://y.org/p).", []string{"url https://x.com/q", "url https://y.org/p"}},
	})
}

func TestNumbers(t *testing.T) {
	runCases(t, []mcase{
		{"It has 42 rows in 3.14 seconds.", []string{"number 42", "number 3.14 seconds=3.14"}},
		{"We saw 1,500 users and 0.25 of them.", []string{"number 1,500=1500", "number 0.25"}},
		{"Traffic is 1.5k and 2.3 million and 3 million and 1.2B.", []string{"number 1.5k=1500", "number 2.3 million=2300000", "number 3 million=3000000", "number 1.2B=1200000000"}},
		{"Up 25% and 10 percent and 5 per cent.", []string{"number 25%=25", "number 10 percent=10", "number 5 per cent=5"}},
		{"Raised $1.5M and €20 and USD 30 and 40 USD.", []string{"number $1.5M=1500000", "number €20=20", "number USD 30=30", "number 40 USD=40"}},
		{"Latency fell from 200ms to 150 ms, 3x faster, 2 times.", []string{"number 200ms=200", "number 150 ms=150", "number 3x=3", "number 2 times=2"}},
		{"Uses 512 MB and 2GB and 1.5 GB of disk.", []string{"number 512 MB=512", "number 2GB=2", "number 1.5 GB=1.5"}},
		{"It took 5 minutes, 2 hours and 30s.", []string{"number 5 minutes=5", "number 2 hours=2", "number 30s=30"}},
		{"Between 10-40ms usually.", []string{"number 10", "number 40ms=40"}},
		{"A 10-line default and a 5-minute wait.", []string{"number 10", "number 5-minute=5"}},
		{"A 100k-entry cache and 20,000-row pages.", []string{"number 100k=100000", "number 20,000=20000"}},
		{"An N+1 query.", nil},
		{"Temperature fell to -5 degrees.", []string{"number -5"}},
		{"two million people and a million more", []string{"number two million=2000000", "number a million=1000000"}},
		// Not numbers.
		{"Upgraded to v1.2.3 and 1.2.3 on Python 3.12 and Node 20.", nil},
		{"See line 45, lines 10-20, step 2, task 1 and 2.", nil},
		{"Fixed #123 and PR 45 in 2nd place, the 1990s and 4th.", nil},
		{"Meet at 10:30 on 192.168.1.1 with 0x1F.", nil},
		{"As shown [1] and [12], N=0 and N>0.", nil},
		{"The Voyager 2 probe and Windows 11.", []string{"entity Voyager=voyager"}},
		{"It is 3D and 4G and 5th.", nil},
		{"Ran four tests once.", []string{"quantity four tests=4 test"}},
		{"It is O(n) and uses ~2x less memory, see f(x).", []string{"number 2x=2"}},
		{"We went with Approach 2, tested on Chrome 120 and Safari 17.", nil},
		{"See section 3.2 and Figure 4 on page 12; Python 3.12's syntax; Java 21.", nil},
		{"Refs: #42, GH-123, JIRA-456.", nil},
		{"Some 1\u00a0500 users, not 1 500.", []string{"number 1\u00a0500=1500", "number 1", "number 500"}},
		{"One of them and two approaches.", nil},
	})
}

func TestNumberValues(t *testing.T) {
	cases := []struct {
		text  string
		value float64
		unit  string
	}{
		{"$1.5M", 1500000, "usd"},
		{"€20", 20, "eur"},
		{"£3.5 billion", 3500000000, "gbp"},
		{"25%", 25, "%"},
		{"0.25", 0.25, ""},
		{"1,500 ms", 1500, "ms"},
		{"3 million", 3000000, ""},
		{"2.3 million", 2300000, ""},
		{"1.5k", 1500, ""},
		{"10x", 10, "x"},
		{"4.5 GB", 4.5, "gb"},
		{"12 KiB", 12, "kib"},
		{"30 USD", 30, "usd"},
		{"5 percentage points", 5, "pp"},
	}
	for _, c := range cases {
		d := Parse("It was " + c.text + " then.")
		if len(d.Mentions) != 1 {
			t.Errorf("%q: mentions %+v", c.text, d.Mentions)
			continue
		}
		m := d.Mentions[0]
		if m.Kind != "number" || m.Value != c.value || m.Unit != c.unit || m.Text != c.text {
			t.Errorf("%q: got %s %q value %v unit %q, want value %v unit %q", c.text, m.Kind, m.Text, m.Value, m.Unit, c.value, c.unit)
		}
	}
}

func TestDates(t *testing.T) {
	runCases(t, []mcase{
		{"Released 2024-03-05 and 2024-03.", []string{"date 2024-03-05", "date 2024-03"}},
		{"On March 5, 2024 and 5 March 2024 and Mar 2024.", []string{"date March 5, 2024=2024-03-05", "date 5 March 2024=2024-03-05", "date Mar 2024=2024-03"}},
		{"Since 2019 and in 2020, by 2030 and 2019's results.", []string{"date 2019", "date 2020", "date 2030", "date 2019"}},
		{"From 2019 to 2021 and 2019-2021 and 2019–2021.", []string{"date 2019", "date 2021", "date 2019", "date 2021", "date 2019", "date 2021"}},
		{"On 25/03/2024, 03/25/2024 and 03/05/2024.", []string{"date 25/03/2024=2024-03-25", "date 03/25/2024=2024-03-25", "date 03/05/2024=2024"}},
		{"In Q3 2023 it grew.", []string{"date Q3 2023=2023-Q3"}},
		{"On March 5th we met, and on 5th March too.", []string{"date March 5th=--03-05", "date 5th March=--03-05"}},
		{"At 2024-03-05T10:00:00Z it ran.", []string{"date 2024-03-05T10:00:00Z=2024-03-05"}},
		{"It runs from Friday 12 November; launch is Monday 3 June 2024.", []string{"date 12 November=--11-12", "date 3 June 2024=2024-06-03"}},
		{"Pages last week (3–9 June), 3-9 June 2024 and 3 to 9 June.", []string{"date 3=--06-03", "date 9 June=--06-09",
			"date 3=2024-06-03", "date 9 June=2024-06-09", "date 3=--06-03", "date 9 June=--06-09"}},
		{"Smith (2019) showed it on 05.03.2024.", []string{"date 2019", "date 05.03.2024=2024-03-05"}},
		// Sentences glued without a space, as scraped pages give them.
		{"Yields hit the highest level since Jan. 18.Japan's index fell 1.25%.The dollar rose.",
			[]string{"date Jan. 18=--01-18", "number 1.25%=1.25"}},
		// Not dates.
		{"We had 2019 users and 2048 bytes.", []string{"number 2019", "number 2048 bytes=2048"}},
		{"You may ask in March, on Monday.", nil},
		{"In the 1990s and the '90s, at 10:30.", nil},
		{"Version 2024.1 shipped.", nil},
		{"Added 2 tests.", []string{"quantity 2 tests=2 test"}},
	})
}

func TestEntities(t *testing.T) {
	runCases(t, []mcase{
		{"The prize went to Marie Curie in Paris.", []string{"entity Marie Curie=marie curie", "entity Paris=paris"}},
		{"Marie Curie won the prize.", []string{"entity Marie Curie=marie curie"}},
		{"New York is big. United States law applies. Actions ran.", []string{"entity New York=new york", "entity United States=united states"}},
		{"The New York Times and the European Central Bank agreed.", []string{"entity New York Times=new york times", "entity European Central Bank=european central bank"}},
		{"Reports by the World Health Organization and the Bank of England.", []string{"entity World Health Organization=world health organization", "entity Bank of England=bank of england"}},
		{"Then Google's team met NASA and Jean-Paul Sartre.", []string{"entity Google=google", "entity NASA=nasa", "entity Jean-Paul Sartre=jean-paul sartre"}},
		{"It was John F. Kennedy who spoke.", []string{"entity John F. Kennedy=john f. kennedy"}},
		{"Shares of Johnson & Johnson and Procter & Gamble rose.", []string{"entity Johnson & Johnson=johnson & johnson", "entity Procter & Gamble=procter & gamble"}},
		{"She moved to Zürich and São Paulo.", []string{"entity Zürich=zürich", "entity São Paulo=são paulo"}},
		// Not entities.
		{"Added Parser support. Fixed the bug. The Review button works.", nil},
		{"- **Error Handling**: Added retries\n- **Credo**: no issues", nil},
		{"I think the API and the JSON are fine; TODO: the CLI.", nil},
		{"## Summary of Changes\n\nAll Done.", nil},
		{"Paris is nice.", nil},
		{"We ship on Monday in March with TypeScript on GitHub.", nil},
		{"| Commit | Task |\n|---|---|\n| Done | Review |", nil},
		{"This DOES NOT work, MUST fix.", nil},
		{"It has *Error Handling* and **Next Steps** now.", nil},
		{"The prize went to **Marie Curie** then.", []string{"entity Marie Curie=marie curie"}},
		{"Use either A or B. I chose Option A. Trade-offs are small.", nil},
		{"Returns 404 Not Found or 200 OK.", []string{"number 404", "number 200"}},
	})
}

func TestQuantities(t *testing.T) {
	runCases(t, []mcase{
		{"Documented all 4 methods.", []string{"quantity 4 methods=4 method"}},
		{"Documented all four methods.", []string{"quantity four methods=4 method"}},
		{"Added 3 files and 12 tests and two endpoints.", []string{"quantity 3 files=3 file", "quantity 12 tests=12 test", "quantity two endpoints=2 endpoint"}},
		{"Wrote a dozen tests for both files.", []string{"quantity a dozen tests=12 test", "quantity both files=2 file"}},
		{"All 12/12 tests pass and 13 new tests.", []string{"quantity 12/12 tests=12 test", "quantity 13 new tests=13 test"}},
		{"Fixed 3 dependencies and 2 classes.", []string{"quantity 3 dependencies=3 dependency", "quantity 2 classes=2 class"}},
		{"Added 9 renderer edge cases.", []string{"quantity 9 renderer edge cases=9 edge case"}},
		{"all 15 SessionLive tests pass", []string{"number 15", "symbol SessionLive"}},
		// Not quantities.
		{"It took 3 seconds for 50 users.", []string{"number 3 seconds=3", "number 50"}},
		{"See line 4 of the file and Python 3 files.", nil},
		{"Half of the 8 tests fail.", []string{"number 8"}},
	})
}

func TestQuantityValue(t *testing.T) {
	d := Parse("Documented all four exported functions.")
	if len(d.Mentions) != 1 {
		t.Fatalf("mentions %+v", d.Mentions)
	}
	m := d.Mentions[0]
	if m.Kind != "quantity" || m.Value != 4 || m.Unit != "function" || m.Norm != "4 function" || m.Text != "four exported functions" {
		t.Errorf("got %+v", m)
	}
}

func TestCodeBlocks(t *testing.T) {
	text := "Edited parser.ts.\n\n```go\nfunc parseConfig() {} // see main.go and 42 Paris\n```\n\nThen lexer.ts."
	d := Parse(text)
	if got := show(text); strings.Join(got, ",") != "file parser.ts,file lexer.ts" {
		t.Errorf("mentions %q", got)
	}
	if len(d.Sentences) != 3 || !strings.HasPrefix(d.Sentences[1].Text, "```go") || !strings.HasSuffix(d.Sentences[1].Text, "```") {
		t.Errorf("sentences %+v", d.Sentences)
	}
	for _, m := range d.Mentions {
		if d.Sentences[m.Sentence].Start > m.Start || d.Sentences[m.Sentence].End < m.End {
			t.Errorf("mention %+v outside its sentence", m)
		}
	}
}

func TestParallel(t *testing.T) {
	texts := []string{"Edited src/parser.ts:45 and 4 methods.", "Marie Curie won in 1903.", "npm install express", ""}
	want := make([]string, len(texts))
	for i, s := range texts {
		want[i] = strings.Join(show(s), "|")
	}
	t.Run("group", func(t *testing.T) {
		for k := 0; k < 4; k++ {
			t.Run(fmt.Sprint(k), func(t *testing.T) {
				t.Parallel()
				for n := 0; n < 200; n++ {
					i := (n + k) % len(texts)
					if got := strings.Join(show(texts[i]), "|"); got != want[i] {
						t.Errorf("Parse(%q) = %q, want %q", texts[i], got, want[i])
					}
				}
			})
		}
	})
}
