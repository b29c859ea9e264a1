package booking

import (
	"context"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/slots"
)

// PutOverride stores the override of date (YYYY-MM-DD).
func (s *Service) PutOverride(ctx context.Context, date string, in folio.OverrideInput) (folio.AvailabilityOverride, error) {
	if _, err := slots.ParseDate(date); err != nil {
		return folio.AvailabilityOverride{}, folio.BadRequest("date", "must be a calendar date YYYY-MM-DD")
	}
	if err := in.Validate(); err != nil {
		return folio.AvailabilityOverride{}, err
	}
	o := folio.AvailabilityOverride{Date: date, Closed: in.Closed, Hours: in.Hours}
	if o.Hours == nil {
		o.Hours = []folio.HoursRange{}
	}
	return o, s.Store.PutOverride(ctx, o, s.now())
}

// DeleteOverride deletes the override of date; ENOTFOUND when there is none.
func (s *Service) DeleteOverride(ctx context.Context, date string) error {
	return s.Store.DeleteOverride(ctx, date)
}

// Overrides lists the overrides of [from, to] (YYYY-MM-DD; default today … +365 days).
func (s *Service) Overrides(ctx context.Context, from, to string) ([]folio.AvailabilityOverride, error) {
	today := slots.DateOf(s.now().In(s.config().Location))
	f, t := today, today.AddDays(365)
	var err error
	if from != "" {
		if f, err = slots.ParseDate(from); err != nil {
			return nil, folio.BadRequest("from", "must be a calendar date YYYY-MM-DD")
		}
	}
	if to != "" {
		if t, err = slots.ParseDate(to); err != nil {
			return nil, folio.BadRequest("to", "must be a calendar date YYYY-MM-DD")
		}
	}
	return s.Store.Overrides(ctx, f.String(), t.String())
}
