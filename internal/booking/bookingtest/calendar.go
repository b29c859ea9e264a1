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
	return out, nil
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
	c.busy = append(c.busy, folio.Interval{Start: ev.Start, End: ev.End})
	return ev, nil
}

func upstream(op string) error {
	return fmt.Errorf("fake calendar %s: injected failure: %w", op,
		&folio.Error{Code: folio.EUPSTREAM, Message: "The calendar provider failed; try again later."})
}
