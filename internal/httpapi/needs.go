package httpapi

import (
	"net/http"
	"strings"

	"github.com/foliohq/folio"
)

// need is an optional service a route needs beyond the database. A route's row names it
// (Needs: needBooking); adapt answers the row's 503 before the handler runs when the service is
// not configured on this server, and the OpenAPI document says so on the route's 503.
type need uint8

const (
	needNothing need = iota
	needMediaStorage
	needImageGeneration
	// needExtblog is the external blog platform's client (the GET /api/posts listing);
	// needExtblogPublishing is the client and the publishing service (the dashboard's routes).
	needExtblog
	needExtblogPublishing
	needBooking
	needAnalytics
	needSessions
	needSettings
)

// needSpec says what a need is called in the OpenAPI document and how it is found missing.
type needSpec struct {
	what    string
	missing func(s *Server) error // nil when the service is configured, else the 503
}

var needs = [...]needSpec{
	needNothing: {missing: func(*Server) error { return nil }},
	needMediaStorage: {"media storage", func(s *Server) error {
		if s.Uploader == nil {
			return folio.Errorf(folio.EUNAVAILABLE, "Media storage is not configured.")
		}
		return nil
	}},
	needImageGeneration: {"image generation", func(s *Server) error {
		if s.ImageStudio == nil || s.ImageStudio.Generator == nil {
			return folio.Errorf(folio.EUNAVAILABLE, "Image generation is not configured: set IMAGE_API_KEY.")
		}
		return nil
	}},
	needExtblog: {"the external blog platform", func(s *Server) error {
		if s.ExtBlog == nil || s.ExtBlog.Platform == nil {
			return extblogUnconfigured(s.ExtBlog)
		}
		return nil
	}},
	needExtblogPublishing: {"the external blog platform", func(s *Server) error {
		if s.ExtBlog == nil || s.ExtBlog.Platform == nil || s.ExtBlog.Publisher == nil {
			return extblogUnconfigured(s.ExtBlog)
		}
		return nil
	}},
	needBooking: {"booking", func(s *Server) error {
		if s.Bookings == nil {
			return folio.Errorf(folio.EUNAVAILABLE, "Booking is not configured on this server.")
		}
		return nil
	}},
	needAnalytics: {"analytics", func(s *Server) error {
		if s.Analytics == nil {
			return folio.Errorf(folio.EUNAVAILABLE, "Analytics is not running on this server.")
		}
		return nil
	}},
	needSettings: {"settings", func(s *Server) error {
		if s.Settings == nil {
			return folio.Errorf(folio.EUNAVAILABLE, "Settings are not available on this server.")
		}
		return nil
	}},
	needSessions: {"the session secret", func(s *Server) error {
		if s.Identity == nil {
			return folio.Errorf(folio.EUNAVAILABLE, "Sessions are not configured on this server (NEXTAUTH_SECRET).")
		}
		return nil
	}},
}

// missing returns the 503 of a need this server lacks, nil when it has it.
func (n need) missing(s *Server) error { return needs[n].missing(s) }

// doc is the description of the 503 response of a route with this need.
func (n need) doc() string {
	return http.StatusText(http.StatusServiceUnavailable) + "; also when " + needs[n].what + " is not configured"
}

// extblogUnconfigured is the 503 of a platform route whose platform is not set up; it names
// the variables still to set.
func extblogUnconfigured(eb *ExtBlog) error {
	missing := []string{"EXTBLOG_API_TOKEN", "EXTBLOG_PUBLICATION_ID"}
	if eb != nil && len(eb.Missing) > 0 {
		missing = eb.Missing
	}
	return folio.Errorf(folio.EUNAVAILABLE, "The external blog platform is not configured: set %s.", strings.Join(missing, " and "))
}
