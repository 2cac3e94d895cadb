package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/*.js static/*.css
var staticFS embed.FS

// staticVersion is a hash of the static files, added to their URLs so
// that browsers may keep them until they change.
var staticVersion = func() string {
	sum := sha256.New()
	err := fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := staticFS.ReadFile(p)
		sum.Write([]byte(p))
		sum.Write(b)
		return err
	})
	if err != nil {
		panic("web: reading the embedded static files: " + err.Error())
	}
	return hex.EncodeToString(sum.Sum(nil))[:12]
}()

// funcs are the template functions every page may use.
var funcs = template.FuncMap{
	// static is the URL of a static file, with its version.
	"static": func(name string) string { return "/static/" + name + "?v=" + staticVersion },
	// utc formats a time for people, in UTC; iso for a datetime
	// attribute.
	"utc": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05")
	},
	"iso": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	// score formats a score or confidence (0..1) with two decimals; a nil
	// score is a dash.
	"score": func(v any) string {
		switch v := v.(type) {
		case *float64:
			if v == nil {
				return "—"
			}
			return strconv.FormatFloat(*v, 'f', 2, 64)
		case float64:
			return strconv.FormatFloat(v, 'f', 2, 64)
		}
		return fmt.Sprint(v)
	},
	// usd formats dollars.
	"usd": func(v float64) string {
		if v != 0 && math.Abs(v) < 0.01 {
			return "$" + strconv.FormatFloat(v, 'f', 4, 64)
		}
		return "$" + strconv.FormatFloat(v, 'f', 2, 64)
	},
	// ms formats a duration in milliseconds, with the decimals that a
	// short one needs to be more than 0; 0 is a dash: no clock measures a
	// verification as taking no time, but a stepped one (the demo data's)
	// does.
	"ms": func(v float64) string {
		switch {
		case v <= 0:
			return "—"
		case v < 1:
			return strconv.FormatFloat(v, 'f', 2, 64) + " ms"
		case v < 10:
			return strconv.FormatFloat(v, 'f', 1, 64) + " ms"
		}
		return strconv.FormatFloat(v, 'f', 0, 64) + " ms"
	},
	// vurl is the detail page of a verification's attempt.
	"vurl": verificationURL,
	// overridePath is where a verification's override form posts.
	"overridePath": overridePath,
	// checkAnchor is the id of a check's row on the detail page.
	"checkAnchor": checkAnchor,
	// criterionSpec says how a criterion of a task is decided.
	"criterionSpec": criterionSpec,
	// spanning draws a chart across the page, wide and narrow.
	"spanning": spanning,
	// signed formats a difference with its sign, two decimals.
	"signed": func(v float64) string {
		s := strconv.FormatFloat(v, 'f', 2, 64)
		if v > 0 {
			return "+" + s
		}
		if s == "-0.00" {
			return "0.00"
		}
		return s
	},
	// windowArgs is the data of the window selector (partial
	// _window.html): the page it submits to and the window.
	"windowArgs": func(action string, w windowForm) map[string]any {
		return map[string]any{"Action": action, "Window": w}
	},
	// patchName is the file name of a calibration's policy patch.
	"patchName": func() string { return patchFilename },
	// yesno says a bool in words.
	"yesno": func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	},
}

// parsePages parses each page template with the layout and the shared
// partials (_*.html): one template set per page, named after its file.
func parsePages() (map[string]*template.Template, error) {
	entries, err := fs.ReadDir(templateFS, "templates")
	if err != nil {
		return nil, err
	}
	var partials []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "_") {
			partials = append(partials, "templates/"+e.Name())
		}
	}
	pages := map[string]*template.Template{}
	for _, e := range entries {
		name := e.Name()
		if name == "layout.html" || strings.HasPrefix(name, "_") || path.Ext(name) != ".html" {
			continue
		}
		files := append([]string{"templates/layout.html"}, partials...)
		files = append(files, "templates/"+name)
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, files...)
		if err != nil {
			return nil, fmt.Errorf("web: template %s: %w", name, err)
		}
		pages[strings.TrimSuffix(name, ".html")] = t
	}
	return pages, nil
}

// frame is what every page's template gets: the page's own data in Data,
// and what the layout draws around it.
type frame struct {
	// Nav is the navigation entry the page is under.
	Nav string
	// P is who is looking.
	P principal
	// CSRF is the token every form carries (input csrf; htmx sends it
	// as X-CSRF-Token).
	CSRF string
	// Data is the page's.
	Data any
}

// navOf maps a page to the navigation entry it belongs to; a page not
// listed is its own.
var navOf = map[string]string{
	"verification": "verifications",
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// render draws a page in the layout and answers it with status. The page
// is drawn whole before anything is written, so that a template error is
// a 500 rather than half a page.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, page string, data any) {
	h.renderBlock(w, r, status, page, "layout.html", data)
}

// renderBlock draws one named template of a page (a part htmx swaps
// in, or the layout for the whole page) with the frame data.
func (h *Handler) renderBlock(w http.ResponseWriter, r *http.Request, status int, page, block string, data any) {
	t := h.pages[page]
	if t == nil {
		h.log.Error("dashboard: no such page template", "page", page)
		http.Error(w, "internal error: no page "+page, http.StatusInternalServerError)
		return
	}
	p := principalOf(r.Context())
	nav := navOf[page]
	if nav == "" {
		nav = page
	}
	f := frame{Nav: nav, P: p, CSRF: h.csrfToken(w, r, p), Data: data}
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	if err := t.ExecuteTemplate(buf, block, f); err != nil {
		h.log.Error("dashboard: rendering", "page", page, "block", block, "err", err)
		http.Error(w, "internal error: the page could not be drawn", http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	hd.Add("Vary", "HX-Request")
	hd.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// errorData is the error page's.
type errorData struct {
	Status  int
	Title   string
	Message string
}

// fail answers an error page with status and a message for people.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	h.render(w, r, status, "error", errorData{Status: status, Title: http.StatusText(status), Message: msg})
}

// storeFailed answers 503 when the store failed, logging the error; a
// request whose client went away gets nothing.
func (h *Handler) storeFailed(w http.ResponseWriter, r *http.Request, what string, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	h.log.Error("dashboard: store: "+what, "err", err)
	w.Header().Set("Retry-After", "1")
	h.fail(w, r, http.StatusServiceUnavailable, "The store failed while "+what+". Try again in a moment.")
}

// handleStatic serves the embedded static files; with the current
// version in the query, browsers may keep them for a year.
func (h *Handler) handleStatic(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/static/")
	if name == "" || strings.Contains(name, "/") {
		http.NotFound(w, r)
		return
	}
	b, err := staticFS.ReadFile("static/" + name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	hd := w.Header()
	switch path.Ext(name) {
	case ".js":
		hd.Set("Content-Type", "text/javascript; charset=utf-8")
	case ".css":
		hd.Set("Content-Type", "text/css; charset=utf-8")
	}
	if r.URL.Query().Get("v") == staticVersion {
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		hd.Set("Cache-Control", "no-cache")
	}
	hd.Set("ETag", `"`+staticVersion+`"`)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
}
