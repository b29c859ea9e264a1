// Package webhooks benchmarks what outgoing webhooks cost the writes that emit them: creating a
// project on SQLite with no webhook (the anchor) and with three subscribed webhooks (three
// delivery rows and three jobs in the same transaction), and signing one delivery.
// Run: go test -bench . -benchmem ./bench/webhooks
package webhooks

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/webhook"
)

func openDB(b *testing.B, hooks int) *sqldb.DB {
	b.Helper()
	db, err := sqldb.Open(context.Background(), "", b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < hooks; i++ {
		h := folio.Webhook{ID: "hook-" + strconv.Itoa(i), URL: "https://receiver.example/" + strconv.Itoa(i),
			Events: []string{folio.EventProjectCreated, folio.EventContactReceived}, CreatedAt: time.Now()}
		if err := db.Webhooks.CreateWebhook(context.Background(), h, webhook.NewSecret()); err != nil {
			b.Fatal(err)
		}
	}
	return db
}

func BenchmarkCreateProject(b *testing.B) {
	for _, hooks := range []int{0, 3} {
		b.Run("webhooks="+strconv.Itoa(hooks), func(b *testing.B) {
			db := openDB(b, hooks)
			title, desc := "Benchmark", "A project created in a benchmark."
			in := &folio.ProjectInput{Title: &title, Description: &desc}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := content.New(db.Content).CreateProject(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSign(b *testing.B) {
	key, _ := webhook.DecodeSecret(webhook.NewSecret())
	body := make([]byte, 1024)
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		webhook.Sign(key, "msg_0123456789", 1767225600, body)
	}
}
