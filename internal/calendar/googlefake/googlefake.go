// Package googlefake is a fake of the two Google endpoints folio's google calendar provider
// talks to: the OAuth 2.0 token endpoint (JWT bearer grant of a service account, RFC 7523)
// and the Calendar v3 API (freebusy.query, events.insert, events.get, events.patch, events.delete). It checks what Google
// checks — the assertion's RS256 signature and claims, the bearer token, the request shapes and
// their JSON Content-Type — and answers in Google's JSON and status codes.
//
// Mount it on an httptest.Server; the provider's TokenURL is URL+"/token" and its APIURL is
// URL+"/calendar/v3/".
package googlefake

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Interval is a busy period injected with AddBusy.
type Interval struct{ Start, End time.Time }

// Event is an event stored by events.insert, in the API's JSON shape (the fields folio uses).
type Event struct {
	ID             string          `json:"id,omitempty"`
	Summary        string          `json:"summary,omitempty"`
	Description    string          `json:"description,omitempty"`
	Start          *EventTime      `json:"start,omitempty"`
	End            *EventTime      `json:"end,omitempty"`
	Attendees      []Attendee      `json:"attendees,omitempty"`
	Transparency   string          `json:"transparency,omitempty"`
	Location       string          `json:"location,omitempty"`
	ConferenceData *ConferenceData `json:"conferenceData,omitempty"`
	HangoutLink    string          `json:"hangoutLink,omitempty"`
	HTMLLink       string          `json:"htmlLink,omitempty"`
	Status         string          `json:"status,omitempty"`
}

// EventTime is an event's start or end.
type EventTime struct {
	DateTime string `json:"dateTime,omitempty"`
	Date     string `json:"date,omitempty"`
	TimeZone string `json:"timeZone,omitempty"`
}

// Attendee is an event attendee.
type Attendee struct {
	Email       string `json:"email"`
	DisplayName string `json:"displayName,omitempty"`
}

// ConferenceData is the conference part of an event.
type ConferenceData struct {
	CreateRequest *struct {
		RequestID             string `json:"requestId"`
		ConferenceSolutionKey *struct {
			Type string `json:"type"`
		} `json:"conferenceSolutionKey"`
	} `json:"createRequest,omitempty"`
	ConferenceID string       `json:"conferenceId,omitempty"`
	EntryPoints  []EntryPoint `json:"entryPoints,omitempty"`
}

// EntryPoint is a way to join a conference.
type EntryPoint struct {
	EntryPointType string `json:"entryPointType"`
	URI            string `json:"uri"`
}

// conferenceTypes are the conferenceSolutionKey types the Calendar API knows.
var conferenceTypes = map[string]bool{"eventHangout": true, "eventNamedHangout": true, "hangoutsMeet": true, "addOn": true}

// Server is the fake. Configure the exported fields before serving; use the methods while
// serving (they are safe for concurrent use).
type Server struct {
	PublicKey           *rsa.PublicKey // verifies assertions
	ServiceAccountEmail string         // required iss
	Subject             string         // required sub
	Scopes              []string       // required scope set, exactly
	Now                 func() time.Time

	mu         sync.Mutex
	tokens     map[string]time.Time // access token → expiry
	tokenCalls int
	apiCalls   int
	events     map[string][]Event // calendar id → events
	busy       map[string][]Interval
	failStatus int
	failLeft   int
	patches    int
	deletes    int
	delay      time.Duration
}

// New returns a fake that accepts assertions signed by pub for the given account and subject.
func New(pub *rsa.PublicKey, email, subject string, scopes []string) *Server {
	return &Server{PublicKey: pub, ServiceAccountEmail: email, Subject: subject, Scopes: scopes, Now: time.Now,
		tokens: map[string]time.Time{}, events: map[string][]Event{}, busy: map[string][]Interval{}}
}

// AddBusy adds busy time to calendarID beyond its stored events.
func (s *Server) AddBusy(calendarID string, start, end time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy[calendarID] = append(s.busy[calendarID], Interval{start, end})
}

// Events returns the events stored in calendarID.
func (s *Server) Events(calendarID string) []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events[calendarID])
}

// TokenCalls returns how many token requests were answered successfully.
func (s *Server) TokenCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokenCalls
}

// APICalls returns how many authorized API requests arrived.
func (s *Server) APICalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.apiCalls
}

// FailAPI makes the next n API requests fail with status (500, 403, 503, …); n < 0: all.
func (s *Server) FailAPI(status, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failStatus, s.failLeft = status, n
}

// SetDelay delays every API answer by d (to exercise client timeouts).
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

var eventPath = regexp.MustCompile(`^/calendar/v3/calendars/([^/]+)/events(?:/([^/]+))?$`)

