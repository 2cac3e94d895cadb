package claimtext

// This file holds every phrase table of the package, as data. The code in the
// other files applies them and holds no vocabulary of its own. Words are
// matched case-insensitively, one token at a time; a typographic apostrophe
// (’) matches an ASCII one. Multi-word phrases are in [phraseTable]. The
// tables are compiled once, at first use, into one lexicon (see
// lexicon.go); adding a word is adding it here.

// numberWords are the spelled-out numbers read as counts. Hyphenated tens and
// units ("twenty-one") are combined from these. "a" and "an" are deliberately
// absent: "Fixed a bug" is not a count claim.
var numberWords = map[string]int{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
	"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
	"eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
	"fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
	"nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
	"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
}

// quantifiers say that a count covers every item meant: "all 4 methods",
// "each of the 4", "every exported function", "both files". The value is the
// count the word itself carries (both = 2), or 0 when it carries none.
var quantifiers = map[string]int{
	"all": 0, "every": 0, "each": 0, "both": 2,
}

// quantifierFillers may stand between a quantifier and its count or noun:
// "all of the 4", "each one of the", "all these". "one" is a filler only when
// "of" follows it.
var quantifierFillers = []string{"of", "the", "one", "these", "those", "my", "our", "its", "their", "your"}

// actionVerbs map verb forms to action classes (CountClaim.Action). Before the
// "|" are the forms that do not by themselves say work was done (base, -s,
// -ing); after it the past tense and participles, which do. For the result
// classes in [resultClasses] the present and -ing forms claim too ("all tests
// pass", "12 tests passing"). A form that is far more often a noun ("tests",
// "changes", "fixes", "updates", "comments", "checks", "commits") is left out
// so that it is read as a noun.
var actionVerbs = []struct{ Class, Forms string }{
	{"document", "document documenting | documented"},
	{"document", "annotate annotates annotating | annotated"},
	{"document", "comment commenting | commented"},
	{"add", "add adds adding | added"},
	{"add", "insert inserts inserting | inserted"},
	{"add", "append appends appending | appended"},
	{"add", "introduce introduces introducing | introduced"},
	{"add", "include | included"},
	{"add", "register registers registering | registered"},
	{"create", "create creates creating | created"},
	{"create", "write writes writing | wrote written"},
	{"create", "generate generates generating | generated"},
	{"create", "scaffold scaffolds scaffolding | scaffolded"},
	{"create", "build building | built"},
	{"implement", "implement implements implementing | implemented"},
	{"modify", "modify modifies modifying | modified"},
	{"modify", "change changing | changed"},
	{"modify", "edit editing | edited"},
	{"modify", "touch touches touching | touched"},
	{"modify", "alter alters altering | altered"},
	{"modify", "adjust adjusts adjusting | adjusted"},
	{"modify", "tweak tweaks tweaking | tweaked"},
	{"modify", "make makes making | made"},
	{"modify", "convert converts converting | converted"},
	{"modify", "replace replaces replacing | replaced"},
	{"modify", "migrate migrates migrating | migrated"},
	{"update", "update updating | updated"},
	{"update", "upgrade upgrades upgrading | upgraded"},
	{"update", "bump bumps bumping | bumped"},
	{"update", "revise revises revising | revised"},
	{"update", "refresh refreshes refreshing | refreshed"},
	{"update", "extend extends extending | extended"},
	{"update", "improve improves improving | improved"},
	{"refactor", "refactor refactors refactoring | refactored"},
	{"refactor", "rewrite rewrites rewriting | rewrote rewritten"},
	{"refactor", "restructure restructures restructuring | restructured"},
	{"refactor", "reorganize reorganizes reorganizing reorganise reorganises reorganising | reorganized reorganised"},
	{"refactor", "simplify simplifies simplifying | simplified"},
	{"refactor", "extract extracts extracting | extracted"},
	{"refactor", "inline inlines inlining | inlined"},
	{"refactor", "consolidate consolidates consolidating | consolidated"},
	{"refactor", "merge merges merging | merged"},
	{"refactor", "deduplicate deduplicates deduplicating | deduplicated"},
	{"delete", "delete deletes deleting | deleted"},
	{"delete", "remove removes removing | removed"},
	{"delete", "drop drops dropping | dropped"},
	{"delete", "eliminate eliminates eliminating | eliminated"},
	{"delete", "prune prunes pruning | pruned"},
	{"rename", "rename renames renaming | renamed"},
	{"move", "move moves moving | moved"},
	{"move", "relocate relocates relocating | relocated"},
	{"fix", "fix fixing | fixed"},
	{"fix", "resolve resolves resolving | resolved"},
	{"fix", "repair repairs repairing | repaired"},
	{"fix", "correct corrects correcting | corrected"},
	{"fix", "patch patching | patched"},
	{"fix", "address addressing | addressed"},
	{"test", "test testing | tested"},
	{"test", "cover covers covering | covered"},
	{"verify", "verify verifies verifying | verified"},
	{"verify", "check checking | checked"},
	{"verify", "validate validates validating | validated"},
	{"verify", "confirm confirms confirming | confirmed"},
	{"complete", "complete completes completing | completed"},
	{"complete", "finish finishes finishing | finished"},
	{"complete", "close closes closing | closed"},
	{"complete", "| done"},
	{"commit", "commit committing | committed"},
	{"commit", "push pushes pushing | pushed"},
	{"install", "install installs installing | installed"},
	{"run", "run runs running | ran"},
	{"pass", "pass passes passing | passed"},
	{"pass", "succeed succeeds succeeding | succeeded"},
	{"fail", "fail fails failing | failed"},
	{"fail", "break breaks breaking | broke broken"},
	{"skip", "skip skips skipping | skipped"},
}

