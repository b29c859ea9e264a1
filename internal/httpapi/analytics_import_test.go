package httpapi

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"

	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// TestAnalyticsImport posts a hand-made Plausible export and reads the day back, marked imported.
func TestAnalyticsImport(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts, _ := newAnalyticsServer(t, db)
		v := newOpenAPIValidator(t, ts)
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create("imported_visitors_20250101_20250102.csv")
		w.Write([]byte("date,visitors,pageviews,bounces,visits,visit_duration\n2025-01-01,7,20,3,9,100\n2025-01-02,2,4,1,2,10\n"))
		zw.Close()
		res := ts.do("POST", "/api/analytics/import?format=plausible", "admin", buf.Bytes(), "Content-Type", "application/zip")
		if res.Status != 200 || !strings.Contains(string(res.Body), `"days":2,"pageViews":24,"skippedDays":[]`) {
			t.Fatalf("import: %d %s", res.Status, res.Body)
		}
		v.check("POST", "/api/analytics/import", res)
		res = ts.do("GET", "/api/analytics?start=2025-01-01&end=2025-01-03", "admin", nil)
		if res.Status != 200 || !strings.Contains(string(res.Body), `"importedDays":["2025-01-01","2025-01-02"]`) ||
			!strings.Contains(string(res.Body), `{"date":"2025-01-01","visitors":7,"visits":9,"pageViews":20,"imported":true}`) {
			t.Errorf("report: %d %s", res.Status, res.Body)
		}
		// Breakdowns: unfiltered they count the imported days and name them; filtered they leave
		// them out and say so, in JSON and in CSV.
		res = ts.do("GET", "/api/analytics/breakdown?dimension=date&start=2025-01-01&end=2025-01-03", "admin", nil)
		if res.Status != 200 || !strings.Contains(string(res.Body), `{"value":"2025-01-01","visitors":7,"pageViews":20,"visits":9`) ||
			!strings.Contains(string(res.Body), `"importedDays":["2025-01-01","2025-01-02"]`) {
			t.Errorf("unfiltered breakdown: %d %s", res.Status, res.Body)
		}
		v.check("GET", "/api/analytics/breakdown", res)
		res = ts.do("GET", "/api/analytics/breakdown?dimension=date&start=2025-01-01&end=2025-01-03&device=desktop&compare=previous", "admin", nil)
		if res.Status != 200 || !strings.Contains(string(res.Body), `"rows":[]`) ||
			!strings.Contains(string(res.Body), `"importedDaysLeftOut":["2025-01-01","2025-01-02"]`) {
			t.Errorf("filtered breakdown: %d %s", res.Status, res.Body)
		}
		v.check("GET", "/api/analytics/breakdown", res)
		res = ts.do("GET", "/api/analytics/breakdown?dimension=date&start=2025-01-01&end=2025-01-03&device=desktop&format=csv", "admin", nil)
		if res.Status != 200 || res.Header.Get("X-Imported-Days-Left-Out") != "2025-01-01,2025-01-02" ||
			!strings.Contains(res.Header.Get("Content-Disposition"), "-without-imported-days.csv") {
			t.Errorf("filtered CSV: %d %v", res.Status, res.Header)
		}
		if res := ts.do("POST", "/api/analytics/import?format=plausible", "admin", buf.Bytes()); !strings.Contains(string(res.Body), `"days":0,"pageViews":0,"skippedDays":["2025-01-01","2025-01-02"]`) {
			t.Errorf("again: %d %s", res.Status, res.Body)
		}
		for _, tc := range []struct {
			query, token string
			body         any
			status       int
		}{
			{"format=matomo", "admin", "x", 400},
			{"format=plausible", "admin", "date,visitors\n", 415},
			{"format=umami", "admin", buf.Bytes(), 415},
			{"format=umami", "admin", "created_at,url_path\nnot a time,/\n", 422},
			{"format=umami", "admin", "", 400},
			{"format=umami", "write", "x", 403},
			{"format=plausible", "admin", append([]byte("PK\x03\x04"), make([]byte, 33<<20)...), 413},
		} {
			if res := ts.do("POST", "/api/analytics/import?"+tc.query, tc.token, tc.body); res.Status != tc.status {
				t.Errorf("%s as %s: %d %.200s, want %d", tc.query, tc.token, res.Status, res.Body, tc.status)
			}
		}
	})
}
