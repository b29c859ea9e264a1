// Package httpapi is folio's one HTTP layer: the route table (which also drives authentication,
// permissions, rate limits, the response cache and the OpenAPI document), the middleware, the
// error envelope and the handlers.
package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/analytics"
	"github.com/foliohq/folio/internal/audit"
	"github.com/foliohq/folio/internal/booking"
	"github.com/foliohq/folio/internal/clientip"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/fediverse"
	"github.com/foliohq/folio/internal/httpapi/respcache"
	"github.com/foliohq/folio/internal/identity"
	"github.com/foliohq/folio/internal/mail"
	"github.com/foliohq/folio/internal/media"
	"github.com/foliohq/folio/internal/newsletter"
	"github.com/foliohq/folio/internal/oidc"
	"github.com/foliohq/folio/internal/settings"
	"github.com/foliohq/folio/internal/webmention"
	"github.com/prometheus/client_golang/prometheus"
)

// handlerFunc is a handler that returns its error instead of writing it; one adapter renders it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// Authenticator turns a request's credentials into an actor. It returns the anonymous actor when
// the request carries none, and an EUNAUTHORIZED error when they are invalid, revoked or expired.
type Authenticator interface {
	Authenticate(r *http.Request) (folio.Actor, error)
}

// Server serves the folio API. Fields are set by the caller (internal/cli) before Handler is
// called; optional collaborators may stay nil.
type Server struct {
	Logger *slog.Logger
	Now    func() time.Time

	// Health answers GET /readyz; Notifier reaches the other instances' caches; Unavailable
	// tells an error of an unreachable database (answered 503, not 500).
	Health      Pinger
	Notifier    Notifier
	Unavailable func(error) bool
	// MediaLibrary, Webhooks, AuditLog, Users, Archive, OutboxLog and Sitemap are the stores of
	// their routes (stores.go).
	MediaLibrary MediaLibrary
	Webhooks     WebhookStore
	AuditLog     AuditLog
	Users        UserDirectory
	Archive      Exporter
	OutboxLog    OutboxLog
	Sitemap      SitemapSource

	Auth     Authenticator
	Limiter  folio.Limiter
	ClientIP *clientip.Resolver
	Limits   Limits

	// MetricsToken (METRICS_TOKEN), when set, is a bearer token that may read /metrics; an admin
	// key may too. MetricsSeparate (METRICS_ADDR set) leaves /metrics off this handler: it is
	// served by MetricsHandler on a listener of its own.
	MetricsToken    string
	MetricsSeparate bool

	// AccessLog writes one log line per request.
	AccessLog bool
	// RequestTimeout bounds the work of one request.
	RequestTimeout time.Duration
	// PublicCacheSize is how many rendered public responses are kept (0 disables the cache).
	PublicCacheSize int
	// PublicCacheBytes bounds the memory of the kept responses (0: respcache.DefaultMaxBytes).
	PublicCacheBytes int64
	// SitemapFileURLs is the most URLs one sitemap file holds before /sitemap.xml becomes an
	// index (0 or more than the protocol's 50,000: 50,000). Files are also split by size, so
	// that each fits the public cache (sitemap.go).
	SitemapFileURLs int

	// Uploader stores uploads; ImageStudio generates images (nil Generator: 503); MediaFiles
	// serves local media under /media/ (nil when media lives in S3).
	Uploader    *media.Uploader
	ImageStudio *media.ImageStudio
	MediaFiles  http.Handler

	// Outbox stores and sends mail (its Mailer is the one the mail settings choose).
	Outbox *mail.Outbox
	// OIDC talks to the identity providers of the settings (providers.go); nil: a default client.
	OIDC *oidc.Client
	// Settings are the owner's settings (settings.go); they also say who the owner is: the
	// recipient of contact messages and the public author of posts. Nil: the settings routes
	// answer 503, and contact messages are stored but not mailed.
	Settings *settings.Service

	cache   *respcache.Cache
	metrics *metrics
	// sitemapLayout is the sitemap's file count at a cache generation.
	sitemapLayout atomic.Pointer[sitemapLayout]
	routes        []route
	openapiOnce   sync.Once
	openapiDoc    map[string]any

	// Identity, when set, serves sign-in, sessions and API keys (it is normally Auth as well).
	Identity *Identity
	// Accounts manages profiles, API keys and TOTP on a server without Identity (it then has
	// no caches to share); with Identity, Identity's service does.
	Accounts *identity.Service
	// CORSAllowedOrigins are the browser origins allowed to call /api with credentials.
	CORSAllowedOrigins []string

	// ExtBlog configures the external blog platform's routes (extblog.go); nil answers 503.
	ExtBlog *ExtBlog

	// Analytics collects page views and events and builds the reports; nil answers 503.
	Analytics *analytics.Service

	// Content serves posts, projects, search and the feeds (blog.go, project.go, search.go,
	// feed.go).
	Content *content.Service
	// Contact stores contact-form messages (contact.go).
	Contact ContactStore

	// Fediverse is the site's ActivityPub actor (fediverse.go); nil answers 503.
	Fediverse *fediverse.Service
	// Webmention receives Webmentions (webmention.go); nil answers 503 and posts advertise none.
	Webmention *webmention.Service
	// Comments lists and moderates comments (comments.go); nil answers 503.
	Comments CommentStore

	// Bookings serves the booking routes (booking.go); nil answers 503.
	Bookings *booking.Service
	// BookingHost returns who the meetings are with, for the host card of /book (GET
	// /api/schedule/types); nil names no host.
	BookingHost func(context.Context) folio.BookingHost

	// Subscribers serves the subscriber routes (subscribers.go); nil answers 503.
	Subscribers *newsletter.Service

	// ArticlePublisher sends articles to the external blog platform when publishing-options
	// publishes one with crossPlatformPublishing.extblog on (blog.go); nil reports "skipped".
	ArticlePublisher folio.ArticlePublisher

	// Features lists the optional features and their configuration state for GET /api/features
	// (built by internal/cli from the configuration).
	Features []Feature
	// Audit, when set, receives the audit log's entries (audit.go); nil records nothing.
	Audit *audit.Writer
	// WebhookAllowPrivate lets webhooks point at loopback, private and link-local addresses
	// (WEBHOOK_ALLOW_PRIVATE); the delivery client is configured the same way (internal/webhook).
	WebhookAllowPrivate bool
	// MediaStore, when set, is where GET /api/export reads the media files from (export.go).
	MediaStore folio.BlobStore

	// Collectors are other packages' metrics (workers, queues), served on /metrics beside the
	// server's own.
	Collectors []prometheus.Collector

	// UI, when set, serves the admin dashboard at /admin/ and the booking page at /book
	// (internal/webui); both use only the /api routes.
	UI http.Handler
}

