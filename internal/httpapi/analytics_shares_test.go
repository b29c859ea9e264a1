package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/sqldb/analyticsdb"
)

// TestAnalyticsShares makes read-only links with and without a password, opens their page and
// their three routes, checks that nothing else opens with them, and revokes them.
func TestAnalyticsShares(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		a, err := analytics.New(analyticsdb.New(db), db.Content, analytics.Options{SiteURL: "http://folio.test", FlushInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		a.Start()
		t.Cleanup(func() { a.Close(context.Background()) })
		ts := newTestServer(t, db, func(s *Server) {
			s.Analytics = a
			s.UI = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("the analytics page")) })
		})
		v := newOpenAPIValidator(t, ts)
		ts.do("POST", "/api/analytics/collect", "", map[string]any{"type": "pageview", "path": "/hello"}, "User-Agent", testBrowserUA)

		create := func(body any) (folio.AnalyticsShareInfo, string) {
			t.Helper()
			res := ts.do("POST", "/api/analytics/shares", "admin", body)
			if res.Status != 201 {
				t.Fatalf("create: %d %s", res.Status, res.Body)
			}
			v.check("POST", "/api/analytics/shares", res)
			var info folio.AnalyticsShareInfo
			if err := json.Unmarshal(res.Body, &info); err != nil {
				t.Fatal(err)
			}
			token, ok := strings.CutPrefix(info.URL, ts.siteURL()+"/share/")
			if !ok || len(token) < 40 || info.ID == "" {
				t.Fatalf("share %+v", info)
			}
			return info, token
		}
		open, openToken := create(map[string]any{})
		locked, lockedToken := create(map[string]any{"password": "correct horse"})
		if open.Password || !locked.Password {
			t.Errorf("password flags: %+v %+v", open, locked)
		}
		var stored int
		if err := db.Analytics().R.QueryRow(`SELECT COUNT(*) FROM analytics_shares WHERE token_hash = $1 OR token_hash = $2 OR password_hash LIKE '%horse%'`,
			openToken, lockedToken).Scan(&stored); err != nil || stored != 0 {
			t.Errorf("a token or password is stored in the clear: %d, %v", stored, err)
		}

		// The page: served for a live link, never indexed; 404 for anything else.
		res := ts.do("GET", "/share/"+openToken, "", nil)
		if res.Status != 200 || string(res.Body) != "the analytics page" || !strings.Contains(res.Header.Get("X-Robots-Tag"), "noindex") {
			t.Errorf("share page: %d %v %s", res.Status, res.Header, res.Body)
		}
		if res := ts.do("GET", "/share/"+strings.Repeat("x", 43), "", nil); res.Status != 404 {
			t.Errorf("unknown link: %d", res.Status)
		}

		// The open link answers the report, a breakdown and realtime, without credentials.
		base := "/api/analytics/shared/" + openToken
		for _, p := range []struct{ path, pattern string }{{base, "/api/analytics/shared/{token}"},
			{base + "/breakdown?dimension=page", "/api/analytics/shared/{token}/breakdown"}, {base + "/realtime", "/api/analytics/shared/{token}/realtime"}} {
			res := ts.do("GET", p.path, "", nil)
			if res.Status != 200 || res.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("%s: %d %s", p.path, res.Status, res.Body)
			}
			v.check("GET", p.pattern, res)
		}
		if res := ts.do("GET", base+"/breakdown?dimension=page", "", nil); !strings.Contains(string(res.Body), `"/hello"`) {
			t.Errorf("breakdown of the link: %s", res.Body)
		}
		// Nothing else opens with it.
		for _, p := range []string{base + "/funnel", base + "/conversions", base + "/projects/x"} {
			if res := ts.do("GET", p, "", nil); res.Status != 404 {
				t.Errorf("%s: %d, want 404", p, res.Status)
			}
		}
		if res := ts.do("GET", "/api/analytics/conversions", "", nil, "Cookie", shareCookiePrefix+open.ID+"=x"); res.Status != 401 {
			t.Errorf("conversions with a share's cookie: %d", res.Status)
		}

		// The locked link needs its password first.
		lbase := "/api/analytics/shared/" + lockedToken
		if res := ts.do("GET", lbase, "", nil); res.Status != 401 || !strings.Contains(string(res.Body), `"field":"password"`) {
			t.Errorf("locked link without its password: %d %s", res.Status, res.Body)
		}
		if res := ts.do("POST", lbase+"/unlock", "", map[string]any{"password": "wrong horse"}); res.Status != 401 || res.Header.Get("Set-Cookie") != "" {
			t.Errorf("wrong password: %d %s", res.Status, res.Body)
		}
		res = ts.do("POST", lbase+"/unlock", "", map[string]any{"password": "correct horse"})
		if res.Status != 204 {
			t.Fatalf("unlock: %d %s", res.Status, res.Body)
		}
		cookie := strings.SplitN(res.Header.Get("Set-Cookie"), ";", 2)[0]
		if !strings.HasPrefix(cookie, shareCookiePrefix+locked.ID+"=") || !strings.Contains(res.Header.Get("Set-Cookie"), "HttpOnly") {
			t.Fatalf("cookie %q", res.Header.Get("Set-Cookie"))
		}
		if res := ts.do("GET", lbase+"/realtime", "", nil, "Cookie", cookie); res.Status != 200 {
			t.Errorf("unlocked link: %d %s", res.Status, res.Body)
		}
		// The open link's cookie value does not open the locked one.
		if res := ts.do("GET", lbase, "", nil, "Cookie", shareCookiePrefix+locked.ID+"=forged"); res.Status != 401 {
			t.Errorf("forged cookie: %d", res.Status)
		}

		// Listing and revoking.
		res = ts.do("GET", "/api/analytics/shares", "admin", nil)
		if res.Status != 200 || strings.Contains(string(res.Body), openToken) || strings.Count(string(res.Body), `"id"`) != 2 {
			t.Errorf("list: %d %s", res.Status, res.Body)
		}
		v.check("GET", "/api/analytics/shares", res)
		if res := ts.do("DELETE", "/api/analytics/shares/"+locked.ID, "admin", nil); res.Status != 204 {
			t.Errorf("revoke: %d %s", res.Status, res.Body)
		}
		if res := ts.do("DELETE", "/api/analytics/shares/"+locked.ID, "admin", nil); res.Status != 404 {
			t.Errorf("revoke again: %d", res.Status)
		}
		if res := ts.do("GET", lbase, "", nil, "Cookie", cookie); res.Status != 404 {
			t.Errorf("revoked link: %d %s", res.Status, res.Body)
		}
		if res := ts.do("GET", "/share/"+lockedToken, "", nil); res.Status != 404 {
			t.Errorf("revoked page: %d", res.Status)
		}

		for _, tc := range []struct {
			token  string
			body   any
			status int
		}{
			{"admin", map[string]any{"password": "short"}, 422},
			{"admin", map[string]any{"password": 12345678}, 400},
			{"write", map[string]any{}, 403},
			{"", map[string]any{}, 401},
		} {
			if res := ts.do("POST", "/api/analytics/shares", tc.token, tc.body); res.Status != tc.status {
				t.Errorf("create as %q with %v: %d %s, want %d", tc.token, tc.body, res.Status, res.Body, tc.status)
			}
		}
	})
}