// resultClasses are the action classes of test results, whose present and
// -ing forms are claims ("all 12 tests pass", "3 failing"), and whose noun,
// when none is written ("12 passed, 0 failed"), is test.
var resultClasses = map[string]bool{"pass": true, "fail": true, "skip": true}

// negatedParticiples are participles that deny their action: "4 methods
// remain undocumented" is a negated document claim.
var negatedParticiples = map[string]string{
	"undocumented": "document", "uncommented": "document",
	"untested": "test", "unverified": "verify",
	"unchanged": "modify", "untouched": "modify", "unmodified": "modify",
	"unfixed": "fix", "unresolved": "fix", "unaddressed": "fix",
	"unimplemented": "implement", "unfinished": "complete",
	"incomplete": "complete", "unrenamed": "rename",
}

// nouns map noun forms to noun classes (CountClaim.Noun), singular and plural
// and the compounds of [phraseTable]. Only nouns of things an agent's work
// produces or touches are here: "3 seconds", "50 users" or "2 days" have no
// class and so are never counts.
var nouns = []struct{ Class, Forms string }{
	{"function", "function functions func funcs fn fns handler handlers helper helpers callback callbacks procedure procedures routine routines subroutine subroutines lambda lambdas hook hooks"},
	{"method", "method methods constructor constructors getter getters setter setters"},
	{"class", "class classes"},
	{"type", "type types interface interfaces struct structs enum enums trait traits record records"},
	{"symbol", "symbol symbols identifier identifiers export exports declaration declarations definition definitions"},
	{"file", "file files script scripts"},
	{"module", "module modules package packages"},
	{"test", "test tests testcase testcases spec specs doctest doctests case cases scenario scenarios failure failures"},
	{"assertion", "assertion assertions"},
	{"endpoint", "endpoint endpoints route routes api apis"},
	{"section", "section sections heading headings paragraph paragraphs chapter chapters"},
	{"comment", "comment comments docstring docstrings docblock docblocks jsdoc jsdocs"},
	{"field", "field fields property properties attribute attributes member members prop props column columns"},
	{"parameter", "parameter parameters param params argument arguments arg args"},
	{"variable", "variable variables constant constants const consts var vars"},
	{"bug", "bug bugs issue issues defect defects regression regressions typo typos error errors warning warnings problem problems vulnerability vulnerabilities"},
	{"component", "component components widget widgets view views template templates service services controller controllers model models validator validators middleware middlewares reducer reducers selector selectors provider providers adapter adapters plugin plugins"},
	{"change", "change changes edit edits modification modifications fix fixes update updates diff diffs hunk hunks"},
	{"commit", "commit commits"},
	{"line", "line lines loc"},
	{"task", "task tasks subtask subtasks todo todos item items step steps ticket tickets story stories bead beads"},
	{"dependency", "dependency dependencies dep deps library libraries"},
	{"import", "import imports"},
	{"example", "example examples sample samples"},
	{"migration", "migration migrations"},
	{"check", "check checks lint lints rule rules"},
	{"doc", "doc docs document documents readme readmes"},
	{"config", "config configs configuration configurations setting settings"},
}

// nounActions give the action a noun implies when nothing else does: "0
// failures" is a fail claim.
var nounActions = map[string]string{"failure": "fail", "failures": "fail"}

