package server

import (
	"encoding/json"
	"net/http"

	"github.com/vouchgate/vouch"
)

// Views of a report an answer can give (?view=): the full report, or its
// brief form (vouch.Brief: the verdict, score, confidence, coverage, at
// most three findings and the feedback, under 500 bytes).
const (
	viewFull  = "full"
	viewBrief = "brief"
)

// reportView returns the view a request asks for, answering 400 (and
// false) for an unknown one; it is read before any work is done.
func reportView(w http.ResponseWriter, r *http.Request) (string, bool) {
	switch v := r.URL.Query().Get("view"); v {
	case "", viewFull:
		return viewFull, true
	case viewBrief:
		return viewBrief, true
	default:
		writeError(w, http.StatusBadRequest, string(vouch.ErrInvalid), "view: want full or brief, got "+truncate(v, 40))
		return "", false
	}
}

// writeReport answers a stored report (its JSON) in the view asked for;
// override, when not empty, is the verdict a reviewer last gave it.
func writeReport(w http.ResponseWriter, view string, result []byte, override vouch.Verdict) {
	if view != viewBrief {
		writeRaw(w, http.StatusOK, result)
		return
	}
	var rep vouch.Report
	if err := json.Unmarshal(result, &rep); err != nil {
		writeError(w, http.StatusInternalServerError, string(vouch.ErrInternal), "the stored report does not decode: "+err.Error())
		return
	}
	b := rep.Brief()
	b.Override = override
	writeRaw(w, http.StatusOK, vouch.MarshalBrief(b))
}
