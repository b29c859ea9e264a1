// Package google is the folio.Calendar of a Google Calendar, reached over the Calendar API v3's
// REST interface with a service account that impersonates the calendar's owner (domain-wide
// delegation). It asks for exactly two scopes: calendar.events (create events) and
// calendar.freebusy (read busy time only, never event details).
//
// The calls folio makes (freebusy.query, events.insert/get/patch/delete) are plain JSON over HTTPS,
// sent through golang.org/x/oauth2's transport (JWT grant, token reuse and refresh). Google's
// generated client, google.golang.org/api, is not used: with what it needed (gRPC, OpenTelemetry,
// cloud.google.com/go/auth) it brought 478 MB of module source and 187 packages into every build;
// see docs/dependencies.md.
package google

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/jwt"
)

// Scopes are the OAuth scopes folio requests, and the only ones.
var Scopes = []string{
	"https://www.googleapis.com/auth/calendar.events",
	"https://www.googleapis.com/auth/calendar.freebusy",
}

// Defaults of Config.APIURL and Config.TokenURL.
const (
	DefaultAPIURL   = "https://www.googleapis.com/calendar/v3/"
	DefaultTokenURL = "https://oauth2.googleapis.com/token"
)

// Config configures the Google provider.
type Config struct {
	CalendarID          string // PROVIDER_CALENDAR_ID, e.g. owner@example.com
	ServiceAccountEmail string // PROVIDER_SERVICE_ACCOUNT_EMAIL
	// PrivateKeyPEM is the service account's RSA key (PKCS#8 or PKCS#1 PEM). Literal two-character
	// "\n" sequences are turned into newlines, as environment variables usually carry them.
	PrivateKeyPEM string
	// Subject is the user the service account acts for; default CalendarID.
	Subject  string
	APIURL   string // default DefaultAPIURL (PROVIDER_API_URL, for tests)
	TokenURL string // default DefaultTokenURL (PROVIDER_TOKEN_URL, for tests)
	// HTTPClient is used for token and API requests; default a client with a 30s timeout.
	HTTPClient *http.Client
}

// Calendar implements folio.Calendar on Google Calendar.
type Calendar struct {
	client     *http.Client // adds the access token to each request
	apiURL     string       // ends in "/"
	calendarID string
	// timeout bounds each call: the HTTPClient's own Timeout does not reach through the oauth2
	// transport, so it is applied as a context deadline instead.
	timeout time.Duration
}

func (c *Calendar) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, c.timeout)
}

var _ folio.Calendar = (*Calendar)(nil) // compile-time check

// New checks cfg, parses the private key and returns the provider. No request is made: the
// first call fetches an access token, which is then reused until it expires.
func New(ctx context.Context, cfg Config) (*Calendar, error) {
	switch {
	case cfg.CalendarID == "":
		return nil, errors.New("google calendar: PROVIDER_CALENDAR_ID is not set")
	case cfg.ServiceAccountEmail == "":
		return nil, errors.New("google calendar: PROVIDER_SERVICE_ACCOUNT_EMAIL is not set")
	case cfg.PrivateKeyPEM == "":
		return nil, errors.New("google calendar: PROVIDER_SERVICE_ACCOUNT_PRIVATE_KEY is not set")
	}
	key := []byte(strings.ReplaceAll(cfg.PrivateKeyPEM, `\n`, "\n"))
	if err := checkRSAKey(key); err != nil {
		return nil, err
	}
	if cfg.Subject == "" {
		cfg.Subject = cfg.CalendarID
	}
	if cfg.APIURL == "" {
		cfg.APIURL = DefaultAPIURL
	}
	if !strings.HasSuffix(cfg.APIURL, "/") {
		cfg.APIURL += "/"
	}
	if cfg.TokenURL == "" {
		cfg.TokenURL = DefaultTokenURL
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	jc := &jwt.Config{
		Email:      cfg.ServiceAccountEmail,
		PrivateKey: key,
		Scopes:     Scopes,
		TokenURL:   cfg.TokenURL,
		Subject:    cfg.Subject,
	}
	// The token source outlives ctx's request, if any; the HTTP client's timeout bounds it.
	tctx := context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, cfg.HTTPClient)
	client := oauth2.NewClient(tctx, jc.TokenSource(tctx))
	client.Timeout = 0 // NB: a Timeout cannot cancel through oauth2.Transport; see withTimeout
	return &Calendar{client: client, apiURL: cfg.APIURL, calendarID: cfg.CalendarID, timeout: cfg.HTTPClient.Timeout}, nil
}

