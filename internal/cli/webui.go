package cli

import (
	"net/http"
	"net/url"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/settings"
	"github.com/foliohq/folio/internal/webui"
)

// newWebUI builds the admin dashboard and the booking page. The booking page learns the
// booking settings it needs before its first API call from /book/config.json, and who may frame
// it from the embed origins: both follow the owner's settings.
func newWebUI(cfg *config.Config, st *settings.Service) (http.Handler, error) {
	var opt webui.Options
	// Media URLs are absolute (S3's public base, MEDIA_PUBLIC_URL or FOLIO_SITE_URL/media), and
	// may point at another origin than this server's: the dashboard's CSP lets those images in.
	switch {
	case cfg.MediaStorage == "s3":
		opt.ImageOrigins = append(opt.ImageOrigins, originOf(cfg.S3PublicBaseURL))
	case cfg.MediaPublicURL != "":
		opt.ImageOrigins = append(opt.ImageOrigins, originOf(cfg.MediaPublicURL))
	default:
		opt.ImageOrigins = append(opt.ImageOrigins, originOf(cfg.SiteURL))
	}
	ui, err := webui.New(opt)
	if err != nil {
		return nil, err
	}
	st.Subscribe(func(s folio.Settings) {
		if err := ui.SetBooking(webui.BookingConfig{DurationOptions: cfg.BookingDurations, AdvanceDays: s.Booking.HorizonDays,
			MinNoticeHours: s.Booking.MinNoticeMinutes / 60, OwnerTimeZone: s.Booking.Timezone}, s.Booking.EmbedOrigins); err != nil {
			panic(err) // a BookingConfig always encodes
		}
	})
	return ui, nil
}

// originOf returns scheme://host of a URL ("" when it has none), for the pages' CSP.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
