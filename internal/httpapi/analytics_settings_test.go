package httpapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// TestAnalyticsMailSettings sets the mailed reports and the spike alert through PUT
// /api/settings, reads them back, and refuses thresholds out of range naming the field.
func TestAnalyticsMailSettings(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts := newTestServer(t, db)
		v := newOpenAPIValidator(t, ts)
		res := ts.do("PUT", "/api/settings", "admin", map[string]any{"analytics": map[string]any{
			"reports": map[string]any{"weekly": true}, "alert": map[string]any{"visitorsPerHour": 200, "multiple": 3.5}}})
		if res.Status != 200 {
			t.Fatalf("PUT: %d %s", res.Status, res.Body)
		}
		v.check("PUT", "/api/settings", res)
		var got folio.SettingsView
		res = ts.do("GET", "/api/settings", "admin", nil)
		if err := json.Unmarshal(res.Body, &got); err != nil {
			t.Fatal(err)
		}
		want := folio.AnalyticsSettings{RetentionDays: got.Analytics.RetentionDays, Storage: got.Analytics.Storage,
			Reports: folio.AnalyticsReportSettings{Weekly: true}, Alert: folio.AnalyticsAlertSettings{VisitorsPerHour: 200, Multiple: 3.5}}
		if got.Analytics != want {
			t.Errorf("analytics settings %+v, want %+v", got.Analytics, want)
		}
		if ts.Settings.Current().Analytics.Reports != want.Reports {
			t.Errorf("settings in force: %+v", ts.Settings.Current().Analytics)
		}
		// Turning the monthly report on leaves the weekly one as it was.
		res = ts.do("PUT", "/api/settings", "admin", map[string]any{"analytics": map[string]any{"reports": map[string]any{"monthly": true}}})
		if res.Status != 200 || !strings.Contains(string(res.Body), `"reports":{"weekly":true,"monthly":true}`) {
			t.Errorf("PUT monthly: %d %s", res.Status, res.Body)
		}
		for _, tc := range []struct {
			body   map[string]any
			status int
			field  string
		}{
			{map[string]any{"multiple": 1.2}, 422, "analytics.alert.multiple"},
			{map[string]any{"multiple": -2}, 422, "analytics.alert.multiple"},
			{map[string]any{"visitorsPerHour": -1}, 422, "analytics.alert.visitorsPerHour"},
			{map[string]any{"visitorsPerHour": "many"}, 400, "analytics.alert.visitorsPerHour"},
		} {
			res := ts.do("PUT", "/api/settings", "admin", map[string]any{"analytics": map[string]any{"alert": tc.body}})
			if res.Status != tc.status || !strings.Contains(string(res.Body), tc.field) {
				t.Errorf("%v: %d %s; want %d naming %s", tc.body, res.Status, res.Body, tc.status, tc.field)
			}
		}
		if res := ts.do("PUT", "/api/settings", "admin", map[string]any{"analytics": map[string]any{"reports": map[string]any{"weekly": "yes"}}}); res.Status != 400 {
			t.Errorf("weekly as a string: %d %s", res.Status, res.Body)
		}
	})
}