// checkRSAKey rejects a key the JWT signer could not use, at start rather than at the first
// booking. The error never includes key material.
func checkRSAKey(pemBytes []byte) error {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return errors.New("google calendar: PROVIDER_SERVICE_ACCOUNT_PRIVATE_KEY is not a PEM block")
	}
	if _, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		return nil
	}
	if _, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return nil
	}
	return errors.New("google calendar: PROVIDER_SERVICE_ACCOUNT_PRIVATE_KEY is not a PKCS#8 or PKCS#1 RSA private key")
}

// FreeBusy asks freebusy.query for the calendar's busy time in [start, end).
func (c *Calendar) FreeBusy(ctx context.Context, start, end time.Time) ([]folio.Interval, error) {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	type item struct {
		ID string `json:"id"`
	}
	in := struct {
		TimeMin string `json:"timeMin"`
		TimeMax string `json:"timeMax"`
		Items   []item `json:"items"`
	}{start.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339), []item{{c.calendarID}}}
	var resp struct {
		Calendars map[string]struct {
			Busy []struct {
				Start string `json:"start"`
				End   string `json:"end"`
			} `json:"busy"`
			Errors []struct {
				Reason string `json:"reason"`
			} `json:"errors"`
		} `json:"calendars"`
	}
	if err := c.call(ctx, http.MethodPost, "freeBusy", nil, in, &resp); err != nil {
		return nil, upstream("freebusy.query", err)
	}
	cal, ok := resp.Calendars[c.calendarID]
	if !ok {
		return nil, upstream("freebusy.query", errors.New("calendar missing from the response"))
	}
	if len(cal.Errors) > 0 {
		return nil, upstream("freebusy.query", fmt.Errorf("calendar error: %s", cal.Errors[0].Reason))
	}
	out := make([]folio.Interval, 0, len(cal.Busy))
	for _, b := range cal.Busy {
		s, err1 := time.Parse(time.RFC3339, b.Start)
		e, err2 := time.Parse(time.RFC3339, b.End)
		if err := errors.Join(err1, err2); err != nil {
			return nil, upstream("freebusy.query", fmt.Errorf("bad busy period: %w", err))
		}
		out = append(out, folio.Interval{Start: s, End: e})
	}
	return out, nil
}

// EventID returns the Google event id of the folio event id: Google ids are base32hex
// ([a-v0-9]{5,1024}), so the UUID's hex digits qualify once the hyphens are gone. A retried
// insert with the same id gets 409 instead of a duplicate event.
func EventID(folioID string) string {
	id := strings.ToLower(strings.ReplaceAll(folioID, "-", ""))
	if len(id) >= 5 && strings.Trim(id, "0123456789abcdefghijklmnopqrstuv") == "" {
		return id
	}
	return hex.EncodeToString([]byte(folioID))
}