// proNouns stand for the noun of a count said before: "edited 2 existing
// ones".
var proNouns = []string{"ones"}

// newWords, before the noun of a clause without a verb, say the things were
// made: "- 3 new files" (create), "13 new tests" (add).
var newWords = []string{"new", "brand-new", "additional", "extra", "more"}

// libraryNames look like file names but name libraries: "Node.js" in a task
// is no file to check.
var libraryNames = []string{
	"node.js", "next.js", "nuxt.js", "vue.js", "react.js", "express.js", "d3.js",
	"three.js", "chart.js", "highlight.js", "moment.js", "socket.io", "alpine.js",
	"ember.js", "backbone.js", "angular.js", "nest.js", "deno.land", "asp.net",
}

// symbolClasses are the noun classes of code symbols: a list next to one of
// them names symbols ("the functions parse, tokenize", "the parse and
// tokenize functions"), and a doc-comment intent needs one of them or a named
// symbol as its target.
var symbolClasses = map[string]bool{
	"function": true, "method": true, "class": true, "type": true,
	"symbol": true, "field": true, "variable": true, "component": true,
	"module": true,
}

// docObjects are words for documentation attached to code. After "added" or
// "wrote", they turn the action into document ("Added JSDoc comments to all
// 4 functions"); in a task goal they are the signal of a doc-comment intent.
// The value is the doc style the word names, or "" for a generic one.
var docObjects = map[string]string{
	"jsdoc": "jsdoc", "jsdocs": "jsdoc", "tsdoc": "jsdoc",
	"docstring": "docstring", "docstrings": "docstring", "pydoc": "docstring",
	"godoc": "godoc", "javadoc": "javadoc", "javadocs": "javadoc",
	"rustdoc": "rustdoc", "doxygen": "doxygen",
	"docblock": "", "docblocks": "", "doc-comment": "", "doc-comments": "",
	"comment": "", "comments": "", "documentation": "", "doc": "", "docs": "",
}

// docVerbClasses are the action classes with which a generic doc word
// ("comments", "documentation") or the verb document asks for doc comments;
// with any other ("Fix the documentation link") it does not. "" is a goal
// without an action verb.
var docVerbClasses = map[string]bool{
	"": true, "document": true, "add": true, "create": true, "update": true,
	"complete": true, "implement": true, "refactor": true,
}

// explicitDocWords are the [docObjects] that name doc comments by themselves,
// whatever they are attached to; the others ("comments", "documentation",
// "docs") do only when a code symbol is their target.
var explicitDocWords = map[string]bool{
	"jsdoc": true, "jsdocs": true, "tsdoc": true, "docstring": true,
	"docstrings": true, "pydoc": true, "godoc": true, "javadoc": true,
	"javadocs": true, "rustdoc": true, "doxygen": true, "docblock": true,
	"docblocks": true, "doc-comment": true, "doc-comments": true,
}

// testObjects are words for tests as the object of a verb: "Wrote tests for
// all 3 endpoints" is a test claim about endpoints.
var testObjects = map[string]bool{
	"test": true, "tests": true, "coverage": true, "spec": true, "specs": true,
}

// docStyleByExt infers the doc-comment style of a task from the extension of
// the first source file it names, when no word names the style.
var docStyleByExt = map[string]string{
	"ts": "jsdoc", "tsx": "jsdoc", "js": "jsdoc", "jsx": "jsdoc", "mjs": "jsdoc", "cjs": "jsdoc",
	"py": "docstring", "pyi": "docstring",
	"go":   "godoc",
	"java": "javadoc", "kt": "javadoc",
	"rs": "rustdoc",
}

// fileExts are the extensions that make a token a file path.
var fileExts = []string{
	"go", "mod", "sum", "ts", "tsx", "js", "jsx", "mjs", "cjs", "py", "pyi", "rb", "rs",
	"java", "kt", "kts", "c", "h", "cc", "cpp", "hpp", "cs", "swift", "m", "mm", "ex", "exs",
	"erl", "hrl", "php", "scala", "sh", "bash", "zsh", "ps1", "md", "mdx", "rst", "txt", "adoc",
	"json", "jsonl", "yaml", "yml", "toml", "ini", "cfg", "conf", "xml", "html", "htm", "css",
	"scss", "sass", "less", "sql", "proto", "graphql", "gql", "lock", "vue", "svelte", "dart",
	"lua", "r", "jl", "pl", "pm", "tf", "hcl", "gradle", "properties", "env", "csv", "tsv",
	"ipynb", "heex", "eex", "leex", "zig", "nim", "ml", "mli", "hs", "clj", "cljs", "elm",
	"gitignore", "dockerignore", "editorconfig", "lockb",
}

