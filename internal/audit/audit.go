// Package audit keeps folio's audit log (docs/api.md, "Audit log"): who changed what, every
// sign-in, TOTP change, key creation or revocation and session revocation. Entries are queued in
// memory and written in batches off the request path, the way analytics ingestion works, so a write
// request pays for one append, not for a second INSERT; Close writes whatever is queued at
// shutdown.
//
// Requests a rate limit refuses are counted, not queued one by one (RecordRefused): a flood of
// refused sign-ins costs one row per client, action and window, whose count stays current.
package audit

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"log/slog"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/foliohq/folio"
)

// Defaults of Options.
const (
	DefaultQueueSize     = 4096
	DefaultFlushInterval = time.Second
	DefaultBatchSize     = 256
	pruneEvery           = time.Hour
)

// Options configure a Writer.
type Options struct {
	// QueueSize bounds the entries waiting to be written, refusal counts included
	// (DefaultQueueSize when ≤ 0). Past it, Record drops the entry and counts it (Dropped, and
	// a warning at the next write) rather than wait for the database: a request never blocks
	// on the audit log, and memory stays bounded however fast entries come.
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

	mu    sync.Mutex
	queue []folio.AuditEntry
	// refused holds the refusals counted since the last write, by row id (refusalID): each
	// entry's Refused is what the next write adds to that row.
	refused map[string]*folio.AuditEntry
	// unreported is how many entries were dropped since the last warning about it.
	unreported int
	dropped    atomic.Int64
	wake       chan struct{}
	writeMu    sync.Mutex // one batch write at a time
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
	return &Writer{store: store, opts: opts, refused: map[string]*folio.AuditEntry{}, wake: make(chan struct{}, 1)}
}

// Record queues e, filling its id and time when empty. It never blocks on the database: when
// the queue is full, e is dropped and counted (Dropped).
func (w *Writer) Record(e folio.AuditEntry) {
	if e.ID == "" {
		e.ID = folio.NewID()
	}
	w.stamp(&e)
	w.mu.Lock()
	if w.fullLocked() {
		w.dropLocked(1)
		w.mu.Unlock()
		return
	}
	w.queue = append(w.queue, e)
	n := len(w.queue)
	w.mu.Unlock()
	if n >= DefaultBatchSize {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// RecordRefused counts one request a rate limit refused (e, its status 429) from client (the
// identifier the limit counts: a credential, or the client's network) in the window of length
// window that e.At falls in. All the refusals of one client and action in one window make one
// row: its id is derived from the three, the first write inserts it and later writes, from this
// instance or any other, add to its Refused count. A refusal for a row already counted since
// the last write takes no queue room; a new row, when the queue is full, is dropped and counted.
func (w *Writer) RecordRefused(e folio.AuditEntry, client string, window time.Duration) {
	w.stamp(&e)
	if window <= 0 {
		window = time.Hour
	}
	id := refusalID(e.Action, client, e.At.Truncate(window))
	w.mu.Lock()
	defer w.mu.Unlock()
	if p := w.refused[id]; p != nil {
		p.Refused++
		return
	}
	if w.fullLocked() {
		w.dropLocked(1)
		return
	}
	e.ID, e.Refused, e.Detail = id, 1, ""
	w.refused[id] = &e
}

// refusalID is the row id of the refusals of client on action in the window starting at start:
// a hash, so the row names no more of the client than its ip column does.
func refusalID(action, client string, start time.Time) string {
	h := sha256.New()
	h.Write([]byte(action))
	h.Write([]byte{0})
	h.Write([]byte(client))
	h.Write([]byte{0})
	h.Write(binary.BigEndian.AppendUint64(nil, uint64(start.Unix())))
	return "refused-" + hex.EncodeToString(h.Sum(nil)[:12])
}

func (w *Writer) stamp(e *folio.AuditEntry) {
	if e.At.IsZero() {
		e.At = w.opts.Now()
	}
	e.At = e.At.UTC()
}

func (w *Writer) fullLocked() bool { return len(w.queue)+len(w.refused) >= w.opts.QueueSize }

func (w *Writer) dropLocked(n int) {
	w.unreported += n
	w.dropped.Add(int64(n))
}

// Dropped is how many entries were dropped because the queue was full, since New.
func (w *Writer) Dropped() int64 { return w.dropped.Load() }

// Flush writes every queued entry and refusal count now. On failure they go back to the queue
// for the next attempt, as far as it has room.
func (w *Writer) Flush(ctx context.Context) error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	w.mu.Lock()
	batch := w.queue
	for _, e := range w.refused {
		batch = append(batch, *e)
	}
	queued := len(w.queue)
	w.queue = nil
	if len(w.refused) > 0 {
		w.refused = map[string]*folio.AuditEntry{}
	}
	unreported := w.unreported
	w.unreported = 0
	w.mu.Unlock()
	if unreported > 0 {
		w.opts.Logger.Warn("audit log: queue full; entries dropped", "dropped", unreported,
			"dropped_total", w.Dropped(), "queue_size", w.opts.QueueSize)
	}
	if len(batch) == 0 {
		return nil
	}
	if err := w.store.InsertAudit(ctx, batch); err != nil {
		w.requeue(batch[:queued], batch[queued:])
		return err
	}
	return nil
}

// requeue puts back a batch that could not be written, ahead of what came meanwhile: refusal
// counts merge with the ones counted since, and entries beyond the queue's room are dropped.
func (w *Writer) requeue(entries, refusals []folio.AuditEntry) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, e := range refusals {
		if p := w.refused[e.ID]; p != nil {
			p.Refused += e.Refused
			continue
		}
		w.refused[e.ID] = &e
	}
	w.queue = append(entries, w.queue...)
	if over := len(w.queue) + len(w.refused) - w.opts.QueueSize; over > 0 {
		over = min(over, len(w.queue))
		w.queue = w.queue[:len(w.queue)-over]
		w.dropLocked(over)
	}
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
