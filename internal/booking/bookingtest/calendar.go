// Package bookingtest holds an in-memory folio.Calendar for tests of the booking service and
// its routes: it records every event it creates, reports them (and added busy time) as busy,
// and can be told to fail.
package bookingtest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/foliohq/folio"
)

// Calendar is an in-memory folio.Calendar, safe for concurrent use, so that several folio
// instances in one test can share it as they would share a real provider.
type Calendar struct {
	mu           sync.Mutex
	busy         []folio.Interval
	events       []folio.CalendarEvent
	createErrs   int
	freeBusyErrs int
	freeBusyN    int
	createN      int
	// BeforeCreate, when set, runs at the start of every CreateEvent (outside the lock): tests
	// use it to hold a booking between its reservation and its event.
	BeforeCreate func(ev folio.CalendarEvent)
	// BeforeMove, when set, runs at the start of every MoveEvent (outside the lock).
	BeforeMove func(ev folio.CalendarEvent)
	moveErrs   int
	deleteErrs int
	moveN      int
	deleteN    int
}

var _ folio.Calendar = (*Calendar)(nil)

// AddBusy adds busy time that is not a folio booking (the owner's own meetings).
func (c *Calendar) AddBusy(start, end time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.busy = append(c.busy, folio.Interval{Start: start, End: end})
}

// FailCreate makes the next n CreateEvent calls fail with UPSTREAM_ERROR.
func (c *Calendar) FailCreate(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.createErrs = n
}

// FailFreeBusy makes the next n FreeBusy calls fail with UPSTREAM_ERROR.
func (c *Calendar) FailFreeBusy(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.freeBusyErrs = n
}

// Events returns the events created so far, in creation order.
func (c *Calendar) Events() []folio.CalendarEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.events)
}

// Calls returns how many FreeBusy and CreateEvent calls were made.
func (c *Calendar) Calls() (freeBusy, create int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.freeBusyN, c.createN
}

// FreeBusy implements folio.Calendar: the added busy time and the created events that
// overlap [start, end).
func (c *Calendar) FreeBusy(_ context.Context, start, end time.Time) ([]folio.Interval, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.freeBusyN++
	if c.freeBusyErrs > 0 {
		c.freeBusyErrs--
		return nil, upstream("freebusy")
	}
	window := folio.Interval{Start: start, End: end}
	var out []folio.Interval
	for _, b := range c.busy {
		if b.Overlaps(window) {
			out = append(out, b)
		}
	}
	for _, e := range c.events {
		if b := (folio.Interval{Start: e.Start, End: e.End}); !e.Cancelled && b.Overlaps(window) {
			out = append(out, b)
		}
	}
	return out, nil
}

// FailMove makes the next n MoveEvent calls fail with UPSTREAM_ERROR (the event stays).
func (c *Calendar) FailMove(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.moveErrs = n
}

// FailDelete makes the next n DeleteEvent calls fail with UPSTREAM_ERROR (the event stays).
func (c *Calendar) FailDelete(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deleteErrs = n
}

// Event returns the event id and whether it exists.
func (c *Calendar) Event(id string) (folio.CalendarEvent, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.events {
		if e.ID == id {
			return e, true
		}
	}
	return folio.CalendarEvent{}, false
}

// MoveEvent implements folio.CalendarMover on the same event (ENOTFOUND-like upstream error
// for an unknown or deleted one).
func (c *Calendar) MoveEvent(_ context.Context, ev folio.CalendarEvent) (folio.CalendarEvent, error) {
	if c.BeforeMove != nil {
		c.BeforeMove(ev)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.moveN++
	if c.moveErrs > 0 {
		c.moveErrs--
		return folio.CalendarEvent{}, upstream("patch")
	}
	for i, e := range c.events {
		if e.ID == ev.ID && !e.Cancelled {
			e.Start, e.End, e.TimeZone, e.Sequence = ev.Start, ev.End, ev.TimeZone, ev.Sequence
			c.events[i] = e
			return e, nil
		}
	}
	return folio.CalendarEvent{}, upstream("patch of a missing event")
}

// DeleteEvent implements folio.CalendarMover: the event is kept, marked cancelled; deleting it
// again is fine.
func (c *Calendar) DeleteEvent(_ context.Context, ev folio.CalendarEvent) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deleteN++
	if c.deleteErrs > 0 {
		c.deleteErrs--
		return upstream("delete")
	}
	for i, e := range c.events {
		if e.ID == ev.ID {
			c.events[i].Cancelled = true
		}
	}
	return nil
}

// Changes returns how many MoveEvent and DeleteEvent calls were made.
func (c *Calendar) Changes() (move, del int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.moveN, c.deleteN
}

// CreateEvent implements folio.Calendar. Like the real providers it uses ev.ID as an
// idempotency key: a second call with the same ID returns the first event.
func (c *Calendar) CreateEvent(_ context.Context, ev folio.CalendarEvent) (folio.CalendarEvent, error) {
	if c.BeforeCreate != nil {
		c.BeforeCreate(ev)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.createN++
	if c.createErrs > 0 {
		c.createErrs--
		return folio.CalendarEvent{}, upstream("insert")
	}
	if ev.ID == "" {
		ev.ID = folio.NewID()
	}
	for _, e := range c.events {
		if e.ID == ev.ID {
			return e, nil
		}
	}
	ev.MeetLink = "https://meet.example.test/" + ev.ID
	ev.EventLink = "https://calendar.example.test/event/" + ev.ID
	c.events = append(c.events, ev)
	return ev, nil
}

func upstream(op string) error {
	return fmt.Errorf("fake calendar %s: injected failure: %w", op,
		&folio.Error{Code: folio.EUPSTREAM, Message: "The calendar provider failed; try again later."})
}
