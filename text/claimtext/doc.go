// Package claimtext extracts claims and task intents from text with phrase
// tables.
//
// It reads the two texts vouch is given in words — the task's goal and the
// agent's summary of what it did — and turns them into structured facts that
// the checks compare with ground truth:
//
//   - [Counts] finds count claims in a summary: "Added JSDoc comments to all 4
//     exported functions" is the claim that the action document was done to 4
//     things of the noun class function, all of those meant. Listed items
//     ("documented parse, tokenize and format") count as a claim of their own
//     length.
//   - [TestClaims] finds claims about test results ("all 12 tests pass",
//     "tests are green", "2 tests failed"), to be held against the commands
//     that were really run.
//   - [CountAt] reads a count of things where it is written, claimed or not
//     ("4 methods", "all four functions"): package mention's quantities.
//   - [TaskIntents] reads a task goal: does it ask for doc comments, in which
//     style, on which symbols, in which files, and how many of what.
//
// # How it reads
//
// There are no regular expressions and no parser of English. The text is split
// into sentences (markdown bullets, headings and table cells are boundaries;
// fenced code blocks are skipped; inline code spans stay as single tokens),
// each sentence into tokens whose shape already excludes most numbers that are
// not counts: versions (v4, 1.2.3), ranges (10-40), dates (2024-03-01),
// ordinals (4th), percentages, multipliers (3x) and units (200ms) are never
// numbers. Each word is looked up once in the one lexicon of package
// text/lex, built from its word lists (text/lex/words): verbs and their
// action classes, nouns and their noun classes, number words, labels that
// make a following number a label ("line 4", "port 8080", "Python 3"), the
// phrases of claim-phrases.txt, and the markers of future intent, negation,
// gaps, conditions and questions. lexicon.go derives claim text's view of
// each word from those lists; the code only applies them.
//
// # What is a claim
//
// A count claim needs a count (a numeral, a number word, "both", "a dozen",
// "N of M", "N/M", or "all"/"each"/"every" with a noun), a noun of a known
// class (or one elided and recoverable: "12 passed", "documented all 4", "2
// existing ones"), and an action that says the work is done: a past tense or
// participle of an action verb ("documented", "were added", "have been
// fixed"), a present or -ing form of a result verb (pass, fail, skip: "all 12
// tests pass"), or, in a clause without a verb or after "with", the adjective
// "new" ("- 3 new files", "with 9 new tests"). The nearest verb before a
// count decides its action; when that verb is not an action ("The epic has 3
// tasks", "The parser handles 3 formats") there is no claim. Counts joined by
// commas or "+" share an action ("6 new builder tests, 4 controller tests").
// A list of named items after a verb of done work is a claim of its own
// length ("Documented parse, tokenize and format": 3).
//
// Decisions, each covered by the corpus in testdata/:
//
//   - Future intent is not a claim and is dropped: "I will add 4 tests", "Let
//     me document the 3 methods", "I need to update 5 files", "to create 3
//     files", imperatives ("Add 3 tests", also as a changelog bullet) and
//     modals ("all tests should pass").
//   - Questions and conditions are dropped: "Should I add the 3 tests?", "If 2
//     tests fail, ...", "Once the 3 tests are written, ...".
//   - A gap or a denial is kept and marked Negated: "4 methods remain
//     undocumented", "3 methods still lack JSDoc", "I did not modify the other
//     2 files". A negated claim says the action was NOT done to that many
//     items; it is as checkable as a positive one but must never be compared
//     as a claim of completion.
//   - Third-person present tense of a work verb ("This PR adds 3 tests") is
//     not read as a claim: it describes code as often as work ("the handler
//     creates 3 files at startup").
//   - Approximate counts ("about 10", "more than 5", "at least 3") are not
//     count claims in a summary; in a task goal "at least 3 tests" asks for 3.
//   - "a"/"an" are not counted as one: "Fixed a bug" is not a count claim.
//   - A count of things of no known class is no claim ("made 3 network calls",
//     "120 insertions(+)"): the checks could not find such things anyway.
//   - A part of a count is no count: "half of the 8 tests".
//
// All functions are pure and safe for concurrent use.
package claimtext