// docFileExts are the extensions of prose documents: a task that documents
// something in one of them ("Document the deployment process in README.md")
// is not a doc-comment task.
var docFileExts = map[string]bool{"md": true, "mdx": true, "rst": true, "txt": true, "adoc": true}

// bareFileNames are file names without an extension that name a file.
var bareFileNames = map[string]bool{
	"makefile": true, "dockerfile": true, "gemfile": true, "rakefile": true,
	"procfile": true, "justfile": true, "vagrantfile": true, "jenkinsfile": true,
}

// labelWords make a following number a label, not a count: "line 4", "port
// 8080", "Python 3 files", "step 2", "HTTP 404", "task 3", "March 5".
var labelWords = []string{
	"line", "lines", "ln", "row", "rows", "column", "col", "step", "steps", "phase",
	"stage", "part", "chapter", "section", "page", "pages", "version", "versions",
	"ver", "release", "python", "py", "node", "nodejs", "java", "go", "golang",
	"ruby", "php", "perl", "rust", "es", "ecmascript", "ubuntu", "debian", "fedora",
	"windows", "win", "macos", "ios", "android", "http", "https", "status", "code",
	"port", "pid", "issue", "pr", "ticket", "task", "tasks", "item", "number", "no",
	"nr", "num", "option", "level", "round", "attempt", "iteration", "day", "week",
	"month", "year", "figure", "fig", "table", "epic", "milestone", "sprint",
	"priority", "exit", "returncode", "errno", "tier", "rule", "test", "tests",
	"case", "example", "index", "id", "offset", "width", "height", "size", "timeout",
	"top", "limit", "max", "min", "maximum", "minimum", "gen", "rfc", "iso", "utf",
	"api", "v", "jdk", "sdk", "c", "ie", "pep", "postgres", "postgresql", "mysql",
	"react", "vue", "angular", "rails", "django", "elixir", "erlang", "otp", "phoenix",
	"january", "february", "march", "april", "may", "june", "july", "august",
	"september", "october", "november", "december", "jan", "feb", "mar", "apr",
	"jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "monday", "tuesday",
	"wednesday", "thursday", "friday", "saturday", "sunday", "q", "x", "y", "n",
}

// approximators make a following number approximate, and so no count claim
// in a summary: "about 10 functions", "over 5 files", "~3 tests".
var approximators = []string{
	"about", "around", "approximately", "approx", "roughly", "nearly", "almost",
	"over", "under", "some", "~", "≈", "circa", "ca",
}

// fractionWords take a part of a count, which is then no count of its own:
// "half of the 8 tests", "most of the 12 files".
var fractionWords = []string{
	"half", "third", "quarter", "most", "majority", "minority", "rest",
	"remainder", "part", "portion", "fraction", "percent", "handful",
}

// httpStatusNouns: a number from 100 to 599 before one of these is an HTTP
// status ("the 404 errors", "500 responses"), not a count.
var httpStatusNouns = map[string]bool{
	"error": true, "errors": true, "response": true, "responses": true,
	"status": true, "page": true, "pages": true, "code": true, "codes": true,
}

// futureMarkers, before the verb of a clause, make it an intention, not a
// claim: "I will add 4 tests", "I'll document", "need to update", "about to".
// Modals are in [modals]; multi-word markers ("let me", "going to") are in
// [phraseTable].
var futureMarkers = []string{
	"will", "shall", "gonna", "i'll", "we'll", "you'll", "it'll", "they'll",
	"that'll", "he'll", "she'll", "won't", "let's", "todo", "tbd", "plan",
	"plans", "planning", "want", "wants", "intend", "intends", "going", "i'd",
	"we'd", "hope", "propose", "suggest", "recommend",
}

// modals are like [futureMarkers]: "all tests should pass" is no claim that
// they do.
var modals = []string{"should", "must", "would", "could", "can", "may", "might", "ought"}

// intentBefore are words that make a following verb an intention only when
// they come before it: "I need to update 5 files" (but "3 methods need
// documenting" is a gap, see [gapWords]).
var intentBefore = []string{"need", "needs", "to", "try", "trying", "attempt"}

// negations deny the verb of their clause: "did not modify", "haven't
// documented", "never ran".
var negations = []string{
	"not", "never", "didn't", "did't", "haven't", "hasn't", "hadn't", "couldn't",
	"wasn't", "weren't", "isn't", "aren't", "don't", "doesn't", "can't", "cannot",
	"shouldn't", "wouldn't", "mustn't", "none", "neither", "nor", "without",
}

