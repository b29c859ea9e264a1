package caldav

import (
	"context"
	"testing"

	ical "github.com/emersion/go-ical"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest/radicaletest"
	"github.com/foliohq/folio/internal/invite"
)

// TestRadicaleMoveAndDelete moves an event by a PUT of the same resource (same UID, raised
// SEQUENCE, no second object) and deletes it, on a real Radicale; deleting twice is fine and a
// move of a missing event (If-Match: *) creates nothing.
func TestRadicaleMoveAndDelete(t *testing.T) {
	base := radicaletest.Start(t)
	ctx := context.Background()
	c := newCalendar(t, base, "booking-move")
	ev := folio.CalendarEvent{ID: "0195d6f2-7c1a-7b7e-9d3c-2f4a1b6c8e91", Summary: "Intro",
		Start: at(t, "2026-03-10T14:00:00Z"), End: at(t, "2026-03-10T15:00:00Z"),
		Organizer: folio.Participant{Email: "owner@example.com"}, Attendee: folio.Participant{Email: "jane@example.org"}}
	if _, err := c.CreateEvent(ctx, ev); err != nil {
		t.Fatal(err)
	}
	ev.Start, ev.End, ev.Sequence = at(t, "2026-03-12T16:00:00Z"), at(t, "2026-03-12T17:00:00Z"), 1
	moved, err := c.MoveEvent(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	if moved.EventLink != base+"/owner/booking-move/"+ev.ID+".ics" {
		t.Errorf("EventLink %q", moved.EventLink)
	}
	obj, err := c.client.GetCalendarObject(ctx, "/owner/booking-move/"+ev.ID+".ics")
	if err != nil {
		t.Fatal(err)
	}
	e := obj.Data.Events()[0]
	uid, _ := e.Props.Text(ical.PropUID)
	seq := e.Props.Get(ical.PropSequence)
	start, _ := e.DateTimeStart(nil)
	if uid != invite.EventUID(ev.ID) || seq == nil || seq.Value != "1" || !start.Equal(ev.Start) {
		t.Errorf("stored UID %q SEQUENCE %v DTSTART %v", uid, seq, start)
	}
	busy, err := c.FreeBusy(ctx, at(t, "2026-03-10T00:00:00Z"), at(t, "2026-03-13T00:00:00Z"))
	if err != nil || len(busy) != 1 || !busy[0].Start.Equal(ev.Start) {
		t.Errorf("busy after the move: %v %v", busy, err)
	}
	for i := 0; i < 2; i++ {
		if err := c.DeleteEvent(ctx, ev); err != nil {
			t.Fatalf("delete %d: %v", i, err)
		}
	}
	if busy, _ := c.FreeBusy(ctx, at(t, "2026-03-10T00:00:00Z"), at(t, "2026-03-13T00:00:00Z")); len(busy) != 0 {
		t.Errorf("busy after the delete: %v", busy)
	}
	if _, err := c.MoveEvent(ctx, ev); folio.ErrorCode(err) != folio.EUPSTREAM {
		t.Errorf("move of a deleted event: %v", err)
	}
	if _, err := c.client.GetCalendarObject(ctx, "/owner/booking-move/"+ev.ID+".ics"); err == nil {
		t.Error("a move of a missing event created it")
	}
}
