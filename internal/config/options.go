package config

import (
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// option is one variable: the options table below parses it, documents it (Help) and fills
// Config with it (Load).
type option struct {
	name, def, help string
	secret          bool
	// minProdBytes is the least length of a secret folio itself keys with (session encryption,
	// HMAC, bearer tokens) when FOLIO_ENV=production: a short one can be guessed offline.
	minProdBytes int
	set          func(c *Config, v string) error
}

var options = []option{
	// Core
	{name: "FOLIO_ADDR", def: ":8080", help: "listen address (host:port; :0 picks a free port)", set: str(func(c *Config) *string { return &c.Addr })},
	{name: "FOLIO_DATA_DIR", def: "./data", help: "directory for the SQLite database, local media, the .eml outbox and generated secrets", set: str(func(c *Config) *string { return &c.DataDir })},
	{name: "FOLIO_SITE_URL", def: "http://localhost:8080", help: "public URL of the site, for canonical links, feeds and the sitemap", set: httpURL(func(c *Config) *string { return &c.SiteURL })},
	{name: "FOLIO_ENV", def: "development", help: "development or production (production refuses unsafe defaults)", set: oneOf(func(c *Config) *string { return &c.Env }, "development", "production")},
	{name: "DATABASE_URL", def: "", help: "postgres://… for PostgreSQL; empty for the embedded SQLite file FOLIO_DATA_DIR/folio.db; a path or sqlite:PATH for another SQLite file (the analytics live beside it: folio.db → folio-analytics.db)", secret: true, set: str(func(c *Config) *string { return &c.DatabaseURL })},
	{name: "REDIS_URL", def: "", help: "redis://… to share rate limits, caches and invalidations between instances; empty keeps them in memory", secret: true, set: str(func(c *Config) *string { return &c.RedisURL })},
	{name: "FOLIO_AUTO_MIGRATE", def: "true", help: "apply database migrations at start (folio migrate does it explicitly)", set: boolean(func(c *Config) *bool { return &c.AutoMigrate })},
	{name: "LOG_LEVEL", def: "info", help: "debug, info, warn or error", set: oneOf(func(c *Config) *string { return &c.LogLevel }, "debug", "info", "warn", "error")},
	{name: "LOG_FORMAT", def: "auto", help: "auto (short lines for people when the log goes to a terminal, JSON otherwise), json or text (logfmt)", set: oneOf(func(c *Config) *string { return &c.LogFormat }, "auto", "json", "text")},
	{name: "FOLIO_READ_TIMEOUT", def: "30s", help: "time allowed to read a whole request, body included", set: duration(func(c *Config) *time.Duration { return &c.ReadTimeout })},
	{name: "FOLIO_WRITE_TIMEOUT", def: "120s", help: "time allowed to write a response (uploads and AI generation take the longest)", set: duration(func(c *Config) *time.Duration { return &c.WriteTimeout })},
	{name: "FOLIO_REQUEST_TIMEOUT", def: "60s", help: "deadline of a request's work (database and upstream calls)", set: duration(func(c *Config) *time.Duration { return &c.RequestTimeout })},
	{name: "FOLIO_SHUTDOWN_TIMEOUT", def: "20s", help: "how long a SIGTERM waits for in-flight requests to finish", set: duration(func(c *Config) *time.Duration { return &c.ShutdownTimeout })},
	{name: "FOLIO_JOBS_POLL_SECONDS", def: "1", help: "how often each instance looks for due background jobs (scheduled publishing, webhook deliveries, snapshots)", set: func(c *Config, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > 3600 {
			return fmt.Errorf("not a whole number of seconds from 1 to 3600: %q", v)
		}
		c.JobsPoll = time.Duration(n) * time.Second
		return nil
	}},
	{name: "FOLIO_PUBLIC_CACHE_ENTRIES", def: "2048", help: "rendered public responses kept in memory (0 disables the cache)", set: integer(0, 1<<20, func(c *Config) *int { return &c.PublicCacheSize })},
	{name: "FOLIO_PUBLIC_CACHE_BYTES", def: "67108864", help: "memory bound of the public response cache in bytes (default 64 MiB; 0 disables the cache); a response over an eighth of it is not cached", set: func(c *Config, v string) error {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("not a number of bytes: %q", v)
		}
		c.PublicCacheBytes = n
		return nil
	}},
	{name: "METRICS_TOKEN", def: "", help: "bearer token that may read /metrics (an admin API key may too); at least 32 bytes in production", secret: true, minProdBytes: 32, set: str(func(c *Config) *string { return &c.MetricsToken })},
	{name: "METRICS_ADDR", def: "", help: "serve /metrics on this separate listen address (host:port) only, and not on FOLIO_ADDR; it is open to whoever reaches it unless METRICS_TOKEN is set", set: str(func(c *Config) *string { return &c.MetricsAddr })},

	// Identity and access
	{name: "NEXTAUTH_SECRET", def: "", help: "secret the session cookies are encrypted with (shared with a Next.js front end); generated into the data directory in development; at least 32 bytes in production", secret: true, minProdBytes: 32, set: str(func(c *Config) *string { return &c.NextAuthSecret })},
	{name: "NEXTAUTH_SECRET_PREVIOUS", def: "", help: "the NEXTAUTH_SECRET before a rotation: TOTP secrets encrypted with it are encrypted again with the new one at start (docs/operations.md, Secrets at rest); sessions signed with it end", secret: true, minProdBytes: 32, set: str(func(c *Config) *string { return &c.NextAuthSecretPrevious })},
	{name: "NEXTAUTH_URL", def: "", help: "base URL of the site the sessions belong to; https makes cookies __Secure-", set: httpURL(func(c *Config) *string { return &c.NextAuthURL })},
	{name: "FOLIO_ADMIN_EMAIL", def: "", help: "creates this owner at first start when no user exists", set: address(func(c *Config) *string { return &c.AdminEmail })},
	{name: "FOLIO_ADMIN_PASSWORD", def: "", help: "password of the first-start owner (12 characters or more)", secret: true, set: str(func(c *Config) *string { return &c.AdminPassword })},
	{name: "CORS_ALLOWED_ORIGINS", def: "", help: "comma list of browser origins allowed to call the API with credentials", set: func(c *Config, v string) error {
		for _, o := range list(v) {
			u, err := url.Parse(o)
			if err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" {
				return fmt.Errorf("not an origin such as https://example.com: %q", o)
			}
		}
		c.CORSAllowedOrigins = list(v)
		return nil
	}},
	{name: "TRUSTED_PROXIES", def: "", help: "comma list of CIDRs or IPs of reverse proxies whose X-Forwarded-For is believed", set: func(c *Config, v string) error {
		c.TrustedProxies = nil
		for _, s := range list(v) {
			if p, err := netip.ParsePrefix(s); err == nil {
				c.TrustedProxies = append(c.TrustedProxies, p.Masked())
				continue
			}
			a, err := netip.ParseAddr(s)
			if err != nil {
				return fmt.Errorf("not a CIDR or IP: %q", s)
			}
			c.TrustedProxies = append(c.TrustedProxies, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
		}
		return nil
	}},
	{name: "RATE_LIMIT_PUBLIC_PER_HOUR", def: "100", help: "requests per hour per client IP without credentials", set: integer(1, 1<<30, func(c *Config) *int { return &c.RateLimitPublic })},
	{name: "RATE_LIMIT_AUTHENTICATED_PER_HOUR", def: "1000", help: "requests per hour per read/write key or editor session", set: integer(1, 1<<30, func(c *Config) *int { return &c.RateLimitAuthenticated })},
	{name: "RATE_LIMIT_ADMIN_PER_HOUR", def: "5000", help: "requests per hour per admin key or owner session", set: integer(1, 1<<30, func(c *Config) *int { return &c.RateLimitAdmin })},
	{name: "RATE_LIMIT_WINDOW_SECONDS", def: "3600", help: "length of the rate-limit window the *_PER_HOUR budgets apply to (the contract's hour; shorter only for tests and soaks)", set: func(c *Config, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > 86400 {
			return fmt.Errorf("not a whole number of seconds from 1 to 86400: %q", v)
		}
		c.RateLimitWindow = time.Duration(n) * time.Second
		return nil
	}},
	{name: "RATE_LIMIT_HELPER_PER_HOUR", def: "5", help: "helper limit: contact, booking and login per client IP, image generation per key", set: integer(1, 1<<30, func(c *Config) *int { return &c.RateLimitHelper })},
	{name: "RATE_LIMIT_IPV6_PREFIX", def: "64", help: "per-IP limits count an IPv6 client by this prefix length (one /64 is one home connection); IPv4 stays per address", set: integer(1, 128, func(c *Config) *int { return &c.RateLimitIPv6Prefix })},
	{name: "RATE_LIMIT_MAX_IDENTIFIERS", def: "100000", help: "most identifiers (client IPs, keys) the in-memory limiter tracks; beyond it the least recently used are forgotten (about 170 bytes each)", set: integer(1, 1<<30, func(c *Config) *int { return &c.RateLimitMaxIDs })},

	// Mail
	{name: "SMTP_HOST", def: "", help: "SMTP server; empty writes mail as .eml files to FOLIO_DATA_DIR/outbox", set: str(func(c *Config) *string { return &c.SMTPHost })},
	{name: "SMTP_PORT", def: "587", help: "SMTP port (465 implies implicit TLS)", set: integer(1, 65535, func(c *Config) *int { return &c.SMTPPort })},
	{name: "SMTP_USERNAME", def: "", help: "SMTP user; empty sends without AUTH", set: str(func(c *Config) *string { return &c.SMTPUsername })},
	{name: "SMTP_PASSWORD", def: "", help: "SMTP password", secret: true, set: str(func(c *Config) *string { return &c.SMTPPassword })},
	{name: "SMTP_FROM", def: "folio@localhost", help: "sender address of every mail", set: address(func(c *Config) *string { return &c.SMTPFrom })},
	{name: "SMTP_TLS", def: "opportunistic", help: "opportunistic, starttls, tls or none", set: oneOf(func(c *Config) *string { return &c.SMTPTLS }, "opportunistic", "starttls", "tls", "none")},
	{name: "CONTACT_RECIPIENT", def: "", help: "where contact-form messages and booking notices go; empty: the owner account's email (the dashboard's settings may set it)", set: address(func(c *Config) *string { return &c.ContactRecipient })},

	// Media
	{name: "MEDIA_STORAGE", def: "local", help: "local (FOLIO_DATA_DIR/media served at /media/) or s3", set: oneOf(func(c *Config) *string { return &c.MediaStorage }, "local", "s3")},
	{name: "MEDIA_MAX_BYTES", def: "10485760", help: "largest accepted upload in bytes", set: func(c *Config, v string) error {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("not a positive number of bytes: %q", v)
		}
		c.MediaMaxBytes = n
		return nil
	}},
	{name: "MEDIA_MAX_PIXELS", def: "50000000", help: "largest accepted image in pixels (width × height, read from the header before decoding); larger images get 422", set: func(c *Config, v string) error {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("not a positive number of pixels: %q", v)
		}
		c.MediaMaxPixels = n
		return nil
	}},
	{name: "MEDIA_ALLOW_SVG", def: "false", help: "accept SVG uploads (they can carry scripts)", set: boolean(func(c *Config) *bool { return &c.MediaAllowSVG })},
	{name: "MEDIA_PUBLIC_URL", def: "", help: "public URL prefix of local media (default FOLIO_SITE_URL/media; set it to this API's origin + /media when the site is served elsewhere)", set: httpURL(func(c *Config) *string { return &c.MediaPublicURL })},
	{name: "S3_ENDPOINT", def: "", help: "S3-compatible endpoint URL (empty: AWS)", set: httpURL(func(c *Config) *string { return &c.S3Endpoint })},
	{name: "S3_BUCKET", def: "", help: "bucket for media", set: str(func(c *Config) *string { return &c.S3Bucket })},
	{name: "S3_REGION", def: "us-east-1", help: "bucket region (auto for Cloudflare R2)", set: str(func(c *Config) *string { return &c.S3Region })},
	{name: "S3_ACCESS_KEY_ID", def: "", help: "S3 access key id", secret: true, set: str(func(c *Config) *string { return &c.S3AccessKeyID })},
	{name: "S3_SECRET_ACCESS_KEY", def: "", help: "S3 secret key", secret: true, set: str(func(c *Config) *string { return &c.S3SecretAccessKey })},
	{name: "S3_PUBLIC_BASE_URL", def: "", help: "public URL prefix of the bucket's objects (CDN or bucket website)", set: httpURL(func(c *Config) *string { return &c.S3PublicBaseURL })},
	{name: "S3_FORCE_PATH_STYLE", def: "true", help: "path-style bucket addressing (MinIO, versitygw); false for virtual-hosted style", set: boolean(func(c *Config) *bool { return &c.S3ForcePathStyle })},

	// AI images
	{name: "IMAGE_API_BASE_URL", def: "https://api.openai.com/v1", help: "OpenAI-compatible images API base URL", set: httpURL(func(c *Config) *string { return &c.ImageAPIBaseURL })},
	{name: "IMAGE_API_KEY", def: "", help: "images API key; empty answers 503 on /api/ai/generate-image", secret: true, set: str(func(c *Config) *string { return &c.ImageAPIKey })},
	{name: "IMAGE_MODEL", def: "gpt-image-1", help: "image model name", set: str(func(c *Config) *string { return &c.ImageModel })},
	{name: "IMAGE_ALLOWED_SIZES", def: "1024x1024,1024x1536,1536x1024", help: "comma list of WIDTHxHEIGHT sizes callers may ask for", set: func(c *Config, v string) error {
		for _, s := range list(v) {
			w, h, ok := strings.Cut(s, "x")
			if _, err := strconv.Atoi(w); err != nil || !ok {
				return fmt.Errorf("not a WIDTHxHEIGHT size: %q", s)
			}
			if _, err := strconv.Atoi(h); err != nil {
				return fmt.Errorf("not a WIDTHxHEIGHT size: %q", s)
			}
		}
		c.ImageAllowedSizes = list(v)
		return nil
	}},
	{name: "IMAGE_TIMEOUT", def: "90s", help: "deadline of one image generation", set: duration(func(c *Config) *time.Duration { return &c.ImageTimeout })},
	{name: "IMAGE_ALLOW_PRIVATE", def: "false", help: "fetch image URLs the provider answers with from loopback, private and link-local addresses too (a provider on your own network); by default only public addresses are fetched, redirects included", set: boolean(func(c *Config) *bool { return &c.ImageAllowPrivate })},

	// External blog platform
	{name: "EXTBLOG_API_URL", def: "https://gql.hashnode.com", help: "the platform's GraphQL endpoint", set: httpURL(func(c *Config) *string { return &c.ExtblogAPIURL })},
	{name: "EXTBLOG_API_TOKEN", def: "", help: "the platform's personal access token; empty answers 503 on the platform routes", secret: true, set: str(func(c *Config) *string { return &c.ExtblogAPIToken })},
	{name: "EXTBLOG_API_TOKEN_FILE", def: "", help: "file holding the token, re-read when it changes (rotation without restart)", set: str(func(c *Config) *string { return &c.ExtblogAPITokenFile })},
	{name: "EXTBLOG_PUBLICATION_ID", def: "", help: "the publication cross-published posts go to", set: str(func(c *Config) *string { return &c.ExtblogPublicationID })},
	{name: "EXTBLOG_PUBLICATION_HOST", def: "", help: "the publication's host (e.g. blog.example.com) for GET /api/posts", set: str(func(c *Config) *string { return &c.ExtblogPublicationHost })},
	{name: "EXTBLOG_WEBHOOK_SECRET", def: "", help: "HMAC secret of the inbound webhook; without it every delivery is refused (401); required in production when the platform is configured, at least 32 bytes there", secret: true, minProdBytes: 32, set: str(func(c *Config) *string { return &c.ExtblogWebhookSecret })},
	{name: "EXTBLOG_WEBHOOK_TOLERANCE_SECONDS", def: "300", help: "accepted clock difference of signed webhook timestamps", set: seconds(func(c *Config) *time.Duration { return &c.ExtblogWebhookTolerance })},
	{name: "EXTBLOG_MAX_ATTEMPTS", def: "3", help: "attempts per platform call (1 s initial backoff, ×2, 10 s cap)", set: integer(1, 10, func(c *Config) *int { return &c.ExtblogMaxAttempts })},
	{name: "EXTBLOG_CACHE_SECONDS", def: "3600", help: "lifetime of the cached GET /api/posts listing", set: seconds(func(c *Config) *time.Duration { return &c.ExtblogCacheTTL })},

	// Booking
	{name: "BOOKING_DURATION_OPTIONS", def: "30,60", help: "comma list of meeting lengths in minutes", set: func(c *Config, v string) error {
		c.BookingDurations = nil
		for _, s := range list(v) {
			n, err := strconv.Atoi(s)
			if err != nil || n < 5 || n > 480 {
				return fmt.Errorf("not a duration in minutes (5..480): %q", s)
			}
			c.BookingDurations = append(c.BookingDurations, n)
		}
		if len(c.BookingDurations) == 0 {
			return fmt.Errorf("needs at least one duration")
		}
		return nil
	}},
	{name: "BOOKING_BUSINESS_HOURS_START", def: "9", help: "first business hour (0-23) in the owner's zone", set: integer(0, 23, func(c *Config) *int { return &c.BookingHoursStart })},
	{name: "BOOKING_BUSINESS_HOURS_END", def: "18", help: "hour (1-24) by which meetings end", set: integer(1, 24, func(c *Config) *int { return &c.BookingHoursEnd })},
	{name: "BOOKING_BUSINESS_DAYS", def: "1,2,3,4,5", help: "comma list of weekdays, 0 = Sunday … 6 = Saturday", set: func(c *Config, v string) error {
		c.BookingDays = nil
		for _, s := range list(v) {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || n > 6 {
				return fmt.Errorf("not a weekday number 0-6: %q", s)
			}
			c.BookingDays = append(c.BookingDays, time.Weekday(n))
		}
		return nil
	}},
	{name: "BOOKING_TIMEZONE", def: "America/New_York", help: "the owner's IANA time zone", set: func(c *Config, v string) error {
		loc, err := time.LoadLocation(v)
		if err != nil || v == "" || v == "Local" {
			return fmt.Errorf("not an IANA time zone: %q", v)
		}
		c.BookingTimezone = loc
		return nil
	}},
	{name: "BOOKING_ADVANCE_DAYS", def: "60", help: "how many days ahead a meeting may be booked", set: integer(1, 3650, func(c *Config) *int { return &c.BookingAdvanceDays })},
	{name: "BOOKING_MIN_NOTICE_HOURS", def: "24", help: "minimum notice in hours", set: integer(0, 24*365, func(c *Config) *int { return &c.BookingMinNoticeHours })},
	{name: "BOOKING_SLOT_STEP_MINUTES", def: "30", help: "grid of slot starts from the business-hours start", set: integer(5, 240, func(c *Config) *int { return &c.BookingSlotStepMinutes })},
	{name: "BOOKING_BUFFER_MINUTES", def: "0", help: "free time kept around every busy interval", set: integer(0, 240, func(c *Config) *int { return &c.BookingBufferMinutes })},
	{name: "BOOKING_REMINDERS", def: "24h,1h", help: "comma list of how long before a meeting the visitor gets a reminder mail, like 24h, 1h, 15m or 2d (whole minutes, at most 30 days); empty: none", set: func(c *Config, v string) error {
		c.BookingReminders = nil
		for _, f := range list(v) {
			d, err := folio.ParseReminder(f)
			if err != nil {
				return err
			}
			c.BookingReminders = append(c.BookingReminders, d)
		}
		return nil
	}},
	{name: "BOOKING_MAX_PER_EMAIL_PER_DAY", def: "3", help: "bookings one visitor address may make in 24 hours (429 beyond); 0: no cap", set: integer(0, 1000, func(c *Config) *int { return &c.BookingMaxPerEmailPerDay })},
	{name: "BOOKING_EMBED_ORIGINS", def: "", help: "comma list of origins allowed to frame the /book page (CSP frame-ancestors); every other page is never framed", set: func(c *Config, v string) error {
		for _, o := range list(v) {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || strings.ContainsAny(o, " ;'\"") {
				return fmt.Errorf("not an origin such as https://example.com: %q", o)
			}
		}
		c.BookingEmbedOrigins = nil
		for _, o := range list(v) {
			c.BookingEmbedOrigins = append(c.BookingEmbedOrigins, strings.TrimRight(o, "/"))
		}
		return nil
	}},
	{name: "BOOKING_MEETING_URL_TEMPLATE", def: "https://meet.jit.si/folio-{id}", help: "meeting link of the local and caldav providers; {id} is the booking id", set: str(func(c *Config) *string { return &c.BookingMeetingTemplate })},
	{name: "BOOKING_JITSI_URL", def: "https://meet.jit.si", help: "Jitsi server of the jitsi meeting place; each booking gets its own unguessable room there", set: httpURL(func(c *Config) *string { return &c.BookingJitsiURL })},
	{name: "CALENDAR_PROVIDER", def: "", help: "google, caldav or local (default: google when PROVIDER_* is set, else local)", set: oneOf(func(c *Config) *string { return &c.CalendarProvider }, "", "google", "caldav", "local")},
	{name: "PROVIDER_CALENDAR_ID", def: "", help: "Google calendar id", set: str(func(c *Config) *string { return &c.ProviderCalendarID })},
	{name: "PROVIDER_SERVICE_ACCOUNT_EMAIL", def: "", help: "Google service account", set: str(func(c *Config) *string { return &c.ProviderSAEmail })},
	{name: "PROVIDER_SERVICE_ACCOUNT_PRIVATE_KEY", def: "", help: "the service account's PEM private key (\\n accepted for newlines)", secret: true, set: str(func(c *Config) *string { return &c.ProviderSAPrivateKey })},
	{name: "PROVIDER_CALENDAR_SUBJECT", def: "", help: "user the service account acts for (domain-wide delegation; default the calendar id)", set: str(func(c *Config) *string { return &c.ProviderSubject })},
	{name: "PROVIDER_API_URL", def: "", help: "override of Google's Calendar API address (tests)", set: httpURL(func(c *Config) *string { return &c.ProviderAPIURL })},
	{name: "PROVIDER_TOKEN_URL", def: "", help: "override of Google's OAuth token address (tests)", set: httpURL(func(c *Config) *string { return &c.ProviderTokenURL })},
	{name: "CALDAV_URL", def: "", help: "CalDAV calendar collection URL", set: httpURL(func(c *Config) *string { return &c.CalDAVURL })},
	{name: "CALDAV_USERNAME", def: "", help: "CalDAV user", set: str(func(c *Config) *string { return &c.CalDAVUsername })},
	{name: "CALDAV_PASSWORD", def: "", help: "CalDAV password", secret: true, set: str(func(c *Config) *string { return &c.CalDAVPassword })},

	// Analytics
	{name: "ANALYTICS_SALT_ROTATION", def: "day", help: "how often the visitor-hash salt rotates: day, week or month", set: oneOf(func(c *Config) *string { return &c.AnalyticsSaltRotation }, "day", "week", "month")},
	{name: "ANALYTICS_QUEUE_SIZE", def: "65536", help: "events buffered for batched writes before new ones are dropped (and counted)", set: integer(16, 1<<24, func(c *Config) *int { return &c.AnalyticsQueueSize })},
	{name: "WEBHOOK_ALLOW_PRIVATE", def: "false", help: "let outgoing webhooks reach loopback, private and link-local addresses (a receiver on your own network)", set: boolean(func(c *Config) *bool { return &c.WebhookAllowPrivate })},
	{name: "FEDIVERSE_NAME", def: "site", help: "the site's ActivityPub account name: followed as @NAME@HOST (HOST from FOLIO_SITE_URL)", set: func(c *Config, v string) error {
		if v == "" || strings.ContainsAny(v, "@:/ ") {
			return fmt.Errorf("must be a plain account name (letters, digits, _ . -)")
		}
		c.FediverseName = v
		return nil
	}},
	{name: "NEWSLETTER_RATE_PER_MINUTE", def: "60", help: "newsletter mails handed to the mail server per minute (shared by every instance when REDIS_URL is set, else per instance)", set: integer(1, 1_000_000, func(c *Config) *int { return &c.NewsletterRate })},
	{name: "NEWSLETTER_DOMAIN_CONCURRENCY", def: "2", help: "newsletter mails in flight at once to one recipient domain (per instance)", set: integer(1, 100, func(c *Config) *int { return &c.NewsletterDomainConc })},
	{name: "NEWSLETTER_SEND_TIMEOUT", def: "30s", help: "bound of one newsletter mail's attempt; the mails an instance had in hand when it died go out from another this long plus 15 s later", set: duration(func(c *Config) *time.Duration { return &c.NewsletterSendTimeout })},
	{name: "NEWSLETTER_EVENTS_SECRET", def: "", help: "secret of the mail provider's signed bounce and complaint events at POST /api/subscribers/events (Standard Webhooks; whsec_<base64> or plain); empty refuses them", secret: true, set: str(func(c *Config) *string { return &c.NewsletterEventsKey })},
	{name: "FEDIVERSE_ALLOW_PRIVATE", def: "false", help: "let fetches of fediverse actors and keys, Webmention sources and deliveries reach loopback and private addresses (tests, private networks)", set: boolean(func(c *Config) *bool { return &c.FediverseAllowPrivate })},
	{name: "BACKUP_INTERVAL", def: "", help: "how often to snapshot the SQLite database into the media storage under backups/ (e.g. 24h); empty: never", set: func(c *Config, v string) error {
		v = strings.TrimSpace(v)
		if v == "" || v == "0" {
			c.BackupInterval = 0
			return nil
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Minute {
			return fmt.Errorf("not a duration of at least 1m: %q", v)
		}
		c.BackupInterval = d
		return nil
	}},
	{name: "BACKUP_KEEP", def: "7", help: "how many scheduled snapshots to keep (older ones are deleted)", set: integer(1, 10000, func(c *Config) *int { return &c.BackupKeep })},
	{name: "ANALYTICS_EXACT_LIMIT", def: "25000", help: "the most page views in a range that a breakdown counts one by one (exact visitors); above it breakdowns read the rollups, or a sample of the visitors when a page, entry/exit page or event is involved", set: integer(1, 1<<30, func(c *Config) *int { return &c.AnalyticsExactLimit })},
	{name: "ANALYTICS_STORAGE", def: "local", help: "what the tracking script keeps on a visitor's device: local (one random id in localStorage, so returning visitors are counted) or none (nothing; visitors are counted per day by a hash of address, User-Agent and site under a daily salt)", set: oneOf(func(c *Config) *string { return &c.AnalyticsStorage }, "local", "none")},
	{name: "ANALYTICS_MAX_DAILY_VALUES", def: "500", help: "the most distinct values of one dimension (page, referrer, source, UTM tag, browser, OS, event) a day keeps per instance; later new values of that day count as (other); -1: no cap", set: integer(-1, 1<<20, func(c *Config) *int { return &c.AnalyticsMaxDailyValues })},
	{name: "ANALYTICS_ALERT_COOLDOWN", def: "6h", help: "the least time between two traffic-spike alert mails (settings analytics.alert)", set: duration(func(c *Config) *time.Duration { return &c.AnalyticsAlertCooldown })},
	{name: "ANALYTICS_RETENTION_DAYS", def: "0", help: "days of raw page views and events kept (older ones are deleted hourly; the daily totals stay); 0 keeps everything", set: integer(0, 36500, func(c *Config) *int { return &c.AnalyticsRetention })},

	// Audit log
	{name: "AUDIT_RETENTION_DAYS", def: "365", help: "days of audit-log entries kept (older ones are deleted hourly); 0 keeps everything", set: integer(0, 36500, func(c *Config) *int { return &c.AuditRetention })},
}

// Help writes one line per variable: name, default and help text, sorted as declared.
func Help(w io.Writer) {
	fmt.Fprintln(w, "Environment variables (also read from ./.env; the environment wins):")
	width := 0
	for _, o := range options {
		width = max(width, len(o.name))
	}
	for _, o := range options {
		def := o.def
		if def == "" {
			def = "(empty)"
		}
		fmt.Fprintf(w, "  %-*s  %s\n  %-*s  default: %s\n", width, o.name, o.help, width, "", def)
	}
}

// Names returns every variable name, sorted (for docs and tests).
func Names() []string {
	out := make([]string, 0, len(options))
	for _, o := range options {
		out = append(out, o.name)
	}
	sort.Strings(out)
	return out
}
