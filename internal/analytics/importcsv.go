package analytics

import (
	"encoding/csv"
	"fmt"
	"io"
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
