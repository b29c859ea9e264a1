package analytics

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/x-way/crawlerdetect"

	"github.com/foliohq/folio"
)

// Collect validates one collected event and queues it for writing. It never waits for the
// database (except once per salt window, to agree on the salt with the other instances). It
// returns a VALIDATION_ERROR for bad input; bots, a full queue and a closing service are not
// errors (the caller answers 202 either way) but are reported in the Outcome and counted.
func (s *Service) Collect(ctx context.Context, in *folio.CollectInput, clientIP, userAgent string) (Outcome, error) {
	if err := in.Validate(); err != nil {
		return "", err
	}
	path, query, ok := normalizePath(in.Path)
	if !ok {
		return "", &folio.Error{Code: folio.EINVALID, Message: "Validation failed.", RuleBroken: true,
			Details: []folio.FieldError{{Field: "path", Message: "is not a valid path or URL"}}}
	}
	if s.bots.isBot(userAgent) {
		s.received.WithLabelValues(string(Bot)).Inc()
		return Bot, nil
	}
	now := s.now()
	day := now.In(s.loc).Format(time.DateOnly)
	var key string
	switch {
	case s.Storage() == StorageNone:
		// An id sent anyway (a script cached from before the change) is not used: a visitor is
		// the day's hash of address, agent and site.
		salt, err := s.currentSalt(ctx, now, "day")
		if err != nil {
			return "", err
		}
		key = hashKey(salt, clientIP, userAgent, s.siteHost)
	case in.VisitorID != "":
		key = clientKey(in.VisitorID)
	default:
		salt, err := s.currentSalt(ctx, now, s.rotation)
		if err != nil {
			return "", err
		}
		key = hashKey(salt, clientIP, userAgent)
	}
	var it item
	if in.Type == folio.CollectPageView {
		ref := referrerDomain(in.Referrer, s.siteHost)
		it.pv = &folio.AnalyticsPageView{At: now, Day: day, VisitorKey: key, Path: path, Query: query,
			Title: truncateUTF8(strings.TrimSpace(in.Title), maxStoredTitle), Referrer: ref, Attrs: s.enrich(in.Path, ref, clientIP, userAgent)}
		s.values.foldPageView(it.pv)
	} else {
		ev := &folio.AnalyticsEvent{At: now, Day: day, VisitorKey: key, Name: in.Name, Path: path, Props: "{}"}
		if len(in.Props) > 0 {
			b, err := json.Marshal(in.Props)
			if err != nil {
				return "", folio.BadRequest("props", "cannot be encoded")
			}
			ev.Props = string(b)
		}
		if in.Name == folio.FunnelErrorEvent {
			ev.Group, _ = in.Props["group"].(string)
			ev.Step, _ = in.Props["step"].(string)
			if len(ev.Step) > folio.MaxEventName {
				ev.Step = ev.Step[:folio.MaxEventName]
			}
		}
		if ValidMeasurement(in.Name) {
			ev.Step = measureTarget(in.Name, path, in.Props)
		}
		s.values.foldEvent(ev)
		it.ev = ev
	}
	return s.enqueue(it), nil
}

// enrich derives a visit's attributes (docs/api.md, "Breakdowns, realtime") from what arrives with
// its page view: the campaign tags of the page address, the referrer host (already reduced), the
// country of the client address and the User-Agent's device, browser and OS. Neither the address
// nor the agent is kept.
func (s *Service) enrich(addr, refHost, clientIP, userAgent string) folio.VisitAttrs {
	c := ParseCampaign(addr)
	a := s.agents.parse(userAgent)
	return folio.VisitAttrs{Source: SourceName(refHost, c.Source), Referrer: refHost,
		UTMSource: c.Source, UTMMedium: c.Medium, UTMCampaign: c.Campaign, Country: Country(clientIP),
		Device: a.Device, Browser: a.Browser, BrowserVersion: a.BrowserVersion, OS: a.OS, OSVersion: a.OSVersion}
}

func (s *Service) enqueue(it item) Outcome {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		s.dropped.WithLabelValues(string(Shutdown)).Inc()
		return Shutdown
	}
	select {
	case s.queue <- it:
		s.received.WithLabelValues(string(Queued)).Inc()
		return Queued
	default:
		s.dropped.WithLabelValues(string(Full)).Inc()
		return Full
	}
}

// IsBot reports whether a User-Agent belongs to a crawler, a script or nothing at all.
func IsBot(userAgent string) bool {
	return strings.TrimSpace(userAgent) == "" || crawlerdetect.IsCrawler(userAgent)
}

// botCache remembers IsBot's verdict per User-Agent: the crawler list is one large regular
// expression (tens of microseconds a call), while real traffic repeats a few hundred agents.
type botCache struct {
	mu sync.RWMutex
	m  map[string]bool
}

const botCacheSize = 4096

func (c *botCache) isBot(ua string) bool {
	c.mu.RLock()
	bot, ok := c.m[ua]
	c.mu.RUnlock()
	if ok {
		return bot
	}
	bot = IsBot(ua)
	if len(ua) <= 512 {
		c.mu.Lock()
		if c.m == nil || len(c.m) >= botCacheSize {
			c.m = make(map[string]bool, botCacheSize) // start over rather than track recency
		}
		c.m[ua] = bot
		c.mu.Unlock()
	}
	return bot
}
