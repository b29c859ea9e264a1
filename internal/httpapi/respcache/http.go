package respcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
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

// Write answers r with e: 304 when If-None-Match matches a 200's ETag, else the kept response.
func (e *Entry) Write(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	// Canonical keys set directly; the values are the entry's own, made once (NewEntry) and
	// never edited.
	h["Etag"] = e.etagValue
	h["Cache-Control"] = noCache
	if e.status == http.StatusOK && ETagMatches(r.Header.Get("If-None-Match"), e.etag) {
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
