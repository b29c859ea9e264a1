// Package config reads folio's configuration from the environment and an optional .env file.
//
// Every variable is one row of the options table (options.go): its name, default, help text and whether it
// is a secret. The same table parses values, fills Config, and prints `folio serve --help`, so a
// variable cannot exist without being documented.
package config

import (
	"net/netip"
	"strings"
	"time"
)

// Config is the parsed configuration. Packages receive plain values from it, never the struct.
type Config struct {
	Addr             string
	DataDir          string
	SiteURL          string
	Env              string // development or production
	DatabaseURL      string
	RedisURL         string
	LogLevel         string
	LogFormat        string
	AutoMigrate      bool
	ReadTimeout      time.Duration
	WriteTimeout     time.Duration
	RequestTimeout   time.Duration
	ShutdownTimeout  time.Duration
	PublicCacheSize  int
	PublicCacheBytes int64
	JobsPoll         time.Duration
	MetricsToken     string
	MetricsAddr      string

	NextAuthSecret     string
	NextAuthURL        string
	AdminEmail         string
	AdminPassword      string
	CORSAllowedOrigins []string
	TrustedProxies     []netip.Prefix

	// NextAuthSecretPrevious is NEXTAUTH_SECRET before a rotation (TOTP secrets at rest).
	NextAuthSecretPrevious string

	RateLimitPublic        int
	RateLimitAuthenticated int
	RateLimitAdmin         int
	RateLimitHelper        int
	RateLimitWindow        time.Duration
	RateLimitIPv6Prefix    int
	RateLimitMaxIDs        int

	SMTPHost         string
	SMTPPort         int
	SMTPUsername     string
	SMTPPassword     string
	SMTPFrom         string
	SMTPTLS          string
	ContactRecipient string

	MediaStorage      string
	MediaMaxBytes     int64
	MediaMaxPixels    int64
	MediaAllowSVG     bool
	MediaPublicURL    string
	S3Endpoint        string
	S3Bucket          string
	S3Region          string
	S3AccessKeyID     string
	S3SecretAccessKey string
	S3PublicBaseURL   string
	S3ForcePathStyle  bool

	ImageAPIBaseURL    string
	ImageAPIKey        string
	ImageModel         string
	ImageAllowedSizes  []string
	ImageTimeout       time.Duration
	ImageAllowPrivate  bool
	ImageHelperPerHour int

	ExtblogAPIURL           string
	ExtblogAPIToken         string
	ExtblogAPITokenFile     string
	ExtblogPublicationID    string
	ExtblogPublicationHost  string
	ExtblogWebhookSecret    string
	ExtblogWebhookTolerance time.Duration
	ExtblogMaxAttempts      int
	ExtblogCacheTTL         time.Duration

	BookingDurations       []int
	BookingHoursStart      int
	BookingHoursEnd        int
	BookingDays            []time.Weekday
	BookingTimezone        *time.Location
	BookingAdvanceDays     int
	BookingMinNoticeHours  int
	BookingSlotStepMinutes int
	BookingBufferMinutes   int
	BookingMeetingTemplate string
	// BookingJitsiURL is the Jitsi server of the jitsi meeting place (BOOKING_JITSI_URL).
	BookingJitsiURL string
	// BookingReminders are how long before the start the visitor is reminded (BOOKING_REMINDERS).
	BookingReminders []time.Duration
	// BookingMaxPerEmailPerDay caps bookings per visitor address in 24 hours; 0: no cap.
	BookingMaxPerEmailPerDay int
	// BookingEmbedOrigins may frame /book (CSP frame-ancestors).
	BookingEmbedOrigins  []string
	CalendarProvider     string
	ProviderCalendarID   string
	ProviderSAEmail      string
	ProviderSAPrivateKey string
	ProviderSubject      string
	ProviderAPIURL       string
	ProviderTokenURL     string
	CalDAVURL            string
	CalDAVUsername       string
	CalDAVPassword       string

	AnalyticsSaltRotation string
	AnalyticsQueueSize    int
	AnalyticsRetention    int // days of raw page views and events kept; 0 keeps them all
	// AnalyticsAlertCooldown is the least time between two traffic-spike mails.
	AnalyticsAlertCooldown time.Duration
	AnalyticsExactLimit    int // page views a breakdown counts one by one; above, rollups or a sample
	// AnalyticsMaxDailyValues caps the distinct values of a dimension a day keeps (analytics.Options).
	AnalyticsMaxDailyValues int
	// AnalyticsStorage is the tracker's storage mode, local or none (analytics.Options.Storage).
	AnalyticsStorage string
	AuditRetention   int // days of audit-log entries kept; 0 keeps them all

	// Outgoing webhooks (docs/api.md, "Outgoing webhooks") and backups (docs/operations.md,
	// "Backups and restore").
	WebhookAllowPrivate   bool          // webhooks may target loopback, private and link-local addresses
	FediverseName         string        // the site actor's preferredUsername (acct:NAME@HOST)
	FediverseAllowPrivate bool          // fetches of actors, keys and deliveries may reach private addresses
	NewsletterRate        int           // newsletter mails handed to the mail server per minute, across instances sharing REDIS_URL
	NewsletterDomainConc  int           // newsletter mails in flight at once to one recipient domain, per instance
	NewsletterSendTimeout time.Duration // bounds one newsletter mail's attempt; its row's lease is 15 s longer
	NewsletterEventsKey   string        // signs the mail provider's bounce and complaint events (Standard Webhooks)
	BackupInterval        time.Duration // 0: no scheduled SQLite snapshots
	BackupKeep            int           // snapshots kept under backups/ in the media storage

	// given holds the variables set in the environment or the .env file (not defaulted).
	given map[string]bool
}

// Given reports whether the variable was set in the environment or the .env file, rather
// than taking its default.
func (c *Config) Given(name string) bool { return c.given[name] }

// Production reports whether FOLIO_ENV=production.
func (c *Config) Production() bool { return c.Env == "production" }

// ExtblogConfigured reports whether the external blog platform can be called.
func (c *Config) ExtblogConfigured() bool {
	return c.ExtblogAPIToken != "" || c.ExtblogAPITokenFile != ""
}

// Warnings are settings that start but deserve the operator's attention, one sentence each;
// serve logs them at start.
func (c *Config) Warnings() []string {
	var out []string
	if c.Production() && strings.HasPrefix(c.NextAuthURL, "http://") {
		out = append(out, "NEXTAUTH_URL is http:// in production: session cookies are sent without the Secure flag and can be read on the network; use https://")
	}
	if c.Production() && c.ImageAllowPrivate {
		out = append(out, "IMAGE_ALLOW_PRIVATE=true: image URLs the provider answers with are fetched from private and loopback addresses too")
	}
	if c.ExtblogConfigured() && c.ExtblogWebhookSecret == "" {
		out = append(out, "EXTBLOG_WEBHOOK_SECRET is not set: the platform webhook (/api/extblog/webhook) refuses every delivery with 401")
	}
	return out
}
