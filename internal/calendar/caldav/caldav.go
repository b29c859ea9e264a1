// Package caldav is the folio.Calendar of a CalDAV calendar collection (Radicale, Nextcloud,
// Fastmail, …), reached with github.com/emersion/go-webdav.
//
// Busy time comes from a calendar-query REPORT with a time-range filter; the VEVENTs returned
// are turned into busy intervals here (CalDAV's free-busy-query REPORT is optional and missing
// from several servers). Events marked TRANSP:TRANSPARENT or STATUS:CANCELLED are free. Recurring
// events are expanded with their RRULE/RDATE/EXDATE; an overridden instance (RECURRENCE-ID)
// replaces its occurrence. Times without a zone (floating) and all-day dates are read in the
// owner's zone. A TZID that is not an IANA name is read as floating.
//
// Events are created by PUT of an .ics named <event id>.ics with If-None-Match: *, so an
// existing object is never overwritten; a retried create of the same id finds it there and
// succeeds without writing.
package caldav

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	ical "github.com/emersion/go-ical"
	"github.com/emersion/go-webdav"
	"github.com/emersion/go-webdav/caldav"
	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/invite"

	"github.com/teambition/rrule-go"
)

// DefaultMeetingURLTemplate is the meeting link when none is configured; {id} is the event id.
const DefaultMeetingURLTemplate = "https://meet.jit.si/folio-{id}"

// Config configures the CalDAV provider.
type Config struct {
	// URL is the calendar collection, e.g. https://dav.example.com/owner/calendar/.
	URL      string
	Username string
	Password string
	// MeetingURLTemplate makes the meeting link ({id} is replaced by the event id);
	// default DefaultMeetingURLTemplate.
	MeetingURLTemplate string
	// Location reads floating times and all-day events; default UTC.
	Location *time.Location
	// HTTPClient defaults to a client with a 30s timeout.
	HTTPClient *http.Client
	// Now stamps DTSTAMP; default time.Now.
	Now func() time.Time
}

// Calendar implements folio.Calendar on a CalDAV collection.
type Calendar struct {
	client  *caldav.Client
	base    *url.URL // the collection, ending in "/"
	meetTpl string
	loc     *time.Location
	now     func() time.Time
}

var _ folio.Calendar = (*Calendar)(nil) // compile-time check

