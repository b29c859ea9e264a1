package config

import (
	"net/mail"
	"strings"

	"github.com/foliohq/folio"
)

// settingsVariables are the settings fields (docs/api.md, "Settings") the environment sets:
// when one of a field's variables is set, the field takes the environment's value and the owner
// cannot change it (docs/operations.md, "Settings and the environment"). The other fields'
// defaults are these variables' defaults.
var settingsVariables = []struct {
	field string
	vars  []string
}{
	{"site.url", []string{"FOLIO_SITE_URL"}},
	{"booking.timezone", []string{"BOOKING_TIMEZONE"}},
	{"booking.hours", []string{"BOOKING_BUSINESS_HOURS_START", "BOOKING_BUSINESS_HOURS_END", "BOOKING_BUSINESS_DAYS"}},
	{"booking.bufferMinutes", []string{"BOOKING_BUFFER_MINUTES"}},
	{"booking.minNoticeMinutes", []string{"BOOKING_MIN_NOTICE_HOURS"}},
	{"booking.horizonDays", []string{"BOOKING_ADVANCE_DAYS"}},
	{"booking.reminders", []string{"BOOKING_REMINDERS"}},
	{"booking.embedOrigins", []string{"BOOKING_EMBED_ORIGINS"}},
	{"booking.jitsiUrl", []string{"BOOKING_JITSI_URL"}},
	{"mail.fromName", []string{"SMTP_FROM"}},
	{"mail.fromAddress", []string{"SMTP_FROM"}},
	{"mail.smtp.host", []string{"SMTP_HOST"}},
	{"mail.smtp.port", []string{"SMTP_PORT"}},
	{"mail.smtp.username", []string{"SMTP_USERNAME"}},
	{"mail.smtp.password", []string{"SMTP_PASSWORD"}},
	{"mail.smtp.tls", []string{"SMTP_TLS"}},
	{"contact.recipient", []string{"CONTACT_RECIPIENT"}},
	{"analytics.retentionDays", []string{"ANALYTICS_RETENTION_DAYS"}},
	{"analytics.storage", []string{"ANALYTICS_STORAGE"}},
}

// Settings returns the settings the environment gives (set variables, and the defaults of the
// others) and the fields it locks: field path → the first of its variables that is set.
func (c *Config) Settings() (folio.Settings, map[string]string) {
	from, err := mail.ParseAddress(c.SMTPFrom)
	if err != nil { // SMTP_FROM was checked when loaded; a Config built by hand may lack it
		from = &mail.Address{Address: c.SMTPFrom}
	}
	recipient := c.ContactRecipient // may carry a display name ("Owner <owner@example.com>"); the setting is the address
	if a, err := mail.ParseAddress(recipient); err == nil {
		recipient = a.Address
	}
	reminders := make([]string, len(c.BookingReminders))
	for i, d := range c.BookingReminders {
		reminders[i] = folio.FormatReminder(d)
	}
	zone := "UTC"
	if c.BookingTimezone != nil {
		zone = c.BookingTimezone.String()
	}
	s := folio.Settings{
		Site: folio.SiteSettings{URL: c.SiteURL},
		Booking: folio.BookingSettings{
			Timezone:         zone,
			Hours:            folio.WeeklyHoursOf(folio.BusinessHours(c.BookingHoursStart, c.BookingHoursEnd, c.BookingDays...)),
			BufferMinutes:    c.BookingBufferMinutes,
			MinNoticeMinutes: c.BookingMinNoticeHours * 60,
			HorizonDays:      c.BookingAdvanceDays,
			Reminders:        reminders,
			EmbedOrigins:     append([]string{}, c.BookingEmbedOrigins...),
			JitsiURL:         strings.TrimRight(c.BookingJitsiURL, "/"),
		},
		Mail: folio.MailSettings{FromName: from.Name, FromAddress: from.Address, SMTP: folio.SMTPSettings{Host: c.SMTPHost, Port: c.SMTPPort,
			Username: c.SMTPUsername, Password: c.SMTPPassword, TLS: c.SMTPTLS}},
		Contact:   folio.ContactSettings{Recipient: recipient},
		Analytics: folio.AnalyticsSettings{RetentionDays: c.AnalyticsRetention, Storage: c.AnalyticsStorage},
	}
	locked := map[string]string{}
	for _, sv := range settingsVariables {
		for _, name := range sv.vars {
			if c.Given(name) {
				locked[sv.field] = name
				break
			}
		}
	}
	return s, locked
}
