package testrun

import (
	"slices"
	"strings"
	"testing"
)

func exit(n int) *int { return &n }

func TestCommand(t *testing.T) {
	tests := []struct {
		line   string
		runner string // "" for no test stage
		argv   string
		prefix int
		alone  bool
		scope  string
	}{
		{"cd /testbed && python -m pytest tests/x.py -q 2>&1 | tail -20", "pytest", "python -m pytest tests/x.py -q", 3, false, "tests/x.py"},
		{"pytest -k swap_dims xarray/tests/test_dataset.py", "pytest", "pytest -k swap_dims xarray/tests/test_dataset.py", 1, true, "xarray/tests/test_dataset.py|-k swap_dims"},
		{"/opt/miniconda3/envs/testbed/bin/python -m pytest -xvs -rA --tb=short tests/", "pytest", "/opt/miniconda3/envs/testbed/bin/python -m pytest -xvs -rA --tb=short tests/", 3, true, "tests/"},
		{`pytest "tests/test_a.py::TestX::test_y[a b]" > out.txt`, "pytest", "pytest tests/test_a.py::TestX::test_y[a b]", 1, true, "tests/test_a.py::TestX::test_y[a b]"},
		{"timeout 300 pytest tests", "pytest", "pytest tests", 1, true, "tests"},
		{"FOO=1 go test ./...", "go", "go test ./...", 2, false, "./..."},
		{"env CGO_ENABLED=0 go test -run TestX -v ./pkg/", "go", "go test -run TestX -v ./pkg/", 2, false, "./pkg/|-run TestX"},
		{"uv run pytest", "pytest", "pytest", 1, false, ""},
		{"go test ./... < /dev/null", "go", "go test ./...", 2, false, "./..."},
		{`bash -c "cd /repo && go test ./..."`, "go", "go test ./...", 2, false, "./..."},
		{"npm run test:unit -- --coverage", "npm", "npm run test:unit -- --coverage", 3, true, ""},
		{"npm t", "npm", "npm t", 2, true, ""},
		{"yarn jest --ci", "jest", "yarn jest --ci", 2, true, ""},
		{"npx vitest run src/", "vitest", "npx vitest run src/", 3, true, "src/"},
		{"node --test test/", "node", "node --test test/", 2, true, "test/"},
		{"node --experimental-vm-modules --test", "node", "node --experimental-vm-modules --test", 1, true, ""},
		{"bundle exec rspec spec/models", "rspec", "bundle exec rspec spec/models", 3, true, "spec/models"},
		{"ruby -Itest test/x_test.rb", "minitest", "ruby -Itest test/x_test.rb", 2, true, "test/x_test.rb"},
		{"cargo +nightly test foo", "cargo", "cargo +nightly test foo", 3, true, "foo"},
		{"cargo nextest run -E 'test(foo)'", "nextest", "cargo nextest run -E test(foo)", 3, true, "-E test(foo)"},
		{"python tests/runtests.py --parallel 1 auth_tests", "django", "python tests/runtests.py --parallel 1 auth_tests", 2, true, "auth_tests"},
		{"./tests/runtests.py -v 2 admin_views.tests.AdminViewBasicTest", "django", "./tests/runtests.py -v 2 admin_views.tests.AdminViewBasicTest", 1, true, "admin_views.tests.AdminViewBasicTest"},
		{"python manage.py test polls", "django", "python manage.py test polls", 3, true, "polls"},
		{"bin/test sympy/core/tests/test_basic.py -k test_x", "sympy", "bin/test sympy/core/tests/test_basic.py -k test_x", 1, true, "sympy/core/tests/test_basic.py|-k test_x"},
		{"python3 bin/doctest sympy/core", "sympy-doctest", "python3 bin/doctest sympy/core", 2, true, "sympy/core"},
		{"mvn -q clean test -Dtest=FooTest", "maven", "mvn -q clean test -Dtest=FooTest", 1, true, "-Dtest=FooTest"},
		{"./mvnw test", "maven", "./mvnw test", 2, true, ""},
		{"./gradlew :app:test --tests 'com.x.FooTest'", "gradle", "./gradlew :app:test --tests com.x.FooTest", 1, true, ":app:test|--tests com.x.FooTest"},
		{"make -C build test", "make", "make -C build test", 1, true, "test|-C build"},
		{"tox -e py39 -- tests/test_x.py", "tox", "tox -e py39 -- tests/test_x.py", 1, true, "tests/test_x.py|-e py39"},
		{"ctest --test-dir build --output-on-failure", "ctest", "ctest --test-dir build --output-on-failure", 1, true, ""},
		{"dotnet test --filter Category=Unit", "dotnet", "dotnet test --filter Category=Unit", 2, true, "--filter Category=Unit"},
		{"vendor/bin/phpunit --filter testAdd", "phpunit", "vendor/bin/phpunit --filter testAdd", 1, true, "--filter testAdd"},
		{"MIX_ENV=test mix test test/x_test.exs:12", "mix", "mix test test/x_test.exs:12", 2, false, "test/x_test.exs:12"},
		{"gotestsum --format testname -- ./...", "gotestsum", "gotestsum --format testname -- ./...", 1, true, "./..."},
		{"cat <<'EOF' > t.py\npytest is great\nEOF\npython t.py", "", "", 0, false, ""},
		{"echo pytest", "", "", 0, false, ""},
		{"pip install pytest", "", "", 0, false, ""},
		{"pytest --version", "", "", 0, false, ""},
		{"python -m pytest --collect-only -q", "", "", 0, false, ""},
		{"go test -c ./x", "", "", 0, false, ""},
		{"go test -list . ./x", "", "", 0, false, ""},
		{"mvn test -DskipTests", "", "", 0, false, ""},
		{"./gradlew build -x test", "", "", 0, false, ""},
		{"node script.js", "", "", 0, false, ""},
		{"npm install", "", "", 0, false, ""},
		{"make build", "", "", 0, false, ""},
		{"", "", "", 0, false, ""},
	}
	for _, tt := range tests {
		r, ok := Command(tt.line)
		if !ok {
			if tt.runner != "" {
				t.Errorf("Command(%q) found no test stage, want %s", tt.line, tt.runner)
			}
			continue
		}
		if tt.runner == "" {
			t.Errorf("Command(%q) = %s %q, want no test stage", tt.line, r.Runner, r.Argv)
			continue
		}
		if r.Runner != tt.runner || strings.Join(r.Argv, " ") != tt.argv || r.Prefix != tt.prefix || r.Alone != tt.alone ||
			strings.Join(r.Scope, "|") != tt.scope || r.Status != Unknown {
			t.Errorf("Command(%q) = %s %q prefix %d alone %v scope %q %v,\nwant %s %q prefix %d alone %v scope %q",
				tt.line, r.Runner, r.Argv, r.Prefix, r.Alone, r.Scope, r.Status, tt.runner, tt.argv, tt.prefix, tt.alone, tt.scope)
		}
		if got := strings.Join(r.Args(), " "); got != strings.Join(r.Argv[r.Prefix:], " ") {
			t.Errorf("Args() = %q", got)
		}
	}
}

