package httpapi

import (
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

const testPhoneUA = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"

func TestAnalyticsBreakdownRoutes(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ts, a := newAnalyticsServer(t, db)
		v := newOpenAPIValidator(t, ts)
		for _, c := range []struct {
			body map[string]any
			ua   string
		}{
			{map[string]any{"type": "pageview", "path": "/blog?utm_source=Newsletter&utm_campaign=spring", "referrer": "https://github.com/me", "visitorId": "v1"}, testBrowserUA},
			{map[string]any{"type": "pageview", "path": "/about", "visitorId": "v1"}, testBrowserUA},
			{map[string]any{"type": "pageview", "path": "/blog", "referrer": "https://news.ycombinator.com/item?id=9", "visitorId": "v2"}, testPhoneUA},
			{map[string]any{"type": "pageview", "path": "/", "visitorId": "v3"}, testPhoneUA},
			{map[string]any{"type": "event", "path": "/contact", "name": "signup", "visitorId": "v2"}, testPhoneUA},
		} {
			if res := ts.do("POST", "/api/analytics/collect", "", c.body, "User-Agent", c.ua); res.Status != 202 {
				t.Fatalf("collect: %d %s", res.Status, res.Body)
			}
		}
		if err := a.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}

		rows := func(res response) map[string]map[string]any {
			t.Helper()
			out := map[string]map[string]any{}
			for _, r := range res.json(t)["rows"].([]any) {
				m := r.(map[string]any)
				out[m["value"].(string)] = m
			}
			return out
		}
		for _, tc := range []struct {
			name, query, token string
			status             int
			check              func(t *testing.T, res response)
		}{
			{"source", "dimension=source", "admin", 200, func(t *testing.T, res response) {
				r := rows(res)
				if len(r) != 3 || r["GitHub"]["visits"] != 1.0 || r["GitHub"]["pageViews"] != 2.0 || r["GitHub"]["bounceRate"] != 0.0 ||
					r["Hacker News"]["bounceRate"] != 1.0 || r["Direct / None"]["visitors"] != 1.0 {
					t.Errorf("source rows = %v", r)
				}
				if m := res.json(t); m["dimension"] != "source" || m["total"] != 3.0 || m["timeRange"] == nil || m["visitorsExact"] != true {
					t.Errorf("breakdown = %v", m)
				}
			}},
			{"device filtered by source", "dimension=device&source=Hacker%20News", "admin", 200, func(t *testing.T, res response) {
				if r := rows(res); len(r) != 1 || r["mobile"]["visitors"] != 1.0 {
					t.Errorf("rows = %v", r)
				}
			}},
			{"two filters", "dimension=page&device=mobile&country=ZZ", "admin", 200, func(t *testing.T, res response) {
				if r := rows(res); len(r) != 2 || r["/blog"] == nil || r["/"] == nil {
					t.Errorf("rows = %v", r)
				}
			}},
			{"utm", "dimension=utm_source", "admin", 200, func(t *testing.T, res response) {
				if r := rows(res); r["newsletter"]["visits"] != 1.0 {
					t.Errorf("rows = %v", r)
				}
			}},
			{"event conversion", "dimension=event", "admin", 200, func(t *testing.T, res response) {
				if r := rows(res); len(r) != 1 || r["signup"]["conversionRate"] != 0.3333 || r["signup"]["events"] != 1.0 {
					t.Errorf("rows = %v", r)
				}
			}},
			{"exit pages", "dimension=exit_page", "admin", 200, func(t *testing.T, res response) {
				if r := rows(res); r["/about"]["visits"] != 1.0 || r["/blog"]["visits"] != 1.0 || r["/"]["visits"] != 1.0 {
					t.Errorf("rows = %v", r)
				}
			}},
			{"compare previous", "dimension=country&compare=previous", "admin", 200, func(t *testing.T, res response) {
				if p, ok := res.json(t)["previous"].(map[string]any); !ok || p["timeRange"] == nil || len(p["rows"].([]any)) != 0 {
					t.Errorf("previous = %v", res.json(t)["previous"])
				}
			}},
			{"exact", "dimension=exit_page&exact=true", "admin", 200, func(t *testing.T, res response) {
				if r := rows(res); r["/about"]["visits"] != 1.0 || res.json(t)["sampleRate"] != nil {
					t.Errorf("rows = %v, sampleRate %v", r, res.json(t)["sampleRate"])
				}
			}},
			{"bad exact", "dimension=page&exact=sometimes", "admin", 400, nil},
			// page is the paging parameter and, as a path, the page filter.
			{"filtered by page", "dimension=source&page=%2Fblog", "admin", 200, func(t *testing.T, res response) {
				if r := rows(res); len(r) != 2 || r["GitHub"] == nil || r["Hacker News"] == nil {
					t.Errorf("rows = %v", r)
				}
			}},
			{"page filter and page number", "dimension=source&page=%2Fblog&page=2&limit=1", "admin", 200, func(t *testing.T, res response) {
				m := res.json(t)
				if len(m["rows"].([]any)) != 1 || m["total"] != 2.0 || m["page"] != 2.0 || m["filters"].(map[string]any)["page"] != "/blog" {
					t.Errorf("breakdown = %v", m)
				}
			}},
			{"two page numbers", "dimension=source&page=1&page=2", "admin", 400, nil},
			{"two page filters", "dimension=source&page=/a&page=/b", "admin", 400, nil},
			{"missing dimension", "", "admin", 400, nil},
			{"unknown dimension", "dimension=planet", "admin", 400, nil},
			{"bad compare", "dimension=page&compare=last-year", "admin", 400, nil},
			{"bad format", "dimension=page&format=xml", "admin", 400, nil},
			{"bad limit", "dimension=page&limit=0", "admin", 400, nil},
			{"bad page", "dimension=page&page=x", "admin", 400, nil},
			{"bad range", "dimension=page&start=2026-02-02&end=2026-02-01", "admin", 422, nil},
			{"repeated filter", "dimension=page&country=FR&country=DE", "admin", 400, nil},
			{"needs credentials", "dimension=page", "", 401, nil},
			{"needs admin", "dimension=page", "write", 403, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := ts.do("GET", "/api/analytics/breakdown?"+tc.query, tc.token, nil)
				if res.Status != tc.status {
					t.Fatalf("status %d, want %d: %s", res.Status, tc.status, res.Body)
				}
				v.check("GET", "/api/analytics/breakdown", res)
				if tc.status >= 400 {
					want := map[int]string{400: folio.EINVALID, 401: folio.EUNAUTHORIZED, 403: folio.EFORBIDDEN, 422: folio.EINVALID}[tc.status]
					if code := res.errorCode(t); code != want {
						t.Errorf("code %s, want %s", code, want)
					}
					return
				}
				tc.check(t, res)
			})
		}

		// CSV: a header row, then one record per row.
		res := ts.do("GET", "/api/analytics/breakdown?dimension=page&format=csv", "admin", nil)
		if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("csv: %d %v", res.Status, res.Header)
		}
		recs, err := csv.NewReader(strings.NewReader(string(res.Body))).ReadAll()
		if err != nil || len(recs) != 4 || strings.Join(recs[0], ",") != "value,visitors,pageViews,visits,bounceRate,conversionRate,events" ||
			recs[1][0] != "/blog" || recs[1][1] != "2" || recs[1][2] != "2" {
			t.Errorf("csv = %q %v", res.Body, err)
		}

		// The report with compare=previous.
		res = ts.do("GET", "/api/analytics?compare=previous", "admin", nil)
		v.check("GET", "/api/analytics", res)
		if p, ok := res.json(t)["previous"].(map[string]any); res.Status != 200 || !ok || p["visitors"] == nil || p["timeRange"] == nil {
			t.Errorf("report compare: %d %s", res.Status, res.Body)
		}
		if res := ts.do("GET", "/api/analytics?compare=yes", "admin", nil); res.Status != 400 {
			t.Errorf("report bad compare: %d", res.Status)
		}

		// Realtime: the three visitors who just came.
		res = ts.do("GET", "/api/analytics/realtime", "admin", nil)
		v.check("GET", "/api/analytics/realtime", res)
		rt := res.json(t)
		if res.Status != http.StatusOK || rt["visitors"] != 3.0 || len(rt["pages"].([]any)) != 3 {
			t.Errorf("realtime = %s", res.Body)
		}
		if res := ts.do("GET", "/api/analytics/realtime", "read", nil); res.Status != 403 {
			t.Errorf("realtime as read key: %d", res.Status)
		}
	})
}