// ServeHTTP serves /token and /calendar/v3/….
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/token" {
		s.token(w, r)
		return
	}
	if !s.authorized(r) {
		googleError(w, http.StatusUnauthorized, "authError", "Request had invalid authentication credentials.")
		return
	}
	s.mu.Lock()
	s.apiCalls++
	delay, fail := s.delay, 0
	if s.failLeft != 0 {
		fail = s.failStatus
		if s.failLeft > 0 {
			s.failLeft--
		}
	}
	s.mu.Unlock()
	if delay > 0 {
		// Read the body first: only then does net/http notice a client that hangs up.
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if fail != 0 {
		googleError(w, fail, "backendError", http.StatusText(fail))
		return
	}
	if r.URL.Path == "/calendar/v3/freeBusy" && r.Method == http.MethodPost {
		s.freeBusy(w, r)
		return
	}
	if m := eventPath.FindStringSubmatch(r.URL.EscapedPath()); m != nil {
		cal := unescape(m[1])
		switch {
		case m[2] == "" && r.Method == http.MethodPost:
			s.insert(w, r, cal)
			return
		case m[2] != "" && r.Method == http.MethodGet:
			s.get(w, cal, unescape(m[2]))
			return
		case m[2] != "" && r.Method == http.MethodPatch:
			s.patch(w, r, cal, unescape(m[2]))
			return
		case m[2] != "" && r.Method == http.MethodDelete:
			s.delete(w, r, cal, unescape(m[2]))
			return
		}
	}
	googleError(w, http.StatusNotFound, "notFound", "Not Found")
}

// token implements the JWT bearer grant: it verifies the assertion like Google does.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		oauthError(w, "invalid_request", "POST a form")
		return
	}
	if gt := r.PostForm.Get("grant_type"); gt != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		oauthError(w, "unsupported_grant_type", "Invalid grant_type: "+gt)
		return
	}
	jws, err := jose.ParseSignedCompact(r.PostForm.Get("assertion"), []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		oauthError(w, "invalid_grant", "Invalid JWT: not an RS256 JWS")
		return
	}
	payload, err := jws.Verify(s.PublicKey)
	if err != nil {
		oauthError(w, "invalid_grant", "Invalid JWT Signature.")
		return
	}
	var c struct {
		Iss   string `json:"iss"`
		Sub   string `json:"sub"`
		Scope string `json:"scope"`
		Aud   string `json:"aud"`
		Iat   int64  `json:"iat"`
		Exp   int64  `json:"exp"`
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		oauthError(w, "invalid_grant", "Invalid JWT payload")
		return
	}
	now := s.Now()
	wantAud := "http://" + r.Host + "/token"
	if r.TLS != nil {
		wantAud = "https://" + r.Host + "/token"
	}
	got, want := strings.Fields(c.Scope), slices.Clone(s.Scopes)
	sort.Strings(got)
	sort.Strings(want)
	switch {
	case c.Iss != s.ServiceAccountEmail:
		oauthError(w, "invalid_grant", "Invalid issuer")
	case c.Sub != s.Subject:
		oauthError(w, "unauthorized_client", "Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested.")
	case !slices.Equal(got, want):
		oauthError(w, "invalid_scope", fmt.Sprintf("scope must be exactly %q, got %q", s.Scopes, c.Scope))
	case c.Aud != wantAud:
		oauthError(w, "invalid_grant", "Invalid JWT audience "+c.Aud)
	case c.Iat > now.Add(5*time.Minute).Unix() || c.Iat < now.Add(-5*time.Minute).Unix():
		oauthError(w, "invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values.")
	case c.Exp <= c.Iat || c.Exp-c.Iat > 3600 || c.Exp < now.Unix():
		oauthError(w, "invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values.")
	default:
		tok := randomHex(24)
		s.mu.Lock()
		s.tokens[tok] = now.Add(time.Hour)
		s.tokenCalls++
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
	}
}

func (s *Server) authorized(r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.tokens[tok]
	return ok && s.Now().Before(exp)
}

