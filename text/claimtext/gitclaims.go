package claimtext

// GitClaim is a claim about what an agent did with git: "pushed to
// origin", "committed", "merged into main", "the working tree is clean".
type GitClaim struct {
	// Kind is "push", "commit", "merge" or "clean".
	Kind string
	// Text is the word or phrase the claim was read from.
	Text string
	// Sentence is the sentence it is in.
	Sentence string
}

// GitClaims returns the git claims of an agent's summary, at most one of
// each kind per sentence, in order. A claim is a completed form ("pushed",
// "committed", "working tree clean") that no negation, intention,
// condition or instruction governs ("not pushed yet", "I'll make sure it
// is committed", "if the push succeeded"); questions claim nothing. "Merged"
// claims a git merge only in a sentence that names a git object (a
// branch, main, a pull request): code is merged too.
func GitClaims(summary string) []GitClaim {
	sc := newScanner(summary)
	defer sc.release()
	var out []GitClaim
	for sc.next() {
		if sc.question {
			continue
		}
		var seen [4]string
		n := 0
		object := false
		for k := range sc.toks {
			if e := sc.toks[k].ent(); sc.toks[k].kind == tWord && e != nil && e.git == "object" {
				object = true
			}
		}
	tokens:
		for k := range sc.toks {
			t := &sc.toks[k]
			e := t.ent()
			if t.kind != tWord || e == nil || e.git == "" || e.git == "object" || e.git == "merge" && !object {
				continue
			}
			for _, s := range seen[:n] {
				if s == e.git {
					continue tokens
				}
			}
			if b := sc.before(k); b.excluded || b.neg || sc.negAfter(k) {
				continue
			}
			if n < len(seen) {
				seen[n] = e.git
				n++
			}
			out = append(out, GitClaim{Kind: e.git, Text: t.text(sc.s), Sentence: sc.s})
		}
	}
	return out
}
