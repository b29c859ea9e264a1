package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio/internal/analytics"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/sqldb/analyticsdb"
)

func TestHelpListsTheCommands(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "help"} {
		env, out, _ := envWith(t, map[string]string{})
		if err := Run(context.Background(), []string{arg}, env); err != nil {
			t.Fatalf("folio %s: %v", arg, err)
		}
		for _, want := range []string{"folio [serve]", "folio migrate", "folio seed --demo", "folio user create", "folio apikey create", "folio serve --help"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("folio %s does not mention %q:\n%s", arg, want, out)
			}
		}
		// The variables stay under serve --help.
		if strings.Contains(out.String(), "FOLIO_ADDR") || strings.Contains(out.String(), "RATE_LIMIT_PUBLIC_PER_HOUR") {
			t.Errorf("folio %s lists serve's variables:\n%s", arg, out)
		}
	}
}

func TestDashboardURL(t *testing.T) {
	for in, want := range map[string]string{
		"[::]:8080":      "http://localhost:8080/admin/",
		"0.0.0.0:9000":   "http://localhost:9000/admin/",
		":8080":          "http://localhost:8080/admin/",
		"127.0.0.1:4321": "http://127.0.0.1:4321/admin/",
		"[::1]:8080":     "http://[::1]:8080/admin/",
	} {
		if got := dashboardURL(in); got != want {
			t.Errorf("dashboardURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHumanLogLines(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(newHumanHandler(&buf, slog.LevelInfo)).With("component", "test")
	log.Debug("hidden")
	log.Info("the dashboard is at http://localhost:8080/admin/", "users", 0, "note", "two words")
	line := buf.String()
	if strings.Count(line, "\n") != 1 {
		t.Fatalf("want exactly one line (debug filtered), got %q", line)
	}
	for _, want := range []string{"INFO  the dashboard is at http://localhost:8080/admin/", "component=test", "users=0", `note="two words"`} {
		if !strings.Contains(line, want) {
			t.Errorf("log line %q lacks %q", line, want)
		}
	}
	if strings.HasPrefix(strings.TrimSpace(line), "{") {
		t.Error("the human format wrote JSON")
	}
	// A log that is not a terminal (this buffer) stays JSON under auto.
	if got := logFormat(&config.Config{LogFormat: "auto"}, &buf); got != "json" {
		t.Errorf("auto on a buffer: %q, want json", got)
	}
	if got := logFormat(&config.Config{LogFormat: "text"}, &buf); got != "text" {
		t.Errorf("text: %q", got)
	}
}

// TestFirstStart runs serve on an empty data directory and checks what a new owner sees: the
// log says where the dashboard is, that no owner exists and how to make one, and (in
// development) the rate limits with their variables; / leads to the dashboard; a favicon is
// served; GET /api/setup says an owner is needed until one exists; GET /api/features names what
// is missing.
func TestFirstStart(t *testing.T) {
	env, _, logs := envWith(t, map[string]string{"FOLIO_ADDR": "127.0.0.1:0", "FOLIO_ENV": "development"})
	addr := make(chan string, 1)
	env.Ready = func(a string) { addr <- a }
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, []string{"serve"}, env) }()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case err := <-done:
		t.Fatalf("serve exited: %v\n%s", err, logs)
	}
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	logText := logs.String()
	for _, want := range []string{"the dashboard is at " + base + "/admin/", "no owner exists yet", "folio user create",
		"FOLIO_ADMIN_EMAIL", "RATE_LIMIT_HELPER_PER_HOUR", "RATE_LIMIT_PUBLIC_PER_HOUR", "RATE_LIMIT_WINDOW_SECONDS"} {
		if !strings.Contains(logText, want) {
			t.Errorf("the start log does not say %q:\n%s", want, logText)
		}
	}
	// Not a terminal: the log stays JSON, one object per line.
	for _, line := range strings.Split(strings.TrimSpace(logText), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("log line is not JSON: %s", line)
		}
	}

	noRedirect := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/admin/" {
		t.Errorf("GET /: %d Location %q, want 302 to /admin/", res.StatusCode, res.Header.Get("Location"))
	}
	res, err = noRedirect.Get(base + "/favicon.ico")
	if err != nil {
		t.Fatal(err)
	}
	var icon bytes.Buffer
	icon.ReadFrom(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(icon.String(), "<svg") {
		t.Errorf("GET /favicon.ico: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}

	setup := func() map[string]any {
		res, err := http.Get(base + "/api/setup")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(res.Body).Decode(&m); err != nil || res.StatusCode != 200 {
			t.Fatalf("GET /api/setup: %d %v", res.StatusCode, err)
		}
		return m
	}
	if m := setup(); m["needsOwner"] != true || len(m) != 1 {
		t.Errorf("GET /api/setup without users: %v, want exactly {needsOwner: true}", m)
	}
	key := mustAPIKey(t, env, "read") // creates the owner through `folio user create`
	if m := setup(); m["needsOwner"] != false || len(m) != 1 {
		t.Errorf("GET /api/setup with an owner: %v, want exactly {needsOwner: false}", m)
	}

	res, err = http.Get(base + "/api/features")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /api/features without credentials: %d, want 401", res.StatusCode)
	}
	req, _ := http.NewRequest("GET", base+"/api/features", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var fl struct {
		Features []struct {
			ID         string
			Configured bool
			Missing    []string
		}
	}
	if err := json.NewDecoder(res.Body).Decode(&fl); err != nil || res.StatusCode != 200 {
		t.Fatalf("GET /api/features: %d %v", res.StatusCode, err)
	}
	res.Body.Close()
	byID := map[string][]string{}
	for _, f := range fl.Features {
		if f.Configured != (len(f.Missing) == 0) {
			t.Errorf("feature %s: configured %v but missing %v", f.ID, f.Configured, f.Missing)
		}
		byID[f.ID] = f.Missing
	}
	for id, want := range map[string]string{"imageGeneration": "IMAGE_API_KEY", "externalBlog": "EXTBLOG_API_TOKEN",
		"smtp": "SMTP_HOST", "redis": "REDIS_URL", "s3": "S3_BUCKET", "calendar": "CALENDAR_PROVIDER", "postgres": "DATABASE_URL"} {
		if !strings.Contains(strings.Join(byID[id], ","), want) {
			t.Errorf("feature %s: missing %v, want it to name %s", id, byID[id], want)
		}
	}
}

func TestFeaturesFollowTheConfiguration(t *testing.T) {
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"IMAGE_API_KEY": "sk-secret-value", "SMTP_HOST": "smtp.example.com", "CALENDAR_PROVIDER": "caldav",
			"CALDAV_URL": "https://dav.example.com/cal/", "REDIS_URL": "redis://127.0.0.1:6379/0"}[k]
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	fs := features(cfg)
	b, _ := json.Marshal(fs)
	if strings.Contains(string(b), "sk-secret-value") || strings.Contains(string(b), "smtp.example.com") || strings.Contains(string(b), cfg.DataDir) {
		t.Fatalf("a configured value leaked into the feature list: %s", b)
	}
	state := map[string]bool{}
	missing := map[string][]string{}
	for _, f := range fs {
		state[f.ID], missing[f.ID] = f.Configured, f.Missing
	}
	if !state["imageGeneration"] || !state["smtp"] || !state["redis"] || state["externalBlog"] {
		t.Errorf("states: %v", state)
	}
	if !state["calendar"] || len(missing["calendar"]) != 0 || strings.Join(missing["s3"], ",") != "MEDIA_STORAGE=s3,S3_BUCKET,S3_ACCESS_KEY_ID,S3_SECRET_ACCESS_KEY" {
		t.Errorf("caldav configured: %v %v; s3 missing %v", state["calendar"], missing["calendar"], missing["s3"])
	}
}

// TestSeedDemoAnalytics seeds the demo content and its sample analytics on both engines and
// reads them back through the report the overview uses.
func TestSeedDemoAnalytics(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		if _, err := SeedDemo(ctx, db, nil); err != nil {
			t.Fatal(err)
		}
		loc, _ := time.LoadLocation("America/New_York")
		now := time.Now()
		n, err := SeedDemoAnalytics(ctx, db, loc, "https://folio.example", now)
		if err != nil {
			t.Fatal(err)
		}
		if n < demoDays*5 {
			t.Fatalf("queued %d events, want a few weeks' worth", n)
		}
		svc, err := analytics.New(analyticsdb.New(db), db.Projects, analytics.Options{Location: loc})
		if err != nil {
			t.Fatal(err)
		}
		today := now.In(loc).Format(time.DateOnly)
		first := now.In(loc).AddDate(0, 0, -(demoDays - 1)).Format(time.DateOnly)
		rg, err := svc.ParseRange(first, today)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := svc.Report(ctx, rg)
		if err != nil {
			t.Fatal(err)
		}
		if rep.PageViews.Total == 0 || rep.Visitors.Unique == 0 || rep.Visitors.Returning == 0 || len(rep.Referrers) == 0 {
			t.Errorf("report after the demo seed: %+v", rep)
		}
		busy := 0
		for _, d := range rep.Daily {
			if d.PageViews > 0 {
				busy++
			}
		}
		if busy < demoDays-2 {
			t.Errorf("%d of %d days have page views, want nearly all", busy, len(rep.Daily))
		}
		hasProject := false
		for _, p := range rep.TopPages {
			hasProject = hasProject || strings.HasPrefix(p.Path, "/projects/")
		}
		if !hasProject {
			t.Errorf("no project page among the top pages: %+v", rep.TopPages)
		}
		fun, err := svc.Funnel(ctx, rg)
		if err != nil {
			t.Fatal(err)
		}
		if len(fun.Steps) == 0 || fun.Steps[0].Visitors == 0 {
			t.Errorf("funnel after the demo seed: %+v", fun.Steps)
		}
		// Visitors come from many countries, the most from the biggest network's.
		countries, err := svc.Breakdown(ctx, analytics.BreakdownParams{Dimension: "country", Range: rg, Page: 1, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(countries.Rows) < 10 || countries.Rows[0].Value != "US" {
			t.Errorf("countries after the demo seed: %+v", countries.Rows)
		}
	})
}

// Every demo network is placed in the country it stands for by the embedded data.
func TestDemoNetworksCountries(t *testing.T) {
	for _, n := range demoNetworks {
		for _, last := range []byte{1, 128, 250} {
			a := n.base
			a[3] = last
			if got := analytics.Country(netip.AddrFrom4(a).String()); got != n.country {
				t.Errorf("%v: country %s, want %s", a, got, n.country)
			}
		}
	}
}