func (s *Server) freeBusy(w http.ResponseWriter, r *http.Request) {
	var req struct {
		TimeMin string `json:"timeMin"`
		TimeMax string `json:"timeMax"`
		Items   []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	tmin, err1 := time.Parse(time.RFC3339, req.TimeMin)
	tmax, err2 := time.Parse(time.RFC3339, req.TimeMax)
	switch {
	case req.TimeMin == "" || req.TimeMax == "":
		googleError(w, http.StatusBadRequest, "required", "Missing time range.")
		return
	case err1 != nil || err2 != nil:
		googleError(w, http.StatusBadRequest, "invalid", "Invalid time value, RFC 3339 expected.")
		return
	case !tmin.Before(tmax):
		googleError(w, http.StatusBadRequest, "timeRangeEmpty", "The specified time range is empty.")
		return
	case len(req.Items) == 0:
		googleError(w, http.StatusBadRequest, "required", "Missing items.")
		return
	}
	type period struct {
		Start string `json:"start"`
		End   string `json:"end"`
	}
	cals := map[string]any{}
	s.mu.Lock()
	for _, it := range req.Items {
		_, known := s.events[it.ID]
		_, knownBusy := s.busy[it.ID]
		if !known && !knownBusy && it.ID != s.Subject {
			cals[it.ID] = map[string]any{"errors": []map[string]string{{"domain": "global", "reason": "notFound"}}, "busy": []period{}}
			continue
		}
		var busy []Interval
		for _, e := range s.events[it.ID] {
			if e.Transparency == "transparent" || e.Status == "cancelled" {
				continue
			}
			st, _ := time.Parse(time.RFC3339, e.Start.DateTime)
			en, _ := time.Parse(time.RFC3339, e.End.DateTime)
			busy = append(busy, Interval{st, en})
		}
		busy = append(busy, s.busy[it.ID]...)
		ps := []period{}
		for _, b := range busy {
			if b.Start.Before(tmax) && tmin.Before(b.End) {
				ps = append(ps, period{b.Start.UTC().Format(time.RFC3339), b.End.UTC().Format(time.RFC3339)})
			}
		}
		cals[it.ID] = map[string]any{"busy": ps}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"kind": "calendar#freeBusy", "timeMin": req.TimeMin, "timeMax": req.TimeMax, "calendars": cals})
}

var base32hexID = regexp.MustCompile(`^[a-v0-9]{5,}$`) // and at most 1024, checked apart (RE2 caps repeats at 1000)

