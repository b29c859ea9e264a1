package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/auth"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/httpapi"
	"github.com/foliohq/folio/internal/ratelimit"
	"github.com/foliohq/folio/internal/sqldb"
)

// BenchmarkCreateProject reports the cost of POST /api/projects through the whole handler chain
// with a real write key (key lookup, limiter, validation, transaction, invalidation, usage), on
// SQLite and, when FOLIO_TEST_POSTGRES_URL is set, on PostgreSQL (in the URL's database).
//
//	go test ./bench/projects -run '^$' -bench CreateProject -benchmem -cpuprofile cpu.out
func BenchmarkCreateProject(b *testing.B) {
	dbs := map[string]string{"sqlite": ""}
	if u := os.Getenv("FOLIO_BENCH_POSTGRES_URL"); u != "" {
		dbs["postgres"] = u
	}
	for name, url := range dbs {
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			db, err := sqldb.Open(ctx, url, b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Migrate(ctx); err != nil {
				b.Fatal(err)
			}
			u, err := db.Identity.CreateUser(ctx, &folio.UserInput{Email: "bench-" + folio.NewID() + "@example.com", Name: "Bench", Role: folio.RoleOwner}, "x")
			if err != nil {
				b.Fatal(err)
			}
			secret, prefix, hash := auth.MintAPIKey()
			if err := db.Identity.CreateAPIKey(ctx, &folio.APIKey{UserID: u.ID, Name: "bench", Level: folio.LevelWrite, Prefix: prefix}, hash); err != nil {
				b.Fatal(err)
			}
			id, err := httpapi.NewIdentity(db.Identity, httpapi.IdentityConfig{Secret: strings.Repeat("s", 32)})
			if err != nil {
				b.Fatal(err)
			}
			s := &httpapi.Server{Content: content.New(db.Content), Auth: id, Identity: id, Limiter: ratelimit.NewMemory(time.Now), PublicCacheSize: 100,
				Limits: httpapi.Limits{Public: 1 << 30, Authenticated: 1 << 30, Admin: 1 << 30, Helper: 1 << 30}}
			h := s.Handler()
			db.Changed = func(scope string) { s.Invalidate(scope) }
			body := `{"title":"Benchmark project","description":"A project created by the benchmark.","technologies":["Go","SQLite","HTMX"],"status":"published","demoUrl":"https://example.com/demo"}`
			b.ReportAllocs()
			b.SetParallelism(8)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req := httptest.NewRequest("POST", "/api/projects", strings.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+secret)
					req.Header.Set("Content-Type", "application/json")
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					if w.Code != http.StatusCreated {
						b.Errorf("status %d: %s", w.Code, w.Body)
						return
					}
				}
			})
		})
	}
}
