package support

import "github.com/vouchgate/vouch/text/mention"

// Drawn reports, for each source, whether the text draws on it in words of
// its own, where [Index.Claims] may not see it because a sentence mixes
// what several sources say:
//
//   - a clause of the text (a sentence's stretch between ;, :, commas,
//     brackets and contrastive conjunctions) holds two content words or
//     more, and the source holds at least two thirds of them
//     ("SessionCache is safe for concurrent reads, but ..."); or
//   - the text and the source share two content words that no other
//     source holds ("the write-ahead queue stays half full" and "the
//     write-ahead queue occupancy is 0.5").
//
// Asides are never drawn on, nor do they make a word less distinct.
func (ix *Index) Drawn(text string) []bool {
	drawn := make([]bool, len(ix.srcs))
	v := ix.viewOf(text)
	distinct := make([]int, len(ix.srcs))
	seen := map[int32]bool{}
	held := make([]int, len(ix.srcs))
	for _, sp := range mention.Sentences(text) {
		lo, hi := tokRange(v.toks, int32(sp.Start), int32(sp.End))
		for _, cl := range v.clauses(lo, hi) {
			clear(held)
			n := 0
			for k := cl[0]; k < cl[1]; k++ {
				t := v.toks[k]
				if t.flags&tkContent == 0 {
					continue
				}
				n++
				if t.term < 0 || ix.unitw[t.term] {
					continue
				}
				only := int32(-1)
				for _, si := range ix.sourcesOf(t.term) {
					if ix.srcs[si].aside {
						continue
					}
					held[si]++
					if only == -1 {
						only = si
					} else {
						only = -2
					}
				}
				if only >= 0 && !seen[t.term] {
					distinct[only]++
				}
				seen[t.term] = true
			}
			if n < 2 {
				continue
			}
			for si, h := range held {
				if h >= 2 && 3*h >= 2*n {
					drawn[si] = true
				}
			}
		}
	}
	for si, d := range distinct {
		if d >= 2 {
			drawn[si] = true
		}
	}
	return drawn
}
