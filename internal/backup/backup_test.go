package backup_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/backup"
	"github.com/foliohq/folio/internal/blob"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/jobs"
	"github.com/foliohq/folio/internal/sqldb"
)

type store interface {
	folio.BlobStore
	backup.Lister
}

// stores runs fn on local storage and on the S3 server named by FOLIO_TEST_S3_* (versitygw).
func stores(t *testing.T, fn func(t *testing.T, s store)) {
	t.Run("local", func(t *testing.T) {
		l, err := blob.NewLocal(t.TempDir(), "")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		fn(t, l)
	})
	t.Run("s3", func(t *testing.T) {
		endpoint := os.Getenv("FOLIO_TEST_S3_ENDPOINT")
		if endpoint == "" {
			t.Skip("FOLIO_TEST_S3_ENDPOINT not set; run .ci/install-versitygw.sh and export FOLIO_TEST_S3_* to test against a real S3 server")
		}
		bucket := os.Getenv("FOLIO_TEST_S3_BUCKET")
		if bucket == "" {
			bucket = "folio-test"
		}
		s, err := blob.NewS3(context.Background(), blob.S3Config{Endpoint: endpoint, Bucket: bucket, PathStyle: true,
			AccessKeyID: os.Getenv("FOLIO_TEST_S3_ACCESS_KEY"), SecretAccessKey: os.Getenv("FOLIO_TEST_S3_SECRET"), TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.EnsureBucket(context.Background()); err != nil {
			t.Fatal(err)
		}
		clear := func() {
			keys, _ := s.List(context.Background(), backup.Prefix)
			for _, k := range keys {
				s.Delete(context.Background(), k)
			}
		}
		clear()
		t.Cleanup(clear)
		fn(t, s)
	})
}

// TestRestoreSnapshotTakenDuringWrites: a writer keeps creating projects while the snapshot is
// taken; after restoring it, every project whose creation was acknowledged before the snapshot
// started is there.
func TestRestoreSnapshotTakenDuringWrites(t *testing.T) {
	stores(t, func(t *testing.T, st store) {
		ctx := context.Background()
		db := foliotest.MustOpenSQLite(t)
		svc := &backup.Service{DB: db, Queue: db.Jobs, Store: st, Signer: signer(t, testSecret), TempDir: t.TempDir(), Keep: 3}

		var mu sync.Mutex
		var acked []string
		stop := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					done <- nil
					return
				default:
				}
				title, desc := "p", "written while the snapshot runs"
				p, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: &title, Description: &desc})
				if err != nil {
					done <- err
					return
				}
				mu.Lock()
				acked = append(acked, p.ID)
				mu.Unlock()
			}
		}()
		ackedCount := func() int { mu.Lock(); defer mu.Unlock(); return len(acked) }
		for ackedCount() < 200 {
			time.Sleep(time.Millisecond) // let the writer get going; what is asserted does not depend on timing
		}
		mu.Lock()
		before := append([]string(nil), acked...)
		mu.Unlock()
		key, err := svc.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for n := ackedCount(); ackedCount() < n+50; {
			time.Sleep(time.Millisecond)
		}
		close(stop)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(key, "backups/folio-") {
			t.Fatalf("key %q", key)
		}

		m, err := svc.Manifest(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := st.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		err = backup.Restore(ctx, r, filepath.Join(dir, "folio.db"), &m)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		restored, err := sqldb.Open(ctx, "", dir)
		if err != nil {
			t.Fatal(err)
		}
		defer restored.Close()
		all, err := restored.Archive.AllProjects(ctx)
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, p := range all {
			have[p.ID] = true
		}
		for _, id := range before {
			if !have[id] {
				t.Fatalf("project %s, acknowledged before the snapshot, is missing from it", id)
			}
		}
		if len(all) >= ackedCount() {
			t.Fatalf("the snapshot has %d projects although %d were written by the end; it was not taken mid-stream", len(all), ackedCount())
		}
		t.Logf("acknowledged before the snapshot: %d; in the snapshot: %d; written in all: %d", len(before), len(all), ackedCount())
	})
}

func TestPruneKeepsTheNewest(t *testing.T) {
	stores(t, func(t *testing.T, st store) {
		ctx := context.Background()
		db := foliotest.MustOpenSQLite(t)
		now := time.Date(2026, 4, 1, 3, 0, 0, 0, time.UTC)
		svc := &backup.Service{DB: db, Queue: db.Jobs, Store: st, Signer: signer(t, testSecret), TempDir: t.TempDir(), Keep: 2, Now: func() time.Time { return now }}
		var made []string
		for i := 0; i < 4; i++ {
			k, err := svc.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			made = append(made, k)
			now = now.Add(24 * time.Hour)
		}
		left, err := svc.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(left) != 2 || left[0] != made[2] || left[1] != made[3] {
			t.Fatalf("left %v, want the newest two of %v", left, made)
		}
		// Manifests go with their snapshots.
		all, _ := st.List(ctx, backup.Prefix)
		if len(all) != 4 || all[0] != made[2] || all[1] != made[2]+backup.ManifestSuffix {
			t.Fatalf("stored %v", all)
		}
	})
}