func (s *Server) insert(w http.ResponseWriter, r *http.Request, cal string) {
	var ev Event
	if !decodeBody(w, r, &ev) {
		return
	}
	q := r.URL.Query()
	switch {
	case ev.Start == nil || ev.End == nil || ev.Start.DateTime == "" || ev.End.DateTime == "":
		googleError(w, http.StatusBadRequest, "required", "Missing start or end time.")
		return
	case !validTime(ev.Start.DateTime) || !validTime(ev.End.DateTime):
		googleError(w, http.StatusBadRequest, "invalid", "Invalid start or end time.")
		return
	case ev.ConferenceData != nil && q.Get("conferenceDataVersion") != "1":
		// Google silently drops conferenceData without it; a fake that fails loudly catches the bug.
		googleError(w, http.StatusBadRequest, "invalid", "conferenceData requires conferenceDataVersion=1")
		return
	case ev.ID != "" && (!base32hexID.MatchString(ev.ID) || len(ev.ID) > 1024):
		googleError(w, http.StatusBadRequest, "invalid", "Invalid resource id value.")
		return
	case len(ev.Location) > 8192:
		googleError(w, http.StatusBadRequest, "invalid", "Invalid location value.")
		return
	}
	if cd := ev.ConferenceData; cd != nil {
		// As Google: a conference is made only from a createRequest with a requestId and a
		// known solution type; conferenceId or entryPoints sent by the client need a conference
		// solution too, which folio never sends.
		cr := cd.CreateRequest
		switch {
		case cr == nil:
			googleError(w, http.StatusBadRequest, "invalid", "Invalid conference data: a createRequest is required.")
			return
		case cr.RequestID == "":
			googleError(w, http.StatusBadRequest, "invalid", "Invalid conference request: requestId is required.")
			return
		case cr.ConferenceSolutionKey == nil || !conferenceTypes[cr.ConferenceSolutionKey.Type]:
			googleError(w, http.StatusBadRequest, "invalid", "Invalid conference type value.")
			return
		}
	}
	if su := q.Get("sendUpdates"); su != "" && su != "all" && su != "externalOnly" && su != "none" {
		googleError(w, http.StatusBadRequest, "invalid", "Invalid sendUpdates value.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ev.ID == "" {
		ev.ID = randomHex(13)
	}
	for _, e := range s.events[cal] {
		if e.ID == ev.ID {
			googleError(w, http.StatusConflict, "duplicate", "The requested identifier already exists.")
			return
		}
	}
	ev.Status = "confirmed"
	ev.HTMLLink = "https://www.google.com/calendar/event?eid=" + ev.ID
	if cr := ev.ConferenceData; cr != nil && cr.CreateRequest.ConferenceSolutionKey.Type == "hangoutsMeet" {
		code := randomHex(5)
		ev.HangoutLink = "https://meet.google.com/" + code[:3] + "-" + code[3:7] + "-" + code[7:]
		ev.ConferenceData = &ConferenceData{ConferenceID: code, EntryPoints: []EntryPoint{{"video", ev.HangoutLink},
			{"phone", "tel:+1-555-0100-" + code[:4]}}}
	} else if cr != nil {
		ev.ConferenceData = nil // other solutions are not available on this (Workspace) calendar
	}
	s.events[cal] = append(s.events[cal], ev)
	writeJSON(w, http.StatusOK, ev)
}

func (s *Server) get(w http.ResponseWriter, cal, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.events[cal] {
		if e.ID == id {
			writeJSON(w, http.StatusOK, e)
			return
		}
	}
	googleError(w, http.StatusNotFound, "notFound", "Not Found")
}

// patch implements events.patch as Google does for the fields folio sends: a partial event
// whose present fields replace the stored ones. start and end must stay a valid, non-empty
// range; a deleted (cancelled) event answers 410 like the real API does for most changes.
func (s *Server) patch(w http.ResponseWriter, r *http.Request, cal, id string) {
	var in Event
	if !decodeBody(w, r, &in) {
		return
	}
	if su := r.URL.Query().Get("sendUpdates"); su != "" && su != "all" && su != "externalOnly" && su != "none" {
		googleError(w, http.StatusBadRequest, "invalid", "Invalid sendUpdates value.")
		return
	}
	if in.ID != "" && in.ID != id {
		googleError(w, http.StatusBadRequest, "invalid", "The event id in the body does not match the path.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, e := range s.events[cal] {
		if e.ID != id {
			continue
		}
		if e.Status == "cancelled" {
			googleError(w, http.StatusGone, "deleted", "Resource has been deleted")
			return
		}
		if in.Start != nil {
			e.Start = in.Start
		}
		if in.End != nil {
			e.End = in.End
		}
		if in.Summary != "" {
			e.Summary = in.Summary
		}
		if in.Description != "" {
			e.Description = in.Description
		}
		if in.Location != "" {
			e.Location = in.Location
		}
		if e.Start == nil || e.End == nil || !validTime(e.Start.DateTime) || !validTime(e.End.DateTime) {
			googleError(w, http.StatusBadRequest, "invalid", "Invalid start or end time.")
			return
		}
		st, _ := time.Parse(time.RFC3339, e.Start.DateTime)
		en, _ := time.Parse(time.RFC3339, e.End.DateTime)
		if !st.Before(en) {
			googleError(w, http.StatusBadRequest, "timeRangeEmpty", "The specified time range is empty.")
			return
		}
		s.events[cal][i] = e
		s.patches++
		writeJSON(w, http.StatusOK, e)
		return
	}
	googleError(w, http.StatusNotFound, "notFound", "Not Found")
}

// delete implements events.delete: the event is kept with status "cancelled" (Google keeps
// deleted events visible to sync clients) and answers 204; deleting it again is 410 Gone, an
// unknown id 404.
func (s *Server) delete(w http.ResponseWriter, r *http.Request, cal, id string) {
	if su := r.URL.Query().Get("sendUpdates"); su != "" && su != "all" && su != "externalOnly" && su != "none" {
		googleError(w, http.StatusBadRequest, "invalid", "Invalid sendUpdates value.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, e := range s.events[cal] {
		if e.ID != id {
			continue
		}
		if e.Status == "cancelled" {
			googleError(w, http.StatusGone, "deleted", "Resource has been deleted")
			return
		}
		s.events[cal][i].Status = "cancelled"
		s.deletes++
		w.WriteHeader(http.StatusNoContent)
		return
	}
	googleError(w, http.StatusNotFound, "notFound", "Not Found")
}

// Changes returns how many events.patch and events.delete calls succeeded.
func (s *Server) Changes() (patches, deletes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.patches, s.deletes
}

// decodeBody reads the request's JSON body into v, or answers 400 and reports false. The body
// must be declared application/json: Google reads a body only as what its Content-Type says, so
// the same JSON sent as a form or untyped does not reach the call's fields (the call then fails
// for lack of them, or a patch changes nothing); the fake fails loudly instead, as it does for a
// conference request without conferenceDataVersion. A value of the wrong JSON type is 400 too.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		googleError(w, http.StatusBadRequest, "parseError", "This API does not support parsing form-encoded input.")
		return false
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(v); err != nil {
		googleError(w, http.StatusBadRequest, "parseError", "Parse Error")
		return false
	}
	return true
}

func validTime(s string) bool {
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}

func unescape(s string) string {
	out, err := url.PathUnescape(s)
	if err != nil {
		return s
	}
	return out
}

func googleError(w http.ResponseWriter, status int, reason, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"code": status, "message": msg,
		"errors": []map[string]string{{"domain": "global", "reason": reason, "message": msg}},
	}})
}

func oauthError(w http.ResponseWriter, code, desc string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
