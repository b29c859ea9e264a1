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
	"github.com/foliohq/folio/internal/settings"
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
	// Mail sends the confirmations.
	Mail *mailPart
	// Settings give the booking rules and who the meetings are with; the service follows
	// their changes.
	Settings *settings.Service
	Log      *slog.Logger
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
	first, err := bookingSettings(cfg, d.Settings.Current())
	if err != nil {
		return nil, fmt.Errorf("BOOKING_*: %w", err)
	}
	svc, err := booking.New(db.Bookings, db.Jobs, cal, first.Config, provider)
	if err != nil {
		return nil, fmt.Errorf("BOOKING_*: %w", err)
	}
	d.Settings.Subscribe(func(s folio.Settings) {
		st, err := bookingSettings(cfg, s)
		if err == nil {
			err = svc.Apply(st)
		}
		if err != nil {
			log.Error("the new booking settings cannot be used; booking keeps the previous ones", "error", err.Error())
		}
	})
	svc.Owner = d.Settings.Owner
	svc.MaxPerEmailPerDay = cfg.BookingMaxPerEmailPerDay
	svc.Mail, svc.Outbox = d.Mail.Outbox, db.Outbox
	svc.Log = log
	if provider != "caldav" && cfg.CalDAVURL != "" {
		log.Warn("CALDAV_URL is set but unused: set CALENDAR_PROVIDER=caldav to book against it", "provider", provider)
	}
	log.Info("booking calendar", "provider", provider)
	return svc, nil
}

// bookingHost is who the meetings are with, for the host card of /book: the owner's public name
// (site.ownerName, else the first owner account's name) and photo from the settings, read on each
// call so an edit shows at once.
func bookingHost(st *settings.Service) func(context.Context) folio.BookingHost {
	return func(ctx context.Context) folio.BookingHost {
		return folio.BookingHost{Name: st.Owner(ctx).Name, PhotoURL: st.Current().Site.PhotoURL}
	}
}

// bookingSettings are the booking service's settings from the owner's settings s, with what
// only the environment sets (the durations and the slot grid).
func bookingSettings(cfg *config.Config, s folio.Settings) (booking.Settings, error) {
	loc, err := folio.LoadZone(s.Booking.Timezone)
	if err != nil {
		return booking.Settings{}, err
	}
	reminders := make([]time.Duration, 0, len(s.Booking.Reminders))
	for _, r := range s.Booking.Reminders {
		d, err := folio.ParseReminder(r)
		if err != nil {
			return booking.Settings{}, err
		}
		reminders = append(reminders, d)
	}
	return booking.Settings{Config: folio.BookingConfig{
		DurationOptions: cfg.BookingDurations, Weekly: s.Booking.Hours.Days(), Location: loc, AdvanceDays: s.Booking.HorizonDays,
		MinNotice: time.Duration(s.Booking.MinNoticeMinutes) * time.Minute,
		SlotStep:  time.Duration(cfg.BookingSlotStepMinutes) * time.Minute,
		Buffer:    time.Duration(s.Booking.BufferMinutes) * time.Minute,
	}, Reminders: reminders, SiteURL: s.Site.URL, JitsiURL: s.Booking.JitsiURL}, nil
}