// TestRead checks how Read decides, on constructed runs: the exit status
// and whose it is, the environment's lines, wrappers, runs found by
// output.
func TestRead(t *testing.T) {
	const pass = "============================== 3 passed in 0.10s ==============================\n"
	const fail = "=========================== 1 failed, 2 passed in 0.10s ===========================\n"
	tests := []struct {
		name    string
		line    string
		exit    *int
		isError bool
		out     string
		ok      bool
		status  Status
		why     string
		runner  string
	}{
		{"killed exit beats a pass line", "pytest", exit(137), false, pass, true, NotRun, "exit code 137", "pytest"},
		{"timeout exit", "timeout 60 go test ./...", exit(124), false, "", true, NotRun, "exit code 124", "go"},
		{"not installed exit", "pytest tests", exit(127), false, "bash: pytest: command not found\n", true, NotRun, "exit code 127", "pytest"},
		{"pipe hides a failing exit", "pytest | tail -3", exit(1), false, pass, true, Passed, "3 passed in 0.10s", "pytest"},
		{"pipe hides a passing exit", "pytest -q | tail -3", exit(0), false, "....\n", true, Unknown, "exit code 0 of the line, which may be another command's", "pytest"},
		{"output says failed whatever the exit", "pytest || true", exit(0), false, fail, true, Failed, "1 failed, 2 passed in 0.10s", "pytest"},
		{"no output, exit 0", "pytest", exit(0), false, "", true, Passed, "exit code 0", "pytest"},
		{"output without a result line, exit 0", "pytest", exit(0), false, "collecting ...\n", true, Unknown, "exit code 0, but no result line in the output", "pytest"},
		{"a quiet runner passes on exit 0", "python -m unittest tests.test_x", exit(0), false, "hello\n", true, Passed, "exit code 0", "unittest"},
		{"non-zero exit, no line", "pytest", exit(1), false, "Traceback (most recent call last):\nValueError: x\n", true, Failed, "exit code 1", "pytest"},
		{"pytest's own exit codes", "pytest", exit(4), false, "", true, NotRun, "exit code 4", "pytest"},
		{"an install before may have failed", "pip install -e . && pytest", exit(1), false, "ERROR: could not build wheels\n", true, Unknown, "exit code 1 of the line, which may be another command's", "pytest"},
		{"cd before may fail: the shell says so", "cd /nowhere && pytest", exit(1), false, "bash: line 1: cd: /nowhere: No such file or directory\n", true, NotRun, "bash: line 1: cd: /nowhere: No such file or directory", "pytest"},
		{"a cd before does not hide the exit", "cd /repo && go test ./...", exit(1), false, "", true, Failed, "exit code 1", "go"},
		{"&& after: exit 0 is the runner's", "go test ./... && echo done", exit(0), false, "", true, Passed, "exit code 0", "go"},
		{"tool error, no exit, no line", "go test ./...", nil, true, "something went wrong\n", true, Unknown, "the tool reported an error, with no exit status and no result line", "go"},
		{"tool error, no exit, a failure line", "go test ./...", nil, true, "--- FAIL: TestX (0.00s)\nFAIL\n", true, Failed, "--- FAIL: TestX (0.00s)", "go"},
		{"nothing known", "go test ./...", nil, false, "", true, Unknown, "", "go"},
		{"killed, last line", "pytest", nil, false, "collected 10 items\n....\nKilled\n", true, NotRun, "Killed", "pytest"},
		{"killed, shell's line", "pytest | tail", nil, false, "....\nbash: line 1:  4242 Killed                  pytest\n", true, NotRun, "bash: line 1:  4242 Killed                  pytest", "pytest"},
		{"Claude Code's timeout", "npm test", nil, true, "Command timed out after 2m 0.0s\n> jest\n", true, NotRun, "Command timed out after 2m 0.0s", "npm"},
		{"a timed-out run of another importer", "cargo test", nil, false, "running 3 tests\n(timed out)\n", true, NotRun, "(timed out)", "cargo"},
		{"a stop signal of the line", "go test ./... | tee log", exit(143), false, "=== RUN TestX\n", true, NotRun, "exit code 143", "go"},
		{"wrapper and inner disagree", "npm test", exit(1), false, "> jest\nTests:       3 passed, 3 total\nnpm ERR! Test failed.  See above for more details.\n", true, Unknown, "npm ERR! Test failed.  See above for more details.", "npm"},
		{"wrapper: inner not run wins", "npm test", exit(1), false, "> jest\nNo tests found, exiting with code 1\nnpm ERR! Test failed.\n", true, NotRun, "No tests found, exiting with code 1", "npm"},
		{"tox: one env failed, the last passed", "tox", exit(1), false, fail + pass + "ERROR:   py39: commands failed\n  py310: commands succeeded\n", true, Unknown, "ERROR:   py39: commands failed", "tox"},
		{"make: a recipe's command missing", "make test", exit(2), false, "pytest\nmake: pytest: No such file or directory\nmake: *** [Makefile:2: test] Error 127\n", true, NotRun, "make: *** [Makefile:2: test] Error 127", "make"},
		{"make: exit 0 and nothing printed", "make check", exit(0), false, "./run-checks.sh\n", true, Passed, "exit code 0", "make"},
		{"inspecting a log shows no run", "cat test_output.log", exit(0), false, fail, false, Unknown, "", ""},
		{"grep of a log shows no run", "grep -n passed log.txt | head", exit(0), false, pass, false, Unknown, "", ""},
		{"a git hook's run", "git commit -m x", exit(1), false, fail, true, Failed, "1 failed, 2 passed in 0.10s", "pytest"},
		{"a script's go test", "./run_tests.sh", exit(1), false, "ok  \texample.com/a\t0.1s\n--- FAIL: TestB (0.00s)\nFAIL\texample.com/b\t0.2s\n", true, Failed, "--- FAIL: TestB (0.00s)", "go"},
		{"the last result line wins", "python check.py", exit(1), false, "Ran 3 tests in 0.001s\n\nOK\n" + fail, true, Failed, "1 failed, 2 passed in 0.10s", "pytest"},
		{"no result line, not a runner", "python reproduce.py", exit(1), false, "Traceback\nValueError\n", false, Unknown, "", ""},
		{"loose words are no result line", "python x.py", exit(0), false, "5 tests passed\nall tests pass\n", false, Unknown, "", ""},
		{"a long result line is cut", "pytest", exit(1), false, "= 1 failed, 2 passed, " + strings.Repeat("1 warning, ", 40) + "in 0.10s =\n", true, Failed, "", "pytest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, ok := Read(tt.line, tt.exit, tt.isError, tt.out)
			if ok != tt.ok {
				t.Fatalf("Read ok = %v, want %v (%+v)", ok, tt.ok, r)
			}
			if !ok {
				return
			}
			if r.Status != tt.status || r.Runner != tt.runner || tt.why != "" && r.Why != tt.why {
				t.Errorf("Read = %s %v %q, want %s %v %q", r.Runner, r.Status, r.Why, tt.runner, tt.status, tt.why)
			}
			if len(r.Why) > WhyBytes {
				t.Errorf("Why is %d bytes, more than %d", len(r.Why), WhyBytes)
			}
		})
	}
}

