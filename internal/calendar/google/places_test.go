package google

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/foliohq/folio"
)

// TestFakeChecksConferenceRequests: googlefake refuses conference data as Google does (no
// conferenceDataVersion=1, no requestId, an unknown solution type), so a provider bug shows.
func TestFakeChecksConferenceRequests(t *testing.T) {
	e := newEnv(t)
	c := e.calendar(t)
	ctx := context.Background()
	start := at(t, "2026-03-04T15:00:00Z")
	base := func(id string) event {
		return event{ID: id, Start: &eventTime{DateTime: start.Format(time.RFC3339)}, End: &eventTime{DateTime: start.Add(time.Hour).Format(time.RFC3339)}}
	}
	v1 := url.Values{"conferenceDataVersion": {"1"}}
	for name, tc := range map[string]struct {
		cd    *conferenceData
		query url.Values
	}{
		"without conferenceDataVersion": {&conferenceData{CreateRequest: &createConferenceRequest{RequestID: "r1", ConferenceSolutionKey: conferenceSolutionKey{Type: "hangoutsMeet"}}}, nil},
		"without requestId":             {&conferenceData{CreateRequest: &createConferenceRequest{ConferenceSolutionKey: conferenceSolutionKey{Type: "hangoutsMeet"}}}, v1},
		"unknown solution":              {&conferenceData{CreateRequest: &createConferenceRequest{RequestID: "r2", ConferenceSolutionKey: conferenceSolutionKey{Type: "zoomMeeting"}}}, v1},
		"no createRequest":              {&conferenceData{}, v1},
	} {
		in := base("abc12") // every request is refused, so the id is never taken
		in.ConferenceData = tc.cd
		q := url.Values{}
		for k, v := range tc.query {
			q[k] = v
		}
		if err := c.call(ctx, http.MethodPost, c.eventsPath(""), q, in, nil); status(err) != http.StatusBadRequest {
			t.Errorf("%s: %v, want 400", name, err)
		}
	}
	if n := len(e.fake.Events(calendarID)); n != 0 {
		t.Fatalf("%d events stored from refused requests", n)
	}

	// A place other than Meet: no conference, the place in the event's location.
	ev, err := c.CreateEvent(ctx, folio.CalendarEvent{ID: "0195d6f2-7c1a-7b7e-9d3c-2f4a1b6c8e90", Start: start, End: start.Add(time.Hour),
		MeetLink: "https://zoom.example/j/1", Place: &folio.BookingLocation{Kind: folio.PlaceLink, Label: "Video call", JoinURL: "https://zoom.example/j/1"}})
	if err != nil || ev.MeetLink != "https://zoom.example/j/1" {
		t.Fatalf("create with a link: %+v %v", ev, err)
	}
	got := e.fake.Events(calendarID)
	if len(got) != 1 || got[0].ConferenceData != nil || got[0].HangoutLink != "" || got[0].Location != "https://zoom.example/j/1" {
		t.Fatalf("event at Google: %+v", got)
	}
	// A move keeps the link and asks for no conference.
	ev.Start, ev.End = start.Add(24*time.Hour), start.Add(25*time.Hour)
	moved, err := c.MoveEvent(ctx, ev)
	if err != nil || moved.MeetLink != "https://zoom.example/j/1" {
		t.Fatalf("move: %+v %v", moved, err)
	}
}
