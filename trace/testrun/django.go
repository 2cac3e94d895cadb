package testrun

func init() {
	register(runner{
		name: "django",
		// Django's own suite (tests/runtests.py) and a project's (manage.py
		// test). A runtests.py of another project is read as Django's.
		cmds: []string{"tests/runtests.py", "runtests.py", "python tests/runtests.py", "python runtests.py",
			"python -m django test", "python manage.py test", "manage.py test", "django-admin test"},
		read:   func(o *output, r *Run) { readUnittest(o, r, true) },
		quiet:  true,
		script: true,
		args: argSpec{
			optional: []string{"--parallel"},
			values: []string{"-k", "-v", "--verbosity", "--settings", "--tag", "--exclude-tag",
				"--start-at", "--start-after", "--bisect", "--pair", "--selenium", "--testrunner"},
			pass: with("--noinput", "--no-input", "--failfast", "--debug-sql", "--timing", "-b", "--buffer",
				"--parallel", "-v", "--verbosity", "--settings", "--shuffle", "--reverse", "-r", "--force-color",
				"--headless", "--pdb", "--durations", "--keepdb", "--debug-mode", "--no-faulthandler"),
		},
	})
}
