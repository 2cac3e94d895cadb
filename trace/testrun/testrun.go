package testrun

import (
	"path"
	"slices"
	"strconv"
	"strings"
)

// Status is how a test run ended, as far as its output and exit status
// show.
type Status int

// The statuses of a run. Do not reorder: callers may store them.
const (
	// Unknown: a test command ran, but neither its exit status nor its
	// output says how it ended (a piped run whose output was cut, a run
	// still going in the background).
	Unknown Status = iota
	// Passed: the runner says the tests it ran passed.
	Passed
	// Failed: the runner says tests failed (failures, or errors inside
	// tests), or the test command itself exited non-zero with nothing to
	// show the environment stopped it.
	Failed
	// NotRun: the environment, not the tests, stopped the run: the runner
	// is not installed, was called wrongly, found no test, could not
	// import or collect the tests, or was killed or timed out.
	NotRun
)

// String returns "unknown", "passed", "failed" or "not run".
func (s Status) String() string {
	switch s {
	case Passed:
		return "passed"
	case Failed:
		return "failed"
	case NotRun:
		return "not run"
	}
	return "unknown"
}

// WhyBytes bounds the bytes of [Run.Why].
const WhyBytes = 200

// Run is what one command run shows of the tests.
type Run struct {
	// Runner is the registry name of the runner: "pytest", "unittest",
	// "django", "sympy", "go", "cargo", "jest", "npm"... (see [Runners]).
	// For a command that runs another runner (tox, nox, make, npm, yarn,
	// pnpm) it is the command's runner; Inner names the one inside.
	Runner string
	// Inner is, for a wrapper (tox, make test, npm test...), the runner
	// whose result line the output shows, whose counts the run carries.
	Inner string
	// Argv is the argv of the pipeline stage that runs the tests, without
	// VAR=value assignments, wrappers (timeout, env, uv run...) and
	// redirections. For a run found by its output, it is the stage that
	// most likely printed it ("python reproduce.py").
	Argv []string
	// Prefix is how many leading words of Argv name the runner
	// (["python", "-m", "pytest"] -> 3), so that Argv[Prefix:] are its
	// arguments. It is 0 for a run found by its output.
	Prefix int
	// Alone is true when the test stage is the first stage of the line,
	// assigns no variables and reads no redirected input: running Argv
	// alone runs the same tests.
	Alone bool
	// ByOutput is true when the command is not a known runner and the run
	// was recognised by its output alone ("python reproduce.py" that runs
	// unittest.main(), "./run.sh").
	ByOutput bool
	// Status is how the run ended.
	Status Status
	// Why is what decided Status, quoted for a report: the runner's line
	// of output, trimmed of spaces and of the "=" frame runners draw, at
	// most WhyBytes bytes ("3 failed, 10 passed in 1.2s", "FAILED
	// (failures=2, errors=1)"; unittest's bare "OK" comes with its count
	// line: "Ran 5 tests in 0.1s: OK"), or the exit status ("exit code
	// 127"). For an Unknown run it says why nothing decided, or is empty
	// when there was neither an exit status nor a line to read.
	Why string
	// Passed, Failed, Errors and Skipped are the counts as the runner's
	// result line states them (summed over the result lines of one run
	// where a runner prints one per binary or module: cargo, maven, go
	// test -v). Errors are errors inside tests that the runner counts
	// apart from failures (pytest's "1 error", unittest's errors=).
	Passed, Failed, Errors, Skipped int
	// Counted is true when the output held a result line with counts.
	Counted bool
	// Extra counts tests a reader may count among the tests or not,
	// beside Passed: ExUnit's and cargo's doctests, go test -v's subtests
	// (indented "--- PASS").
	Extra int
	// ExtraWhat says what Extra counts: "doctests" or "subtests".
	ExtraWhat string
	// FailedIDs are the ids of the tests the output names as failed or in
	// error ("tests/test_x.py::test_y", from pytest's short summary),
	// each once, at most MaxFailedIDs; fewer than Failed+Errors when the
	// output was cut or the runner does not name them.
	FailedIDs []string
	// Scope is what the run was limited to: paths, test ids
	// (tests/x.py::TestY::test_z), packages, Django labels, and the
	// narrowing flags with their values ("-k swap_dims", "-run TestX").
	// Empty for a run of everything.
	Scope []string
}