func TestShowsRun(t *testing.T) {
	for _, out := range []string{"Ran 5 tests in 0.100s\n\nOK\n", "== 10 passed in 0.5s ==", "ok  \texample.com/x\t(cached)",
		"test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out", "Tests:       1 failed, 1 total",
		"10 examples, 0 failures", "14 doctests, 65 tests, 0 failures", "  3 passing (5ms)", "# pass 3",
		"OK (2 tests, 2 assertions)", "100% tests passed, 0 tests failed out of 4", "DONE 5 tests in 0.3s"} {
		if !ShowsRun(out) {
			t.Errorf("ShowsRun(%q) = false", out)
		}
	}
	for _, out := range []string{"", "all tests pass", "5 tests passed", "PASS", "OK", "FAIL", "passed: 3",
		"file.py:3: Ran 5 tests in 0.1s (a grep of a log)", "ok"} {
		if ShowsRun(out) {
			t.Errorf("ShowsRun(%q) = true", out)
		}
	}
}

func TestCovers(t *testing.T) {
	run := func(line string) Run {
		r, ok := Command(line)
		if !ok {
			t.Fatalf("Command(%q): no test stage", line)
		}
		return r
	}
	byOutput := func(argv ...string) Run { return Run{Runner: "unittest", ByOutput: true, Argv: argv} }
	tests := []struct {
		a, b Run
		want bool
	}{
		{run("go test ./..."), run("go test ./pkg/x"), true},
		{run("go test -v -race -count=1 ./..."), run("go test ./a ./b"), true},
		{run("go test ./... -run TestX"), run("go test ./pkg/x"), false},
		{run("go test ./pkg/x"), run("go test ./..."), false},
		{run("go test ./a ./b"), run("go test ./b ./a"), true},
		{run("pytest"), run("pytest tests/x.py"), true},
		{run("python -m pytest"), run("pytest -q"), true},
		{run("pytest -xvs --tb=short -rA"), run("pytest tests/x.py"), true},
		{run("pytest -k foo"), run("pytest"), false},
		{run("pytest --lf"), run("pytest"), false},
		{run("pytest tests/a.py"), run("pytest tests/a.py tests/b.py"), false},
		{run("pytest tests/a.py tests/b.py"), run("pytest tests/b.py tests/a.py -k x"), true},
		{run("pytest"), run("go test ./..."), false},
		{run("npm test"), run("npm t"), true},
		{run("npm test"), run("npm run test:unit"), false},
		{run("mvn test"), run("mvn -q -B test"), true},
		{run("mvn test"), run("mvn verify"), false},
		{run("mvn test -Dtest=FooTest"), run("mvn test"), false},
		{run("make test"), run("make test"), true},
		{run("make test"), run("make check"), false},
		{run("./tests/runtests.py --parallel 1"), run("./tests/runtests.py auth_tests"), true},
		{run("cargo test"), run("cargo test foo"), true},
		{run("cargo test foo"), run("cargo test"), false},
		{byOutput("python", "a.py"), byOutput("python", "a.py"), true},
		{byOutput("python", "a.py"), byOutput("python", "b.py"), false},
		{Run{}, Run{}, false},
	}
	for _, tt := range tests {
		if got := Covers(tt.a, tt.b); got != tt.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", tt.a.Argv, tt.b.Argv, got, tt.want)
		}
	}
}

