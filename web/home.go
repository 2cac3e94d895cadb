package web

import "net/http"

// handleHome sends the site's root to the list of verifications, until
// the overview page takes the root's place.
func (h *Handler) handleHome(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, "/verifications", http.StatusSeeOther)
}
