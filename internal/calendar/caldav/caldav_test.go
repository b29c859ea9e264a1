package caldav

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	_ "time/tzdata"

	ical "github.com/emersion/go-ical"
	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/invite"

	"github.com/foliohq/folio/internal/foliotest/radicaletest"
)

func at(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func newCalendar(t *testing.T, base, name string) *Calendar {
	t.Helper()
	url := base + "/" + radicaletest.User + "/" + name + "/"
	radicaletest.MkCalendar(t, url)
	c, err := New(Config{URL: url, Username: radicaletest.User, Password: radicaletest.Password,
		MeetingURLTemplate: "https://meet.example.com/folio-{id}",
		Location:           mustZone(t, "America/New_York"),
		HTTPClient:         &http.Client{Timeout: 10 * time.Second},
		Now:                func() time.Time { return at(t, "2026-03-01T00:00:00Z") }})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	l, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestRadicale(t *testing.T) {
	base := radicaletest.Start(t)
	ctx := context.Background()

	t.Run("create, then free/busy sees it with half-open edges", func(t *testing.T) {
		t.Parallel()
		c := newCalendar(t, base, "booking-a")
		ev := folio.CalendarEvent{
			ID: "0195d6f2-7c1a-7b7e-9d3c-2f4a1b6c8e90", Summary: "Intro, with a comma; and ü",
			Start: at(t, "2026-03-10T14:00:00Z"), End: at(t, "2026-03-10T15:00:00Z"),
			Organizer: folio.Participant{Name: "Owner", Email: "owner@example.com"},
			Attendee:  folio.Participant{Name: "Doe, Jane", Email: "jane@example.org"},
		}
		got, err := c.CreateEvent(ctx, ev)
		if err != nil {
			t.Fatal(err)
		}
		if got.MeetLink != "https://meet.example.com/folio-"+ev.ID {
			t.Errorf("MeetLink = %q", got.MeetLink)
		}
		if want := base + "/owner/booking-a/" + ev.ID + ".ics"; got.EventLink != want {
			t.Errorf("EventLink = %q, want %q", got.EventLink, want)
		}
		obj, err := c.client.GetCalendarObject(ctx, "/owner/booking-a/"+ev.ID+".ics")
		if err != nil {
			t.Fatal(err)
		}
		events := obj.Data.Events()
		if len(events) != 1 {
			t.Fatalf("%d events stored", len(events))
		}
		if uid, _ := events[0].Props.Text(ical.PropUID); uid != invite.EventUID(ev.ID) {
			t.Errorf("UID = %q", uid)
		}
		if s, _ := events[0].Props.Text(ical.PropSummary); s != ev.Summary {
			t.Errorf("SUMMARY = %q", s)
		}

		tests := []struct {
			from, to string
			want     int
		}{
			{"2026-03-10T00:00:00Z", "2026-03-11T00:00:00Z", 1},
			{"2026-03-10T13:00:00Z", "2026-03-10T14:00:00Z", 0}, // ends when the event starts
			{"2026-03-10T15:00:00Z", "2026-03-10T16:00:00Z", 0}, // starts when it ends
			{"2026-03-10T13:00:00Z", "2026-03-10T14:01:00Z", 1},
			{"2026-03-10T14:59:00Z", "2026-03-10T16:00:00Z", 1},
			{"2026-03-10T14:15:00Z", "2026-03-10T14:45:00Z", 1}, // inside
			{"2026-03-11T00:00:00Z", "2026-03-12T00:00:00Z", 0},
		}
		for _, tt := range tests {
			busy, err := c.FreeBusy(ctx, at(t, tt.from), at(t, tt.to))
			if err != nil {
				t.Fatal(err)
			}
			if len(busy) != tt.want {
				t.Errorf("FreeBusy(%s, %s) = %v, want %d interval(s)", tt.from, tt.to, busy, tt.want)
			}
			for _, b := range busy {
				if !b.Start.Equal(ev.Start) || !b.End.Equal(ev.End) {
					t.Errorf("busy = %v, want [%v, %v)", b, ev.Start, ev.End)
				}
			}
		}

		// Creating the same id again never overwrites the stored event.
		again := ev
		again.Summary = "overwritten?"
		if _, err := c.CreateEvent(ctx, again); err != nil {
			t.Fatalf("retried create: %v", err)
		}
		obj, err = c.client.GetCalendarObject(ctx, "/owner/booking-a/"+ev.ID+".ics")
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := obj.Data.Events()[0].Props.Text(ical.PropSummary); s != ev.Summary {
			t.Errorf("SUMMARY after retry = %q, want the first one", s)
		}
	})

	t.Run("free, recurring and overridden events", func(t *testing.T) {
		t.Parallel()
		c := newCalendar(t, base, "booking-b")
		put := func(name, ics string) {
			cal, err := ical.NewDecoder(strings.NewReader(strings.ReplaceAll(ics, "\n", "\r\n"))).Decode()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if _, err := c.client.PutCalendarObject(ctx, "/owner/booking-b/"+name+".ics", cal); err != nil {
				t.Fatalf("PUT %s: %v", name, err)
			}
		}
		put("transparent", vevent("t1", "DTSTART:20260310T140000Z\nDTEND:20260310T150000Z\nTRANSP:TRANSPARENT"))
		put("cancelled", vevent("c1", "DTSTART:20260310T160000Z\nDTEND:20260310T170000Z\nSTATUS:CANCELLED"))
		put("weekly", vevent("w1", "DTSTART;TZID=America/New_York:20260302T090000\nDTEND;TZID=America/New_York:20260302T093000\n"+
			"RRULE:FREQ=WEEKLY;BYDAY=MO\nEXDATE;TZID=America/New_York:20260316T090000")) // Mondays, except 16 March
		put("weekly-override", strings.Replace(vevent("w2", "DTSTART;TZID=America/New_York:20260406T090000\n"+
			"DTEND;TZID=America/New_York:20260406T093000\nRRULE:FREQ=WEEKLY;COUNT=3"), "END:VEVENT\n",
			"END:VEVENT\nBEGIN:VEVENT\nUID:w2\nDTSTAMP:20260301T000000Z\nRECURRENCE-ID;TZID=America/New_York:20260413T090000\n"+
				"DTSTART;TZID=America/New_York:20260413T150000\nDTEND;TZID=America/New_York:20260413T160000\nEND:VEVENT\n", 1))

		busy, err := c.FreeBusy(ctx, at(t, "2026-03-01T00:00:00Z"), at(t, "2026-04-30T00:00:00Z"))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, b := range busy {
			got[b.Start.UTC().Format(time.RFC3339)+"/"+b.End.Sub(b.Start).String()] = true
		}
		want := []string{
			// Weekly on Mondays 09:00 New York: EST before 8 March, EDT after.
			"2026-03-02T14:00:00Z/30m0s", "2026-03-09T13:00:00Z/30m0s", "2026-03-23T13:00:00Z/30m0s",
			"2026-03-30T13:00:00Z/30m0s", "2026-04-06T13:00:00Z/30m0s", "2026-04-13T13:00:00Z/30m0s",
			"2026-04-20T13:00:00Z/30m0s", "2026-04-27T13:00:00Z/30m0s",
			// w2: 6 April, 13 April moved to 15:00, 20 April.
			"2026-04-06T13:00:00Z/30m0s", "2026-04-13T19:00:00Z/1h0m0s", "2026-04-20T13:00:00Z/30m0s",
		}
		for _, w := range want {
			if !got[w] {
				t.Errorf("busy lacks %s", w)
			}
		}
		for _, unwanted := range []string{"2026-03-16T13:00:00Z/30m0s", "2026-03-10T14:00:00Z/1h0m0s", "2026-03-10T16:00:00Z/1h0m0s"} {
			if got[unwanted] {
				t.Errorf("busy has %s", unwanted)
			}
		}
		// w1 and w2 both fall on 6 and 20 April; the map collapses them, so count intervals too.
		if len(busy) != len(want) {
			t.Errorf("%d busy intervals, want %d: %v", len(busy), len(want), busy)
		}
	})

	t.Run("wrong password is an upstream error without the password", func(t *testing.T) {
		t.Parallel()
		c := newCalendar(t, base, "booking-c")
		bad, err := New(Config{URL: c.base.String(), Username: radicaletest.User, Password: "wrong-secret"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = bad.FreeBusy(ctx, at(t, "2026-03-10T00:00:00Z"), at(t, "2026-03-11T00:00:00Z"))
		if folio.ErrorCode(err) != folio.EUPSTREAM || strings.Contains(err.Error(), "wrong-secret") {
			t.Errorf("FreeBusy error = %v, want UPSTREAM_ERROR without the password", err)
		}
		_, err = bad.CreateEvent(ctx, folio.CalendarEvent{ID: "x1", Start: at(t, "2026-03-10T14:00:00Z"), End: at(t, "2026-03-10T15:00:00Z")})
		if folio.ErrorCode(err) != folio.EUPSTREAM {
			t.Errorf("CreateEvent error = %v, want UPSTREAM_ERROR", err)
		}
	})
}

func TestServerDown(t *testing.T) {
	t.Parallel()
	c, err := New(Config{URL: "http://127.0.0.1:1/owner/cal/"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.FreeBusy(context.Background(), time.Now(), time.Now().Add(time.Hour)); folio.ErrorCode(err) != folio.EUPSTREAM {
		t.Errorf("FreeBusy error = %v, want UPSTREAM_ERROR", err)
	}
}

func TestNewRejects(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"", "ftp://x/", "not a url", "https://user:secret@dav.example.com/cal/", "http:///cal/"} {
		_, err := New(Config{URL: u})
		if err == nil {
			t.Errorf("New(%q) succeeded", u)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("New(%q) error leaks the password: %v", u, err)
		}
	}
}

func vevent(uid, body string) string {
	return "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//test//EN\nBEGIN:VEVENT\nUID:" + uid +
		"\nDTSTAMP:20260301T000000Z\nSUMMARY:" + uid + "\n" + body + "\nEND:VEVENT\nEND:VCALENDAR\n"
}

func TestBusyFromCalendar(t *testing.T) {
	t.Parallel()
	ny := mustZone(t, "America/New_York")
	from, to := at(t, "2026-03-01T00:00:00Z"), at(t, "2026-04-01T00:00:00Z")
	tests := []struct {
		name string
		body string
		want []string // start/duration in UTC
	}{
		{"UTC with DTEND", "DTSTART:20260310T140000Z\nDTEND:20260310T150000Z", []string{"2026-03-10T14:00:00Z/1h0m0s"}},
		{"floating time is the owner's zone", "DTSTART:20260310T090000\nDTEND:20260310T100000", []string{"2026-03-10T13:00:00Z/1h0m0s"}},
		{"DURATION", "DTSTART:20260310T140000Z\nDURATION:PT45M", []string{"2026-03-10T14:00:00Z/45m0s"}},
		{"all-day date is a day in the owner's zone", "DTSTART;VALUE=DATE:20260310", []string{"2026-03-10T04:00:00Z/24h0m0s"}},
		{"date-time without end takes no time", "DTSTART:20260310T140000Z", nil},
		{"unknown TZID is floating", "DTSTART;TZID=Eastern Standard Time:20260310T090000\nDTEND;TZID=Eastern Standard Time:20260310T100000",
			[]string{"2026-03-10T13:00:00Z/1h0m0s"}},
		{"outside the window", "DTSTART:20260410T140000Z\nDTEND:20260410T150000Z", nil},
		{"RDATE list without RRULE", "DTSTART:20260302T140000Z\nDTEND:20260302T150000Z\nRDATE:20260303T140000Z,20260304T140000Z",
			[]string{"2026-03-02T14:00:00Z/1h0m0s", "2026-03-03T14:00:00Z/1h0m0s", "2026-03-04T14:00:00Z/1h0m0s"}},
		{"daily with multi-valued EXDATE and COUNT", "DTSTART:20260302T140000Z\nDTEND:20260302T150000Z\nRRULE:FREQ=DAILY;COUNT=4\nEXDATE:20260303T140000Z,20260304T140000Z",
			[]string{"2026-03-02T14:00:00Z/1h0m0s", "2026-03-05T14:00:00Z/1h0m0s"}},
		{"a recurrence that began long ago", "DTSTART:20200106T140000Z\nDTEND:20200106T150000Z\nRRULE:FREQ=MONTHLY;BYMONTHDAY=10",
			[]string{"2026-03-10T14:00:00Z/1h0m0s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cal, err := ical.NewDecoder(strings.NewReader(strings.ReplaceAll(vevent("u", tt.body), "\n", "\r\n"))).Decode()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range BusyFromCalendar(cal, from, to, ny) {
				got = append(got, b.Start.UTC().Format(time.RFC3339)+"/"+b.End.Sub(b.Start).String())
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// FuzzBusyFromCalendar feeds server-controlled calendar data through the decoder and the busy
// computation: it must never panic, and every interval must be non-empty and overlap the window.
func FuzzBusyFromCalendar(f *testing.F) {
	f.Add(vevent("a", "DTSTART:20260302T140000Z\nDTEND:20260302T150000Z\nRRULE:FREQ=DAILY;COUNT=4"))
	f.Add(vevent("b", "DTSTART;VALUE=DATE:20260310\nRDATE;VALUE=PERIOD:20260311T000000Z/PT1H"))
	f.Add(vevent("c", "DTSTART;TZID=Nowhere:20260310T090000\nDURATION:-PT1H\nEXDATE:garbage"))
	from := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 1, 0)
	f.Fuzz(func(t *testing.T, data string) {
		cal, err := decodeRecovering(strings.ReplaceAll(data, "\n", "\r\n"))
		if err != nil {
			return
		}
		for _, b := range BusyFromCalendar(cal, from, to, time.UTC) {
			if !b.End.After(b.Start) || !b.Start.Before(to) || !b.End.After(from) {
				t.Fatalf("bad interval %v", b)
			}
		}
	})
}

// decodeRecovering decodes like go-webdav does, turning go-ical's decoder panics (a known
// upstream bug that FreeBusy recovers from) into errors, so the fuzzer explores our code.
func decodeRecovering(data string) (cal *ical.Calendar, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("decoder panic: %v", r)
		}
	}()
	return ical.NewDecoder(strings.NewReader(data)).Decode()
}

// TestFreeBusySurvivesMalformedData serves a REPORT answer whose calendar-data makes go-ical's
// decoder panic; FreeBusy must report an upstream error instead.
func TestFreeBusySurvivesMalformedData(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "REPORT" {
			http.Error(w, "unexpected", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/xml; charset=utf-8")
		w.WriteHeader(http.StatusMultiStatus)
		fmt.Fprint(w, `<?xml version="1.0" encoding="utf-8"?>
<multistatus xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><response><href>/cal/x.ics</href>
<propstat><prop><C:calendar-data>BEGIN:VCALENDAR&#13;
0;0=&#13;
END:VCALENDAR&#13;
</C:calendar-data></prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>`)
	}))
	defer srv.Close()
	c, err := New(Config{URL: srv.URL + "/cal/"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.FreeBusy(context.Background(), at(t, "2026-03-10T00:00:00Z"), at(t, "2026-03-11T00:00:00Z"))
	if folio.ErrorCode(err) != folio.EUPSTREAM || !strings.Contains(err.Error(), "unreadable calendar data") {
		t.Errorf("FreeBusy error = %v, want UPSTREAM_ERROR from the recovered decoder panic", err)
	}
}