// CreateEvent inserts the event with a Google Meet conference request (conferenceDataVersion=1;
// only for a google_meet place or none: other places go to the event's location instead) and without Google's own invitation mails (sendUpdates=none: folio sends its own). The
// returned event has ID = EventID(ev.ID), MeetLink = hangoutLink and EventLink = htmlLink.
func (c *Calendar) CreateEvent(ctx context.Context, ev folio.CalendarEvent) (folio.CalendarEvent, error) {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	if ev.ID == "" {
		ev.ID = folio.NewID()
	}
	gid := EventID(ev.ID)
	in := event{
		ID:          gid,
		Summary:     ev.Summary,
		Description: ev.Description,
		Start:       &eventTime{DateTime: ev.Start.Format(time.RFC3339), TimeZone: ev.TimeZone},
		End:         &eventTime{DateTime: ev.End.Format(time.RFC3339), TimeZone: ev.TimeZone},
	}
	meet := ev.Place == nil || ev.Place.Kind == folio.PlaceGoogleMeet
	if meet {
		in.ConferenceData = &conferenceData{CreateRequest: &createConferenceRequest{
			RequestID:             gid,
			ConferenceSolutionKey: conferenceSolutionKey{Type: "hangoutsMeet"},
		}}
	} else {
		in.Location = ev.Place.Where() // the link, number, address or text
	}
	if ev.Attendee.Email != "" {
		in.Attendees = []attendee{{Email: ev.Attendee.Email, DisplayName: ev.Attendee.Name}}
	}
	var out event
	err := c.call(ctx, http.MethodPost, c.eventsPath(""), url.Values{"conferenceDataVersion": {"1"}, "sendUpdates": {"none"}}, in, &out)
	if status(err) == http.StatusConflict {
		// An earlier attempt with this id got through: answer with that event.
		err = c.call(ctx, http.MethodGet, c.eventsPath(gid), nil, nil, &out)
	}
	if err != nil {
		return folio.CalendarEvent{}, upstream("events.insert", err)
	}
	ev.ID = out.ID
	ev.EventLink = out.HTMLLink
	if meet {
		ev.MeetLink = out.meetLink()
	}
	return ev, nil
}

// MoveEvent implements folio.CalendarMover with events.patch on the same event (the Google id
// derived from ev.ID), changing only start and end, without Google's mails (folio sends its
// own invite with a raised SEQUENCE).
func (c *Calendar) MoveEvent(ctx context.Context, ev folio.CalendarEvent) (folio.CalendarEvent, error) {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	patch := event{
		Start: &eventTime{DateTime: ev.Start.Format(time.RFC3339), TimeZone: ev.TimeZone},
		End:   &eventTime{DateTime: ev.End.Format(time.RFC3339), TimeZone: ev.TimeZone},
	}
	var out event
	if err := c.call(ctx, http.MethodPatch, c.eventsPath(EventID(ev.ID)), url.Values{"sendUpdates": {"none"}}, patch, &out); err != nil {
		return folio.CalendarEvent{}, upstream("events.patch", err)
	}
	ev.EventLink = out.HTMLLink
	if ev.Place == nil || ev.Place.Kind == folio.PlaceGoogleMeet {
		ev.MeetLink = out.meetLink() // the same Meet: a patch of start and end keeps the conference
	}
	return ev, nil
}

// DeleteEvent implements folio.CalendarMover with events.delete. 404 and 410 (deleted before,
// by a retried cancel or by the owner) count as done.
func (c *Calendar) DeleteEvent(ctx context.Context, ev folio.CalendarEvent) error {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	err := c.call(ctx, http.MethodDelete, c.eventsPath(EventID(ev.ID)), url.Values{"sendUpdates": {"none"}}, nil, nil)
	if st := status(err); st == http.StatusGone || st == http.StatusNotFound {
		return nil
	}
	if err != nil {
		return upstream("events.delete", err)
	}
	return nil
}

// eventsPath is the events collection of the calendar, or one event of it when id is set.
func (c *Calendar) eventsPath(id string) string {
	p := "calendars/" + url.PathEscape(c.calendarID) + "/events"
	if id != "" {
		p += "/" + url.PathEscape(id)
	}
	return p
}

// maxResponse bounds what is read of an answer; folio's events and busy lists are far smaller.
const maxResponse = 4 << 20

// call sends one API request — path relative to the API URL, in (if not nil) as the JSON body —
// and decodes a 2xx answer into out (if not nil). Any other status is an *apiError. Nothing is
// retried here, as Google's generated client retried none of these calls: the callers above turn
// a failure into UPSTREAM_ERROR.
func (c *Calendar) call(ctx context.Context, method, path string, query url.Values, in, out any) error {
	if query == nil {
		query = url.Values{}
	}
	query.Set("prettyPrint", "false")
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.apiURL+path+"?"+query.Encode(), body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return newAPIError(resp.StatusCode, data)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decoding the answer: %w", err)
	}
	return nil
}