// route is one row of the route table.
type route struct {
	Method, Pattern string
	Handle          handlerFunc
	// Level is the least level a caller needs; Perm, when set, must also be held.
	Level folio.Level
	Perm  folio.Permission
	Limit limitClass
	// Cache names the data scope of a public GET whose rendered response may be cached.
	Cache string
	// Needs names the optional service the route needs (needs.go); without it, adapt answers
	// its 503 before the handler runs.
	Needs need

	// Documentation, also the OpenAPI document.
	Tag, Summary string
	Query        []param
	Body         any    // request body (a JSON value) or nil
	BodyType     string // request content type when not application/json
	Status       int    // success status
	Resp         any    // success body, nil for none
	RespType     string // success content type when not application/json
	Errors       []int  // error statuses the route may answer besides 400/401/403/429/500
	// ErrorResp, when set, is the route's own failure body (the contact route's {error: string});
	// rate-limit and permission failures keep the envelope.
	ErrorResp any
	// Audit names the audit-log action of the route ("-": never recorded); empty derives it
	// from the method and pattern. Unsafe requests by a key or session are recorded, and every
	// request of an AuditAlways route (sign-in) is, whoever sends it (audit.go).
	Audit       string
	AuditAlways bool

	// queryNames are the names in Query, made once for the response cache's key (adapt).
	queryNames []string
}

// param documents a query parameter.
type param struct {
	Name, Type, Doc string
	Required        bool
}