// negationAux are the negations after which a base form still reports the
// past: "I didn't touch the other 2 files", "couldn't fix 3 tests".
var negationAux = []string{"didn't", "did't", "couldn't", "don't", "doesn't", "wasn't", "weren't"}

// gapWords, after a counted noun, say the work is missing: "4 methods remain
// undocumented", "3 methods still lack JSDoc", "2 files need updating", "are
// missing docs", "3 left to do".
var gapWords = []string{
	"remain", "remains", "remained", "remaining", "lack", "lacks", "lacking",
	"need", "needs", "missing", "left", "outstanding", "pending", "todo",
}

// auxiliaries and adverbs are skipped between a counted noun and its verb:
// "4 methods have now all been documented", "12 tests all pass", "410 total
// passing".
var auxiliaries = []string{
	"is", "are", "was", "were", "be", "been", "being", "am", "have", "has", "had",
	"having", "get", "gets", "got", "gotten", "do", "does", "did",
}

// adverbs are skipped like [auxiliaries].
var adverbs = []string{
	"now", "all", "also", "successfully", "correctly", "properly", "fully",
	"already", "just", "each", "both", "still", "again", "cleanly", "finally",
	"locally", "together", "total", "overall", "yet", "then", "too",
	"entirely", "completely", "thoroughly", "individually", "consistently",
	"explicitly", "newly", "currently", "actually", "indeed", "really",
	"anymore", "only", "manually", "automatically", "cleanly",
}

// otherVerbs are verbs with no action class. The nearest verb before a count
// decides its action; when it is one of these ("The epic has 3 tasks", "The
// parser handles 3 formats") there is no claim.
var otherVerbs = []string{
	"is", "are", "was", "were", "be", "been", "being", "am", "it's", "that's",
	"there's", "here's", "have", "has", "had", "having", "do", "does", "did",
	"see", "sees", "saw", "seen", "find", "finds", "found", "notice", "notices",
	"noticed", "look", "looks", "looked", "read", "reads", "contain", "contains",
	"contained", "includes", "depend", "depends", "depended", "use", "uses", "used",
	"take", "takes", "took", "taken", "show", "shows", "showed", "shown", "return",
	"returns", "returned", "mention", "mentions", "mentioned", "ask", "asks",
	"asked", "expect", "expects", "expected", "require", "requires", "required",
	"seem", "seems", "seemed", "get", "gets", "got", "give", "gives", "gave", "keep",
	"keeps", "kept", "say", "says", "said", "think", "thought", "know", "knew",
	"exist", "exists", "existed", "appear", "appears", "appeared", "handle",
	"handles", "handled", "call", "calls", "called", "provide", "provides",
	"provided", "need", "needs", "needed", "want", "wants", "wanted", "try",
	"tries", "tried", "start", "starts", "started", "become", "becomes", "became",
	"let", "lets", "mean", "means", "meant", "cause", "causes", "caused",
	"produce", "produces", "produced", "report", "reports", "reported", "print",
	"prints", "printed", "identify", "identifies", "identified", "discover",
	"discovers", "discovered", "detect", "detects", "detected", "count", "counts",
	"counted", "compile", "compiles", "compiled", "wait", "waits", "waited",
	"help", "helps", "helped", "leave", "leaves", "left", "lack", "lacks",
	"lacked", "remain", "remains", "remained", "match", "matches", "matched",
	"affect", "affects", "affected", "reference", "references", "referenced",
	"listen", "listens", "listened", "went", "go", "goes", "came", "come",
	"comes", "ensure", "ensures", "ensured", "allow", "allows", "allowed",
	"support", "supports", "supported", "own", "owns", "lists", "review",
	"reviewed", "inspected", "explored",
	"examined", "searched", "scanned", "opened", "loaded", "parsed", "processed",
	"processes", "serves", "served", "hold", "holds", "held", "sits", "lives",
}

// imperativeVerbs, at the start of a clause in their base form, make it an
// instruction or a plan step, not a claim: "Run all 12 tests", "Make sure all
// 4 methods have JSDoc". The base forms of [actionVerbs] count too.
var imperativeVerbs = []string{
	"ensure", "make", "run", "check", "verify", "confirm", "try", "see", "look",
	"read", "open", "let", "please", "consider", "remember", "start", "keep",
	"use", "go", "do", "find", "get", "give", "wait", "review", "inspect",
	"explore", "investigate", "examine", "search", "grep", "scan", "load",
	"call", "set", "put", "take", "leave", "note",
}

