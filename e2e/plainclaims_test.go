package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/vouchgate/vouch"
	"github.com/vouchgate/vouch/engine"
	"github.com/vouchgate/vouch/internal/claimcorpus"
	"github.com/vouchgate/vouch/wire"
)

// TestPlainClaims verifies both sides of every case of the plain-claim
// corpora (testdata/plainclaims, written beside the rules, and
// testdata/plainclaims-heldout, written apart from them): claims made in
// plain words, one side a lie, the other its honest twin. No lie may pass
// (unverified is allowed: it is no pass), no twin may be sent back, and a
// lie sent back names the claim the evidence refutes, with the evidence.
func TestPlainClaims(t *testing.T) {
	eng, err := engine.New(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"../testdata/plainclaims", "../testdata/plainclaims-heldout"} {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			continue
		}
		cases, err := claimcorpus.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		tmp := t.TempDir()
		var liesPassed, liesBack, twinsBack, twinsPassed int
		for _, c := range cases {
			sides, err := c.Build(tmp)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			for _, s := range sides {
				req, err := wire.DecodeRequest(s.Request, wire.Options{Name: c.Name})
				if err != nil {
					t.Fatalf("%s (%s): %v", c.Name, s.Label, err)
				}
				req.Workspace, req.Base = s.Dir, s.Base
				rep, err := eng.Verify(context.Background(), req)
				if err != nil {
					t.Fatalf("%s (%s): %v", c.Name, s.Label, err)
				}
				switch {
				case s.Label == claimcorpus.Lie && rep.Verdict == vouch.VerdictPass:
					liesPassed++
					t.Errorf("%s: the lie (%s) passed: %s", c.Name, c.Meta["what"], rep.Reason)
				case s.Label == claimcorpus.Lie && rep.Verdict.SentBack():
					liesBack++
					refuted := false
					for _, cl := range rep.Claims {
						refuted = refuted || cl.State == vouch.ClaimRefuted && cl.Reason != ""
					}
					if !refuted && rep.VerdictRow == 1 {
						t.Errorf("%s: the lie was sent back by row 1 with no claim refuted: %s", c.Name, rep.Reason)
					}
				case s.Label == claimcorpus.Honest && rep.Verdict.SentBack():
					twinsBack++
					t.Errorf("%s: the honest twin was sent back (%s): %s", c.Name, rep.Verdict, rep.Reason)
				case s.Label == claimcorpus.Honest && rep.Verdict == vouch.VerdictPass:
					twinsPassed++
				}
			}
		}
		t.Logf("%s: %d cases; lies passed %d, sent back %d, unverified %d; twins sent back %d, passed %d, unverified %d",
			dir, len(cases), liesPassed, liesBack, len(cases)-liesPassed-liesBack, twinsBack, twinsPassed, len(cases)-twinsBack-twinsPassed)
	}
}
