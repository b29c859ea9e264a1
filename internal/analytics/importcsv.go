package analytics

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/foliohq/folio"
)

// Bounds of an import (docs/api.md, "Import"): the upload, what a zip may inflate to, its files,
// the rows read and the values kept per day.
const (
	MaxImportBody     = 32 << 20
	MaxImportInflated = 256 << 20
	maxImportFiles    = 64
	maxImportRows     = 2_000_000
	maxImportValues   = 500 // values of a dimension (pages, sources, devices…) or events kept per day, the most viewed first
	maxImportValueLen = 1024
)

// importInflateLimit is MaxImportInflated; tests lower it.
var importInflateLimit int64 = MaxImportInflated

// errTooLarge marks an import beyond its bounds (413).
var errTooLarge = &folio.Error{Code: folio.ETOOLARGE, Message: fmt.Sprintf("The import inflates to more than %d MiB.", MaxImportInflated>>20)}

func importInvalid(format string, args ...any) error {
	return &folio.Error{Code: folio.EINVALID, Message: fmt.Sprintf(format, args...), RuleBroken: true,
		Details: []folio.FieldError{{Field: "file", Message: fmt.Sprintf(format, args...)}}}
}

// dayAcc gathers one day of an import.
type dayAcc struct {
	d                folio.ImportedDay
	pages, referrers map[string]*folio.ImportedCount
	dims             map[string]map[string]*folio.ImportedCount // dimension → value
	events           map[string]*folio.ImportedCount
	visitors         map[string]bool // Umami: distinct sessions of the day
}

type importAcc map[string]*dayAcc

func (a importAcc) day(d string) *dayAcc {
	x := a[d]
	if x == nil {
		x = &dayAcc{d: folio.ImportedDay{Day: d}, pages: map[string]*folio.ImportedCount{},
			referrers: map[string]*folio.ImportedCount{}, dims: map[string]map[string]*folio.ImportedCount{},
			events: map[string]*folio.ImportedCount{}}
		a[d] = x
	}
	return x
}

// dim adds visits, page views and bounces to a value of a visit dimension.
func (x *dayAcc) dim(name, value string, visits, views, bounces int) {
	m := x.dims[name]
	if m == nil {
		m = map[string]*folio.ImportedCount{}
		x.dims[name] = m
	}
	c := count(m, value)
	c.Visits, c.PageViews, c.Bounces = c.Visits+visits, c.PageViews+views, c.Bounces+bounces
}

func count(m map[string]*folio.ImportedCount, v string) *folio.ImportedCount {
	v = truncateUTF8(v, maxImportValueLen)
	c := m[v]
	if c == nil {
		c = &folio.ImportedCount{Value: v}
		m[v] = c
	}
	return c
}

// unknownDevice is the device of imported visits whose export does not say it.
const unknownDevice = "unknown"

