package sqldb

import (
	"context"
	"database/sql"
	"time"

	"github.com/foliohq/folio"
)

// EnqueueJob adds a job that is due at runAt. key names the job: enqueueing a key that exists
// again is a no-op while that job is pending or running, and re-arms it when it is done or
// failed.
func (s *JobStore) EnqueueJob(ctx context.Context, kind, key, payload string, runAt time.Time) error {
	err := s.tx(ctx, func(tx *sql.Tx) error { return s.enqueueJob(ctx, tx, kind, key, payload, runAt) })
	if err != nil {
		return wrap("EnqueueJob", err)
	}
	return nil
}

func (db *DB) enqueueJob(ctx context.Context, tx *sql.Tx, kind, key, payload string, runAt time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO jobs (id, kind, key, payload, run_at, status, attempts, created_at)
		VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6)
		ON CONFLICT (key) DO UPDATE SET payload = excluded.payload, run_at = excluded.run_at, status = 'pending',
			attempts = 0, lease_owner = '', lease_until = NULL, last_error = '', done_at = NULL
		WHERE jobs.status IN ('done', 'failed')`,
		folio.NewID(), kind, key, payload, db.ts(runAt), db.ts(db.Now()))
	return err
}

const jobColumns = `id, kind, key, payload, run_at, status, attempts, lease_owner, lease_until, last_error, done_at`

func scanJob(row interface{ Scan(...any) error }) (folio.Job, error) {
	var j folio.Job
	var runAt, leaseUntil, doneAt Time
	if err := row.Scan(&j.ID, &j.Kind, &j.Key, &j.Payload, &runAt, &j.Status, &j.Attempts, &j.LeaseOwner, &leaseUntil,
		&j.LastError, &doneAt); err != nil {
		return folio.Job{}, err
	}
	j.RunAt, j.LeaseUntil, j.DoneAt = runAt.Time, leaseUntil.Time, doneAt.Time
	return j, nil
}

// claimable selects jobs a worker may take at $now: pending and due, or running with a lapsed
// lease (its worker died or stalled).
const claimable = `((status = 'pending' AND run_at <= $3) OR (status = 'running' AND lease_until < $3))`

// ClaimJob takes the next due job of one of kinds for owner until leaseUntil and returns it with
// attempts counted; ok is false when no job is due. Kinds this worker has no handler for are left
// to the instances that do (a rolling upgrade runs old and new versions side by side).
//
// The claim is one conditional UPDATE whose condition is evaluated again on the row it locks, so
// of several workers racing for a job — on any number of instances — exactly one gets it. On
// PostgreSQL the candidate is chosen with FOR UPDATE SKIP LOCKED so racing workers take
// different jobs instead of queueing on the same row; SQLite has one writer at a time anyway.
func (s *JobStore) ClaimJob(ctx context.Context, owner string, kinds []string, now, leaseUntil time.Time) (j folio.Job, ok bool, err error) {
	if len(kinds) == 0 {
		return folio.Job{}, false, nil
	}
	args := Args{owner, s.ts(leaseUntil), s.ts(now)}
	kindList := args.AddList(kinds)
	lock := ""
	if s.Dialect == Postgres {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	j, err = scanJob(s.W.QueryRowContext(ctx, `UPDATE jobs SET status = 'running', lease_owner = $1, lease_until = $2,
		attempts = attempts + 1
		WHERE id = (SELECT id FROM jobs WHERE `+claimable+` AND kind IN (`+kindList+`)
			ORDER BY run_at, id LIMIT 1`+lock+`) AND `+claimable+`
		RETURNING `+jobColumns, args...))
	if err == sql.ErrNoRows {
		return folio.Job{}, false, nil
	}
	if err != nil {
		return folio.Job{}, false, wrap("ClaimJob", err)
	}
	return j, true, nil
}

// FinishJob records the outcome of a job owner ran: done when errMsg is empty; otherwise
// pending again at retryAt, or failed when retryAt is zero. It reports false when owner no
// longer held the job (its lease lapsed and another worker took it over).
func (s *JobStore) FinishJob(ctx context.Context, id, owner string, now time.Time, errMsg string, retryAt time.Time) (bool, error) {
	var res sql.Result
	var err error
	switch {
	case errMsg == "":
		res, err = s.W.ExecContext(ctx, `UPDATE jobs SET status = 'done', done_at = $1, lease_until = NULL, last_error = ''
			WHERE id = $2 AND lease_owner = $3 AND status = 'running'`, s.ts(now), id, owner)
	case retryAt.IsZero():
		res, err = s.W.ExecContext(ctx, `UPDATE jobs SET status = 'failed', done_at = $1, lease_until = NULL, last_error = $2
			WHERE id = $3 AND lease_owner = $4 AND status = 'running'`, s.ts(now), errMsg, id, owner)
	default:
		res, err = s.W.ExecContext(ctx, `UPDATE jobs SET status = 'pending', run_at = $1, lease_until = NULL, last_error = $2
			WHERE id = $3 AND lease_owner = $4 AND status = 'running'`, s.ts(retryAt), errMsg, id, owner)
	}
	if err != nil {
		return false, wrap("FinishJob", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// JobByKey returns the job with the given key, or ENOTFOUND.
func (s *JobStore) JobByKey(ctx context.Context, key string) (folio.Job, error) {
	j, err := scanJob(s.R.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE key = $1`, key))
	if err == sql.ErrNoRows {
		return folio.Job{}, notFound("folio.Job", key)
	}
	if err != nil {
		return folio.Job{}, wrap("JobByKey", err)
	}
	return j, nil
}

// JobsOfKind returns every job of a kind, oldest due first (for tests and inspection).
func (s *JobStore) JobsOfKind(ctx context.Context, kind string) ([]folio.Job, error) {
	rows, err := s.R.QueryContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE kind = $1 ORDER BY run_at, id`, kind)
	if err != nil {
		return nil, wrap("JobsOfKind", err)
	}
	defer rows.Close()
	var out []folio.Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, wrap("JobsOfKind", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// RenewJob extends the lease of a job owner is running; it reports false when owner no longer
// holds it.
func (s *JobStore) RenewJob(ctx context.Context, id, owner string, leaseUntil time.Time) (bool, error) {
	res, err := s.W.ExecContext(ctx, `UPDATE jobs SET lease_until = $1 WHERE id = $2 AND lease_owner = $3 AND status = 'running'`,
		s.ts(leaseUntil), id, owner)
	if err != nil {
		return false, wrap("RenewJob", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}
