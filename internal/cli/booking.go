package cli

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/booking"
	"github.com/foliohq/folio/internal/calendar/caldav"
	"github.com/foliohq/folio/internal/calendar/google"
	"github.com/foliohq/folio/internal/calendar/local"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/sqldb"
)

// calendarProvider picks the calendar provider as docs/api.md ("Providers") says: CALENDAR_PROVIDER when set;
// else google when any PROVIDER_* access setting is set; else the built-in local calendar.
// NB: CALDAV_URL alone does not select caldav (newBookings warns about it).
func calendarProvider(cfg *config.Config) string {
	switch {
	case cfg.CalendarProvider != "":
		return cfg.CalendarProvider
	case cfg.ProviderCalendarID != "" || cfg.ProviderSAEmail != "" || cfg.ProviderSAPrivateKey != "":
		return "google"
	}
	return "local"
}

// bookingDeps is what the booking service is built from.
type bookingDeps struct {
	Config *config.Config
	DB     *sqldb.DB
	// Mail sends the confirmations; the owner's copy goes to its Recipient (CONTACT_RECIPIENT).
	Mail *mailPart
	Log  *slog.Logger
}

// newBookings builds the calendar provider and the booking service.
func newBookings(ctx context.Context, d bookingDeps) (*booking.Service, error) {
	cfg, db, log := d.Config, d.DB, d.Log
	provider := calendarProvider(cfg)
	var cal folio.Calendar
	var err error
	switch provider {
	case "google":
		cal, err = google.New(ctx, google.Config{CalendarID: cfg.ProviderCalendarID, ServiceAccountEmail: cfg.ProviderSAEmail,
			PrivateKeyPEM: cfg.ProviderSAPrivateKey, Subject: cfg.ProviderSubject, APIURL: cfg.ProviderAPIURL, TokenURL: cfg.ProviderTokenURL})
	case "caldav":
		cal, err = caldav.New(caldav.Config{URL: cfg.CalDAVURL, Username: cfg.CalDAVUsername, Password: cfg.CalDAVPassword,
			MeetingURLTemplate: cfg.BookingMeetingTemplate, Location: cfg.BookingTimezone})
	default:
		cal, err = local.New(db.Bookings, cfg.SiteURL, cfg.BookingMeetingTemplate)
	}
	if err != nil {
		return nil, fmt.Errorf("CALENDAR_PROVIDER=%s: %w", provider, err)
	}
	svc, err := booking.New(db.Bookings, db.Jobs, cal, folio.BookingConfig{
		DurationOptions: cfg.BookingDurations, HoursStart: cfg.BookingHoursStart, HoursEnd: cfg.BookingHoursEnd,
		BusinessDays: cfg.BookingDays, Location: cfg.BookingTimezone, AdvanceDays: cfg.BookingAdvanceDays,
		MinNotice: time.Duration(cfg.BookingMinNoticeHours) * time.Hour,
		SlotStep:  time.Duration(cfg.BookingSlotStepMinutes) * time.Minute,
		Buffer:    time.Duration(cfg.BookingBufferMinutes) * time.Minute,
	}, provider)
	if err != nil {
		return nil, fmt.Errorf("BOOKING_*: %w", err)
	}
	svc.Owner = folio.Participant(d.Mail.Recipient)
	svc.SiteURL = cfg.SiteURL
	svc.Reminders = cfg.BookingReminders
	svc.MaxPerEmailPerDay = cfg.BookingMaxPerEmailPerDay
	svc.Mail, svc.Outbox = d.Mail.Outbox, db.Outbox
	svc.Log = log
	if provider != "caldav" && cfg.CalDAVURL != "" {
		log.Warn("CALDAV_URL is set but unused: set CALENDAR_PROVIDER=caldav to book against it", "provider", provider)
	}
	log.Info("booking calendar", "provider", provider)
	return svc, nil
}

// bookingHost is who the meetings are with, for the host card of /book: the name of the site's
// profile (the first owner account), read on each call so a profile edit shows at once. The
// photo is empty until the site settings give one (site.ownerName and site.photoUrl then take
// over here).
func bookingHost(db *sqldb.DB, log *slog.Logger) func(context.Context) folio.BookingHost {
	return func(ctx context.Context) folio.BookingHost {
		u, err := db.Archive.OwnerProfile(ctx)
		if err != nil {
			if !folio.IsNotFound(err) {
				log.Warn("the owner's profile was not read; /book names no host", "error", err.Error())
			}
			return folio.BookingHost{}
		}
		return folio.BookingHost{Name: u.Name}
	}
}
