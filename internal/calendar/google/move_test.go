package google

import (
	"context"
	"testing"

	"github.com/foliohq/folio"
)

// TestMoveAndDeleteEvent moves the event with events.patch (the same Google event: id, Meet
// link and attendees stay) and deletes it with events.delete; a repeated delete (Google: 410)
// and a delete of an unknown event (404) count as done; moving a deleted event fails upstream.
func TestMoveAndDeleteEvent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.calendar(t)
	ctx := context.Background()
	ev := folio.CalendarEvent{ID: "0195d6f2-7c1a-7b7e-9d3c-2f4a1b6c8e90", Summary: "Intro",
		Start: at(t, "2026-03-10T13:00:00Z"), End: at(t, "2026-03-10T13:30:00Z"), TimeZone: "Europe/Berlin",
		Attendee: folio.Participant{Name: "Jane", Email: "jane@example.org"}}
	created, err := c.CreateEvent(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	ev.Start, ev.End, ev.TimeZone = at(t, "2026-03-11T09:00:00Z"), at(t, "2026-03-11T09:30:00Z"), "Asia/Tokyo"
	moved, err := c.MoveEvent(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	if moved.MeetLink != created.MeetLink || moved.EventLink != created.EventLink {
		t.Errorf("moved %+v, created %+v (the same event keeps its links)", moved, created)
	}
	stored := e.fake.Events(calendarID)
	if len(stored) != 1 || stored[0].ID != created.ID || stored[0].Start.DateTime != "2026-03-11T09:00:00Z" ||
		stored[0].Start.TimeZone != "Asia/Tokyo" || stored[0].Summary != "Intro" || len(stored[0].Attendees) != 1 {
		t.Fatalf("stored after patch: %+v", stored)
	}
	busy, err := c.FreeBusy(ctx, at(t, "2026-03-10T00:00:00Z"), at(t, "2026-03-12T00:00:00Z"))
	if err != nil || len(busy) != 1 || !busy[0].Start.Equal(ev.Start) {
		t.Errorf("busy after the move: %v %v", busy, err)
	}
	for i := 0; i < 2; i++ {
		if err := c.DeleteEvent(ctx, ev); err != nil {
			t.Fatalf("delete %d: %v", i, err)
		}
	}
	if p, d := e.fake.Changes(); p != 1 || d != 1 {
		t.Errorf("fake saw %d patches and %d deletes, want 1 and 1", p, d)
	}
	if busy, _ := c.FreeBusy(ctx, at(t, "2026-03-10T00:00:00Z"), at(t, "2026-03-12T00:00:00Z")); len(busy) != 0 {
		t.Errorf("a deleted event is busy: %v", busy)
	}
	if err := c.DeleteEvent(ctx, folio.CalendarEvent{ID: "0195d6f2-7c1a-7b7e-9d3c-000000000000"}); err != nil {
		t.Errorf("delete of an unknown event: %v", err)
	}
	if _, err := c.MoveEvent(ctx, ev); folio.ErrorCode(err) != folio.EUPSTREAM {
		t.Errorf("move of a deleted event: %v", err)
	}
	// An API failure is UPSTREAM_ERROR and changes nothing.
	e.fake.FailAPI(500, 1)
	if err := c.DeleteEvent(ctx, ev); folio.ErrorCode(err) != folio.EUPSTREAM {
		t.Errorf("delete on a failing API: %v", err)
	}
}
