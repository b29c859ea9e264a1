package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/httpapi"
	"github.com/foliohq/folio/internal/ratelimit"
	"github.com/foliohq/folio/internal/sqldb"
)

// BenchmarkListProjects reports the cost of GET /api/projects?limit=20 through the whole
// handler chain (request id, metrics, rate limiter, router, cache), served from the response
// cache ("cached") and rendered from SQLite every time ("uncached").
//
//	go test ./bench/projects -bench . -benchmem
func BenchmarkListProjects(b *testing.B) {
	for _, cached := range []bool{true, false} {
		name := "uncached"
		if cached {
			name = "cached"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			db, err := sqldb.Open(ctx, "", b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Migrate(ctx); err != nil {
				b.Fatal(err)
			}
			for i := 0; i < 20; i++ {
				t, d, s := fmt.Sprintf("Project %d", i), "description", folio.ProjectPublished
				if _, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: &t, Description: &d, Status: &s, Technologies: &[]string{"Go"}}); err != nil {
					b.Fatal(err)
				}
			}
			size := 0
			if cached {
				size = 100
			}
			s := &httpapi.Server{Content: content.New(db.Content), Limiter: ratelimit.NewMemory(time.Now), PublicCacheSize: size,
				Limits: httpapi.Limits{Public: 1 << 30, Authenticated: 1, Admin: 1, Helper: 1}}
			h := s.Handler()
			req := httptest.NewRequest("GET", "/api/projects?limit=20", nil)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d", w.Code)
				}
			}
		})
	}
}
