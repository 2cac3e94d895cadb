package claims

import (
	"context"
	"strings"
	"testing"

	"github.com/vouchgate/vouch"
)

func TestGitOps(t *testing.T) {
	pushOK := bash("git push 2>&1", "To github.com:o/r.git\n   99b497c..ceff8c3  feat -> feat", false)
	noUpstream := bash("git push 2>&1", "Exit code 128\nfatal: The current branch feat has no upstream branch.", true)
	rejected := bash("git push origin feat", "To github.com:o/r.git\n ! [rejected]        feat -> feat (non-fast-forward)\nerror: failed to push some refs", false)
	ahead := bash("git status", "On branch feat\nYour branch is ahead of 'origin/feat' by 1 commit.\n\nnothing to commit, working tree clean", false)
	upToDate := bash("git status 2>&1", "On branch feat\nYour branch is up to date with 'origin/feat'.\n\nnothing to commit, working tree clean", false)
	dirty := bash("git status", "On branch feat\nChanges not staged for commit:\n\tmodified:   a.go\n", false)
	commit := bash(`git add a.go && git commit -m "fix"`, "[feat 05fd186] fix\n 1 file changed", false)
	hookBlocked := bash(`git commit -m "fix"`, "Exit code 1\ncredo found 3 issues\nFix these issues before committing.", true)
	nothing := bash(`git add . && git commit -m x`, "On branch feat\nnothing to commit, working tree clean", true)
	for _, tt := range []struct {
		name    string
		summary string
		trace   []vouch.TraceEntry
		want    string
	}{
		{"pushed", "Everything is pushed.", []vouch.TraceEntry{commit, noUpstream, bash("git push --set-upstream origin feat 2>&1", "branch 'feat' set up to track 'origin/feat'.", false), upToDate}, "claims.git.push:pass"},
		{"last push failed", "Everything is pushed.", []vouch.TraceEntry{commit, noUpstream}, "claims.git.push:fail"},
		{"push rejected, exit hidden", "Pushed to origin.", []vouch.TraceEntry{commit, rejected}, "claims.git.push:fail"},
		{"ahead after the push", "Committed and pushed.", []vouch.TraceEntry{pushOK, commit, ahead}, "claims.git.commit:pass claims.git.push:fail"},
		{"no push in the trace", "All done and pushed.", []vouch.TraceEntry{commit}, "claims.git.push:undecided"},
		{"commit blocked by a hook", "Committed the fix.", []vouch.TraceEntry{hookBlocked}, "claims.git.commit:fail"},
		{"commit blocked, then made", "Committed the fix.", []vouch.TraceEntry{hookBlocked, commit}, "claims.git.commit:pass"},
		{"nothing left to commit", "Committed the fix.", []vouch.TraceEntry{commit, nothing}, "claims.git.commit:pass"},
		{"clean claimed, status dirty", "Done; the working tree is clean.", []vouch.TraceEntry{commit, dirty}, "claims.git.clean:fail"},
		{"clean claimed, status clean", "Done; the working tree is clean.", []vouch.TraceEntry{upToDate}, "claims.git.clean:pass"},
		{"not pushed, said so", "Committed, but I have not pushed.", []vouch.TraceEntry{commit, noUpstream}, "claims.git.commit:pass"},
		{"no claim", "Fixed the parser.", []vouch.TraceEntry{noUpstream}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pol := vouch.DefaultPolicy()
			s := &vouch.Subject{Request: &vouch.Request{Output: vouch.Output{Summary: tt.summary}, Trace: tt.trace}, Policy: &pol}
			var f vouch.Findings
			if err := (gitOpsAnalyzer{}).Analyze(context.Background(), s, &f); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range f.Checks {
				got = append(got, c.Name+":"+string(c.Status))
				if c.Status == vouch.StatusFail && (c.Code != vouch.CodeGitClaimContradicted || len(c.Fix) == 0 || c.Confidence != 1) {
					t.Errorf("fail without its code, fix or confidence: %+v", c)
				}
			}
			if s := strings.Join(got, " "); s != tt.want {
				t.Errorf("got %q, want %q", s, tt.want)
			}
		})
	}
}
