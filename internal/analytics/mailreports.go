package analytics

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/foliohq/folio"
)

// DefaultAlertCooldown is the least time between two spike alerts (ANALYTICS_ALERT_COOLDOWN).
const DefaultAlertCooldown = 6 * time.Hour

// mailCheckEvery is how often an instance looks for a report or an alert to send.
const mailCheckEvery = 5 * time.Minute

// alertMinVisitors is the fewest visitors in an hour that the multiple rule calls a spike: 3
// visitors against a usual 1 is noise, not news.
const alertMinVisitors = 10

// ReporterOptions connect the mailed reports and the spike alert to the rest of folio.
type ReporterOptions struct {
	// Mailer queues the mails (the outbox).
	Mailer folio.Mailer
	// Settings returns the owner's settings in force (which reports, which alert, the site's name).
	Settings func() folio.Settings
	// Owner is who gets them (settings.Service.Owner: contact.recipient, else the owner account).
	Owner func(ctx context.Context) folio.Participant
	// Cooldown is the least time between two alerts (default DefaultAlertCooldown).
	Cooldown time.Duration
	Logger   *slog.Logger
}

// Reporter mails the owner the weekly and monthly reports and the spike alert. Every instance
// runs it; the store's claim makes each mail go once (docs/api.md, "Reports by mail").
type Reporter struct {
	svc *Service
	o   ReporterOptions
}

// NewReporter returns the reporter of the service's figures.
func (s *Service) NewReporter(o ReporterOptions) *Reporter {
	if o.Cooldown <= 0 {
		o.Cooldown = DefaultAlertCooldown
	}
	if o.Logger == nil {
		o.Logger = s.log
	}
	return &Reporter{svc: s, o: o}
}

