package httpapi

import (
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

// TestAnalyticsMeasurements sends an outbound click as the tracker does and reads its breakdown.
func TestAnalyticsMeasurements(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts, _ := newAnalyticsServer(t, db)
		v := newOpenAPIValidator(t, ts)
		body := map[string]any{"type": "event", "name": "outbound_link", "path": "/about", "props": map[string]any{"url": "https://github.com/ada?x=1"}}
		if res := ts.do("POST", "/api/analytics/collect", "", body, "User-Agent", testBrowserUA); res.Status != 202 {
			t.Fatalf("collect: %d %s", res.Status, res.Body)
		}
		if res := ts.do("POST", "/api/analytics/collect", "", map[string]any{"type": "event", "name": "outbound_link", "path": "/"}, "User-Agent", testBrowserUA); res.Status != 422 ||
			!strings.Contains(string(res.Body), "props.url") {
			t.Errorf("outbound click without its link: %d %s", res.Status, res.Body)
		}
		day := time.Now().UTC().Format(time.DateOnly)
		res := ts.do("GET", "/api/analytics/measurements?kind=outbound_link&start="+day+"&end="+day, "admin", nil)
		if res.Status != 200 || !strings.Contains(string(res.Body), `"rows":[{"value":"github.com/ada","visitors":1,"events":1}]`) {
			t.Errorf("measurements: %d %s", res.Status, res.Body)
		}
		v.check("GET", "/api/analytics/measurements", res)
		for q, want := range map[string]int{"": 400, "kind=signup": 400, "kind=not_found&limit=0": 400, "kind=not_found": 200} {
			if res := ts.do("GET", "/api/analytics/measurements?"+q, "admin", nil); res.Status != want {
				t.Errorf("%q: %d %s, want %d", q, res.Status, res.Body, want)
			}
		}
		if res := ts.do("GET", "/api/analytics/measure.js", "", nil); res.Status != 200 || !strings.Contains(string(res.Body), "outbound_link") ||
			res.Header.Get("Cross-Origin-Resource-Policy") != "cross-origin" {
			t.Errorf("measure.js: %d %v", res.Status, res.Header)
		}
		if res := ts.do("GET", "/api/analytics/measurements?kind=not_found", "", nil); res.Status != 401 {
			t.Errorf("without credentials: %d", res.Status)
		}
	})
}