// TestScheduledOnceAcrossInstances: two instances schedule the same slot; one snapshot is taken
// and the next slot is scheduled.
func TestScheduledOnceAcrossInstances(t *testing.T) {
	ctx := context.Background()
	db := foliotest.MustOpenSQLite(t)
	mediaDir := t.TempDir()
	l, err := blob.NewLocal(mediaDir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	now := time.Date(2026, 4, 1, 10, 30, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	var scheds []*jobs.Scheduler
	for i := 0; i < 2; i++ {
		svc := &backup.Service{DB: db, Queue: db.Jobs, Store: l, Signer: signer(t, testSecret), TempDir: t.TempDir(), Keep: 7, Interval: 24 * time.Hour, Now: clock}
		if err := svc.Schedule(ctx); err != nil {
			t.Fatal(err)
		}
		s := jobs.New(db.Jobs, nil)
		s.Now = clock
		s.Handle(backup.JobKind, svc.Handle)
		scheds = append(scheds, s)
	}
	if n, _ := scheds[0].RunDue(ctx); n != 0 {
		t.Fatal("a snapshot ran before its slot")
	}
	now = time.Date(2026, 4, 2, 0, 0, 1, 0, time.UTC)
	n0, _ := scheds[0].RunDue(ctx)
	n1, _ := scheds[1].RunDue(ctx)
	if n0+n1 != 1 {
		t.Fatalf("%d snapshots for one slot", n0+n1)
	}
	js, _ := db.Jobs.JobsOfKind(ctx, backup.JobKind)
	if len(js) != 2 || js[0].Status != folio.JobDone || js[1].Status != folio.JobPending || !js[1].RunAt.Equal(time.Date(2026, 4, 3, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("jobs %+v", js)
	}
	keys, _ := l.List(ctx, backup.Prefix)
	if len(keys) != 2 || keys[1] != keys[0]+backup.ManifestSuffix {
		t.Fatalf("snapshots %v", keys)
	}
	// Snapshots hold password hashes and secrets: only the service's user may read the file.
	if fi, err := os.Stat(filepath.Join(mediaDir, keys[0])); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("snapshot file mode: %v %v", fi.Mode(), err)
	}
	// The local media handler never serves snapshots.
	if res := serve(l, "/media/"+keys[0]); res != 404 {
		t.Fatalf("GET /media/%s = %d", keys[0], res)
	}
}

func TestRestoreRefusesNonSnapshots(t *testing.T) {
	path := filepath.Join(t.TempDir(), "folio.db")
	if err := os.WriteFile(path, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := backup.Restore(context.Background(), strings.NewReader("not sqlite at all"), path, nil); err == nil {
		t.Fatal("restored garbage")
	}
	if b, _ := os.ReadFile(path); string(b) != "keep me" {
		t.Fatal("a refused restore touched the database")
	}
}

// TestRestoreBringsBackAnalytics: a snapshot holds the analytics file's rows too; restored over a
// database whose analytics file holds others (removed, as folio restore does; TestRestoreCommand
// covers the command), the next start has the snapshot's analytics only.
func TestRestoreBringsBackAnalytics(t *testing.T) {
	ctx := context.Background()
	l, err := blob.NewLocal(t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	db := foliotest.MustOpenSQLite(t)
	if _, err := db.Analytics().W.ExecContext(ctx, `INSERT INTO analytics_daily_totals (day, views, visits) VALUES ('2026-03-01', 7, 3)`); err != nil {
		t.Fatal(err)
	}
	svc := &backup.Service{DB: db, Queue: db.Jobs, Store: l, Signer: signer(t, testSecret), TempDir: t.TempDir(), Keep: 3}
	key, err := svc.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m, err := svc.Manifest(ctx, key)
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	old, err := sqldb.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := old.Analytics().W.ExecContext(ctx, `INSERT INTO analytics_daily_totals (day, views, visits) VALUES ('2025-12-31', 99, 9)`); err != nil {
		t.Fatal(err)
	}
	old.Close()

	r, _, err := l.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	err = backup.Restore(ctx, r, filepath.Join(dir, "folio.db"), &m)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := sqldb.RemoveAnalyticsFile(filepath.Join(dir, "folio.db")); err != nil { // as folio restore does
		t.Fatal(err)
	}
	restored, err := sqldb.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	if _, err := restored.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := restored.Analytics().R.QueryContext(ctx, `SELECT day, views FROM analytics_daily_totals ORDER BY day`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var day string
		var views int
		if err := rows.Scan(&day, &views); err != nil {
			t.Fatal(err)
		}
		got = append(got, day+"="+strconv.Itoa(views))
	}
	if strings.Join(got, ",") != "2026-03-01=7" {
		t.Fatalf("analytics after restore: %v, want the snapshot's [2026-03-01=7]", got)
	}
}