func TestRegister(t *testing.T) {
	for _, r := range []runner{{name: "pytest", read: readPytest}, {name: "", read: readPytest}, {name: "x-no-read"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("register(%q) did not panic", r.name)
				}
			}()
			register(r)
		}()
	}
	if registry["x-no-read"] != nil {
		t.Error("a refused runner was registered")
	}
}

func TestRunners(t *testing.T) {
	names := Runners()
	if !slices.IsSorted(names) {
		t.Errorf("Runners() is not sorted: %q", names)
	}
	for _, want := range []string{"pytest", "unittest", "django", "sympy", "sympy-doctest", "tox", "nox", "go", "gotestsum",
		"cargo", "nextest", "jest", "vitest", "mocha", "node", "bun", "deno", "mix", "rspec", "minitest", "phpunit",
		"maven", "gradle", "ctest", "dotnet", "swift", "make", "npm", "yarn", "pnpm", "junit"} {
		if !slices.Contains(names, want) {
			t.Errorf("runner %q is not registered", want)
		}
	}
	for _, r := range ordered {
		if len(r.cmds) == 0 && r.match == nil {
			t.Errorf("runner %q has no command", r.name)
		}
	}
}

// FuzzRead checks that Read never panics, keeps Why within WhyBytes and
// returns a Run whose Prefix is within its Argv.
func FuzzRead(f *testing.F) {
	f.Add("pytest tests", 1, true, "=== 1 failed, 2 passed in 0.1s ===\n")
	f.Add("cd /x && go test ./... | tail", 0, false, "ok  \tx\t0.1s\n--- FAIL: T\n")
	f.Add("cat <<'EOF' > x\nEOF\npython x", -1, false, "Ran 3 tests in 0.1s\n\nFAILED (failures=1)\n")
	f.Add("bash -c \"npm test\"", 1, false, "Tests:       1 failed, 1 total\nnpm ERR! Test failed\n")
	f.Add("mvn -pl", 0, false, "[INFO] Tests run: 1, Failures: 0, Errors: 0, Skipped: 0\n")
	f.Add("junit", 0, false, "<testsuites tests=\"3\" failures=\"1\"><testsuite tests=\"3\">")
	f.Add("make -j", 2, false, "make: *** [Makefile:1: test] Error 1\n\x1b[31mFAIL\x1b[0m\r\n")
	f.Fuzz(func(t *testing.T, line string, code int, isError bool, out string) {
		var ex *int
		if code >= 0 {
			ex = &code
		}
		r, ok := Read(line, ex, isError, out)
		if len(r.Why) > WhyBytes {
			t.Errorf("Why is %d bytes", len(r.Why))
		}
		if r.Prefix > len(r.Argv) {
			t.Errorf("Prefix %d > len(Argv) %d", r.Prefix, len(r.Argv))
		}
		if !ok && r.Runner != "" {
			t.Errorf("not ok but Runner %q", r.Runner)
		}
		if c, ok := Command(line); ok {
			Covers(c, r)
			Covers(r, c)
		}
		ShowsRun(out)
	})
}

