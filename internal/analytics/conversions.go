package analytics

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// ConversionWindow is how recent a visitor's latest page view must be for its visit to have led
// to a booking, contact message or subscription: filling in a booking form takes a while, and the
// form itself may be on a page without the tracker.
const ConversionWindow = time.Hour

// ConversionInput is a booking, contact message or subscription to attribute: the visitor id the
// page sent (VisitHeader; may be empty) and the request's address and User-Agent, which only
// serve to recompute the visitor's hash as Collect does and are not kept.
type ConversionInput struct {
	Kind, RefID         string
	VisitorID           string
	ClientIP, UserAgent string
}

// postPrefix is the path of an article page on the site before its slug (as in feeds and
// webmentions): the pages of a visit under it are the posts read.
const postPrefix = "/blog/"

// RecordConversion stores a conversion with the visit that led to it, found as Collect would
// key the visitor: the day's hash in storage mode none, the client's id when it sent one, else
// the hash of address and User-Agent under the current salt. Without a visit seen in the last
// ConversionWindow the conversion is stored unattributed. Bots are not recorded.
func (s *Service) RecordConversion(ctx context.Context, in ConversionInput) error {
	if in.Kind != folio.ConversionBooking && in.Kind != folio.ConversionContact && in.Kind != folio.ConversionSubscription {
		return folio.BadRequest("kind", "must be booking, contact or subscription")
	}
	if s.bots.isBot(in.UserAgent) && in.VisitorID == "" {
		return nil
	}
	now := s.now()
	c := folio.Conversion{ID: folio.NewID(), Kind: in.Kind, RefID: in.RefID, At: now, Day: now.In(s.loc).Format(time.DateOnly)}
	key, err := s.visitorKey(ctx, now, in.VisitorID, in.ClientIP, in.UserAgent)
	if err != nil {
		return err
	}
	v, err := s.store.AnalyticsVisit(ctx, key)
	if err != nil {
		return err
	}
	if v != nil && now.Sub(v.LastSeen) <= ConversionWindow {
		c.VisitID, c.EntryPage = v.ID, v.Entry
		a := v.Attrs
		c.Source, c.Referrer, c.UTMSource, c.UTMMedium, c.UTMCampaign = a.Source, a.Referrer, a.UTMSource, a.UTMMedium, a.UTMCampaign
		for _, p := range v.Pages {
			if slug, ok := strings.CutPrefix(p, postPrefix); ok && slug != "" && !strings.Contains(slug, "/") {
				c.Posts = append(c.Posts, p)
			}
		}
	}
	return s.store.RecordConversion(ctx, c)
}

// visitorKey is the stored key of the visitor a request comes from, as Collect computes it.
func (s *Service) visitorKey(ctx context.Context, now time.Time, visitorID, clientIP, userAgent string) (string, error) {
	switch {
	case s.Storage() == StorageNone:
		salt, err := s.currentSalt(ctx, now, "day")
		if err != nil {
			return "", err
		}
		return hashKey(salt, clientIP, userAgent, s.siteHost), nil
	case visitorID != "" && folio.ValidVisitorID(visitorID):
		return clientKey(visitorID), nil
	default:
		salt, err := s.currentSalt(ctx, now, s.rotation)
		if err != nil {
			return "", err
		}
		return hashKey(salt, clientIP, userAgent), nil
	}
}

// ValidConversionBy reports whether by is a grouping of the conversions report.
func ValidConversionBy(by string) bool { return slices.Contains(folio.ConversionBy, by) }

// conversionDim is the rollup dimension whose visits are the denominator of a grouping.
func conversionDim(by string) string {
	if by == "post" {
		return "page"
	}
	return by
}

// conversionValues are the values a conversion counts under in a grouping (a post grouping
// counts it under every post read in its visit).
func conversionValues(c *folio.Conversion, by string) []string {
	switch by {
	case "source":
		return []string{c.Source}
	case "entry_page":
		return []string{c.EntryPage}
	case "utm_campaign":
		return []string{c.UTMCampaign}
	default:
		return c.Posts
	}
}

// Conversions reports the conversions of a range grouped by the visit's source, entry page,
// campaign or the posts read in it, with each value's visits (from the daily rollup) and the
// share of them that converted.
func (s *Service) Conversions(ctx context.Context, rg Range, by string) (*folio.Conversions, error) {
	if !ValidConversionBy(by) {
		return nil, folio.BadRequest("by", "must be one of %s", strings.Join(folio.ConversionBy, ", "))
	}
	cs, err := s.store.AnalyticsConversions(ctx, rg.From, rg.To)
	if err != nil {
		return nil, err
	}
	out := &folio.Conversions{By: by, Rows: []folio.ConversionRow{}, TimeRange: rg.TimeRange()}
	rows := map[string]*folio.ConversionRow{}
	converted := map[string]map[string]bool{} // value → visits that converted
	count := func(t *folio.ConversionTotals, kind string) {
		switch kind {
		case folio.ConversionBooking:
			t.Bookings++
		case folio.ConversionContact:
			t.Contacts++
		case folio.ConversionSubscription:
			t.Subscriptions++
		}
	}
	for i := range cs {
		c := &cs[i]
		count(&out.Total, c.Kind)
		if c.VisitID == "" {
			count(&out.Unattributed, c.Kind)
			continue
		}
		for _, v := range conversionValues(c, by) {
			r := rows[v]
			if r == nil {
				r = &folio.ConversionRow{Value: v}
				rows[v], converted[v] = r, map[string]bool{}
			}
			var t folio.ConversionTotals
			count(&t, c.Kind)
			r.Bookings, r.Contacts, r.Subscriptions = r.Bookings+t.Bookings, r.Contacts+t.Contacts, r.Subscriptions+t.Subscriptions
			converted[v][c.VisitID] = true
		}
	}
	if len(rows) == 0 {
		return out, nil
	}
	visits, err := s.store.AnalyticsDimVisits(ctx, conversionDim(by), rg.From, rg.To, anMapKeys(rows))
	if err != nil {
		return nil, err
	}
	for v, r := range rows {
		conv := len(converted[v])
		// A visit that began before the range (or before retention) converts within it: the
		// rollup did not count it, so it is counted here.
		r.Visits = max(visits[v], conv)
		r.ConversionRate = math.Round(float64(conv)/float64(r.Visits)*10000) / 10000
		out.Rows = append(out.Rows, *r)
	}
	slices.SortFunc(out.Rows, func(a, b folio.ConversionRow) int {
		return cmp.Or(cmp.Compare(b.Bookings+b.Contacts+b.Subscriptions, a.Bookings+a.Contacts+a.Subscriptions),
			cmp.Compare(b.Visits, a.Visits), strings.Compare(a.Value, b.Value))
	})
	return out, nil
}

func anMapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
