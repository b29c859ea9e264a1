package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/httpapi"
	"github.com/foliohq/folio/internal/sqldb"
)

// isTerminal reports whether w is a terminal (a person is reading), not a pipe or a file.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// logFormat resolves LOG_FORMAT=auto: lines for people on a terminal, JSON for everything else
// (a log collector, a file, systemd's journal).
func logFormat(cfg *config.Config, w io.Writer) string {
	if cfg.LogFormat == "auto" || cfg.LogFormat == "" {
		if isTerminal(w) {
			return "human"
		}
		return "json"
	}
	return cfg.LogFormat
}

// humanHandler writes one short line per record: "15:04:05 INFO message key=value …". It is
// what LOG_FORMAT=auto picks on a terminal; the message comes first because it is written to be
// read.
type humanHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	level slog.Leveler
	attrs []slog.Attr
	group string
}

func newHumanHandler(w io.Writer, level slog.Leveler) *humanHandler {
	return &humanHandler{mu: &sync.Mutex{}, w: w, level: level}
}

func (h *humanHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

func (h *humanHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	if !r.Time.IsZero() {
		b.WriteString(r.Time.Format(time.TimeOnly))
		b.WriteByte(' ')
	}
	fmt.Fprintf(&b, "%-5s %s", r.Level.String(), r.Message)
	write := func(a slog.Attr) {
		a.Value = a.Value.Resolve()
		if a.Equal(slog.Attr{}) {
			return
		}
		key := a.Key
		if h.group != "" {
			key = h.group + "." + key
		}
		v := a.Value.String()
		if strings.ContainsAny(v, " \t\n\"=") || v == "" {
			v = fmt.Sprintf("%q", v)
		}
		fmt.Fprintf(&b, " %s=%s", key, v)
	}
	for _, a := range h.attrs {
		write(a)
	}
	r.Attrs(func(a slog.Attr) bool { write(a); return true })
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *humanHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}

func (h *humanHandler) WithGroup(name string) slog.Handler {
	c := *h
	if c.group != "" {
		name = c.group + "." + name
	}
	c.group = name
	return &c
}

// dashboardURL is the full address of the dashboard for the listener's address: a wildcard host
// (":8080", "[::]:8080") becomes localhost, which is what a person on this machine types.
func dashboardURL(listenAddr string) string {
	host, port, err := net.SplitHostPort(listenAddr)
	if err != nil {
		return "http://" + listenAddr + "/admin/"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port) + "/admin/"
}

// announceStart says, in words, where the dashboard is and whether an owner can sign in yet, and
// in development which rate limits apply and how to raise them.
func announceStart(ctx context.Context, cfg *config.Config, db *sqldb.DB, listenAddr string, log *slog.Logger) {
	url := dashboardURL(listenAddr)
	log.Info("the dashboard is at "+url, "dashboard", url)
	if cfg.NextAuthURL != "" {
		log.Info("behind a proxy, the dashboard is at "+strings.TrimRight(cfg.NextAuthURL, "/")+"/admin/", "dashboard_public", strings.TrimRight(cfg.NextAuthURL, "/")+"/admin/")
	}
	n, err := db.Identity.CountUsers(ctx)
	switch {
	case err != nil:
		log.Warn("could not count users", "error", err.Error())
	case n == 0:
		log.Warn("no owner exists yet, so nobody can sign in: run `folio user create --email you@example.com --name \"Your Name\" --role owner` " +
			"(it asks for the password), or set FOLIO_ADMIN_EMAIL and FOLIO_ADMIN_PASSWORD and restart")
	default:
		log.Info(fmt.Sprintf("%d user(s) can sign in at %s", n, url), "users", n)
	}
	if cfg.Production() {
		return
	}
	window := cfg.RateLimitWindow
	if window == 0 {
		window = time.Hour
	}
	per := window.String()
	if window == time.Hour {
		per = "hour"
	}
	log.Info(fmt.Sprintf("development: rate limits per %s — public %d per IP (RATE_LIMIT_PUBLIC_PER_HOUR), "+
		"keys and editor sessions %d (RATE_LIMIT_AUTHENTICATED_PER_HOUR), owner sessions and admin keys %d (RATE_LIMIT_ADMIN_PER_HOUR), "+
		"and %d for sign-in, contact and booking per IP (RATE_LIMIT_HELPER_PER_HOUR); the window is RATE_LIMIT_WINDOW_SECONDS; "+
		"raise them in the environment or .env while you test", per, cfg.RateLimitPublic, cfg.RateLimitAuthenticated,
		cfg.RateLimitAdmin, cfg.RateLimitHelper),
		"public", cfg.RateLimitPublic, "authenticated", cfg.RateLimitAuthenticated, "admin", cfg.RateLimitAdmin,
		"helper", cfg.RateLimitHelper, "window", window.String())
}

// features lists the optional parts of folio and what each still needs, for GET /api/features
// and the dashboard's disabled controls. Only variable names leave this function, never values.
func features(cfg *config.Config) []httpapi.Feature {
	missing := func(pairs ...string) []string {
		var out []string
		for i := 0; i+1 < len(pairs); i += 2 {
			if pairs[i+1] == "" {
				out = append(out, pairs[i])
			}
		}
		return out
	}
	var fs []httpapi.Feature
	add := func(id, label string, miss []string, note string) {
		fs = append(fs, httpapi.Feature{ID: id, Label: label, Configured: len(miss) == 0, Missing: miss, Note: note})
	}

	add("imageGeneration", "AI image generation", missing("IMAGE_API_KEY", cfg.ImageAPIKey),
		"Generates images through an OpenAI-compatible API ("+cfg.ImageModel+") and stores them in the media library.")

	extMissing := []string{}
	if !cfg.ExtblogConfigured() {
		extMissing = append(extMissing, "EXTBLOG_API_TOKEN")
	}
	extMissing = append(extMissing, missing("EXTBLOG_PUBLICATION_ID", cfg.ExtblogPublicationID)...)
	add("externalBlog", "External blog (Hashnode-compatible)", extMissing,
		"Cross-publishes posts and lists the publication's posts at GET /api/posts.")

	// Notes name variables, never values or paths: a read key must not learn the server's layout.
	add("smtp", "Outgoing mail (SMTP)", missing("SMTP_HOST", cfg.SMTPHost),
		"Without it, mail is written as .eml files to the outbox folder of FOLIO_DATA_DIR.")

	provider := calendarProvider(cfg)
	var calMissing []string
	switch provider {
	case "google":
		calMissing = missing("PROVIDER_CALENDAR_ID", cfg.ProviderCalendarID, "PROVIDER_SERVICE_ACCOUNT_EMAIL", cfg.ProviderSAEmail,
			"PROVIDER_SERVICE_ACCOUNT_PRIVATE_KEY", cfg.ProviderSAPrivateKey)
	case "caldav":
		calMissing = missing("CALDAV_URL", cfg.CalDAVURL)
	default:
		calMissing = []string{"CALENDAR_PROVIDER"}
	}
	calNote := "Bookings go to the " + provider + " calendar."
	if provider == "local" {
		calNote = "Bookings are kept in folio's own database (the built-in local calendar works; set CALENDAR_PROVIDER=google or caldav to use an outside calendar)."
	}
	add("calendar", "Outside calendar (Google or CalDAV)", calMissing, calNote)

	var s3Missing []string
	if cfg.MediaStorage != "s3" {
		s3Missing = []string{"MEDIA_STORAGE=s3", "S3_BUCKET", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"}
	} else {
		s3Missing = missing("S3_BUCKET", cfg.S3Bucket, "S3_ACCESS_KEY_ID", cfg.S3AccessKeyID, "S3_SECRET_ACCESS_KEY", cfg.S3SecretAccessKey)
	}
	add("s3", "S3-compatible media storage", s3Missing,
		"Without it, media is stored in FOLIO_DATA_DIR and served at /media/.")

	add("redis", "Redis (shared limits and cache for several instances)", missing("REDIS_URL", cfg.RedisURL),
		"Without it, rate limits and caches live in this instance's memory (fine for one instance).")

	pg := []string{}
	if !strings.HasPrefix(cfg.DatabaseURL, "postgres://") && !strings.HasPrefix(cfg.DatabaseURL, "postgresql://") {
		pg = []string{"DATABASE_URL"}
	}
	add("postgres", "PostgreSQL database", pg, "Without it, folio uses the embedded SQLite file in FOLIO_DATA_DIR.")
	return fs
}
