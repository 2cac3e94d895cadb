// Package mention finds what a text mentions that can be looked up: file
// paths, packages, symbols, URLs, numbers, dates, named entities and
// quantities attached to nouns ("4 methods"). It is the first half of
// grounding: package support and the grounding analyzer look each mention up
// in the evidence.
//
// Extraction is deterministic and conservative: a prose word, a capital at
// the start of a sentence, a code-fence language, a version number or a tool
// name such as "JSDoc" is not a mention. The same extractor reads answers
// and sources, so a number or date is normalised the same way on both sides.
// A false mention is the worse error (it makes vouch cry wolf), so where a
// reading is doubtful there is none.
//
// [Parse] splits a text into sentences ([Sentences]) and reads each one
// left to right. One stretch of text gives at most one mention: a path's
// digits are no number, a URL's path is no file, a date's year is no
// number. All vocabulary (file extensions, product names, units, months,
// common words...) lives in the word lists of package text/lex
// (text/lex/words); lexicon.go derives mention's view of each word.
//
// # What each kind takes
//
//   - file: paths with or without directories ("src/parser.ts", "parser.ts",
//     "./lib/a.ex", "/home/x/a.go", "priv/static/"), with a ":45", ":45:7" or
//     "#L45" suffix (Line keeps the line, Norm drops it), names without an
//     extension ("Makefile", "Dockerfile") and dot files (".gitignore",
//     ".env.local"). A name is a file only with a known extension: "Node.js",
//     "ASP.NET", "e.g.", "v1.2.3", "3.14", "example.com" are not. A path
//     without an extension needs a known first directory, "./", a trailing
//     slash, or (in code) three segments: "and/or", "TCP/IP", "origin/main"
//     and the route "/api/users" are not paths.
//   - package: npm scoped names ("@scope/pkg"), Go import paths
//     ("golang.org/x/sync/errgroup", without an "@version"), Python modules
//     under a known top-level module ("numpy.linalg", "os.path"), the names
//     after an install command ("npm install express", "pip install x", "go
//     get y", in prose or code), imports in code ("import numpy as np",
//     "from x.y import z", "import React from 'react'"), and a lower-case
//     name between "the" and a package word ("the lodash package is", "the
//     `zod` library"; not "the new package", "a logging library").
//   - symbol: camel case with two humps ("ClassName", "parseConfig",
//     "XMLParser"), calls ("parse()", "obj.method()", "parse(input)"),
//     snake case ("max_retries", "__init__"), dotted names ("Type.method"),
//     "Foo::bar", "Class#method", Elixir arities ("render/1", Norm without
//     the arity), a capitalised word before a code noun ("the Parser
//     class"), and any identifier in inline code ("`parse`"). Not: acronyms
//     ("API", "JSON"), product names ("TypeScript", "GitHub", "LiveView"),
//     literals and keywords in code ("`true`", "`nil`", "`string`"), flags
//     ("`--verbose`"), atoms ("`:ok`"), commit hashes ("`3bb8701`").
//   - url: http and https URLs, without trailing punctuation or an
//     unbalanced closing bracket ("[x](https://a.b/c)"). Norm has the scheme
//     and host in lower case and no fragment or trailing slash. Addresses
//     without a scheme are no mention.
//   - number: integers, decimals, thousands separated by commas ("1,500";
//     a space never separates thousands), scales ("1.5k", "2.3 million",
//     "1.2B"), percentages, currencies ("$1.5M", "€20", "USD 30", "30 USD")
//     and units ("200ms", "3.14 seconds", "2 GB", "3x", "5 times"). Norm is
//     the value in canonical decimal with the scale applied ("1500000");
//     Unit is normalised ("%", "ms", "s", "min", "gb", "usd", "x"). Not:
//     versions, numbers after a label or product ("line 45", "step 2",
//     "task 1 and 2", "Python 3", "Node 20"), model numbers after a name
//     ("Voyager 1"), citations ("[3]"), operands ("N=0"), enumerators
//     ("1)"), ordinals ("4th"), decades ("1990s"), times ("10:30"),
//     addresses, hashes, ratios ("3/4"). Spelled-out numbers are numbers
//     only with a scale ("two million"); "one" to "ninety", "both" and "a
//     dozen" are read only as quantities.
//   - date: "2024-03-05", "2024-03", "2024-03-05T10:00Z", "March 5, 2024",
//     "5 March 2024", "Mar 2024", "March 5" (Norm "--03-05"), "05.03.2024"
//     (day first), "Q3 2023" (Norm "2023-Q3"), and a year from 1000 to 2999
//     in a date context: after "in", "since", "by", "until", "from",
//     "during"..., in parentheses ("Smith (2019)"), with a possessive
//     ("2019's") or in a range ("2019-2021", "from 2019 to 2021"). Elsewhere
//     a year is a number ("2019 users"). A slashed date is read in the order
//     its values allow ("25/03/2024", "03/25/2024"); when both orders are
//     possible ("03/05/2024") Norm is the year alone, the only part that is
//     certain. A month alone, a weekday or a decade is no date.
//   - entity: names in prose. Several capitalised words in the middle of a
//     sentence are a name ("Marie Curie", "New York Times", "World Health
//     Organization", "Bank of England"); a single one is when it is not a
//     common word, a month, a weekday or a product name ("Paris", "Google";
//     not "Session", "Review"), and an acronym when it is not one of the
//     trade or a shouted word ("NASA"; not "API", "TODO", "NOT"). At the
//     start of a sentence, a list item, a table cell or after a colon, a
//     single capitalised word is never a name, a leading stop word or verb
//     is dropped ("The New York Times" gives "New York Times"; "Added Parser
//     support" gives nothing), and several words are a name only when one
//     is not a common word ("Marie Curie won"). Headings give no entities.
//     Product and tool names ("GitHub", "Docker", "Kubernetes", "JSDoc") are
//     neither entities nor symbols: an agent names them without having read
//     a source that does; companies ("Google", "Microsoft") are entities.
//   - quantity: a count attached to a noun of a known class ("4 methods",
//     "all four exported functions", "a dozen tests", "both files", "12/12
//     tests"), as read by [github.com/vouchgate/vouch/claimtext.CountAt]. Norm
//     is "count noun" with the head noun as written, singular ("4 method",
//     "9 edge case"). A count whose phrase holds another mention ("15
//     SessionLive tests") is left to that mention and to a number.
//
// Nothing is read inside a fenced code block: code is evidence of its own,
// and its words (keywords, literals, file names in shell commands) would
// give mentions the answer does not make. Inline code spans are read, each
// as one mention at most.
//
// Parse and Sentences are pure and safe for concurrent use.
package mention