// Handler builds the http.Handler of the whole service.
func (s *Server) Handler() http.Handler {
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.Limits.Window == 0 {
		s.Limits.Window = time.Hour
	}
	s.metrics = newMetrics()
	s.metrics.registry.MustRegister(s.Collectors...)
	s.cache = respcache.New(s.PublicCacheSize, s.PublicCacheBytes)
	s.metrics.watchCache(s.cache)
	s.metrics.watchAudit(s)
	s.routes = s.routeTable()

	mux := http.NewServeMux()
	for _, rt := range s.routes {
		mux.Handle(rt.Method+" "+rt.Pattern, s.adapt(rt))
	}
	mux.Handle("/api/", s.adapt(route{Handle: s.unmatched}))
	mux.HandleFunc("GET /healthz", s.healthz)
	if s.UI != nil {
		// The manage view has a pattern of its own so that its {token} is kept out of the logs.
		for _, p := range []string{"GET /admin", "GET /admin/", "GET /book", "GET /book/", "GET /book/manage/{token}", "GET /favicon.ico"} {
			mux.Handle(p, s.UI)
		}
		// The subscriber pages; the confirm link's {token} is kept out of the logs the same way.
		for _, p := range []string{"GET /subscribe", "GET /subscribe/", "GET /subscribe/confirm/{token}", "GET /subscribe/preferences/{token}", "GET /unsubscribe/{token}"} {
			mux.Handle(p, s.UI)
		}
		// A shared analytics link; its {token} is kept out of the logs the same way.
		mux.HandleFunc("GET /share/{token}", s.sharePage)
		// The bare site root has no page of its own: a person opening it wants the dashboard.
		mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/admin/", http.StatusFound)
		})
	}
	sm := s.sitemapRoute()
	mux.Handle(sm.Method+" "+sm.Pattern, s.adapt(sm))
	mux.Handle("GET /readyz", s.bounded(http.HandlerFunc(s.readyz)))
	if !s.MetricsSeparate {
		mux.HandleFunc("GET /metrics", s.serveMetrics)
	}
	if s.MediaFiles != nil {
		mux.Handle("GET /media/", s.bounded(s.MediaFiles))
	}
	return s.outer(s.cors(mux))
}

// Invalidate drops cached public responses of the given scopes on this instance (a post or
// project scope also drops the sitemap, which is made of both; the settings scope drops them
// all), and the cached user of a user scope (folio.ScopeUserPrefix: revocation, password, role,
// TOTP change, removal).
func (s *Server) Invalidate(scopes ...string) {
	for _, sc := range scopes {
		if sc == folio.ScopeSettings {
			s.cache.Invalidate("*") // the site's identity and URL are in many public answers
			continue
		}
		if s.Identity != nil && (sc == "*" || strings.HasPrefix(sc, folio.ScopeUserPrefix)) {
			s.Identity.UserChanged(sc)
		}
		if !strings.HasPrefix(sc, folio.ScopeUserPrefix) {
			s.cache.Invalidate(sc)
		}
		if slices.Contains(sitemapScopes[:], sc) {
			s.cache.Invalidate(scopeSitemap) // the sitemap lists posts and projects
		}
	}
}

func (s *Server) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// adapt applies a route's row: authenticate, rate-limit, check the permission, then run the
// handler (through the response cache for public GETs) and render a returned error.
func (s *Server) adapt(rt route) http.Handler {
	for _, q := range rt.Query {
		rt.queryNames = append(rt.queryNames, q.Name)
	}
	// A route that may answer from the response cache takes its deadline only where it does
	// work (serve); every other route's whole request is bounded.
	serve := func(w http.ResponseWriter, r *http.Request) error { return s.serve(w, r, rt) }
	if !s.cacheable(rt) {
		serve = s.boundedFunc(serve)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		note := recordOf(r.Context())
		if note == nil { // a handler served without outer (tests)
			note = &requestRecord{}
			r = r.WithContext(withRequestRecord(r.Context(), note))
		}
		if err := serve(w, r); err != nil {
			s.writeError(w, r, err)
		}
		s.recordAudit(w, r, rt, note)
	})
	return h
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, rt route) error {
	actor, authErr := folio.Actor{}, error(nil)
	if s.Auth != nil && rt.Limit != limitExempt {
		actor, authErr = s.Auth.Authenticate(r)
	}
	r = r.WithContext(folio.WithActor(r.Context(), actor))
	noteActor(r.Context(), actor)
	if rt.Limit != limitExempt {
		if err := s.rateLimit(w, r, actor, rt.Limit); err != nil {
			return err
		}
	} else {
		s.exemptRateHeaders(w, r)
	}
	if authErr != nil {
		return authErr
	}
	if rt.Handle == nil {
		return nil
	}
	needsAuth := rt.Level > folio.LevelPublic || rt.Perm != ""
	if needsAuth && !actor.Authenticated() {
		return folio.Errorf(folio.EUNAUTHORIZED, "This route needs an API key (Authorization: Bearer …) or a session.")
	}
	if !actor.AtLeast(rt.Level) {
		return folio.Errorf(folio.EFORBIDDEN, "This route needs %s access; your credentials have %s access.", rt.Level, actor.Level)
	}
	if rt.Perm != "" && !actor.Has(rt.Perm) {
		return folio.Errorf(folio.EFORBIDDEN, "This route needs the %s permission.", rt.Perm)
	}
	if err := refuseNULInURL(r); err != nil {
		return err
	}
	if err := rt.Needs.missing(s); err != nil {
		return err
	}
	if rt.Cache != "" {
		r = declaredQuery(r, &rt)
	}
	if !s.cacheable(rt) {
		return rt.Handle(w, r) // bounded by adapt
	}
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && !actor.AtLeast(folio.LevelWrite) {
		return s.serveCached(w, r, &rt)
	}
	return s.boundedFunc(rt.Handle)(w, r)
}