// Run checks at once, then every few minutes, until ctx ends.
func (r *Reporter) Run(ctx context.Context) {
	tick := time.NewTicker(mailCheckEvery)
	defer tick.Stop()
	for {
		if err := r.RunOnce(ctx); err != nil && ctx.Err() == nil {
			r.o.Logger.Warn("analytics mail failed", "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// RunOnce sends what is due now: last week's and last month's reports when chosen and not yet
// sent by any instance, and the alert when this hour's traffic is a spike and the last alert
// is older than the cooldown.
func (r *Reporter) RunOnce(ctx context.Context) error {
	st := r.o.Settings().Analytics
	now := r.svc.now()
	var errs []error
	if st.Reports.Weekly {
		cur, prev, key := r.svc.lastWeek(now)
		errs = append(errs, r.sendReport(ctx, now, key, "Weekly", cur, prev))
	}
	if st.Reports.Monthly {
		cur, prev, key := r.svc.lastMonth(now)
		errs = append(errs, r.sendReport(ctx, now, key, "Monthly", cur, prev))
	}
	if st.Alert.VisitorsPerHour > 0 || st.Alert.Multiple > 0 {
		errs = append(errs, r.checkSpike(ctx, now, st.Alert))
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// lastWeek is the last complete week (Monday to Sunday in the owner's zone), the one before, and
// the claim key of its report.
func (s *Service) lastWeek(now time.Time) (cur, prev Range, key string) {
	y, m, d := now.In(s.loc).Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	monday := today.AddDate(0, 0, -(int(today.Weekday())+6)%7)
	day := func(t time.Time) string { return t.Format(time.DateOnly) }
	cur = Range{From: day(monday.AddDate(0, 0, -7)), To: day(monday.AddDate(0, 0, -1)), loc: s.loc}
	prev = Range{From: day(monday.AddDate(0, 0, -14)), To: day(monday.AddDate(0, 0, -8)), loc: s.loc}
	return cur, prev, "weekly:" + cur.From
}

// lastMonth is the last complete calendar month, the one before, and its report's claim key.
func (s *Service) lastMonth(now time.Time) (cur, prev Range, key string) {
	y, m, _ := now.In(s.loc).Date()
	first := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	day := func(t time.Time) string { return t.Format(time.DateOnly) }
	cur = Range{From: day(first.AddDate(0, -1, 0)), To: day(first.AddDate(0, 0, -1)), loc: s.loc}
	prev = Range{From: day(first.AddDate(0, -2, 0)), To: day(first.AddDate(0, -1, -1)), loc: s.loc}
	return cur, prev, "monthly:" + cur.From[:7]
}

// sendReport claims the report of a period and queues it; a report that cannot be queued gives
// its claim back, so the next check tries again.
func (r *Reporter) sendReport(ctx context.Context, now time.Time, key, kind string, cur, prev Range) error {
	ok, err := r.svc.store.ClaimAnalyticsMail(ctx, key, now, 0)
	if err != nil || !ok {
		return err
	}
	err = r.mailReport(ctx, kind, cur, prev)
	if err != nil {
		if rerr := r.svc.store.ReleaseAnalyticsMail(context.WithoutCancel(ctx), key, now); rerr != nil {
			r.o.Logger.Error("analytics report claim not released", "period", key, "error", rerr.Error())
		}
		return fmt.Errorf("analytics: %s report: %w", key, err)
	}
	r.o.Logger.Info("analytics report queued", "period", key)
	return nil
}

func (r *Reporter) mailReport(ctx context.Context, kind string, cur, prev Range) error {
	d, err := r.svc.digest(ctx, cur, prev)
	if err != nil {
		return err
	}
	site := r.o.Settings().Site.Name
	if site == "" {
		site = "your site"
	}
	owner := r.o.Owner(ctx)
	msg := &folio.MailMessage{
		To:      []folio.MailAddress{{Name: owner.Name, Email: owner.Email}},
		Subject: fmt.Sprintf("%s analytics for %s: %s", kind, site, periodLabel(cur)),
		Headers: map[string]string{"Auto-Submitted": "auto-generated"},
	}
	msg.Text, msg.HTML = d.render(kind, site)
	return r.o.Mailer.Send(ctx, msg)
}

// checkSpike sends the alert when this hour's visitors, so far, pass a threshold and the last
// alert is older than the cooldown. The usual figure is the same part of the same hour averaged
// over the previous 7 days.
func (r *Reporter) checkSpike(ctx context.Context, now time.Time, a folio.AnalyticsAlertSettings) error {
	local := now.In(r.svc.loc)
	start := time.Date(local.Year(), local.Month(), local.Day(), local.Hour(), 0, 0, 0, r.svc.loc)
	cur, err := r.svc.store.AnalyticsHour(ctx, start, now, 5)
	if err != nil {
		return err
	}
	spike := a.VisitorsPerHour > 0 && cur.Visitors >= a.VisitorsPerHour
	usual := 0.0
	if a.Multiple > 0 && cur.Visitors >= alertMinVisitors {
		for i := 1; i <= 7; i++ {
			h, err := r.svc.store.AnalyticsHour(ctx, start.AddDate(0, 0, -i), now.AddDate(0, 0, -i), 0)
			if err != nil {
				return err
			}
			usual += float64(h.Visitors) / 7
		}
		spike = spike || float64(cur.Visitors) >= a.Multiple*max(usual, 1)
	}
	if !spike {
		return nil
	}
	ok, err := r.svc.store.ClaimAnalyticsMail(ctx, "alert", now, r.o.Cooldown)
	if err != nil || !ok {
		return err
	}
	site := r.o.Settings().Site.Name
	if site == "" {
		site = "your site"
	}
	owner := r.o.Owner(ctx)
	msg := &folio.MailMessage{
		To:      []folio.MailAddress{{Name: owner.Name, Email: owner.Email}},
		Subject: fmt.Sprintf("Traffic spike on %s: %d visitors since %s", site, cur.Visitors, start.Format("15:04")),
		Headers: map[string]string{"Auto-Submitted": "auto-generated"},
	}
	msg.Text, msg.HTML = renderAlert(site, start, cur, usual, r.o.Cooldown)
	if err := r.o.Mailer.Send(ctx, msg); err != nil {
		if rerr := r.svc.store.ReleaseAnalyticsMail(context.WithoutCancel(ctx), "alert", now); rerr != nil {
			r.o.Logger.Error("analytics alert claim not released", "error", rerr.Error())
		}
		return fmt.Errorf("analytics: alert: %w", err)
	}
	r.o.Logger.Info("analytics spike alert queued", "visitors", cur.Visitors)
	return nil
}