// BenchmarkRead reads a pytest output of about 200 KB: progress lines,
// failures with their tracebacks, and the summary.
func BenchmarkRead(b *testing.B) {
	var s strings.Builder
	s.WriteString("============================= test session starts ==============================\nplatform linux -- Python 3.11.7, pytest-8.3.4\ncollected 4000 items\n\n")
	for s.Len() < 120<<10 {
		s.WriteString("tests/test_module.py ........................F.........s............. [ 42%]\n")
	}
	s.WriteString("\n=================================== FAILURES ===================================\n")
	for s.Len() < 200<<10 {
		s.WriteString("_________________________________ test_thing __________________________________\n\n    def test_thing():\n>       assert compute(3) == 4\nE       assert 3 == 4\nE        +  where 3 = compute(3)\n\ntests/test_module.py:42: AssertionError\n")
	}
	s.WriteString("=========================== short test summary info ============================\nFAILED tests/test_module.py::test_thing - assert 3 == 4\n")
	s.WriteString("================= 52 failed, 3900 passed, 48 skipped in 61.20s (0:01:01) =================\n")
	out := s.String()
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		r, ok := Read("cd /repo && python -m pytest tests 2>&1 | tail -50", exit(0), false, out)
		if !ok || r.Status != Failed || r.Failed != 52 {
			b.Fatalf("Read = %+v", r)
		}
	}
}

