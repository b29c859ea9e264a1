package respcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"time"
)

// ETag is a strong validator of a response body.
func ETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`
}

// ETagMatches implements If-None-Match (weak comparison, lists, and *).
func ETagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// Recorder captures a handler's response so it can be cached.
type Recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{header: http.Header{}} }

// Status is the recorded status (0 when nothing was written).
func (r *Recorder) Status() int { return r.status }

// Body is the recorded body; it is the recorder's own buffer.
func (r *Recorder) Body() []byte { return r.body.Bytes() }

func (r *Recorder) Header() http.Header { return r.header }
func (r *Recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}
func (r *Recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

var noCache = []string{"no-cache"}

// notModified evaluates If-None-Match, or when it is absent If-Modified-Since (RFC 9110 §13.2.2)
// against the entry's Last-Modified, as http.ServeContent does for an uncached answer.
func notModified(r *http.Request, e *Entry) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		return ETagMatches(inm, e.etag)
	}
	ims := r.Header.Get("If-Modified-Since")
	if ims == "" || e.modValue == nil {
		return false
	}
	t, err := http.ParseTime(ims)
	return err == nil && !e.modified.Truncate(time.Second).After(t)
}

// conditionalHeaders are the request headers a handler that serves with http.ServeContent (the
// feeds, the sitemap) would answer with a 304, 206 or 412 instead of the whole body.
var conditionalHeaders = [...]string{"If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "Range", "If-Range"}

// Unconditional is r without conditional and range headers, so that the response rendered for
// the cache is the whole body, whatever the first caller asked; Entry.Write answers the
// conditions.
func Unconditional(r *http.Request) *http.Request {
	for _, k := range conditionalHeaders {
		if _, ok := r.Header[k]; ok {
			r2 := r.Clone(r.Context())
			for _, k := range conditionalHeaders {
				delete(r2.Header, k)
			}
			return r2
		}
	}
	return r
}

// Write answers r with e: 304 when the request's conditions hold for a 200 (If-None-Match, else
// If-Modified-Since), else the kept response.
func (e *Entry) Write(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	// Canonical keys set directly; the values are the entry's own, made once (NewEntry) and
	// never edited.
	h["Etag"] = e.etagValue
	h["Cache-Control"] = noCache
	if e.modValue != nil {
		h["Last-Modified"] = e.modValue
	}
	if e.linkValue != nil {
		h["Link"] = e.linkValue
	}
	if e.varyValue != nil {
		h["Vary"] = e.varyValue
	}
	if e.status == http.StatusOK && notModified(r, e) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h["Content-Type"] = e.typeValue
	h["Content-Length"] = e.lengthValue
	w.WriteHeader(e.status)
	if r.Method != http.MethodHead {
		_, err := w.Write(e.body)
		return err
	}
	return nil
}