// apiError is a non-2xx answer of the Calendar API, with what Google's error envelope
// ({"error":{"code","message","errors":[{"reason"}]}}) says about it.
type apiError struct {
	Status  int
	Reason  string // the first error's reason: notFound, rateLimitExceeded, backendError, …
	Message string
}

func (e *apiError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message)
	}
	return fmt.Sprintf("HTTP %d: %s (%s)", e.Status, e.Message, e.Reason)
}

func newAPIError(status int, body []byte) *apiError {
	var env struct {
		Error struct {
			Message string `json:"message"`
			Errors  []struct {
				Reason string `json:"reason"`
			} `json:"errors"`
		} `json:"error"`
	}
	e := &apiError{Status: status, Message: http.StatusText(status)}
	if json.Unmarshal(body, &env) == nil {
		if env.Error.Message != "" {
			e.Message = env.Error.Message
		}
		if len(env.Error.Errors) > 0 {
			e.Reason = env.Error.Errors[0].Reason
		}
	}
	return e
}

// status is the HTTP status of an API error in err's chain, or 0.
func status(err error) int {
	var aerr *apiError
	if errors.As(err, &aerr) {
		return aerr.Status
	}
	return 0
}

// event is the part of the API's Event resource that folio writes and reads.
type event struct {
	ID             string          `json:"id,omitempty"`
	Summary        string          `json:"summary,omitempty"`
	Description    string          `json:"description,omitempty"`
	Start          *eventTime      `json:"start,omitempty"`
	End            *eventTime      `json:"end,omitempty"`
	Attendees      []attendee      `json:"attendees,omitempty"`
	Location       string          `json:"location,omitempty"`
	ConferenceData *conferenceData `json:"conferenceData,omitempty"`
	HangoutLink    string          `json:"hangoutLink,omitempty"`
	HTMLLink       string          `json:"htmlLink,omitempty"`
}

type eventTime struct {
	DateTime string `json:"dateTime,omitempty"`
	TimeZone string `json:"timeZone,omitempty"`
}

type attendee struct {
	Email       string `json:"email"`
	DisplayName string `json:"displayName,omitempty"`
}

type conferenceData struct {
	CreateRequest *createConferenceRequest `json:"createRequest,omitempty"`
	EntryPoints   []struct {
		EntryPointType string `json:"entryPointType"`
		URI            string `json:"uri"`
	} `json:"entryPoints,omitempty"`
}

type createConferenceRequest struct {
	RequestID             string                `json:"requestId"`
	ConferenceSolutionKey conferenceSolutionKey `json:"conferenceSolutionKey"`
}

type conferenceSolutionKey struct {
	Type string `json:"type"`
}

// meetLink returns the hangoutLink, or the conference's video entry point. NB: Google may
// create the conference asynchronously (status "pending"); the link is then empty.
func (e *event) meetLink() string {
	if e.HangoutLink != "" {
		return e.HangoutLink
	}
	if e.ConferenceData != nil {
		for _, ep := range e.ConferenceData.EntryPoints {
			if ep.EntryPointType == "video" {
				return ep.URI
			}
		}
	}
	return ""
}

// upstream wraps a provider failure as UPSTREAM_ERROR; the cause stays in the chain for the log.
func upstream(op string, err error) error {
	var rerr *oauth2.RetrieveError
	if errors.As(err, &rerr) && rerr.Response != nil {
		// The token endpoint's answer names the problem (invalid_grant, …) and holds no secret;
		// the request, which carries the signed assertion, is never printed.
		var body struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		_ = json.Unmarshal(rerr.Body, &body)
		err = fmt.Errorf("token request: HTTP %d: %s: %s", rerr.Response.StatusCode, body.Error, body.Description)
	}
	return fmt.Errorf("google calendar %s: %v: %w", op, err,
		&folio.Error{Code: folio.EUPSTREAM, Message: "The calendar provider failed; try again later."})
}