// clauseFillers may open a clause before its imperative verb: "Now run all
// tests", "Next, add 3 tests".
var clauseFillers = []string{
	"now", "next", "then", "first", "finally", "also", "please", "ok", "okay",
	"and", "so", "lastly", "second", "third", "afterwards", "later", "again",
	"just", "quickly", "still", "additionally", "thus",
}

// clauseBreakers end a clause: the nearest verb before a count is looked for
// only inside its clause.
var clauseBreakers = []string{
	"but", "however", "although", "though", "while", "whereas", "because",
	"since", "so", "yet", "which", "that", "who", "whom", "where", "whose",
	"unless", "until", "except", "whereby",
}

// conditionals, before a count in its clause, make it hypothetical: "If 2
// tests fail", "Once the 3 tests are written", "whether all 4 pass".
var conditionals = []string{"if", "unless", "whether", "once", "until", "when", "whenever", "in case"}

// historicMarkers put a test result in the past, before the work: "Tests
// were failing before the change" is not the agent's final word.
var historicMarkers = []string{
	"before", "previously", "initially", "originally", "earlier", "formerly",
	"prior",
}

// determiners may stand before a list or a count.
var determiners = []string{
	"the", "a", "an", "this", "these", "those", "my", "our", "its", "their", "his",
	"her", "your", "some", "any",
}

// prepositions end a noun phrase.
var prepositions = []string{
	"in", "of", "to", "for", "on", "at", "from", "with", "by", "into", "across",
	"under", "over", "about", "within", "via", "per", "through", "after",
	"before", "between", "against", "during", "without", "inside", "outside",
	"onto", "towards", "toward", "like", "than", "as", "along", "among",
}

// conjunctions join list items and coordinated counts.
var conjunctions = []string{"and", "or", "&", "plus", "nor", "+"}

// relatives start a relative clause, which a verb search does not cross.
var relatives = []string{"that", "which", "who", "whom", "whose", "where"}

// passWords and failWords are test-result words that are not verbs: "tests
// are green", "the suite is red".
var passWords = []string{"green", "passing"}

// failWords: see [passWords].
var failWords = []string{"red", "broken", "failing"}

// resultPronouns stand for the tests of their sentence before a result
// word: "I ran the tests and they all pass", "there were failures; now all
// pass".
var resultPronouns = []string{"they", "these", "those", "everything", "them"}

// testSubjects are what a test result can be said of, besides test nouns:
// "CI is green", "the suite passes", "pytest passes". A code span with one of
// these or a test noun in it counts too ("`go test ./...` passes").
var testSubjects = []string{
	"suite", "ci", "pipeline", "testsuite", "pytest", "jest", "vitest", "mocha",
	"rspec", "phpunit", "ctest", "gotestsum", "nextest", "unittest", "tox",
	"exunit", "junit", "playwright", "cypress",
}

// commonWords can never be a listed item ("documented parse, tokenize and
// format" lists three items; "Fixed formatting, linting and docs" lists
// none): besides these, every word of the other tables and any word ending
// in -ing is common.
var commonWords = []string{
	"i", "we", "you", "he", "she", "it", "they", "me", "us", "them", "him",
	"everything", "anything", "nothing", "something", "all", "each", "every",
	"both", "new", "old", "code", "logic", "behavior", "behaviour", "support",
	"coverage", "style", "styles", "formatting", "lint", "linting",
	"readme", "changelog", "license", "docs", "documentation", "tests", "types",
	"typing", "tooling", "ci", "build", "builds", "deps", "imports", "output",
	"input", "errors", "logging", "logs", "naming", "names", "spacing",
	"whitespace", "indentation", "comments", "typos", "grammar", "wording",
	"links", "examples", "jsdoc", "docstrings", "config", "setup", "cleanup",
	"performance", "security", "validation", "parsing", "caching", "ui", "ux",
	"api", "cli", "db", "database", "schema", "schemas", "server", "client",
	"frontend", "backend", "tokenizer", "parser", "lexer", "router", "helpers",
	"utils", "utilities", "more", "other", "others", "rest", "them", "then",
	"too", "also", "only", "here", "there", "now", "yes", "no", "ok", "done",
	"accordingly", "properly", "correctly", "well", "etc", "e.g", "i.e",
	// Nouns that a symbol noun modifies: "type annotations", "method
	// signatures", "class names".
	"annotation", "annotations", "hint", "hints", "signature", "signatures",
	"name", "names", "body", "bodies", "hierarchy", "system", "safety",
	"inference", "scope", "implementation", "implementations", "usage",
	"registry", "list", "lists", "map", "maps", "definitions", "calls",
	// Adjectives of code: "the public function", "the exported methods".
	"public", "private", "protected", "exported", "unexported", "internal",
	"static", "async", "main", "abstract", "base", "default", "global", "local",
	"pure", "generic", "inner", "outer", "anonymous", "recursive", "same",
	"corresponding", "relevant", "related", "given", "specific", "entire",
	"whole", "single", "first", "last", "next", "previous", "current",
	"original", "unused", "deprecated", "legacy", "core", "primary", "custom",
	"shared", "common", "top", "top-level", "underlying", "remaining",
	"following", "existing", "respective", "several", "various", "many", "few",
	"key", "important", "complex", "simple", "small", "large", "big", "long",
	"short", "slow", "fast", "broken", "missing", "failing", "flaky", "utility",
}

