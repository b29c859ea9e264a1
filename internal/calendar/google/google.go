// Package google is the folio.Calendar of a Google Calendar, reached with the official Calendar
// API client and a service account that impersonates the calendar's owner (domain-wide
// delegation). It asks for exactly two scopes: calendar.events (create events) and
// calendar.freebusy (read busy time only, never event details).
package google

import (
	"context"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/foliohq/folio"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/jwt"
	calendar "google.golang.org/api/calendar/v3"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
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
	svc        *calendar.Service
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
	svc, err := calendar.NewService(ctx, option.WithHTTPClient(client), option.WithEndpoint(cfg.APIURL))
	if err != nil {
		return nil, fmt.Errorf("google calendar: %w", err)
	}
	return &Calendar{svc: svc, calendarID: cfg.CalendarID, timeout: cfg.HTTPClient.Timeout}, nil
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
	resp, err := c.svc.Freebusy.Query(&calendar.FreeBusyRequest{
		TimeMin: start.UTC().Format(time.RFC3339),
		TimeMax: end.UTC().Format(time.RFC3339),
		Items:   []*calendar.FreeBusyRequestItem{{Id: c.calendarID}},
	}).Context(ctx).Do()
	if err != nil {
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

// CreateEvent inserts the event with a Google Meet conference request (conferenceDataVersion=1)
// and without Google's own invitation mails (sendUpdates=none: folio sends its own). The
// returned event has ID = EventID(ev.ID), MeetLink = hangoutLink and EventLink = htmlLink.
func (c *Calendar) CreateEvent(ctx context.Context, ev folio.CalendarEvent) (folio.CalendarEvent, error) {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	if ev.ID == "" {
		ev.ID = folio.NewID()
	}
	gid := EventID(ev.ID)
	in := &calendar.Event{
		Id:          gid,
		Summary:     ev.Summary,
		Description: ev.Description,
		Start:       &calendar.EventDateTime{DateTime: ev.Start.Format(time.RFC3339), TimeZone: ev.TimeZone},
		End:         &calendar.EventDateTime{DateTime: ev.End.Format(time.RFC3339), TimeZone: ev.TimeZone},
		ConferenceData: &calendar.ConferenceData{
			CreateRequest: &calendar.CreateConferenceRequest{
				RequestId:             gid,
				ConferenceSolutionKey: &calendar.ConferenceSolutionKey{Type: "hangoutsMeet"},
			},
		},
	}
	if ev.Attendee.Email != "" {
		in.Attendees = []*calendar.EventAttendee{{Email: ev.Attendee.Email, DisplayName: ev.Attendee.Name}}
	}
	out, err := c.svc.Events.Insert(c.calendarID, in).ConferenceDataVersion(1).SendUpdates("none").Context(ctx).Do()
	var gerr *googleapi.Error
	if errors.As(err, &gerr) && gerr.Code == http.StatusConflict {
		// An earlier attempt with this id got through: answer with that event.
		out, err = c.svc.Events.Get(c.calendarID, gid).Context(ctx).Do()
	}
	if err != nil {
		return folio.CalendarEvent{}, upstream("events.insert", err)
	}
	ev.ID = out.Id
	ev.EventLink = out.HtmlLink
	ev.MeetLink = meetLink(out)
	return ev, nil
}

// MoveEvent implements folio.CalendarMover with events.patch on the same event (the Google id
// derived from ev.ID), changing only start and end, without Google's mails (folio sends its
// own invite with a raised SEQUENCE).
func (c *Calendar) MoveEvent(ctx context.Context, ev folio.CalendarEvent) (folio.CalendarEvent, error) {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	gid := EventID(ev.ID)
	patch := &calendar.Event{
		Start: &calendar.EventDateTime{DateTime: ev.Start.Format(time.RFC3339), TimeZone: ev.TimeZone},
		End:   &calendar.EventDateTime{DateTime: ev.End.Format(time.RFC3339), TimeZone: ev.TimeZone},
	}
	out, err := c.svc.Events.Patch(c.calendarID, gid, patch).SendUpdates("none").Context(ctx).Do()
	if err != nil {
		return folio.CalendarEvent{}, upstream("events.patch", err)
	}
	ev.EventLink = out.HtmlLink
	ev.MeetLink = meetLink(out)
	return ev, nil
}

// DeleteEvent implements folio.CalendarMover with events.delete. 404 and 410 (deleted before,
// by a retried cancel or by the owner) count as done.
func (c *Calendar) DeleteEvent(ctx context.Context, ev folio.CalendarEvent) error {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	err := c.svc.Events.Delete(c.calendarID, EventID(ev.ID)).SendUpdates("none").Context(ctx).Do()
	var gerr *googleapi.Error
	if errors.As(err, &gerr) && (gerr.Code == http.StatusGone || gerr.Code == http.StatusNotFound) {
		return nil
	}
	if err != nil {
		return upstream("events.delete", err)
	}
	return nil
}

// meetLink returns the hangoutLink, or the conference's video entry point. NB: Google may
// create the conference asynchronously (status "pending"); the link is then empty.
func meetLink(e *calendar.Event) string {
	if e.HangoutLink != "" {
		return e.HangoutLink
	}
	if e.ConferenceData != nil {
		for _, ep := range e.ConferenceData.EntryPoints {
			if ep.EntryPointType == "video" {
				return ep.Uri
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
