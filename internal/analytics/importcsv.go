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
	maxImportValues   = 500 // pages, sources or referrers kept per day, the most viewed first
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
	d                         folio.ImportedDay
	pages, sources, referrers map[string]*folio.ImportedCount
	visitors, visits          map[string]bool // Umami: distinct sessions and visits of the day
}

type importAcc map[string]*dayAcc

func (a importAcc) day(d string) *dayAcc {
	x := a[d]
	if x == nil {
		x = &dayAcc{d: folio.ImportedDay{Day: d}, pages: map[string]*folio.ImportedCount{}, sources: map[string]*folio.ImportedCount{},
			referrers: map[string]*folio.ImportedCount{}}
		a[d] = x
	}
	return x
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

// days returns the gathered days in order, each list the most viewed first and bounded.
func (a importAcc) days() []folio.ImportedDay {
	out := make([]folio.ImportedDay, 0, len(a))
	for _, x := range a {
		list := func(m map[string]*folio.ImportedCount) []folio.ImportedCount {
			l := make([]folio.ImportedCount, 0, len(m))
			for _, c := range m {
				l = append(l, *c)
			}
			slices.SortFunc(l, func(p, q folio.ImportedCount) int {
				if p.PageViews+p.Visits != q.PageViews+q.Visits {
					return (q.PageViews + q.Visits) - (p.PageViews + p.Visits)
				}
				return strings.Compare(p.Value, q.Value)
			})
			return l[:min(len(l), maxImportValues)]
		}
		d := x.d
		if x.visitors != nil {
			d.Visitors, d.Visits = len(x.visitors), len(x.visits)
		}
		d.Pages, d.Sources, d.Referrers = list(x.pages), list(x.sources), list(x.referrers)
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
var plausibleFile = regexp.MustCompile(`^(?:imported_)?(visitors|pages|sources)_\d{8}_\d{8}\.csv$`)

// ParsePlausible reads Plausible's CSV export (a zip of imported_*.csv): the daily totals of
// imported_visitors, and pages and sources when present; the other tables are left out. The
// zip may not inflate to more than MaxImportInflated.
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

func plausibleTable(table string, r io.Reader, rows *int, acc importAcc) error {
	return csvTable(r, rows, func(get func(string) string) error {
		day, err := isoDay(get("date"))
		if err != nil {
			return err
		}
		var n [4]int
		for i, col := range []string{"visitors", "visits", "pageviews", "bounces"} {
			if n[i], err = num(get(col)); err != nil {
				return err
			}
		}
		x := acc.day(day)
		switch table {
		case "visitors":
			x.d.Visitors += n[0]
			x.d.Visits += n[1]
			x.d.PageViews += n[2]
			x.d.Bounces += n[3]
		case "pages":
			c := count(x.pages, pagePath(get("page")))
			c.Visitors, c.Visits, c.PageViews = c.Visitors+n[0], c.Visits+n[1], c.PageViews+n[2]
		case "sources":
			src := get("source")
			if src == "" {
				src = "Direct / None"
			}
			c := count(x.sources, src)
			c.Visitors, c.Visits, c.PageViews, c.Bounces = c.Visitors+n[0], c.Visits+n[1], c.PageViews+n[2], c.Bounces+n[3]
			if ref := refHost(get("referrer")); ref != "" {
				c := count(x.referrers, ref)
				c.Visits += n[1]
			}
		}
		return nil
	})
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

// ParseUmami reads Umami's CSV export of website events (one row per event, with created_at,
// session_id, visit_id, url_path, referrer_domain and event_type, 1 for a page view): page views,
// visitors (distinct sessions) and visits of each day in loc, pages and referrer hosts.
func ParseUmami(r io.Reader, loc *time.Location) ([]folio.ImportedDay, error) {
	acc, rows := importAcc{}, 0
	lr := &io.LimitedReader{R: r, N: importInflateLimit + 1}
	err := csvTable(lr, &rows, func(get func(string) string) error {
		if t := get("event_type"); t != "" && t != "1" {
			return nil // custom events are not page views
		}
		at, err := umamiTime(get("created_at"))
		if err != nil {
			return err
		}
		day := at.In(loc).Format(time.DateOnly)
		x := acc.day(day)
		if x.visitors == nil {
			x.visitors, x.visits = map[string]bool{}, map[string]bool{}
		}
		if len(x.visitors) < maxImportRows/4 {
			x.visitors[truncateUTF8(get("session_id"), 64)] = true
			x.visits[truncateUTF8(get("visit_id"), 64)] = true
		}
		x.d.PageViews++
		c := count(x.pages, pagePath(get("url_path")))
		c.PageViews++
		if ref := refHost(get("referrer_domain")); ref != "" {
			c := count(x.referrers, ref)
			c.PageViews++
		}
		return nil
	})
	if lr.N <= 0 {
		return nil, errTooLarge
	}
	if err != nil {
		return nil, err
	}
	if rows > 0 && len(acc) == 0 {
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
