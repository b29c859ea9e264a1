package sqldb_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
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
			p, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: ptr(title), Description: ptr("About " + title),
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
		d := mk("Delta", "archived", "Élixir", "C++")

		got, err := db.Projects.Project(ctx, a.ID)
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
			ps, total, err := db.Projects.Projects(ctx, f)
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
			{"all newest first", folio.ProjectFilter{}, []string{d.Title, c.Title, b.Title, a.Title}, 4},
			{"published", folio.ProjectFilter{Statuses: []string{"published"}}, []string{c.Title, a.Title}, 2},
			{"technology case-insensitive", folio.ProjectFilter{Technology: "GO"}, []string{c.Title, a.Title}, 2},
			{"technology beyond ASCII", folio.ProjectFilter{Technology: "éLIXIR"}, []string{d.Title}, 1},
			{"technology is matched whole", folio.ProjectFilter{Technology: "C"}, nil, 0},
			{"technology with a quote", folio.ProjectFilter{Technology: `go"]`}, nil, 0},
			{"technology and status", folio.ProjectFilter{Technology: "sqlite", Statuses: []string{"published"}}, []string{a.Title}, 1},
			{"query", folio.ProjectFilter{Query: "BETA"}, []string{b.Title}, 1},
			{"query wildcards are literal", folio.ProjectFilter{Query: "100%_"}, []string{c.Title}, 1},
			{"query percent alone matches only literal percent", folio.ProjectFilter{Query: "%"}, []string{c.Title}, 1},
			{"page 2", folio.ProjectFilter{Page: 2, Limit: 3}, []string{a.Title}, 4},
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
		_, total, _ := db.Projects.Projects(ctx, folio.ProjectFilter{Page: 5, Limit: 10})
		if total != 4 {
			t.Errorf("total = %d, want 4", total)
		}

		clock.Advance(time.Hour)
		up, err := content.New(db.Content).UpdateProject(ctx, b.ID, &folio.ProjectInput{Title: ptr("Beta site v2"), Description: ptr("x"), Technologies: &[]string{"Rust"}})
		if err != nil {
			t.Fatal(err)
		}
		if up.Status != "draft" || up.Title != "Beta site v2" || !up.UpdatedAt.After(up.CreatedAt) {
			t.Errorf("update: %+v", up)
		}
		if got, _ := list(folio.ProjectFilter{Technology: "typescript"}); len(got) != 0 {
			t.Errorf("old technology still matches: %q", got)
		}
		if got, _ := list(folio.ProjectFilter{Technology: "RUST"}); !equal(got, []string{up.Title}) {
			t.Errorf("new technology: got %q", got)
		}
		if _, err := content.New(db.Content).UpdateProject(ctx, "nope", &folio.ProjectInput{Title: ptr("x"), Description: ptr("y")}); folio.ErrorCode(err) != folio.ENOTFOUND {
			t.Errorf("update missing: %v", err)
		}
		if err := content.New(db.Content).DeleteProject(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Projects.Project(ctx, a.ID); folio.ErrorCode(err) != folio.ENOTFOUND {
			t.Errorf("get deleted: %v", err)
		}
		if err := content.New(db.Content).DeleteProject(ctx, a.ID); folio.ErrorCode(err) != folio.ENOTFOUND {
			t.Errorf("delete twice: %v", err)
		}
		if len(changed) != 6 {
			t.Errorf("Changed called %d times (%q), want 6", len(changed), changed)
		}
	})
}

// TestMigration0020KeepsTechnologyFilter runs migration 0020's copy of the technology rows onto
// their projects and checks the filter matches what the rows did.
func TestMigration0020KeepsTechnologyFilter(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		var ids []string
		for _, title := range []string{"tagged", "untagged"} {
			p, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: ptr(title), Description: ptr("d"), Status: ptr("published")})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		src, err := os.ReadFile("migrations/" + string(db.Dialect) + "/0020_project_technologies_column.sql")
		if err != nil {
			t.Fatal(err)
		}
		i, j := strings.Index(string(src), "UPDATE projects"), strings.Index(string(src), "DROP TABLE")
		if i < 0 || j < i {
			t.Fatal("no copy in migration 0020")
		}
		for _, q := range []string{
			`CREATE TABLE project_technologies (project_id TEXT NOT NULL, technology TEXT NOT NULL)`,
			`INSERT INTO project_technologies VALUES ('` + ids[0] + `', 'go'), ('` + ids[0] + `', 'élixir')`,
			string(src[i:j]),
			`DROP TABLE project_technologies`,
		} {
			if _, err := db.W.ExecContext(ctx, q); err != nil {
				t.Fatal(q, err)
			}
		}
		for tech, want := range map[string]int{"GO": 1, "Élixir": 1, "rust": 0} {
			ps, total, err := db.Projects.Projects(ctx, folio.ProjectFilter{Technology: tech, Page: 1, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if total != want || len(ps) != want || (want == 1 && ps[0].ID != ids[0]) {
				t.Errorf("technology %q: %d projects (total %d), want %d", tech, len(ps), total, want)
			}
		}
		var untagged string
		if err := db.R.QueryRowContext(ctx, `SELECT technologies_lower FROM projects WHERE id = $1`, ids[1]).Scan(&untagged); err != nil || untagged != "[]" {
			t.Errorf("a project without technology rows holds %q, %v; want []", untagged, err)
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