// New checks cfg and returns the provider; no request is made.
func New(cfg Config) (*Calendar, error) {
	if cfg.URL == "" {
		return nil, errors.New("caldav: CALDAV_URL is not set")
	}
	base, err := url.Parse(cfg.URL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, errors.New("caldav: CALDAV_URL is not an http(s) URL")
	}
	if base.User != nil {
		return nil, errors.New("caldav: put the credentials in CALDAV_USERNAME and CALDAV_PASSWORD, not in CALDAV_URL")
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.MeetingURLTemplate == "" {
		cfg.MeetingURLTemplate = DefaultMeetingURLTemplate
	}
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	var hc webdav.HTTPClient = noOverwrite{cfg.HTTPClient}
	if cfg.Username != "" || cfg.Password != "" {
		hc = webdav.HTTPClientWithBasicAuth(hc, cfg.Username, cfg.Password)
	}
	root := &url.URL{Scheme: base.Scheme, Host: base.Host}
	client, err := caldav.NewClient(hc, root.String())
	if err != nil {
		return nil, fmt.Errorf("caldav: %w", err)
	}
	return &Calendar{client: client, base: base, meetTpl: cfg.MeetingURLTemplate, loc: cfg.Location, now: cfg.Now}, nil
}

// errExists reports a PUT refused because the object already exists (412 to If-None-Match: *).
var errExists = errors.New("caldav: object exists")

// errGone reports a DELETE or an overwriting PUT of an object that does not exist (404, or 412 to
// If-Match: *).
var errGone = errors.New("caldav: object does not exist")

// overwriteKey carries, in a request context, the ETag of the object a PUT replaces (MoveEvent).
type overwriteKey struct{}

// noOverwrite adds If-None-Match: * to every PUT that creates (go-webdav v0.6.0 has no option
// for it) and If-Match: <etag> to one that replaces, so a move never creates a stray object, never
// overwrites a change made meanwhile, and a create never clobbers one (Radicale does not accept
// If-Match: *, hence the ETag read first). It turns the 412 answers into errExists / errGone, and
// a 404 to GET or DELETE into errGone.
type noOverwrite struct{ c *http.Client }

func (n noOverwrite) Do(req *http.Request) (*http.Response, error) {
	etag, replace := req.Context().Value(overwriteKey{}).(string)
	if req.Method == http.MethodPut {
		if replace {
			req.Header.Set("If-Match", strconv.Quote(etag))
		} else {
			req.Header.Set("If-None-Match", "*")
		}
	}
	resp, err := n.c.Do(req)
	if err != nil {
		return resp, err
	}
	switch {
	case req.Method == http.MethodPut && resp.StatusCode == http.StatusPreconditionFailed:
		resp.Body.Close()
		if replace {
			return nil, errGone
		}
		return nil, errExists
	case (req.Method == http.MethodDelete || req.Method == http.MethodGet) && (resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone):
		resp.Body.Close()
		return nil, errGone
	}
	return resp, err
}

// FreeBusy returns the busy intervals of the collection's events that overlap [start, end).
func (c *Calendar) FreeBusy(ctx context.Context, start, end time.Time) (_ []folio.Interval, err error) {
	// NB: go-ical (via go-webdav) panics on some malformed calendar data, e.g. a parameter
	// line "X;P=" (index out of range); a server's bad answer must be an upstream error, not a
	// crashed request.
	defer func() {
		if r := recover(); r != nil {
			err = upstream("calendar-query", fmt.Errorf("unreadable calendar data: %v", r))
		}
	}()
	objs, err := c.client.QueryCalendar(ctx, c.base.Path, &caldav.CalendarQuery{
		CompRequest: caldav.CalendarCompRequest{Name: ical.CompCalendar, AllProps: true, AllComps: true},
		CompFilter: caldav.CompFilter{
			Name:  ical.CompCalendar,
			Comps: []caldav.CompFilter{{Name: ical.CompEvent, Start: start.UTC(), End: end.UTC()}},
		},
	})
	if err != nil {
		return nil, upstream("calendar-query", err)
	}
	var busy []folio.Interval
	for _, o := range objs {
		if o.Data == nil {
			continue
		}
		busy = append(busy, BusyFromCalendar(o.Data, start, end, c.loc)...)
	}
	return busy, nil
}

// BusyFromCalendar returns the busy intervals of cal's VEVENTs that overlap [start, end).
// Exported for the tests of servers other than Radicale and for the fuzz target.
func BusyFromCalendar(cal *ical.Calendar, start, end time.Time, loc *time.Location) []folio.Interval {
	window := folio.Interval{Start: start, End: end}
	var out []folio.Interval
	add := func(iv folio.Interval) {
		if iv.End.After(iv.Start) && iv.Overlaps(window) {
			out = append(out, iv)
		}
	}
	// Overridden instances, by UID and original start.
	overridden := map[string]map[int64]bool{}
	for _, child := range cal.Children {
		if child.Name != ical.CompEvent {
			continue
		}
		ev := ical.Event{Component: child}
		if rid := ev.Props.Get(ical.PropRecurrenceID); rid != nil {
			uid, _ := ev.Props.Text(ical.PropUID)
			if t, err := dateTime(rid, loc); err == nil {
				if overridden[uid] == nil {
					overridden[uid] = map[int64]bool{}
				}
				overridden[uid][t.Unix()] = true
			}
		}
	}
	for _, child := range cal.Children {
		if child.Name != ical.CompEvent {
			continue
		}
		ev := ical.Event{Component: child}
		if free(ev) {
			continue
		}
		dtstart := ev.Props.Get(ical.PropDateTimeStart)
		if dtstart == nil {
			continue
		}
		s, err := dateTime(dtstart, loc)
		if err != nil {
			continue
		}
		dur, ok := duration(ev, s, loc)
		if !ok {
			continue
		}
		uid, _ := ev.Props.Text(ical.PropUID)
		recurring := ev.Props.Get(ical.PropRecurrenceRule) != nil || ev.Props.Get(ical.PropRecurrenceDates) != nil
		if !recurring || ev.Props.Get(ical.PropRecurrenceID) != nil {
			add(folio.Interval{Start: s, End: s.Add(dur)})
			continue
		}
		set, err := recurrenceSet(ev, s, loc)
		if err != nil {
			add(folio.Interval{Start: s, End: s.Add(dur)}) // an unreadable rule: at least the first
			continue
		}
		for _, occ := range set.Between(start.Add(-dur), end, true) {
			if overridden[uid][occ.Unix()] {
				continue
			}
			add(folio.Interval{Start: occ, End: occ.Add(dur)})
		}
	}
	return out
}

// recurrenceSet builds the event's RRULE + RDATE − EXDATE set. (go-ical's own RecurrenceSet
// ignores RDATE-only events and multi-valued EXDATE lines.)
func recurrenceSet(ev ical.Event, dtstart time.Time, loc *time.Location) (*rrule.Set, error) {
	set := &rrule.Set{}
	set.DTStart(dtstart)
	opt, err := ev.Props.RecurrenceRule()
	if err != nil {
		return nil, err
	}
	if opt != nil {
		opt.Dtstart = dtstart
		rule, err := rrule.NewRRule(*opt)
		if err != nil {
			return nil, err
		}
		set.RRule(rule)
	} else {
		set.RDate(dtstart) // with RDATE only, DTSTART is the first instance
	}
	for _, p := range ev.Props.Values(ical.PropRecurrenceDates) {
		if strings.EqualFold(p.Params.Get(ical.ParamValue), "PERIOD") {
			continue // periods with their own length are rare; their starts are skipped
		}
		for _, t := range dateTimeList(p, loc) {
			set.RDate(t)
		}
	}
	for _, p := range ev.Props.Values(ical.PropExceptionDates) {
		for _, t := range dateTimeList(p, loc) {
			set.ExDate(t)
		}
	}
	return set, nil
}

// dateTimeList reads a comma-separated DATE or DATE-TIME list, skipping unreadable values.
func dateTimeList(p ical.Prop, loc *time.Location) []time.Time {
	var out []time.Time
	for _, v := range strings.Split(p.Value, ",") {
		q := p
		q.Value = strings.TrimSpace(v)
		if t, err := dateTime(&q, loc); err == nil {
			out = append(out, t)
		}
	}
	return out
}

func free(ev ical.Event) bool {
	if t, _ := ev.Props.Text(ical.PropTransparency); strings.EqualFold(t, "TRANSPARENT") {
		return true
	}
	st, _ := ev.Props.Text(ical.PropStatus)
	return strings.EqualFold(st, "CANCELLED")
}

// duration is DTEND−DTSTART, DURATION, or RFC 5545's defaults: one day for a DATE start, zero
// (no busy time) for a DATE-TIME start.
func duration(ev ical.Event, start time.Time, loc *time.Location) (time.Duration, bool) {
	if p := ev.Props.Get(ical.PropDateTimeEnd); p != nil {
		e, err := dateTime(p, loc)
		return e.Sub(start), err == nil
	}
	if p := ev.Props.Get(ical.PropDuration); p != nil {
		d, err := p.Duration()
		return d, err == nil
	}
	if ev.Props.Get(ical.PropDateTimeStart).ValueType() == ical.ValueDate {
		return 24 * time.Hour, true
	}
	return 0, false
}

// dateTime reads a DATE or DATE-TIME, reading an unknown TZID as floating in loc.
func dateTime(p *ical.Prop, loc *time.Location) (time.Time, error) {
	t, err := p.DateTime(loc)
	if err != nil && p.Params.Get(ical.ParamTimezoneID) != "" {
		q := *p
		q.Params = ical.Params{}
		for k, v := range p.Params {
			if k != ical.ParamTimezoneID {
				q.Params[k] = v
			}
		}
		return q.DateTime(loc)
	}
	return t, err
}

// CreateEvent PUTs ev as <id>.ics (UID invite.EventUID(id)) and returns it with the meeting
// link from the template (unless ev has a place: its LOCATION, URL and CONFERENCE are written
// as given) and the object's URL as the event link.
func (c *Calendar) CreateEvent(ctx context.Context, ev folio.CalendarEvent) (folio.CalendarEvent, error) {
	if ev.ID == "" {
		ev.ID = folio.NewID()
	}
	if strings.ContainsAny(ev.ID, "/?#%\\") {
		return folio.CalendarEvent{}, fmt.Errorf("caldav: event id %q is not a path segment", ev.ID)
	}
	if ev.Place == nil { // with a place, folio made the link (or there is none)
		ev.MeetLink = strings.ReplaceAll(c.meetTpl, "{id}", url.PathEscape(ev.ID))
	}
	obj := c.base.JoinPath(ev.ID + ".ics")
	ev.EventLink = obj.String()
	_, err := c.client.PutCalendarObject(ctx, obj.Path, invite.EventCalendar(ev, c.now()))
	if err != nil && !errors.Is(err, errExists) {
		return folio.CalendarEvent{}, upstream("PUT", err)
	}
	return ev, nil
}

// MoveEvent implements folio.CalendarMover: a PUT of the same resource <id>.ics (If-Match with
// the ETag just read, so it must exist unchanged) with the new times and the raised SEQUENCE;
// the UID stays.
func (c *Calendar) MoveEvent(ctx context.Context, ev folio.CalendarEvent) (folio.CalendarEvent, error) {
	if ev.ID == "" || strings.ContainsAny(ev.ID, "/?#%\\") {
		return folio.CalendarEvent{}, fmt.Errorf("caldav: event id %q is not a path segment", ev.ID)
	}
	if ev.Place == nil { // with a place, folio made the link (or there is none)
		ev.MeetLink = strings.ReplaceAll(c.meetTpl, "{id}", url.PathEscape(ev.ID))
	}
	obj := c.base.JoinPath(ev.ID + ".ics")
	ev.EventLink = obj.String()
	cur, err := c.client.GetCalendarObject(ctx, obj.Path)
	if err != nil {
		return folio.CalendarEvent{}, upstream("GET", err)
	}
	_, err = c.client.PutCalendarObject(context.WithValue(ctx, overwriteKey{}, cur.ETag), obj.Path, invite.EventCalendar(ev, c.now()))
	if err != nil {
		return folio.CalendarEvent{}, upstream("PUT", err)
	}
	return ev, nil
}

// DeleteEvent implements folio.CalendarMover: a DELETE of <id>.ics; one that is gone already is
// success.
func (c *Calendar) DeleteEvent(ctx context.Context, ev folio.CalendarEvent) error {
	if ev.ID == "" || strings.ContainsAny(ev.ID, "/?#%\\") {
		return fmt.Errorf("caldav: event id %q is not a path segment", ev.ID)
	}
	err := c.client.RemoveAll(ctx, c.base.JoinPath(ev.ID+".ics").Path)
	if err != nil && !errors.Is(err, errGone) {
		return upstream("DELETE", err)
	}
	return nil
}

// upstream wraps a server failure as UPSTREAM_ERROR; the cause stays in the chain for the log.
// Request URLs never carry credentials (New refuses them), so the cause holds no secret.
func upstream(op string, err error) error {
	return fmt.Errorf("caldav %s: %v: %w", op, err,
		&folio.Error{Code: folio.EUPSTREAM, Message: "The calendar provider failed; try again later."})
}