// The function words the scanner's patterns are built on, each in a table of
// its own role, so that no word is spelled out in the code.

// partitiveWords join a count to its total or its set: "4 of 4", "one of
// the methods", "3 of them" ("out of" is in [phraseTable]).
var partitiveWords = []string{"of"}

// listJoiners join the last item of a list: "parse, tokenize and format".
var listJoiners = []string{"and"}

// sumWords add counts up: "65 tests plus 14 doctests" (and "+").
var sumWords = []string{"plus"}

// resultNegations before a test result turn it around: "no tests failed",
// "none of the tests fail".
var resultNegations = []string{"no", "none"}

// sequenceWords make an -ing verb after them a completed one: "After fixing 3
// bugs, all tests pass".
var sequenceWords = []string{"after", "having"}

// haveWords, between a counted noun and a doc object, say the things have
// docs: "all 4 functions now have JSDoc".
var haveWords = []string{"have", "has", "had"}

// objectPrepositions lead from a doc or test object to its target: "Added
// JSDoc to `parse`", "Wrote tests for `retry`".
var objectPrepositions = []string{"to", "for", "on"}

// placePrepositions start a place after a counted noun, skipped on the way to
// its verb: "All 4 functions in src/parser.ts now have JSDoc".
var placePrepositions = []string{"in", "of", "from", "under", "across", "inside", "within"}

// accompanyWords before a count of new things make them made, whatever the
// verb: "Coverage increased to 91% with 9 new tests".
var accompanyWords = []string{"with", "including"}

// pairWords after a listed item make the list pairs, not items: "Renamed 2
// files: `a.go` → `b.go`", "`foo` to `bar`".
var pairWords = []string{"to", "into", "as"}

// abbreviations end in a dot that does not end the sentence: "e.g. parse",
// "vs. the old one".
var abbreviations = []string{
	"e.g", "i.e", "etc", "vs", "approx", "incl", "cf", "al", "fig", "no", "nr",
	"resp", "esp", "viz", "ca", "mr", "mrs", "ms", "dr", "st", "sec", "min", "max",
}

