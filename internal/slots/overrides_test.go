package slots

import (
	"slices"
	"testing"
	"time"

	"github.com/foliohq/folio"
)

// TestOverrides checks that an override closes a business day, opens a weekend day with its own
// hours and grid, and that IsOffered agrees with Slots on every candidate.
func TestOverrides(t *testing.T) {
	utc := time.UTC
	cfg := specDefaults(utc)
	cfg.Overrides = map[string]folio.DayHours{
		"2026-03-10": {},                                                               // a Tuesday, closed
		"2026-03-14": {Ranges: [][2]int{{10*60 + 15, 11*60 + 15}, {14 * 60, 15 * 60}}}, // a Saturday, opened
	}
	now := mustTime(t, "2026-03-01T00:00:00Z")
	if got := Slots(cfg, mustDate(t, "2026-03-10"), utc, 30, now, nil); len(got) != 0 {
		t.Errorf("closed date offers %v", startsUTC(got))
	}
	got := startsUTC(Slots(cfg, mustDate(t, "2026-03-14"), utc, 30, now, nil))
	want := []string{"2026-03-14T10:15Z", "2026-03-14T10:45Z", "2026-03-14T14:00Z", "2026-03-14T14:30Z"}
	if !slices.Equal(got, want) {
		t.Errorf("opened Saturday offers %v, want %v", got, want)
	}
	// The next Tuesday keeps business hours.
	if n := len(Slots(cfg, mustDate(t, "2026-03-17"), utc, 30, now, nil)); n != 18 {
		t.Errorf("ordinary Tuesday offers %d slots, want 18", n)
	}
	for _, s := range []string{"2026-03-14T10:15:00Z", "2026-03-14T14:30:00Z"} {
		if !IsOffered(cfg, mustTime(t, s), 30, now, nil) {
			t.Errorf("IsOffered(%s) = false, want true", s)
		}
	}
	for _, s := range []string{"2026-03-14T10:00:00Z", "2026-03-14T10:45:00Z" /* 60 min would end 11:45 */, "2026-03-10T09:00:00Z", "2026-03-14T15:00:00Z"} {
		if IsOffered(cfg, mustTime(t, s), 60, now, nil) {
			t.Errorf("IsOffered(%s, 60) = true, want false", s)
		}
	}
}
