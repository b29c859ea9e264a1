package cli

import (
	"net/http"
	"net/url"

	"github.com/foliohq/folio/internal/config"
	"github.com/foliohq/folio/internal/webui"
)

// newWebUI builds the admin dashboard and the booking page. The booking page learns the
// booking settings it needs before its first API call from /book/config.json.
func newWebUI(cfg *config.Config) (http.Handler, error) {
	opt := webui.Options{Booking: webui.BookingConfig{
		DurationOptions: cfg.BookingDurations,
		AdvanceDays:     cfg.BookingAdvanceDays,
		MinNoticeHours:  cfg.BookingMinNoticeHours,
	}, EmbedOrigins: cfg.BookingEmbedOrigins}
	if cfg.BookingTimezone != nil {
		opt.Booking.OwnerTimeZone = cfg.BookingTimezone.String()
	}
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
