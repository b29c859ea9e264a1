package analytics

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"path"
	"regexp"
	"strings"

	"github.com/foliohq/folio"
)

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
