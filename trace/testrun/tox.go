package testrun

import "strings"

func init() {
	register(runner{
		name:  "tox",
		cmds:  []string{"tox", "python -m tox", "tox run", "tox r", "tox run-parallel", "tox p"},
		noRun: []string{"-l", "--listenvs", "-a", "--listenvs-all", "--showconfig", "--notest", "list", "config", "devenv", "depends", "legacy"},
		read:  readTox,
		wraps: true,
		echo:  echoTox,
		args: argSpec{
			values:   []string{"-e", "-c", "--conf", "-f", "--factor", "-m", "--installpkg", "--result-json", "--workdir", "-x", "--override"},
			optional: []string{"-p", "--parallel"},
			pass: with("-p", "--parallel", "--parallel-live", "-o", "-r", "--recreate", "--skip-missing-interpreters*",
				"--develop", "--result-json", "--workdir", "--no-provision", "--skip-pkg-install", "--colored", "-x",
				"--override", "--exit-and-dump-after"),
		},
	})
}

// echoTox reads the command tox echoes before it runs it: "py: commands[0]>
// python -m pytest" (tox 4), "py run-test: commands[0] | python -m pytest"
// (tox 3).
func echoTox(l string) (string, bool) {
	_, after, ok := strings.Cut(l, "commands[")
	if !ok {
		return "", false
	}
	_, c, ok := strings.Cut(after, "]")
	c = strings.TrimPrefix(strings.TrimPrefix(c, ">"), " |")
	return strings.TrimSpace(c), ok
}

// readTox reads tox's own lines (tox 3 and 4): "congratulations :)"
// and every environment's "commands succeeded" or "OK" are Passed; an
// environment's "commands failed", "FAIL code 1", "evaluation failed :("
// or "InvocationError" are Failed; a run whose every environment was
// skipped for want of its interpreter, or whose dependencies could not
// be installed, is NotRun. The runner inside (pytest...) reads the rest
// (see readRun).
func readTox(o *output, r *Run) {
	var pass, fail, env string
	skips, envs := 0, 0
	for _, l := range o.lines {
		s := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "ERROR:"))
		switch {
		case strings.HasPrefix(s, "congratulations :)"):
			pass = l
		case strings.HasSuffix(s, ": commands succeeded") || toxEnvResult(s, " OK ("):
			envs++
			pass = firstOf(pass, l)
		case strings.HasSuffix(s, ": commands failed") || toxEnvResult(s, " FAIL code ") ||
			strings.HasPrefix(s, "evaluation failed :(") || strings.HasPrefix(s, "InvocationError"):
			envs++
			fail = firstOf(fail, l)
		case strings.Contains(s, "InterpreterNotFound") || strings.Contains(s, "could not find python interpreter") ||
			toxEnvResult(s, " SKIP ("):
			skips++
			env = firstOf(env, l)
		case strings.Contains(s, "could not install deps") || strings.Contains(s, "failed with could not install"):
			env = firstOf(env, l)
		}
	}
	switch {
	case fail != "" && env != "" && strings.Contains(env, "install"):
		r.Status, r.Why = NotRun, env
	case fail != "":
		r.Status, r.Why = Failed, fail
	case pass != "":
		r.Status, r.Why = Passed, pass
	case env != "" && skips > 0 && envs == 0:
		r.Status, r.Why = NotRun, env
	case env != "":
		r.Status, r.Why = NotRun, env
	}
}

// toxEnvResult reports tox 4's result of one environment, "py39: OK
// (2.34=setup[1.00]+cmd[1.34] seconds)", with word " OK (", " FAIL code "
// or " SKIP (".
func toxEnvResult(s, word string) bool {
	name, _, ok := strings.Cut(s, ":"+word)
	return ok && name != "" && !strings.Contains(name, " ")
}
