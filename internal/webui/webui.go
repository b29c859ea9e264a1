// Package webui serves folio's browser pages from files embedded in the binary: the admin
// dashboard at /admin/, the public booking page at /book and the subscribe page at /subscribe. They are plain HTML, CSS and
// JavaScript modules (no build step, nothing fetched from another origin) that talk to the
// public /api routes only, with the session cookie set by POST /api/auth/login.
package webui

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync/atomic"
	"time"
)

//go:embed ui
var files embed.FS

// Options configure the pages. The zero value serves both pages with the default settings.
type Options struct {
	// ImageOrigins are extra origins images may load from (the S3 public base URL when media
	// lives in S3); local media under /media/ is same-origin and always allowed.
	ImageOrigins []string
	// Booking is what the booking page needs to know before its first API call.
	Booking BookingConfig
	// EmbedOrigins may frame the booking page (BOOKING_EMBED_ORIGINS, CSP frame-ancestors);
	// every other page keeps frame-ancestors 'none'.
	EmbedOrigins []string
}

// BookingConfig is served to the booking page as /book/config.json. It holds only what the
// public booking routes already reveal through their answers.
type BookingConfig struct {
	// DurationOptions are the meeting lengths in minutes (BOOKING_DURATION_OPTIONS), first is
	// the default.
	DurationOptions []int `json:"durationOptions"`
	// AdvanceDays and MinNoticeHours bound the dates the page offers.
	AdvanceDays    int `json:"advanceDays"`
	MinNoticeHours int `json:"minNoticeHours"`
	// OwnerTimeZone is the owner's IANA zone (BOOKING_TIMEZONE), shown next to the slots.
	OwnerTimeZone string `json:"ownerTimeZone"`
}

// asset is one embedded file, ready to serve.
type asset struct {
	file string // its path in files: served from the binary's own bytes, not a heap copy
	body []byte // a generated file's bytes (file is empty)

	contentType string
	etag        string
}

// Handler serves /admin/ (the dashboard), /book (the booking page), /subscribe (the subscribe
// page, also at confirmation and unsubscribe links) and /favicon.ico. Mount it at "/admin/",
// "/admin", "/book", "/book/", "/subscribe", "/subscribe/", "/unsubscribe/" and "/favicon.ico".
type Handler struct {
	assets  map[string]asset // by URL path
	csp     string
	cspBase string // csp up to its frame-ancestors sources
	// booking is what follows the owner's settings (SetBooking).
	booking atomic.Pointer[bookingPage]
}

// bookingPage is the booking page's part of the owner's settings: /book/config.json, and the csp
// with the embed origins as frame-ancestors ("" when there are none).
type bookingPage struct {
	config  asset
	bookCSP string
}

