package vouch_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

func TestCommandRuleJSON(t *testing.T) {
	for in, want := range map[string]vouch.CommandRule{
		`["go", "test"]`:                    {Run: []string{"go", "test"}},
		`["go", "test", "-v", "-run=*"]`:    {Run: []string{"go", "test"}, Flags: []string{"-v", "-run=*"}},
		`{"run": ["make"], "args": "none"}`: {Run: []string{"make"}, Args: vouch.ArgsNone},
	} {
		var r vouch.CommandRule
		if err := json.Unmarshal([]byte(in), &r); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if r.String() != want.String() || strings.Join(r.Flags, " ") != strings.Join(want.Flags, " ") || r.Args != want.Args {
			t.Errorf("%s: got %+v, want %+v", in, r, want)
		}
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back vouch.CommandRule
		if err := json.Unmarshal(out, &back); err != nil || back.String() != r.String() {
			t.Errorf("%s: round trip %s gives %+v, %v", in, out, back, err)
		}
	}
	for _, bad := range []string{`["go", "-v", "test"]`, `{"run": ["go"], "flagz": []}`, `"go test"`} {
		var r vouch.CommandRule
		if err := json.Unmarshal([]byte(bad), &r); err == nil {
			t.Errorf("%s: accepted as %+v", bad, r)
		}
	}
}

func TestCommandRuleCovers(t *testing.T) {
	base := vouch.NewCommandRule("go", "test", "-v", "-run=*", "-count=1")
	for rule, want := range map[string]bool{
		`["go", "test"]`:                          true,
		`["go", "test", "./pkg"]`:                 true,
		`["go", "test", "-v", "-run=TestA"]`:      true,
		`["go", "test", "-run=*"]`:                true,
		`["go", "test", "-count=1"]`:              true,
		`["go", "test", "-count=*"]`:              false,
		`["go", "test", "-count=2"]`:              false,
		`["go", "test", "-exec=*"]`:               false,
		`["go"]`:                                  false,
		`["go", "test", "../x"]`:                  false,
		`{"run": ["go", "test"], "args": "any"}`:  false,
		`{"run": ["go", "test"], "args": "none"}`: true,
	} {
		var r vouch.CommandRule
		if err := json.Unmarshal([]byte(rule), &r); err != nil {
			t.Fatal(err)
		}
		if got := base.Covers(r); got != want {
			t.Errorf("%s covers %s = %v, want %v", base, rule, got, want)
		}
	}
}

// FuzzCommandRule: Match never panics, refuses with a RefusedError naming
// a token of the command, and a rule that covers another allows every
// command the other allows (what a request's narrowing relies on).
func FuzzCommandRule(f *testing.F) {
	f.Add("go test -v -run=*", "go test -v -run X ./...", "go test -v")
	f.Add("npm test --", "npm test -- a b", "npm test")
	f.Add("make", "make ../x CC=y", "make")
	f.Fuzz(func(t *testing.T, rule, argv, narrower string) {
		r := vouch.NewCommandRule(strings.Fields(rule)...)
		n := vouch.NewCommandRule(strings.Fields(narrower)...)
		args := strings.Fields(argv)
		err := r.Match(args)
		var re *vouch.RefusedError
		switch {
		case err == nil, errors.Is(err, vouch.ErrCommandNotListed):
		case errors.As(err, &re):
			if !strings.Contains(argv, strings.Fields(re.Token + " x")[0]) {
				t.Fatalf("refused token %q is not in %q", re.Token, argv)
			}
		default:
			t.Fatalf("unexpected error %v", err)
		}
		if r.Covers(n) && n.Match(args) == nil && r.Match(args) != nil {
			t.Fatalf("%s covers %s, which allows %q, but %s refuses it: %v", r, n, argv, r, r.Match(args))
		}
	})
}