// days returns the gathered days in order, each list the most viewed first and bounded.
func (a importAcc) days() []folio.ImportedDay {
	out := make([]folio.ImportedDay, 0, len(a))
	list := func(m map[string]*folio.ImportedCount) []folio.ImportedCount {
		l := make([]folio.ImportedCount, 0, len(m))
		for _, c := range m {
			l = append(l, *c)
		}
		slices.SortFunc(l, func(p, q folio.ImportedCount) int {
			if p.PageViews+p.Visits+p.Events != q.PageViews+q.Visits+q.Events {
				return (q.PageViews + q.Visits + q.Events) - (p.PageViews + p.Visits + p.Events)
			}
			return strings.Compare(p.Value, q.Value)
		})
		return l[:min(len(l), maxImportValues)]
	}
	for _, x := range a {
		// The date breakdown sums each day's device rows, as every tracked visit has one: the
		// visits an export leaves without a device count as unknown.
		var dv folio.ImportedCount
		for _, c := range x.dims["device"] {
			dv.Visits, dv.PageViews, dv.Bounces = dv.Visits+c.Visits, dv.PageViews+c.PageViews, dv.Bounces+c.Bounces
		}
		if x.d.Visits > dv.Visits {
			x.dim("device", unknownDevice, x.d.Visits-dv.Visits, max(0, x.d.PageViews-dv.PageViews), max(0, x.d.Bounces-dv.Bounces))
		}
		d := x.d
		d.Pages, d.Referrers, d.Events = list(x.pages), list(x.referrers), list(x.events)
		d.Dims = map[string][]folio.ImportedCount{}
		for name, m := range x.dims {
			d.Dims[name] = list(m)
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(p, q folio.ImportedDay) int { return strings.Compare(p.Day, q.Day) })
	return out
}

// csvTable reads a CSV with a header row and calls row with a getter by column name for each
// record, at most maxImportRows in all (rows counts across files).
func csvTable(r io.Reader, rows *int, row func(get func(string) string) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return importInvalid("the CSV cannot be read: %v", err)
	}
	cols := map[string]int{}
	for i, h := range head {
		cols[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	var rec []string
	get := func(name string) string {
		if i, ok := cols[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	for {
		rec, err = cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return importInvalid("the CSV cannot be read: %v", err)
		}
		if *rows++; *rows > maxImportRows {
			return importInvalid("the import has more than %d rows", maxImportRows)
		}
		if err := row(get); err != nil {
			return err
		}
	}
}

// num reads a count: empty is 0; anything else must be a whole number ≥ 0.
func num(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 0 && f < 1e12 && f == float64(int64(f)) {
		return int(f), nil
	}
	return 0, importInvalid("%q is not a count", truncateUTF8(s, 40))
}

func isoDay(s string) (string, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.Format(time.DateOnly), nil
	}
	return "", importInvalid("%q is not a date (YYYY-MM-DD)", truncateUTF8(s, 40))
}

// plausibleFile matches the files of Plausible's CSV export: imported_<table>_<from>_<to>.csv.
var plausibleFile = regexp.MustCompile(`^(?:imported_)?(visitors|pages|sources|browsers|devices|operating_systems|locations|entry_pages|exit_pages|custom_events)_\d{8}_\d{8}\.csv$`)

// ParsePlausible reads Plausible's CSV export (a zip of imported_*.csv): the daily totals of
// imported_visitors and, when present, pages, sources (with referrers and UTM tags), browsers,
// devices, operating systems, locations (countries: folio keeps no regions or cities), entry and
// exit pages and custom events. The zip may not inflate to more than MaxImportInflated.
func ParsePlausible(body []byte) ([]folio.ImportedDay, error) {
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return nil, importInvalid("the file is not a zip archive: %v", err)
	}
	if len(zr.File) > maxImportFiles*4 {
		return nil, importInvalid("the zip holds more than %d files", maxImportFiles*4)
	}
	acc, rows, budget, seen := importAcc{}, 0, importInflateLimit, false
	for _, f := range zr.File {
		m := plausibleFile.FindStringSubmatch(path.Base(f.Name))
		if m == nil || f.FileInfo().IsDir() {
			continue
		}
		if f.UncompressedSize64 > uint64(budget) {
			return nil, errTooLarge
		}
		rc, err := f.Open()
		if err != nil {
			return nil, importInvalid("%s cannot be opened: %v", m[0], err)
		}
		// The declared size may lie: what is read is bounded too.
		lr := &io.LimitedReader{R: rc, N: budget + 1}
		err = plausibleTable(m[1], lr, &rows, acc)
		rc.Close()
		budget -= (budget + 1) - lr.N
		if budget < 0 {
			return nil, errTooLarge
		}
		if err != nil {
			var fe *folio.Error
			if errors.As(err, &fe) {
				fe.Message = m[0] + ": " + fe.Message
				for i := range fe.Details {
					fe.Details[i].Message = m[0] + ": " + fe.Details[i].Message
				}
			}
			return nil, err
		}
		seen = seen || m[1] == "visitors"
	}
	if !seen {
		return nil, importInvalid("the zip has no imported_visitors_<from>_<to>.csv")
	}
	return acc.days(), nil
}

// plausibleCounts are the count columns of Plausible's tables; a table has some of them.
var plausibleCounts = []string{"visitors", "visits", "pageviews", "bounces", "entrances", "exits", "events"}

func plausibleTable(table string, r io.Reader, rows *int, acc importAcc) error {
	return csvTable(r, rows, func(get func(string) string) error {
		day, err := isoDay(get("date"))
		if err != nil {
			return err
		}
		var n [7]int
		for i, col := range plausibleCounts {
			if n[i], err = num(get(col)); err != nil {
				return err
			}
		}
		visitors, visits, views, bounces, entrances, exits, events := n[0], n[1], n[2], n[3], n[4], n[5], n[6]
		x := acc.day(day)
		switch table {
		case "visitors":
			x.d.Visitors += visitors
			x.d.Visits += visits
			x.d.PageViews += views
			x.d.Bounces += bounces
		case "pages":
			c := count(x.pages, pagePath(get("page")))
			c.Visitors, c.Visits, c.PageViews = c.Visitors+visitors, c.Visits+visits, c.PageViews+views
		case "sources":
			src := cleanLabel(get("source"))
			if src == "" {
				src = DirectSource
			}
			x.dim("source", src, visits, views, bounces)
			ref := refHost(get("referrer"))
			x.dim("referrer", ref, visits, views, bounces)
			if ref != "" {
				c := count(x.referrers, ref)
				c.Visits += visits
			}
			x.dim("utm_source", strings.ToLower(cleanLabel(get("utm_source"))), visits, views, bounces)
			x.dim("utm_medium", strings.ToLower(cleanLabel(get("utm_medium"))), visits, views, bounces)
			x.dim("utm_campaign", cleanLabel(get("utm_campaign")), visits, views, bounces)
		case "browsers":
			b := importBrowser(get("browser"))
			x.dim("browser", b, visits, views, bounces)
			x.dim("browser_version", joinVersion(b, majorVersion(get("browser_version"))), visits, views, bounces)
		case "operating_systems":
			os, v := importOS(get("operating_system"), get("operating_system_version"))
			x.dim("os", os, visits, views, bounces)
			x.dim("os_version", joinVersion(os, v), visits, views, bounces)
		case "devices":
			x.dim("device", importDevice(get("device")), visits, views, bounces)
		case "locations":
			x.dim("country", importCountry(get("country")), visits, views, bounces)
		case "entry_pages":
			x.dim("entry_page", pagePath(get("entry_page")), entrances, views, bounces)
		case "exit_pages":
			x.dim("exit_page", pagePath(get("exit_page")), exits, views, bounces)
		case "custom_events":
			name := importEventName(get("name"))
			if name == "" {
				return nil
			}
			c := count(x.events, name)
			c.Visitors, c.Events = c.Visitors+visitors, c.Events+events
		}
		return nil
	})
}

// Imported labels are named as the tracker names them (enrich.go, ParseAgent), so that a
// browser, a system or a device is one row of a breakdown whichever side counted it.
var (
	importBrowsers = map[string]string{"chrome": "Chrome", "crios": "Chrome", "chromium-webview": "Chrome",
		"firefox": "Firefox", "fxios": "Firefox", "safari": "Safari", "ios": "Safari", "ios-webview": "Safari",
		"mobile safari": "Safari", "edge": "Edge", "edge-chromium": "Edge", "edge-ios": "Edge", "microsoft edge": "Edge",
		"opera": "Opera", "samsung": "Samsung Browser", "samsung internet": "Samsung Browser", "vivaldi": "Vivaldi",
		"ie": "Internet Explorer", "facebook": "Facebook App", "instagram": "Instagram App"}
	importSystems = map[string]string{"mac": "macOS", "mac os": "macOS", "macos": "macOS", "os x": "macOS",
		"gnu/linux": "Linux", "linux": "Linux", "android os": "Android", "android": "Android", "ios": "iOS",
		"ipados": "iOS", "chrome os": "ChromeOS", "chromeos": "ChromeOS", "windows": "Windows", "freebsd": "FreeBSD"}
	importEvents = map[string]string{"outbound link: click": folio.MeasureOutbound, "file download": folio.MeasureDownload,
		"404": folio.MeasureNotFound}
)

func importBrowser(s string) string {
	s = cleanLabel(s)
	if name, ok := importBrowsers[strings.ToLower(s)]; ok {
		return name
	}
	if s == "" || s == "(not set)" {
		return "Unknown"
	}
	return s
}

// importOS names a system and its major version; Umami gives both in one ("Windows 10").
func importOS(s, version string) (string, string) {
	s = cleanLabel(s)
	if name, ok := importSystems[strings.ToLower(s)]; ok {
		return name, majorVersion(version)
	}
	if name, v, ok := strings.Cut(s, " "); ok && version == "" {
		if n, ok := importSystems[strings.ToLower(name)]; ok {
			return n, majorVersion(v)
		}
	}
	if s == "" || s == "(not set)" {
		return "Unknown", ""
	}
	return s, majorVersion(version)
}

// majorVersion keeps a version's first number ("128.0.1" → "128"), as the tracker does.
func majorVersion(v string) string {
	v = cleanLabel(v)
	if v == "(not set)" {
		return ""
	}
	v, _, _ = strings.Cut(v, ".")
	return v
}

func importDevice(s string) string {
	switch d := strings.ToLower(cleanLabel(s)); d {
	case DeviceDesktop, DeviceMobile, DeviceTablet:
		return d
	case "laptop":
		return DeviceDesktop
	default:
		return unknownDevice
	}
}

// importCountry keeps an ISO 3166-1 alpha-2 code, else UnknownCountry.
func importCountry(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if len(s) != 2 || s[0] < 'A' || s[0] > 'Z' || s[1] < 'A' || s[1] > 'Z' {
		return UnknownCountry
	}
	return s
}

// importEventName maps Plausible's names of its automatic measurements to folio's.
func importEventName(s string) string {
	s = cleanLabel(s)
	if name, ok := importEvents[strings.ToLower(s)]; ok {
		return name
	}
	return s
}

func joinVersion(name, version string) string {
	if version == "" {
		return name
	}
	return name + " " + version
}

// pagePath keeps the path of an imported page address, without query or fragment.
func pagePath(p string) string {
	if u, err := url.Parse(p); err == nil && u.Path != "" {
		p = u.Path
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return p
}

// refHost is the host of an imported referrer ("https://www.google.com/…" or "google.com").
func refHost(ref string) string {
	if ref == "" {
		return ""
	}
	if !strings.Contains(ref, "://") {
		ref = "https://" + ref
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	return bareHost(u.Hostname())
}

// maxUmamiVisits bounds the visits of an Umami import, each held in memory until the end.
const maxUmamiVisits = 250_000

// umamiVisit is one visit of an Umami export, gathered from its page views in any order: its
// first page view gives its day, entry page and attributes, its last its exit page.
type umamiVisit struct {
	first, last time.Time
	entry, exit string
	views       int
	attrs       []string // the values of umamiDims, of the first page view
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
		session := truncateUTF8(get("session_id"), 64)
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
		page := pagePath(get("url_path"))
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
			v = &umamiVisit{first: at, last: at, entry: page, exit: page, attrs: umamiAttrs(get)}
			visits[key] = v
		} else {
			if at.Before(v.first) {
				v.first, v.entry, v.attrs = at, page, umamiAttrs(get)
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
