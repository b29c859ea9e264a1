// Package audit keeps folio's audit log (docs/api.md, "Audit log"): who changed what, every
// sign-in, TOTP change, key creation or revocation and session revocation. Entries are queued in
// memory and written in batches off the request path, the way analytics ingestion works, so a write
// request pays for one channel send, not for a second INSERT; Close writes whatever is queued at
// shutdown.
package audit

import (
	"context"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/foliohq/folio"
)

// Defaults of Options.
const (
	DefaultQueueSize     = 4096
	DefaultFlushInterval = time.Second
	DefaultBatchSize     = 256
	DefaultRetentionDays = 365
	pruneEvery           = time.Hour
)

// Options configure a Writer.
type Options struct {
	// QueueSize bounds the entries waiting to be written (DefaultQueueSize when ≤ 0). When it is
	// full, Record writes the queue out itself rather than drop an entry: an audit log that loses
	// entries under load is worth little, and a full queue only happens when the database lags.
	QueueSize int
	// FlushInterval is how long an entry may wait before it is written (DefaultFlushInterval).
	FlushInterval time.Duration
	// RetentionDays: entries older than this are deleted hourly (AUDIT_RETENTION_DAYS; ≤ 0
	// keeps everything).
	RetentionDays int
	Now           func() time.Time
	Logger        *slog.Logger
}

// Store is where a Writer writes the log.
type Store interface {
	InsertAudit(ctx context.Context, entries []folio.AuditEntry) error
	// PruneAudit deletes the entries older than before and returns how many it deleted.
	PruneAudit(ctx context.Context, before time.Time) (int64, error)
}

// Writer queues audit entries and writes them in batches. It is safe for concurrent use.
type Writer struct {
	store Store
	opts  Options

	mu      sync.Mutex
	queue   []folio.AuditEntry
	wake    chan struct{}
	writeMu sync.Mutex // one batch write at a time
}

// New returns a Writer over store; call Run to write in the background and Close at shutdown.
func New(store Store, opts Options) *Writer {
	if opts.QueueSize <= 0 {
		opts.QueueSize = DefaultQueueSize
	}
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = DefaultFlushInterval
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Writer{store: store, opts: opts, wake: make(chan struct{}, 1)}
}

// Record queues e, filling its id and time when empty. It never blocks on the database unless the
// queue is full.
func (w *Writer) Record(e folio.AuditEntry) {
	if e.ID == "" {
		e.ID = folio.NewID()
	}
	if e.At.IsZero() {
		e.At = w.opts.Now()
	}
	e.At = e.At.UTC()
	w.mu.Lock()
	w.queue = append(w.queue, e)
	n := len(w.queue)
	w.mu.Unlock()
	if n >= w.opts.QueueSize {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := w.Flush(ctx); err != nil {
			w.opts.Logger.Error("audit log: could not write a full queue", "error", err.Error())
		}
		return
	}
	if n >= DefaultBatchSize {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// Flush writes every queued entry now. On failure the entries go back to the queue for the next
// attempt.
func (w *Writer) Flush(ctx context.Context) error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	w.mu.Lock()
	batch := w.queue
	w.queue = nil
	w.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := w.store.InsertAudit(ctx, batch); err != nil {
		w.mu.Lock()
		w.queue = append(batch, w.queue...)
		w.mu.Unlock()
		return err
	}
	return nil
}

// Run writes queued entries every FlushInterval (or sooner when a batch fills) and prunes old
// ones hourly, until ctx ends; then it writes what is left.
func (w *Writer) Run(ctx context.Context) {
	tick := time.NewTicker(w.opts.FlushInterval)
	defer tick.Stop()
	lastPrune := time.Time{}
	for {
		select {
		case <-ctx.Done():
			if err := w.Close(context.WithoutCancel(ctx)); err != nil {
				w.opts.Logger.Error("audit log: entries lost at shutdown", "error", err.Error())
			}
			return
		case <-tick.C:
		case <-w.wake:
		}
		if err := w.Flush(ctx); err != nil && ctx.Err() == nil {
			w.opts.Logger.Warn("audit log: write failed; will retry", "error", err.Error())
		}
		if now := w.opts.Now(); w.opts.RetentionDays > 0 && now.Sub(lastPrune) >= pruneEvery {
			lastPrune = now
			if _, err := w.Prune(ctx); err != nil && ctx.Err() == nil {
				w.opts.Logger.Warn("audit log: pruning failed", "error", err.Error())
			}
		}
	}
}

// Prune deletes the entries older than RetentionDays and returns how many went.
func (w *Writer) Prune(ctx context.Context) (int64, error) {
	if w.opts.RetentionDays <= 0 {
		return 0, nil
	}
	return w.store.PruneAudit(ctx, w.opts.Now().AddDate(0, 0, -w.opts.RetentionDays))
}

// Close writes everything still queued, within 5 seconds.
func (w *Writer) Close(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return w.Flush(ctx)
}

// Network returns the part of a client address the audit log keeps: the IPv4 /24 or the IPv6
// /48 it belongs to ("203.0.113.0/24", "2001:db8:1::/48"), never the address itself; "" when
// ip is not an address.
func Network(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ""
	}
	a = a.Unmap().WithZone("")
	bits := 48
	if a.Is4() {
		bits = 24
	}
	p, err := a.Prefix(bits)
	if err != nil {
		return ""
	}
	return p.String()
}
