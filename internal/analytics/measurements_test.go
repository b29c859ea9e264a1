package analytics

import (
	"context"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// TestMeasurements collects outbound clicks, downloads and 404s as the tracker sends them and
// breaks each down by its subject, on both engines; the subject drops query and fragment.
func TestMeasurements(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		now := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
		s, err := newTestService(db, Options{Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		t.Cleanup(func() { s.Close(context.Background()) })
		ev := func(id, name, path, link string) {
			t.Helper()
			in := &folio.CollectInput{Type: folio.CollectEvent, Name: name, Path: path, VisitorID: id}
			if link != "" {
				in.Props = map[string]any{"url": link}
			}
			if _, err := s.Collect(ctx, in, "192.0.2.1", browserUA); err != nil {
				t.Fatal(err)
			}
		}
		ev("a", folio.MeasureOutbound, "/about", "https://GitHub.com/ada/engine?ref=folio#top")
		ev("a", folio.MeasureOutbound, "/", "https://github.com/ada/engine")
		ev("b", folio.MeasureOutbound, "/", "https://github.com/ada/engine?x=1")
		ev("b", folio.MeasureOutbound, "/", "https://mastodon.social/@ada")
		ev("a", folio.MeasureDownload, "/cv", "https://me.example/files/cv.pdf?token=secret")
		ev("a", folio.MeasureNotFound, "/old-page?utm_source=x", "")
		ev("b", folio.MeasureNotFound, "/old-page", "")
		ev("b", "signup", "/", "")
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		rg, err := s.ParseRange("2026-05-04", "2026-05-04")
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			kind string
			want []folio.MeasurementRow
		}{
			{folio.MeasureOutbound, []folio.MeasurementRow{{Value: "github.com/ada/engine", Visitors: 2, Events: 3}, {Value: "mastodon.social/@ada", Visitors: 1, Events: 1}}},
			{folio.MeasureDownload, []folio.MeasurementRow{{Value: "me.example/files/cv.pdf", Visitors: 1, Events: 1}}},
			{folio.MeasureNotFound, []folio.MeasurementRow{{Value: "/old-page", Visitors: 2, Events: 2}}},
		} {
			m, err := s.Measurement(ctx, tc.kind, rg, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Rows) != len(tc.want) {
				t.Fatalf("%s: %+v; want %+v", tc.kind, m.Rows, tc.want)
			}
			for i := range tc.want {
				if m.Rows[i] != tc.want[i] {
					t.Errorf("%s row %d: %+v; want %+v", tc.kind, i, m.Rows[i], tc.want[i])
				}
			}
		}
		if m, err := s.Measurement(ctx, folio.MeasureOutbound, rg, 1); err != nil || len(m.Rows) != 1 {
			t.Errorf("limit 1: %+v, %v", m, err)
		}
		if _, err := s.Measurement(ctx, "signup", rg, 10); folio.ErrorCode(err) != folio.EINVALID {
			t.Errorf("kind signup: %v", err)
		}
		// An outbound click must name its link.
		for _, props := range []map[string]any{nil, {"url": "javascript:alert(1)"}, {"url": 7.0}} {
			in := &folio.CollectInput{Type: folio.CollectEvent, Name: folio.MeasureOutbound, Path: "/", Props: props}
			if _, err := s.Collect(ctx, in, "192.0.2.1", browserUA); folio.ErrorCode(err) != folio.EINVALID {
				t.Errorf("outbound click with props %v: %v", props, err)
			}
		}
	})
}
