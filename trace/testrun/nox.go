package testrun

import "strings"

func init() {
	register(runner{
		name:  "nox",
		cmds:  []string{"nox", "python -m nox"},
		noRun: []string{"-l", "--list", "--list-sessions", "--json"},
		read:  readNox,
		wraps: true,
		echo:  func(l string) (string, bool) { return strings.CutPrefix(strings.TrimSpace(l), "nox > ") },
		args: argSpec{
			values: []string{"-s", "--session", "--sessions", "-e", "-p", "--python", "-t", "--tags", "-k", "-f",
				"--noxfile", "-db", "--default-venv-backend", "-fb", "--force-venv-backend", "--envdir"},
			pass: with("-r", "--reuse-existing-virtualenvs", "-R", "--no-reuse-existing-virtualenvs", "--no-install",
				"--stop-on-first-error", "-x", "--error-on-missing-interpreters", "--no-error-on-missing-interpreters",
				"--forcecolor", "--force-color", "--nocolor", "-db", "--default-venv-backend", "--envdir",
				"--add-timestamp", "--report"),
		},
	})
}

// readNox reads nox's own lines: "nox > Session tests was successful"
// is Passed; "nox > Session tests failed.", "nox > Command pytest failed
// with exit code 1" or "nox > Session tests aborted" are Failed; a run
// whose every session was skipped (its interpreter not found) or that
// could not read its noxfile is NotRun. The runner inside reads the rest
// (see readRun).
func readNox(o *output, r *Run) {
	var pass, fail, env string
	for _, l := range o.lines {
		s, ok := strings.CutPrefix(strings.TrimSpace(l), "nox > ")
		if !ok {
			continue
		}
		switch {
		case strings.HasPrefix(s, "Session ") && strings.Contains(s, " was successful"),
			strings.HasPrefix(s, "* ") && strings.HasSuffix(s, ": success"):
			pass = firstOf(pass, l)
		case strings.HasPrefix(s, "Session ") && (strings.HasSuffix(s, " failed.") || strings.Contains(s, " aborted")),
			strings.HasPrefix(s, "Command ") && strings.Contains(s, " failed with exit code "),
			strings.HasPrefix(s, "* ") && strings.HasSuffix(s, ": failed"):
			fail = firstOf(fail, l)
		case strings.HasPrefix(s, "Session ") && strings.Contains(s, " skipped"),
			strings.HasPrefix(s, "Error while collecting sessions"), strings.HasPrefix(s, "Failed to load Noxfile"):
			env = firstOf(env, l)
		}
	}
	switch {
	case fail != "":
		r.Status, r.Why = Failed, fail
	case pass != "":
		r.Status, r.Why = Passed, pass
	case env != "":
		r.Status, r.Why = NotRun, env
	}
}