import "github.com/vouchgate/vouch"

// Kind is the sort of thing a mention names; the kinds of the report.
type Kind = vouch.MentionKind

// Mention is one thing a text mentions.
type Mention struct {
	// Kind is what the mention names.
	Kind Kind
	// Text is the mention as written ("src/parser.ts:45", "1,500 ms").
	Text string
	// Norm is the normalised form two mentions of the same thing share:
	// a file path cleaned and without its :line suffix ("src/parser.ts"),
	// a package name ("@scope/pkg", "golang.org/x/sync", "numpy.linalg"),
	// a symbol without call parentheses ("Parser.parse"), a URL without a
	// trailing slash or fragment, a number in canonical decimal ("1500",
	// "0.25"), a date in ISO form as precise as written ("2024-03-05",
	// "2024-03", "2024"), an entity in lower case with single spaces, a
	// quantity as "count noun" with the noun singular ("4 method").
	Norm string
	// Start and End are the byte offsets of Text in the text.
	Start, End int
	// Sentence is the index of the sentence holding the mention in
	// [Doc.Sentences].
	Sentence int
	// Value is the numeric value of a number or quantity (1500 for
	// "1.5k", 0.25 for "25%" is NOT applied: Value is 25 with Unit "%").
	Value float64
	// Unit is a number's unit, normalised ("%", "ms", "s", "mb", "usd",
	// "kg"...), or a quantity's noun, singular ("method"); empty if none.
	Unit string
	// Line is the line of a file mention written with a suffix
	// ("parser.ts:45" gives 45); 0 when none.
	Line int
}

// Span is a sentence of a text: its byte offsets and its text.
type Span struct {
	Start, End int
	Text       string
}

// Doc is a text with its sentences and mentions.
type Doc struct {
	Text      string
	Sentences []Span
	// Mentions are in order of Start; one stretch of text gives at most
	// one mention.
	Mentions []Mention
}
