package analytics

import (
	"context"
	"fmt"
	"time"

	"github.com/foliohq/folio"
)

// Start runs the batching writer until Close. Call it once.
func (s *Service) Start() {
	s.mu.Lock()
	if s.started || s.closed {
		s.mu.Unlock()
		return
	}
	s.started = true
	s.mu.Unlock()
	go s.run()
}

// Flush blocks until every event queued before the call is written (or ctx ends). Without a
// running writer (Start not called) there is nobody to write them, so it returns at once.
func (s *Service) Flush(ctx context.Context) error {
	ch := make(chan struct{})
	s.mu.RLock()
	if !s.started {
		s.mu.RUnlock()
		return nil
	}
	if s.closed {
		s.mu.RUnlock()
		return s.wait(ctx)
	}
	select {
	case s.queue <- item{flush: ch}:
	case <-ctx.Done():
		s.mu.RUnlock()
		return ctx.Err()
	}
	s.mu.RUnlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops accepting events and waits until every queued one is written, or until ctx ends
// (then the rest is lost and an error says how many). It runs the writer itself when Start was
// never called.
func (s *Service) Close(ctx context.Context) error {
	s.mu.Lock()
	first := !s.closed
	s.closed = true
	started := s.started
	s.started = true
	if first {
		close(s.queue)
	}
	s.mu.Unlock()
	if first && !started {
		go s.run()
	}
	return s.wait(ctx)
}

func (s *Service) wait(ctx context.Context) error {
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("analytics: shutdown timed out with %d events unwritten: %w", len(s.queue), ctx.Err())
	}
}

func (s *Service) run() {
	defer close(s.done)
	batch := make([]item, 0, s.batch)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	flush := func() {
		timer.Stop()
		s.write(batch)
		clear(batch)
		batch = batch[:0]
	}
	for {
		select {
		case it, ok := <-s.queue:
			if !ok {
				flush()
				return
			}
			if it.flush != nil {
				flush()
				close(it.flush)
				continue
			}
			if len(batch) == 0 {
				timer.Reset(s.every)
			}
			batch = append(batch, it)
			if len(batch) >= s.batch && (len(s.queue) < s.batch || len(batch) >= BacklogBatches*s.batch) {
				flush()
			}
		case <-timer.C:
			flush()
		}
	}
}

// write stores one batch, retrying a few times (a locked SQLite file, a PostgreSQL failover);
// a batch that still fails is logged and counted as lost.
func (s *Service) write(batch []item) {
	if len(batch) == 0 {
		return
	}
	nPV := 0
	for _, it := range batch {
		if it.pv != nil {
			nPV++
		}
	}
	pvs := make([]folio.AnalyticsPageView, 0, nPV)
	evs := make([]folio.AnalyticsEvent, 0, len(batch)-nPV)
	for _, it := range batch {
		if it.pv != nil {
			pvs = append(pvs, *it.pv)
		} else {
			evs = append(evs, *it.ev)
		}
	}
	var err error
	for attempt, backoff := 0, 100*time.Millisecond; attempt < 4; attempt, backoff = attempt+1, backoff*3 {
		if attempt > 0 {
			time.Sleep(backoff)
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err = s.store.WriteAnalytics(ctx, pvs, evs)
		cancel()
		if err == nil {
			s.batches.Observe(time.Since(start).Seconds())
			s.written.Add(float64(len(batch)))
			return
		}
		s.log.Warn("analytics batch write failed", "events", len(batch), "attempt", attempt+1, "error", err.Error())
	}
	s.log.Error("analytics batch lost", "events", len(batch), "error", err.Error())
	s.dropped.WithLabelValues("write_failed").Add(float64(len(batch)))
}
