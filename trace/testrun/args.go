package testrun

import "strings"

// argSpec says what a runner's arguments mean: which are the paths (or
// test ids, packages, labels) it runs, and which flags narrow the tests it
// runs. A flag narrows unless the runner lists it as passing (it only
// changes how the run reports or how fast it goes): an unknown flag is
// taken to narrow, so that a run is never said to cover more than it
// does.
type argSpec struct {
	// values are the flags that take the next word as their value ("-k
	// expr", "-run TestX"), unless that word is itself a flag.
	values []string
	// optional are the flags whose value, when given, is the next word
	// only when that is a number or "auto" ("--parallel 4", "-j 8").
	optional []string
	// pass are the flags that do not narrow the tests run. A word "x*"
	// matches every flag that starts with x ("--cov*").
	pass []string
	// cluster are the one-letter flags that do not narrow, which may be
	// written together ("-xvs" for pytest: "vqsxl").
	cluster string
	// custom, when set, replaces the reading above (maven's goals are not
	// paths; make's targets are).
	custom func(args []string) (paths, narrow []string)
	// all, when set, reports paths that name every test (go test's
	// "./..."); by default no path, or only ".", does.
	all func(paths []string) bool
}

// splitArgs returns the paths of args and the flags (with their values) that
// narrow the tests run.
func (a argSpec) splitArgs(args []string) (paths, narrow []string) {
	for i := 0; i < len(args); i++ {
		t := args[i]
		if t == "--" {
			continue
		}
		if len(t) < 2 || t[0] != '-' {
			paths = append(paths, t)
			continue
		}
		name, val, inline := strings.Cut(t, "=")
		if !inline && matchFlag(a.values, name) && i+1 < len(args) && !isFlag(args[i+1]) {
			i++
			val, inline = args[i], true
		} else if !inline && matchFlag(a.optional, name) && i+1 < len(args) && countWord(args[i+1]) {
			i++
			val, inline = args[i], true
		}
		if matchFlag(a.pass, name) || a.clustered(name) {
			continue
		}
		if inline {
			name += " " + val
		}
		narrow = append(narrow, name)
	}
	return paths, narrow
}

// split is splitArgs, or the runner's own reading when it has one.
func (a argSpec) split(args []string) (paths, narrow []string) {
	if a.custom != nil {
		return a.custom(args)
	}
	return a.splitArgs(args)
}

// everything reports paths that name every test of the project.
func (a argSpec) everything(paths []string) bool {
	if a.all != nil {
		return a.all(paths)
	}
	return len(paths) == 0 || len(paths) == 1 && (paths[0] == "." || paths[0] == "./")
}

// clustered reports a flag of one dash made of letters of cluster only
// ("-xvs").
func (a argSpec) clustered(name string) bool {
	if a.cluster == "" || len(name) < 2 || name[0] != '-' || name[1] == '-' {
		return false
	}
	for i := 1; i < len(name); i++ {
		if strings.IndexByte(a.cluster, name[i]) < 0 {
			return false
		}
	}
	return true
}

// countWord reports a number or "auto", "all", the value of a flag like
// --parallel.
func countWord(w string) bool {
	_, ok := atoi(w)
	return ok || w == "auto" || w == "all"
}

// isFlag reports a word that is a flag, not a value: it starts with a
// dash and is more than the dash.
func isFlag(w string) bool { return len(w) > 1 && w[0] == '-' }

// matchFlag reports whether name is one of flags, where a flag "x*"
// matches every name that starts with x.
func matchFlag(flags []string, name string) bool {
	for _, f := range flags {
		if p, ok := strings.CutSuffix(f, "*"); ok {
			if strings.HasPrefix(name, p) {
				return true
			}
		} else if f == name {
			return true
		}
	}
	return false
}

// reporting are flags that many runners share and that never narrow
// the tests run: verbosity, colour, output format.
var reporting = []string{"-v", "-vv", "-vvv", "-q", "-qq", "--verbose", "--quiet", "--silent",
	"--color*", "--colour*", "--no-color", "--no-colors", "--no-colour", "--verbosity"}

// with returns reporting with more flags.
func with(more ...string) []string {
	return append(append([]string(nil), reporting...), more...)
}