// MaxFailedIDs bounds [Run.FailedIDs].
const MaxFailedIDs = 100

// addFailedID adds the test id that starts text ("path::test - message").
func (r *Run) addFailedID(text string) {
	id, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	if id == "" || len(r.FailedIDs) >= MaxFailedIDs || slices.Contains(r.FailedIDs, id) {
		return
	}
	r.FailedIDs = append(r.FailedIDs, why(id))
}

// FailedFiles returns the files of the failed tests a run names (the path
// of each id, before "::"), each once, and whether they are every failure
// its counts show: the run named as many failed tests as it counted.
func (r Run) FailedFiles() ([]string, bool) {
	var out []string
	for _, id := range r.FailedIDs {
		f, _, _ := strings.Cut(id, "::")
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, r.Counted && len(r.FailedIDs) > 0 && len(r.FailedIDs) == r.Failed+r.Errors
}

// CoversFile reports whether run a tests every test of file: the runner
// runs everything, or one of its paths is file or a directory holding
// it, and no argument narrows the tests it runs.
func CoversFile(a Run, file string) bool {
	rn := registry[a.Runner]
	if rn == nil || a.ByOutput {
		return false
	}
	ap, an := rn.args.split(a.Args())
	if len(an) > 0 {
		return false
	}
	if rn.args.everything(ap) {
		return true
	}
	file = path.Clean(file)
	for _, p := range ap {
		p = path.Clean(p)
		if p == file || p == "." || strings.HasPrefix(file, p+"/") {
			return true
		}
	}
	return false
}

// Args returns the arguments of the test command after the words that
// name its runner.
func (r Run) Args() []string {
	if r.Prefix > len(r.Argv) {
		return nil
	}
	return r.Argv[r.Prefix:]
}

// A runner is one test runner the registry knows: how its command looks,
// how its result line looks and how to read its output.
type runner struct {
	// name is the registry name, Run.Runner.
	name string
	// cmds are the command shapes that run it, as words: "pytest",
	// "python -m pytest", "bin/test". The word "python" stands for any
	// Python interpreter (python3, python3.11, /usr/bin/python3); a word
	// with a slash matches that path from any directory ("./bin/test",
	// "/testbed/bin/test"); the first word also matches a path to the
	// program (node_modules/.bin/jest).
	cmds []string
	// match recognises the commands cmds cannot say (mvn with its goal
	// anywhere among its arguments): it returns how many leading words of
	// argv name the runner, or 0. Optional.
	match func(argv []string) int
	// programs are the programs whose commands match recognises ("mvn",
	// "mvnw"), to find a wrapper's echoed commands cheaply.
	programs []string
	// noRun are arguments with which the command runs no test
	// (--collect-only, -list); --help, -h and --version are for every
	// runner. A word "x*" matches any argument that starts with x.
	noRun []string
	// result reports whether a line is this runner's result line, strictly
	// enough that a run is found by its output alone. nil: the runner is
	// never found by its output (the wrappers, junit).
	result func(line string) bool
	// read reads the output into r: Status, Why and the counts. It leaves
	// Status Unknown when the output does not say how the run ended.
	read func(o *output, r *Run)
	// exit maps the runner's own exit status to a Status when its output
	// did not decide (pytest's 2 to 5 are NotRun). Optional.
	exit func(code int) (Status, bool)
	// quiet says a success may print no result line: an exit status of 0
	// with no result line is a pass (unittest prints to stderr, which a
	// trace may not hold; a make recipe may print nothing).
	quiet bool
	// wraps says the runner runs other runners (tox, make test, npm
	// test): the result line of the runner inside counts too.
	wraps bool
	// script says the command is a project's script that usually runs
	// this runner but may run another (a runtests.py that runs pytest):
	// when the runner's own lines say nothing, the output is read as a
	// wrapper's.
	script bool
	// echo returns the command a wrapper's line says it runs ("> jest
	// test/" for npm), to know the runner inside when its output has no
	// result line. Optional.
	echo func(line string) (string, bool)
	// args says what the runner's arguments mean, for Scope and Covers.
	args argSpec
	// target returns what a command runs beyond its tests' paths, from its
	// argv ("npm run test:unit" runs the script test:unit, "mvn verify"
	// the integration tests too): runs of different targets cover nothing
	// of each other. Optional.
	target func(argv []string) string

	shapes [][]string // cmds, split into words
}

var (
	registry = map[string]*runner{}
	ordered  []*runner // by name
)

// register adds a runner to the registry. It panics on an empty name, a
// missing read function or a name already registered.
func register(r runner) {
	switch {
	case r.name == "":
		panic("testrun: register: a runner needs a name")
	case r.read == nil:
		panic("testrun: register: runner " + r.name + " has no read function")
	case registry[r.name] != nil:
		panic("testrun: register: duplicate runner " + r.name)
	}
	for _, c := range r.cmds {
		sh := strings.Fields(c)
		r.shapes = append(r.shapes, sh)
		firstWords[sh[0][strings.LastIndexByte(sh[0], '/')+1:]] = true
	}
	for _, p := range r.programs {
		firstWords[p] = true
	}
	p := &r
	registry[r.name] = p
	i, _ := slices.BinarySearchFunc(ordered, r.name, func(a *runner, name string) int { return strings.Compare(a.name, name) })
	ordered = slices.Insert(ordered, i, p)
}

// Runners returns the names of the registered runners, sorted.
func Runners() []string {
	names := make([]string, len(ordered))
	for i, r := range ordered {
		names[i] = r.name
	}
	return names
}

// everyNoRun are the arguments with which no runner runs tests.
var everyNoRun = []string{"--help", "-h", "--version"}

// prefix returns how many leading words of argv name this runner, or 0
// when argv does not run it or runs it without running tests (--help,
// --collect-only).
func (r *runner) prefix(argv []string) int {
	best := 0
	for _, s := range r.shapes {
		if n := matchShape(s, argv); n > best {
			best = n
		}
	}
	if r.match != nil {
		if n := r.match(argv); n > best {
			best = n
		}
	}
	if best == 0 {
		return 0
	}
	for _, a := range argv[best:] {
		name, _, _ := strings.Cut(a, "=")
		if matchFlag(everyNoRun, name) || matchFlag(r.noRun, name) || matchFlag(r.noRun, a) {
			return 0
		}
	}
	return best
}

// matchShape returns len(shape) when argv starts with the command shape,
// else 0 (see runner.cmds).
func matchShape(shape, argv []string) int {
	if len(argv) < len(shape) {
		return 0
	}
	for i, w := range shape {
		a := argv[i]
		switch {
		case a == w:
		case w == "python":
			if !isPython(a) {
				return 0
			}
		case strings.Contains(w, "/") || i == 0:
			if !strings.HasSuffix(a, "/"+w) {
				return 0
			}
		default:
			return 0
		}
	}
	return len(shape)
}

// isPython reports a word that runs a Python interpreter: python,
// python3, python3.11, /usr/bin/python3, pypy3.
func isPython(w string) bool {
	w = w[strings.LastIndexByte(w, '/')+1:]
	rest, ok := strings.CutPrefix(w, "python")
	if !ok {
		rest, ok = strings.CutPrefix(w, "pypy")
	}
	if !ok {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// find returns the test stage of a line: its index, runner and the
// number of words that name the runner; i is -1 when no stage runs a
// known runner.
func find(st []stage) (i int, rn *runner, n int) {
	for i, s := range st {
		for _, r := range ordered {
			if k := r.prefix(s.argv); k > n {
				rn, n = r, k
			}
		}
		if rn != nil {
			return i, rn, n
		}
	}
	return -1, nil, 0
}

// Command finds the test stage of a shell command line: the first stage
// (of a pipeline or a list joined by &&, || or ;) whose argv starts with a
// registered runner's command, as in "cd /testbed && python -m pytest
// tests/x.py -q 2>&1 | tail -20". The Run it returns has Runner, Argv,
// Prefix, Alone and Scope set, and Status Unknown. ok is false for a line
// that runs no known runner, or runs one without running tests
// ("pytest --collect-only", "go test -list .", "mvn test -DskipTests").
func Command(line string) (Run, bool) {
	st := stages(line)
	i, rn, n := find(st)
	if rn == nil {
		return Run{}, false
	}
	return commandRun(st, i, rn, n), true
}

func commandRun(st []stage, i int, rn *runner, n int) Run {
	s := st[i]
	r := Run{Runner: rn.name, Argv: s.argv, Prefix: n, Alone: i == 0 && !s.assigned && !s.input}
	paths, narrow := rn.args.split(r.Args())
	if len(paths)+len(narrow) > 0 {
		r.Scope = append(paths, narrow...)
	}
	return r
}

// Read reads one run: its command line, its exit status (nil when
// unknown), whether the tool flagged an error, and its output. ok is
// false when neither the command nor the output shows a test run.
//
// When the command is a known runner, that runner's reader reads the
// output. When it is not ("./run.sh", "python reproduce.py"), the output
// alone may show a runner's result line: the runner of the last result
// line in the output reads it, and the Run has ByOutput set. A command
// whose every stage only shows files or text (cat, grep, sed -n, git
// diff), or that runs a known runner without running tests (pytest
// --fixtures), shows no run, whatever its output holds. The package doc says
// how the Status is decided.
func Read(line string, exit *int, isError bool, output string) (Run, bool) {
	st := stages(line)
	o := newOutput(output)
	i, rn, n := find(st)
	var r Run
	if rn != nil {
		r = commandRun(st, i, rn, n)
	} else {
		if len(st) > 0 && (inspectOnly(st) || runsNoTest(st)) {
			return Run{}, false
		}
		if rn = o.byOutput(); rn == nil {
			return Run{}, false
		}
		r = Run{Runner: rn.name, ByOutput: true}
		if i = mainStage(st); i >= 0 {
			s := st[i]
			r.Argv, r.Alone = s.argv, i == 0 && !s.assigned && !s.input
		}
	}
	decide(&r, rn, attribute(st, i), exit, isError, o)
	return r, true
}

// runsNoTest reports a line that runs a known runner in a way that runs
// no test (pytest --fixtures, go test -list): what it prints is not a
// run.
func runsNoTest(st []stage) bool {
	for _, s := range st {
		for _, r := range ordered {
			for _, sh := range r.shapes {
				if matchShape(sh, s.argv) > 0 {
					return true
				}
			}
			if r.match != nil && r.match(s.argv) > 0 {
				return true
			}
		}
	}
	return false
}

// ShowsRun reports output in which some runner reports a run: a result
// line strict enough to find the run by its output alone ("Ran 5 tests in
// 0.1s", "=== 3 passed in 0.2s ===", "ok  \texample.com/x\t0.1s").
func ShowsRun(output string) bool {
	return newOutput(output).byOutput() != nil
}

// owner says whether the exit status of a line is its test stage's own.
type owner struct {
	zero, nonzero bool
}

// attribute says whether the exit status of a line is the test stage's
// own: a status of 0 when only "&&" stages follow it (they ran only if it
// exited 0), a non-zero one when it is the last stage and the stages
// before it that could have failed in its place ("&&") only change
// directory or set variables. i < 0 (no stage known) owns the status.
func attribute(st []stage, i int) owner {
	if i < 0 || i >= len(st) {
		return owner{true, true}
	}
	o := owner{zero: true, nonzero: i == len(st)-1}
	for _, s := range st[i+1:] {
		if s.sepBefore != "&&" {
			o.zero = false
		}
	}
	for _, s := range st[:i+1] {
		if s.sepBefore == "||" {
			o.zero = false
		}
	}
	for k := 0; k < i; k++ {
		if st[k+1].sepBefore == "&&" && !trivial(st[k].argv) {
			o.nonzero = false
		}
	}
	return o
}

// decide sets r's Status and Why (see the package doc for the order).
func decide(r *Run, rn *runner, own owner, exit *int, isError bool, o *output) {
	mine := exit != nil && (*exit == 0 && own.zero || *exit != 0 && own.nonzero)
	if mine && (stopCode(*exit) || missingCode(*exit)) {
		r.Status, r.Why = NotRun, exitWhy(*exit)
		return
	}
	if l := o.stopped(); l != "" {
		r.Status, r.Why = NotRun, why(l)
		return
	}
	if readRun(rn, o, r) {
		r.Why = why(r.Why)
		return
	}
	if exit != nil && stopCode(*exit) {
		r.Status, r.Why = NotRun, exitWhy(*exit)
		return
	}
	if l := o.environment(); l != "" {
		r.Status, r.Why = NotRun, why(l)
		return
	}
	switch {
	case mine:
		code := *exit
		r.Why = exitWhy(code)
		if rn.exit != nil {
			if s, ok := rn.exit(code); ok {
				r.Status = s
				return
			}
		}
		switch {
		case code != 0:
			r.Status = Failed
		case o.blank || rn.quiet:
			r.Status = Passed
		default:
			r.Why = "exit code 0, but no result line in the output"
		}
	case exit != nil:
		r.Why = exitWhy(*exit) + " of the line, which may be another command's"
	case isError:
		r.Why = "the tool reported an error, with no exit status and no result line"
	}
}

// readRun reads the output with the runner's reader and, for a wrapper,
// with the reader of the runner inside it: the runner whose result line
// the output shows, else the runner of the last command the wrapper
// echoed ("> jest" for npm, "$ jest" for yarn, the recipe's line for
// make, "commands[0]> pytest" for tox). The inner runner's counts are the
// run's, and when the two disagree the more cautious word wins: NotRun on
// either side is NotRun; passed on one side and failed on the other is
// Unknown. decided reports that the output decided the Status (Unknown
// too, when the two disagree).
func readRun(rn *runner, o *output, r *Run) (decided bool) {
	rn.read(o, r)
	if !rn.wraps && (!rn.script || r.Status != Unknown) {
		return r.Status != Unknown
	}
	in := o.byOutput()
	if in == nil {
		in = o.echoed(rn)
	}
	if in == nil || in == rn {
		return r.Status != Unknown
	}
	ir := Run{Runner: in.name}
	in.read(o, &ir)
	r.Inner = in.name
	r.Passed, r.Failed, r.Errors, r.Skipped, r.Counted = ir.Passed, ir.Failed, ir.Errors, ir.Skipped, ir.Counted
	r.Extra, r.ExtraWhat = ir.Extra, ir.ExtraWhat
	switch {
	case ir.Status == Unknown:
	case ir.Status == r.Status || r.Status == Unknown:
		r.Status, r.Why = ir.Status, ir.Why
	case r.Status == NotRun:
	case ir.Status == NotRun:
		r.Status, r.Why = NotRun, ir.Why
	default: // one passed, the other failed
		if ir.Status == Failed {
			r.Why = ir.Why
		}
		r.Status = Unknown
		return true
	}
	return r.Status != Unknown
}

func stopCode(code int) bool    { return code == 124 || code == 137 || code == 143 }
func missingCode(code int) bool { return code == 126 || code == 127 }

func exitWhy(code int) string { return "exit code " + strconv.Itoa(code) }

// Covers reports whether run a tests at least what run b tests: the same
// runner (and, for a wrapper, the same target: "npm run test:unit" is not
// "npm test"), no argument of a that may narrow its tests (-k, -m, -run,
// --lf...; flags that only change how a run reports or how fast it goes,
// like -v, -q, -x, --tb, -rA, -race, -count, do not), and a tests
// everything (no path; "./..." for go test) or the same set of paths as
// b. Runs found by their output cover each other only when their argv
// are the same.
func Covers(a, b Run) bool {
	rn := registry[a.Runner]
	if rn == nil || a.Runner != b.Runner {
		return false
	}
	if a.ByOutput || b.ByOutput {
		return a.ByOutput == b.ByOutput && slices.Equal(a.Argv, b.Argv)
	}
	if rn.target != nil && rn.target(a.Argv) != rn.target(b.Argv) {
		return false
	}
	ap, an := rn.args.split(a.Args())
	if len(an) > 0 {
		return false
	}
	if rn.args.everything(ap) {
		return true
	}
	bp, _ := rn.args.split(b.Args())
	return sameSet(ap, bp)
}

func sameSet(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}
