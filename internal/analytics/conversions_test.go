package analytics

import (
	"context"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// TestConversions follows visits to a booking, a contact message and a subscription on both
// engines: a visitor with an id, one known by the hash of address and agent, one whose visit
// ended too long ago, and a bot.
func TestConversions(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		now := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
		s, err := newTestService(db, Options{Now: func() time.Time { return now }, SiteURL: "https://me.example"})
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		t.Cleanup(func() { s.Close(context.Background()) })
		collect := func(in folio.CollectInput, ip, ua string) {
			t.Helper()
			in.Type = folio.CollectPageView
			if _, err := s.Collect(ctx, &in, ip, ua); err != nil {
				t.Fatal(err)
			}
		}
		// Visitor one (an id) comes from GitHub on a campaign and reads two posts.
		collect(folio.CollectInput{Path: "https://me.example/blog/intro?utm_campaign=spring", Referrer: "https://github.com/x", VisitorID: "vid-one"}, "192.0.2.1", browserUA)
		collect(folio.CollectInput{Path: "/blog/deep-dive", VisitorID: "vid-one"}, "192.0.2.1", browserUA)
		collect(folio.CollectInput{Path: "/book", VisitorID: "vid-one"}, "192.0.2.1", browserUA)
		// Visitor two (no id: the hash of address and agent) arrives directly on /.
		collect(folio.CollectInput{Path: "/"}, "192.0.2.2", phoneUA)
		// Visitor three came yesterday: that visit is too old to have led to anything today.
		now = now.Add(-25 * time.Hour)
		collect(folio.CollectInput{Path: "/about", VisitorID: "vid-three"}, "192.0.2.3", browserUA)
		now = now.Add(25 * time.Hour)
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		now = now.Add(10 * time.Minute)
		for _, in := range []ConversionInput{
			{Kind: folio.ConversionBooking, RefID: "b1", VisitorID: "vid-one", ClientIP: "198.51.100.9", UserAgent: browserUA},
			{Kind: folio.ConversionSubscription, VisitorID: "vid-one", ClientIP: "198.51.100.9", UserAgent: browserUA},
			{Kind: folio.ConversionContact, RefID: "m1", ClientIP: "192.0.2.2", UserAgent: phoneUA},
			{Kind: folio.ConversionContact, RefID: "m2", VisitorID: "vid-three", ClientIP: "192.0.2.3", UserAgent: browserUA},
			{Kind: folio.ConversionBooking, ClientIP: "192.0.2.4", UserAgent: botUA}, // a bot: not recorded
		} {
			if err := s.RecordConversion(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.RecordConversion(ctx, ConversionInput{Kind: "purchase"}); folio.ErrorCode(err) != folio.EINVALID {
			t.Errorf("unknown kind: %v", err)
		}
		rg, err := s.ParseRange("2026-05-03", "2026-05-04")
		if err != nil {
			t.Fatal(err)
		}
		check := func(by string, want []folio.ConversionRow) {
			t.Helper()
			got, err := s.Conversions(ctx, rg, by)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Rows) != len(want) {
				t.Fatalf("by %s: %+v; want %+v", by, got.Rows, want)
			}
			for i := range want {
				if got.Rows[i] != want[i] {
					t.Errorf("by %s, row %d: %+v; want %+v", by, i, got.Rows[i], want[i])
				}
			}
			if want := (folio.ConversionTotals{Bookings: 1, Contacts: 2, Subscriptions: 1}); got.Total != want {
				t.Errorf("by %s: total %+v; want %+v", by, got.Total, want)
			}
			if want := (folio.ConversionTotals{Contacts: 1}); got.Unattributed != want {
				t.Errorf("by %s: unattributed %+v; want %+v", by, got.Unattributed, want)
			}
		}
		check("source", []folio.ConversionRow{
			{Value: "GitHub", Visits: 1, Bookings: 1, Subscriptions: 1, ConversionRate: 1},
			{Value: "Direct / None", Visits: 2, Contacts: 1, ConversionRate: 0.5},
		})
		check("entry_page", []folio.ConversionRow{
			{Value: "/blog/intro", Visits: 1, Bookings: 1, Subscriptions: 1, ConversionRate: 1},
			{Value: "/", Visits: 1, Contacts: 1, ConversionRate: 1},
		})
		check("post", []folio.ConversionRow{
			{Value: "/blog/deep-dive", Visits: 1, Bookings: 1, Subscriptions: 1, ConversionRate: 1},
			{Value: "/blog/intro", Visits: 1, Bookings: 1, Subscriptions: 1, ConversionRate: 1},
		})
		check("utm_campaign", []folio.ConversionRow{
			{Value: "spring", Visits: 1, Bookings: 1, Subscriptions: 1, ConversionRate: 1},
			{Value: "", Visits: 2, Contacts: 1, ConversionRate: 0.5},
		})
		if _, err := s.Conversions(ctx, rg, "country"); folio.ErrorCode(err) != folio.EINVALID {
			t.Errorf("by country: %v", err)
		}
	})
}