// BenchmarkReadByOutput reads about 200 KB of output with no result line
// from a command that is no runner: every line is looked at by every
// runner's result line.
func BenchmarkReadByOutput(b *testing.B) {
	out := strings.Repeat("2025-01-10 10:00:00 INFO processing item 12345 of 99999: ok\n", 200<<10/60)
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		if _, ok := Read("python reproduce.py", exit(0), false, out); ok {
			b.Fatal("found a run")
		}
	}
}

func TestScriptRunsAnotherRunner(t *testing.T) {
	r, ok := Read("python runtests.py", exit(5), false, "collected 0 items\n\n============================ no tests ran in 0.01s =============================\n")
	if !ok || r.Runner != "django" || r.Inner != "pytest" || r.Status != NotRun || r.Why != "no tests ran in 0.01s" {
		t.Errorf("Read = %+v", r)
	}
}

// TestFailedFiles reads the failed tests a pytest run names, and whether
// they are all its failures; CoversFile says which later runs test them.
func TestFailedFiles(t *testing.T) {
	one := 1
	out := "FAILED a/tests/test_x.py::test_one - assert 1 == 2\nERROR a/tests/test_x.py::test_two\nFAILED a/tests/test_y.py::TestY::test_z\n=== 2 failed, 40 passed, 1 error in 0.3s ==="
	r, ok := Read("pytest a/tests/test_x.py a/tests/test_y.py", &one, true, out)
	if !ok || r.Status != Failed {
		t.Fatalf("Read = %+v, %v", r, ok)
	}
	files, all := r.FailedFiles()
	if !slices.Equal(files, []string{"a/tests/test_x.py", "a/tests/test_y.py"}) || !all {
		t.Errorf("FailedFiles = %q, %v; want both files, all", files, all)
	}
	// A summary that counts more failures than it names (the output was
	// cut) does not name them all.
	cut, _ := Read("pytest", &one, true, "FAILED a/tests/test_x.py::test_one\n=== 3 failed, 1 passed in 0.1s ===")
	if _, all := cut.FailedFiles(); all {
		t.Error("a cut summary names every failure")
	}
	for _, tt := range []struct {
		line, file string
		want       bool
	}{
		{"pytest -W ignore a/tests/test_x.py", "a/tests/test_x.py", true},
		{"pytest a/tests", "a/tests/test_x.py", true},
		{"python -m pytest", "a/tests/test_x.py", true},
		{"pytest a/tests/test_y.py", "a/tests/test_x.py", false},
		{"pytest -k one a/tests/test_x.py", "a/tests/test_x.py", false},
		{"pytest a/tests/test_x.py::test_one", "a/tests/test_x.py", false},
	} {
		r, _ := Command(tt.line)
		if got := CoversFile(r, tt.file); got != tt.want {
			t.Errorf("CoversFile(%q, %q) = %v, want %v", tt.line, tt.file, got, tt.want)
		}
	}
}
