package analytics

import (
	"context"
	"time"
)

// Prune deletes the raw page views and events older than the retention (see
// Store.PruneAnalytics) and returns how many rows went; without a retention it does nothing.
func (s *Service) Prune(ctx context.Context) (int64, error) {
	days := int(s.retention.Load())
	if days <= 0 {
		return 0, nil
	}
	keepFrom := s.now().In(s.loc).AddDate(0, 0, -days).Format(time.DateOnly)
	return s.store.PruneAnalytics(ctx, keepFrom)
}

// SetRetentionDays changes how many days of raw page views and events are kept (0: all), as the
// owner's settings do while the service runs; RunRetention prunes at once.
func (s *Service) SetRetentionDays(days int) {
	if s.retention.Swap(int64(days)) == int64(days) {
		return
	}
	select {
	case s.retentionSet <- struct{}{}:
	default:
	}
}

// RunRetention prunes at once, then every hour and whenever the retention changes, until ctx
// ends. Pruning is idempotent, so every instance runs it and none needs to be elected.
func (s *Service) RunRetention(ctx context.Context) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		if n, err := s.Prune(ctx); err != nil {
			s.log.Warn("analytics retention failed", "error", err.Error())
		} else if n > 0 {
			s.log.Info("analytics retention pruned raw rows", "rows", n, "days_kept", s.retention.Load())
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-s.retentionSet:
		}
	}
}