// cacheable reports whether rt's GETs may be answered from the response cache.
func (s *Server) cacheable(rt route) bool { return rt.Cache != "" && s.PublicCacheSize > 0 }

// boundedFunc runs h with the request's deadline (RequestTimeout), so the work of one request is
// bounded. A cache hit runs without one: the timer costs as much as serving the cached bytes.
// A handler's error after the deadline passed reads as the timeout (503), whatever it wraps.
func (s *Server) boundedFunc(h func(http.ResponseWriter, *http.Request) error) func(http.ResponseWriter, *http.Request) error {
	if s.RequestTimeout <= 0 {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx, cancel := context.WithTimeoutCause(r.Context(), s.RequestTimeout, errRequestTimeout)
		defer cancel()
		err := h(w, r.WithContext(ctx))
		if err != nil && context.Cause(ctx) == errRequestTimeout && !errors.Is(err, errRequestTimeout) {
			err = fmt.Errorf("%w: %w", errRequestTimeout, err)
		}
		return err
	}
}

// bounded is boundedFunc for a plain handler (media files, readiness).
func (s *Server) bounded(h http.Handler) http.Handler {
	f := s.boundedFunc(func(w http.ResponseWriter, r *http.Request) error { h.ServeHTTP(w, r); return nil })
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _ = f(w, r) })
}

// unmatched answers /api paths no route serves: 405 with Allow when the path exists for other
// methods, else 404.
func (s *Server) unmatched(w http.ResponseWriter, r *http.Request) error {
	var allow []string
	pattern := "" // the messages are logged: they show the path as logs do (logPath)
	for _, rt := range s.routes {
		if matchPattern(rt.Pattern, r.URL.Path) {
			allow = append(allow, rt.Method)
			if rt.Method == http.MethodGet {
				allow = append(allow, http.MethodHead)
			}
			if pattern == "" || strings.Contains(rt.Pattern, tokenWildcard) {
				pattern = rt.Pattern
			}
		}
	}
	if len(allow) > 0 {
		return &methodError{err: folio.Errorf(folio.EMETHOD, "%s is not allowed on %s.", logMethod(r.Method), logPath(pattern, r.URL)),
			allow: strings.Join(allow, ", ")}
	}
	return folio.Errorf(folio.ENOTFOUND, "No route matches %s %s.", logMethod(r.Method), logPath(pattern, r.URL))
}

// matchPattern matches a ServeMux path pattern ({name} is one segment, {name...} the rest).
func matchPattern(pattern, path string) bool {
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	xs := strings.Split(strings.Trim(path, "/"), "/")
	for i, p := range ps {
		if strings.HasSuffix(p, "...}") {
			return true
		}
		if i >= len(xs) {
			return false
		}
		if strings.HasPrefix(p, "{") {
			if xs[i] == "" {
				return false
			}
			continue
		}
		if p != xs[i] {
			return false
		}
	}
	return len(ps) == len(xs)
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": folio.Version})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.Health.Ping(ctx); err != nil {
		s.log(r).Warn("readiness check failed", "error", err.Error())
		s.writeError(w, r, folio.Errorf(folio.EUNAVAILABLE, "The database is unreachable."))
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
