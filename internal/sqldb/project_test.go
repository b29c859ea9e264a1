package sqldb_test

import (
	"context"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/sqldb"
)

func ptr[T any](v T) *T { return &v }

func TestProjects(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		clock := foliotest.NewClock(time.Date(2026, 5, 1, 12, 0, 0, 123456789, time.UTC))
		db.Now = clock.Now
		var changed []string
		db.Changed = func(scope string) { changed = append(changed, scope) }

		mk := func(title, status string, techs ...string) *folio.Project {
			t.Helper()
			clock.Advance(time.Minute)
			p, err := db.CreateProject(ctx, &folio.ProjectInput{Title: ptr(title), Description: ptr("About " + title),
				Technologies: &techs, Status: ptr(status),
				Images: &[]folio.ProjectImage{{URL: "https://example.com/a.png", Alt: "shot", Type: "screenshot", Width: 640, Height: 480}}})
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		a := mk("Alpha compiler", "published", "Go", "SQLite")
		b := mk("Beta site", "draft", "TypeScript")
		c := mk("Gamma 100%_done", "published", "go")

		got, err := db.Project(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Title != a.Title || !got.CreatedAt.Equal(a.CreatedAt) || got.CreatedAt.Nanosecond() != 123456000 {
			t.Errorf("round trip: got %+v, want %+v", got, a)
		}
		if len(got.Images) != 1 || got.Images[0].Width != 640 || got.Technologies[1] != "SQLite" {
			t.Errorf("round trip of lists: %+v", got)
		}

		list := func(f folio.ProjectFilter) ([]string, int) {
			t.Helper()
			if f.Page == 0 {
				f.Page, f.Limit = 1, 10
			}
			ps, total, err := db.Projects(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, p := range ps {
				ids = append(ids, p.Title)
			}
			return ids, total
		}
		for _, tc := range []struct {
			name  string
			f     folio.ProjectFilter
			want  []string
			total int // of the whole filtered list, not the page
		}{
			{"all newest first", folio.ProjectFilter{}, []string{c.Title, b.Title, a.Title}, 3},
			{"published", folio.ProjectFilter{Statuses: []string{"published"}}, []string{c.Title, a.Title}, 2},
			{"technology case-insensitive", folio.ProjectFilter{Technology: "GO"}, []string{c.Title, a.Title}, 2},
			{"query", folio.ProjectFilter{Query: "BETA"}, []string{b.Title}, 1},
			{"query wildcards are literal", folio.ProjectFilter{Query: "100%_"}, []string{c.Title}, 1},
			{"query percent alone matches only literal percent", folio.ProjectFilter{Query: "%"}, []string{c.Title}, 1},
			{"page 2", folio.ProjectFilter{Page: 2, Limit: 2}, []string{a.Title}, 3},
			{"published page past the end", folio.ProjectFilter{Statuses: []string{"published"}, Page: 3, Limit: 1}, nil, 2},
			{"no match", folio.ProjectFilter{Query: "nothing like it"}, nil, 0},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got, total := list(tc.f)
				if !equal(got, tc.want) || total != tc.total {
					t.Errorf("got %q (total %d), want %q (total %d)", got, total, tc.want, tc.total)
				}
			})
		}
		_, total, _ := db.Projects(ctx, folio.ProjectFilter{Page: 5, Limit: 10})
		if total != 3 {
			t.Errorf("total = %d, want 3", total)
		}

		clock.Advance(time.Hour)
		up, err := db.UpdateProject(ctx, b.ID, &folio.ProjectInput{Title: ptr("Beta site v2"), Description: ptr("x"), Technologies: &[]string{"Rust"}})
		if err != nil {
			t.Fatal(err)
		}
		if up.Status != "draft" || up.Title != "Beta site v2" || !up.UpdatedAt.After(up.CreatedAt) {
			t.Errorf("update: %+v", up)
		}
		if got, _ := list(folio.ProjectFilter{Technology: "typescript"}); len(got) != 0 {
			t.Errorf("old technology still matches: %q", got)
		}
		if _, err := db.UpdateProject(ctx, "nope", &folio.ProjectInput{Title: ptr("x"), Description: ptr("y")}); folio.ErrorCode(err) != folio.ENOTFOUND {
			t.Errorf("update missing: %v", err)
		}
		if err := db.DeleteProject(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Project(ctx, a.ID); folio.ErrorCode(err) != folio.ENOTFOUND {
			t.Errorf("get deleted: %v", err)
		}
		if err := db.DeleteProject(ctx, a.ID); folio.ErrorCode(err) != folio.ENOTFOUND {
			t.Errorf("delete twice: %v", err)
		}
		if len(changed) != 5 {
			t.Errorf("Changed called %d times (%q), want 5", len(changed), changed)
		}
	})
}

func TestMigrateIsIdempotent(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		applied, err := db.Migrate(context.Background())
		if err != nil || len(applied) != 0 {
			t.Fatalf("second migrate applied %q, %v", applied, err)
		}
	})
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