// New builds the handler; it reads every embedded file once.
func New(opt Options) (*Handler, error) {
	h := &Handler{assets: map[string]asset{}}
	// Images may come from any https address: a project's images, a post's pictures and the
	// owner's photo are URLs the owner chose, and the dashboard shows them as the site will (its
	// list thumbnails, the editor's preview). An image runs nothing; script-src stays 'self'.
	imgSrc := []string{"'self'", "data:", "blob:", "https:"}
	for _, o := range opt.ImageOrigins {
		if o = strings.TrimRight(strings.TrimSpace(o), "/"); o != "" && !strings.ContainsAny(o, " ;'\"") {
			imgSrc = append(imgSrc, o)
		}
	}
	h.cspBase = "default-src 'self'; script-src 'self'; style-src 'self'; img-src " + strings.Join(imgSrc, " ") +
		"; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors "
	h.csp = h.cspBase + "'none'"
	err := fs.WalkDir(files, "ui", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "ui/")
		page, name, _ := strings.Cut(rel, "/")
		switch page {
		case "shared":
			// Shared modules are reachable under both pages so each page only needs its own mount.
			h.assets["/admin/shared/"+name] = newAsset(name, p, body)
			h.assets["/book/shared/"+name] = newAsset(name, p, body)
			h.assets["/subscribe/shared/"+name] = newAsset(name, p, body)
		default:
			if name == "index.html" {
				name = ""
			}
			h.assets["/"+page+"/"+name] = newAsset(rel, p, body)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := h.SetBooking(opt.Booking, opt.EmbedOrigins); err != nil {
		return nil, err
	}
	return h, nil
}

// SetBooking replaces what the booking page learns before its first API call and the origins
// that may frame it: the owner's settings change them while the server runs.
func (h *Handler) SetBooking(bc BookingConfig, embedOrigins []string) error {
	if len(bc.DurationOptions) == 0 {
		bc.DurationOptions = []int{30, 60}
	}
	if bc.AdvanceDays <= 0 {
		bc.AdvanceDays = 60
	}
	if bc.OwnerTimeZone == "" {
		bc.OwnerTimeZone = "America/New_York"
	}
	cfg, err := json.Marshal(bc)
	if err != nil {
		return err
	}
	page := &bookingPage{config: newAsset("config.json", "", cfg)}
	var ancestors []string
	for _, o := range embedOrigins {
		if o = strings.TrimRight(strings.TrimSpace(o), "/"); o != "" && !strings.ContainsAny(o, " ;,'\"") {
			ancestors = append(ancestors, o)
		}
	}
	if len(ancestors) > 0 {
		page.bookCSP = h.cspBase + strings.Join(ancestors, " ")
	}
	h.booking.Store(page)
	return nil
}

// newAsset describes one file: file is its path in files (served from the binary's own bytes,
// not a heap copy), or "" for generated bytes kept in body.
func newAsset(name, file string, body []byte) asset {
	// The types of the extensions ui/ holds, from a table rather than the mime package:
	// its first use loads the system's MIME database into memory for good.
	ct := "application/octet-stream"
	switch path.Ext(name) {
	case ".js":
		ct = "text/javascript; charset=utf-8"
	case ".html":
		ct = "text/html; charset=utf-8"
	case ".css":
		ct = "text/css; charset=utf-8"
	case ".json":
		ct = "application/json"
	case ".svg":
		ct = "image/svg+xml"
	case ".png":
		ct = "image/png"
	case ".ico":
		ct = "image/x-icon"
	}
	sum := sha256.Sum256(body)
	a := asset{file: file, contentType: ct, etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`}
	if file == "" {
		a.body = body
	}
	return a
}

// ServeHTTP serves one page file. /admin and /book/ redirect to the canonical page addresses.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	p := r.URL.Path
	// Only the booking page itself (and its manage view) and the subscribe form may be framed,
	// by the embed origins. X-Frame-Options cannot name origins, so it is left out there (and the
	// DENY the server sets on every answer removed: browsers that know it obey it over CSP):
	// frame-ancestors rules.
	booking := h.booking.Load()
	if booking.bookCSP != "" && (p == "/book" || p == "/book/" || strings.HasPrefix(p, "/book/manage/") || p == "/subscribe") {
		hd.Set("Content-Security-Policy", booking.bookCSP)
		hd.Del("X-Frame-Options")
	} else {
		hd.Set("Content-Security-Policy", h.csp)
		hd.Set("X-Frame-Options", "DENY")
	}
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch p {
	case "/admin":
		http.Redirect(w, r, "/admin/", http.StatusMovedPermanently)
		return
	case "/book":
		p = "/book/"
	case "/book/":
		http.Redirect(w, r, "/book", http.StatusMovedPermanently)
		return
	case "/subscribe":
		p = "/subscribe/"
	case "/subscribe/":
		http.Redirect(w, r, "/subscribe", http.StatusMovedPermanently)
		return
	case "/favicon.ico":
		// Browsers ask for /favicon.ico on every site; they all accept the SVG under that name.
		p = "/admin/favicon.svg"
	}
	if token, ok := strings.CutPrefix(p, "/book/manage/"); ok && token != "" && !strings.Contains(token, "/") {
		p = "/book/" // the page reads the token from its address
	}
	for _, prefix := range []string{"/subscribe/confirm/", "/subscribe/preferences/", "/unsubscribe/"} {
		if token, ok := strings.CutPrefix(p, prefix); ok && token != "" && !strings.Contains(token, "/") {
			p = "/subscribe/" // the page reads the token from its address
		}
	}
	a, ok := h.assets[p]
	if p == "/book/config.json" {
		a, ok = booking.config, true
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	hd.Set("Content-Type", a.contentType)
	hd.Set("ETag", a.etag)
	// Revalidate every time: the files change with the binary, and the ETag makes it cheap.
	hd.Set("Cache-Control", "no-cache")
	if a.file == "" {
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
		return
	}
	f, err := files.Open(a.file)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	http.ServeContent(w, r, "", time.Time{}, f.(io.ReadSeeker))
}