// Ensure every cell a spreadsheet would read as a formula gets its leading ', lookalikes that
// NFKC folds into a formula character (full-width ＝, small ﹢) included.
func TestCSVSafe(t *testing.T) {
	for _, v := range []string{"=1+1", "+1", "-1", "@SUM(A1)", "|cmd", "%0A", ";=1", "\t=1", "\r=1", "\n=1",
		"＝HYPERLINK(\"x\")", "﹢1", "－1", "＠x", "｜x", "％x", "；=1", "=\u03381"} {
		if got := csvSafe(v); got != "'"+v {
			t.Errorf("csvSafe(%q) = %q", v, got)
		}
	}
	for _, v := range []string{"", "plain", "/blog/post", "2026-06-01", "github.com", "(other)", "漢字"} {
		if got := csvSafe(v); got != v {
			t.Errorf("csvSafe(%q) = %q", v, got)
		}
	}
}

func TestBreakdownCSVNeutralisesFormulas(t *testing.T) {
	b := breakdownCSV(&folio.Breakdown{Dimension: "utm_campaign", Rows: []folio.BreakdownRow{{Value: "=HYPERLINK(\"x\")", Visitors: 1}, {Value: "-1+2"}, {Value: "plain"}}})
	recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil || recs[1][0] != "'=HYPERLINK(\"x\")" || recs[2][0] != "'-1+2" || recs[3][0] != "plain" {
		t.Errorf("csv = %q", b)
	}
}

func TestBreakdownFilename(t *testing.T) {
	for _, c := range []struct {
		rate float64
		want string
	}{
		{0, "analytics-page-2026-06-01-2026-06-30.csv"},
		{1.0 / 128, "analytics-page-2026-06-01-2026-06-30-sample-1-in-128.csv"},
	} {
		if got := breakdownFilename(&folio.Breakdown{Dimension: "page", SampleRate: c.rate}, "2026-06-01", "2026-06-30"); got != c.want {
			t.Errorf("rate %v: %q, want %q", c.rate, got, c.want)
		}
	}
}
