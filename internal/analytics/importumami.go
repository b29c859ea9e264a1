package analytics

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// maxUmamiVisits bounds the visits of an Umami import, each held in memory until the end.
const maxUmamiVisits = 250_000

// umamiVisit is one visit of an Umami export, gathered from its page views in any order: its
// first page view gives its day, entry page and attributes, its last its exit page.
type umamiVisit struct {
	first, last time.Time
	entry, exit string
	views       int
	attrs       []string // the values of umamiDims, of the first page view (shared, see interner)
}

// interner keeps one copy of each string the visits hold: a value read from a CSV row is a
// substring of the whole row and would keep it alive, and most visits share their attributes.
type interner struct {
	strs  map[string]string
	attrs map[string][]string
}

func (in *interner) str(s string) string {
	if v, ok := in.strs[s]; ok {
		return v
	}
	s = strings.Clone(s)
	in.strs[s] = s
	return s
}

func (in *interner) attrSet(a []string) []string {
	k := strings.Join(a, "\x1f")
	if v, ok := in.attrs[k]; ok {
		return v
	}
	for i := range a {
		a[i] = in.str(a[i])
	}
	in.attrs[strings.Clone(k)] = a
	return a
}

// umamiDims are the visit dimensions an Umami export's rows carry.
var umamiDims = []string{"source", "referrer", "utm_source", "utm_medium", "utm_campaign", "country", "device", "browser", "browser_version", "os", "os_version"}

func umamiAttrs(get func(string) string) []string {
	ref := refHost(get("referrer_domain"))
	utmSource := strings.ToLower(cleanLabel(get("utm_source")))
	browser := importBrowser(get("browser"))
	os, osVersion := importOS(get("os"), "")
	return []string{SourceName(ref, utmSource), ref, utmSource, strings.ToLower(cleanLabel(get("utm_medium"))),
		cleanLabel(get("utm_campaign")), importCountry(get("country")), importDevice(get("device")), browser, browser,
		os, joinVersion(os, osVersion)}
}

// pageVisit is a page of a day viewed in a visit (the page dimension counts each once).
type pageVisit struct {
	visit     *umamiVisit
	day, page string
}

// eventVisitor is an event of a day sent by a session.
type eventVisitor struct{ day, name, session string }

// ParseUmami reads Umami's CSV export of website events (one row per event, with created_at,
// session_id, visit_id, url_path, referrer_domain, utm_*, browser, os, device, country,
// event_type — 1 a page view, 2 a custom event — and event_name): page views, visitors
// (distinct sessions) and visits of each day in loc, pages, referrer hosts, the visit
// dimensions (a visit counts on the day it starts, with its first page view's attributes,
// entry and exit page) and the custom events.
func ParseUmami(r io.Reader, loc *time.Location) ([]folio.ImportedDay, error) {
	acc, rows := importAcc{}, 0
	visits := map[string]*umamiVisit{}
	pageVisits := map[pageVisit]bool{}
	eventVisitors := map[eventVisitor]bool{}
	in := &interner{strs: map[string]string{}, attrs: map[string][]string{}}
	lr := &io.LimitedReader{R: r, N: importInflateLimit + 1}
	err := csvTable(lr, &rows, func(get func(string) string) error {
		typ := get("event_type")
		if typ != "" && typ != "1" && typ != "2" {
			return nil
		}
		at, err := umamiTime(get("created_at"))
		if err != nil {
			return err
		}
		day := at.In(loc).Format(time.DateOnly)
		x := acc.day(day)
		session := in.str(truncateUTF8(get("session_id"), 64))
		if typ == "2" {
			name := importEventName(get("event_name"))
			if name == "" {
				return nil
			}
			c := count(x.events, name)
			c.Events++
			if k := (eventVisitor{day, c.Value, session}); !eventVisitors[k] {
				eventVisitors[k] = true
				c.Visitors++
			}
			return nil
		}
		if x.visitors == nil {
			x.visitors = map[string]bool{}
		}
		x.visitors[session] = true
		x.d.PageViews++
		page := in.str(truncateUTF8(pagePath(get("url_path")), maxImportValueLen))
		// A row without a visit id is a visit of its session (Umami before visits), without
		// either a visit of its own.
		key := truncateUTF8(get("visit_id"), 64)
		if key == "" {
			key = "s:" + session
			if session == "" {
				key = fmt.Sprintf("r:%d", rows)
			}
		}
		v := visits[key]
		if v == nil {
			if len(visits) >= maxUmamiVisits {
				return importInvalid("the CSV has more than %d visits: export a shorter period", maxUmamiVisits)
			}
			v = &umamiVisit{first: at, last: at, entry: page, exit: page, attrs: in.attrSet(umamiAttrs(get))}
			visits[strings.Clone(key)] = v
		} else {
			if at.Before(v.first) {
				v.first, v.entry, v.attrs = at, page, in.attrSet(umamiAttrs(get))
			}
			if !at.Before(v.last) {
				v.last, v.exit = at, page
			}
		}
		v.views++
		c := count(x.pages, page)
		c.PageViews++
		if k := (pageVisit{v, day, c.Value}); !pageVisits[k] {
			pageVisits[k] = true
			c.Visits++
		}
		return nil
	})
	if lr.N <= 0 {
		return nil, errTooLarge
	}
	if err != nil {
		return nil, err
	}
	for _, v := range visits {
		x := acc.day(v.first.In(loc).Format(time.DateOnly))
		bounce := 0
		if v.views == 1 {
			bounce = 1
		}
		x.d.Visits++
		x.d.Bounces += bounce
		for i, name := range umamiDims {
			x.dim(name, v.attrs[i], 1, v.views, bounce)
		}
		x.dim("entry_page", v.entry, 1, v.views, bounce)
		x.dim("exit_page", v.exit, 1, v.views, bounce)
		if ref := v.attrs[1]; ref != "" {
			count(x.referrers, ref).Visits++
		}
	}
	for _, x := range acc {
		x.d.Visitors = len(x.visitors)
	}
	if rows > 0 && len(visits) == 0 {
		return nil, importInvalid("the CSV has no page views")
	}
	return acc.days(), nil
}

func umamiTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, importInvalid("created_at %q is not a time", truncateUTF8(s, 40))
}