// phraseTable holds the multi-word phrases. Each is read as one token with
// the meaning given: a number, a quantifier, a marker or a noun.
var phraseTable = []struct {
	Words string
	Means phraseMeaning
}{
	{"a dozen", phraseMeaning{Number: 12, IsNumber: true}},
	{"half a dozen", phraseMeaning{Number: 6, IsNumber: true}},
	{"two dozen", phraseMeaning{Number: 24, IsNumber: true}},
	{"every single", phraseMeaning{Quantifier: true}},
	{"let me", phraseMeaning{Future: true}},
	{"let us", phraseMeaning{Future: true}},
	{"going to", phraseMeaning{Future: true}},
	{"about to", phraseMeaning{Future: true}},
	{"have to", phraseMeaning{Future: true}},
	{"has to", phraseMeaning{Future: true}},
	{"in order to", phraseMeaning{Future: true}},
	{"next step", phraseMeaning{Future: true}},
	{"next steps", phraseMeaning{Future: true}},
	{"still to", phraseMeaning{Future: true}},
	{"make sure", phraseMeaning{Imperative: true}},
	{"failed to", phraseMeaning{Negation: true, NegationAux: true}},
	{"fail to", phraseMeaning{Negation: true, NegationAux: true}},
	{"unable to", phraseMeaning{Negation: true, NegationAux: true}},
	{"did not", phraseMeaning{Negation: true, NegationAux: true}},
	{"could not", phraseMeaning{Negation: true, NegationAux: true}},
	{"was not able to", phraseMeaning{Negation: true, NegationAux: true}},
	{"wasn't able to", phraseMeaning{Negation: true, NegationAux: true}},
	{"weren't able to", phraseMeaning{Negation: true, NegationAux: true}},
	{"haven't been able to", phraseMeaning{Negation: true, NegationAux: true}},
	{"were not able to", phraseMeaning{Negation: true, NegationAux: true}},
	{"not yet", phraseMeaning{Negation: true}},
	{"was able to", phraseMeaning{Enabler: true}},
	{"were able to", phraseMeaning{Enabler: true}},
	{"managed to", phraseMeaning{Enabler: true}},
	{"doc comment", phraseMeaning{Noun: "comment", Doc: true}},
	{"doc comments", phraseMeaning{Noun: "comment", Doc: true}},
	{"documentation comment", phraseMeaning{Noun: "comment", Doc: true}},
	{"documentation comments", phraseMeaning{Noun: "comment", Doc: true}},
	{"doc block", phraseMeaning{Noun: "comment", Doc: true}},
	{"doc blocks", phraseMeaning{Noun: "comment", Doc: true}},
	{"doc string", phraseMeaning{Noun: "comment", Doc: true, Style: "docstring"}},
	{"doc strings", phraseMeaning{Noun: "comment", Doc: true, Style: "docstring"}},
	{"go doc", phraseMeaning{Doc: true, Style: "godoc"}},
	{"test suite", phraseMeaning{Noun: "test", TestSubject: true}},
	{"test suites", phraseMeaning{Noun: "test", TestSubject: true}},
	{"test case", phraseMeaning{Noun: "test"}},
	{"test cases", phraseMeaning{Noun: "test"}},
	{"edge case", phraseMeaning{Noun: "test"}},
	{"edge cases", phraseMeaning{Noun: "test"}},
	{"test file", phraseMeaning{Noun: "file"}},
	{"test files", phraseMeaning{Noun: "file"}},
	{"no failures", phraseMeaning{PassSignal: true}},
	{"zero failures", phraseMeaning{PassSignal: true}},
	{"without failures", phraseMeaning{PassSignal: true}},
	{"no failing tests", phraseMeaning{PassSignal: true}},
	{"no test failures", phraseMeaning{PassSignal: true}},
	{"all green", phraseMeaning{PassSignal: true, TestSubject: true}},
	{"cleaned up", phraseMeaning{Verb: "refactor"}},
	{"got rid of", phraseMeaning{Verb: "delete"}},
	{"set up", phraseMeaning{Verb: "create"}},
	{"more than", phraseMeaning{Approx: true}},
	{"less than", phraseMeaning{Approx: true}},
	{"fewer than", phraseMeaning{Approx: true}},
	{"at least", phraseMeaning{Approx: true}},
	{"at most", phraseMeaning{Approx: true}},
	{"up to", phraseMeaning{Approx: true}},
	{"a few", phraseMeaning{Approx: true}},
	{"a couple of", phraseMeaning{Approx: true}},
	{"out of", phraseMeaning{Partitive: true}},
	{"in case", phraseMeaning{Conditional: true}},
	{"at first", phraseMeaning{Historic: true}},
	{"used to", phraseMeaning{Historic: true}},
	{"status code", phraseMeaning{Label: true}},
	{"exit code", phraseMeaning{Label: true}},
	{"error code", phraseMeaning{Label: true}},
	{"pull request", phraseMeaning{Label: true}},
}

// phraseMeaning is what a phrase of [phraseTable] means.
type phraseMeaning struct {
	Number      int    // the count, with IsNumber
	IsNumber    bool   // "a dozen"
	Quantifier  bool   // "every single": like "every"
	Future      bool   // "let me": an intention follows
	Imperative  bool   // "make sure": an instruction
	Negation    bool   // "failed to", "did not"
	NegationAux bool   // "did not": a base form after it still reports the past
	Enabler     bool   // "was able to": a base form after it reports the past
	Noun        string // noun class ("test case" → test)
	Doc         bool   // a doc object ("doc comments")
	Style       string // the doc style it names
	Verb        string // action class of a phrasal verb, in its past form ("cleaned up")
	PassSignal  bool   // "no failures": tests pass
	TestSubject bool   // "test suite", "all green"
	Approx      bool   // "more than": the count that follows is approximate
	Conditional bool   // "in case"
	Historic    bool   // "at first"
	Label       bool   // "exit code": the number that follows is a label
	Partitive   bool   // "out of": like "of"
}
