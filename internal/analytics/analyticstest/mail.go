package analyticstest

import (
	"context"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
)

// testMailClaims checks that a report period is claimed once, that the alert is claimed again
// only after its cooldown, and that a released claim can be taken again.
func testMailClaims(t *testing.T, s analytics.Store) {
	ctx := context.Background()
	now := at(day1, 9, 0)
	claim := func(period string, at time.Time, cooldown time.Duration, want bool) {
		t.Helper()
		got, err := s.ClaimAnalyticsMail(ctx, period, at, cooldown)
		if err != nil || got != want {
			t.Fatalf("claim %s at %s: %v, %v; want %v", period, at, got, err, want)
		}
	}
	claim("weekly:2026-04-06", now, 0, true)
	claim("weekly:2026-04-06", now.Add(time.Minute), 0, false)
	claim("weekly:2026-04-06", now.Add(30*24*time.Hour), 0, false)
	claim("monthly:2026-03", now, 0, true)
	claim("alert", now, 6*time.Hour, true)
	claim("alert", now.Add(5*time.Hour), 6*time.Hour, false)
	claim("alert", now.Add(6*time.Hour), 6*time.Hour, true)
	claim("alert", now.Add(7*time.Hour), 6*time.Hour, false)
	if err := s.ReleaseAnalyticsMail(ctx, "alert", now.Add(6*time.Hour)); err != nil {
		t.Fatal(err)
	}
	claim("alert", now.Add(7*time.Hour), 6*time.Hour, true)
}

// testHour checks the visitors, pages and sources of a stretch of time.
func testHour(t *testing.T, s analytics.Store) {
	ctx := context.Background()
	write(t, s, pageViews(), nil)
	h, err := s.AnalyticsHour(ctx, at(day1, 9, 0), at(day1, 10, 0), 5)
	if err != nil {
		t.Fatal(err)
	}
	if h.Visitors != 2 || len(h.Pages) != 2 || h.Pages[0] != (folio.RealtimePage{Path: "/", Visitors: 2}) ||
		h.Pages[1] != (folio.RealtimePage{Path: "/blog", Visitors: 1}) || len(h.Sources) != 2 ||
		h.Sources[0] != (folio.RealtimePage{Path: "Direct / None", Visitors: 1}) {
		t.Errorf("hour: %+v", h)
	}
	if h, err := s.AnalyticsHour(ctx, at(day1, 9, 0), at(day1, 9, 5), 5); err != nil || h.Visitors != 1 {
		t.Errorf("first minutes (the end is excluded): %+v, %v", h, err)
	}
	if h, err := s.AnalyticsHour(ctx, at(day1, 12, 0), at(day1, 13, 0), 5); err != nil || h.Visitors != 0 || len(h.Pages) != 0 {
		t.Errorf("an empty hour: %+v, %v", h, err)
	}
}

// testShares checks that a share is found by its token's hash only, listed, and deleted once.
func testShares(t *testing.T, s analytics.Store) {
	ctx := context.Background()
	at := at(day1, 9, 0)
	for _, sh := range []folio.AnalyticsShare{
		{ID: "s1", TokenHash: "hash-1", CreatedAt: at},
		{ID: "s2", TokenHash: "hash-2", PasswordHash: "$argon2id$x", CreatedAt: at.Add(time.Minute)},
	} {
		if err := s.CreateAnalyticsShare(ctx, sh); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.AnalyticsShareByToken(ctx, "hash-2")
	if err != nil || got.ID != "s2" || got.PasswordHash != "$argon2id$x" || !got.CreatedAt.Equal(at.Add(time.Minute)) {
		t.Errorf("by token: %+v, %v", got, err)
	}
	if _, err := s.AnalyticsShareByToken(ctx, "s1"); !folio.IsNotFound(err) {
		t.Errorf("by id instead of token hash: %v", err)
	}
	list, err := s.AnalyticsShares(ctx)
	if err != nil || len(list) != 2 || list[0].ID != "s2" {
		t.Errorf("list: %+v, %v", list, err)
	}
	if err := s.DeleteAnalyticsShare(ctx, "s2"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteAnalyticsShare(ctx, "s2"); !folio.IsNotFound(err) {
		t.Errorf("delete twice: %v", err)
	}
	if _, err := s.AnalyticsShareByToken(ctx, "hash-2"); !folio.IsNotFound(err) {
		t.Errorf("deleted share: %v", err)
	}
}
