package sqldb_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/foliotest"
	"github.com/foliohq/folio/internal/mail"
	"github.com/foliohq/folio/internal/sqldb"
	"github.com/foliohq/folio/internal/webhook/webhooktest"
)

// TestEventsEmittedWithTheirWrites: every event type that exists today is queued by the write
// that causes it — once, with the write — and only for webhooks subscribed to it.
func TestEventsEmittedWithTheirWrites(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		all := folio.Webhook{ID: "hook-all", URL: "https://r.example/all", Events: folio.EventTypes, CreatedAt: time.Now()}
		if err := db.Webhooks.CreateWebhook(ctx, all, "whsec_AAAA"); err != nil {
			t.Fatal(err)
		}
		none := folio.Webhook{ID: "hook-media", URL: "https://r.example/m", Events: []string{folio.EventBookingCancelled}, CreatedAt: time.Now()}
		if err := db.Webhooks.CreateWebhook(ctx, none, "whsec_AAAA"); err != nil {
			t.Fatal(err)
		}
		types := func() []string {
			t.Helper()
			ds, _, err := db.Webhooks.WebhookDeliveries(ctx, all.ID, 1, 100)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]string, len(ds))
			for i, d := range ds {
				out[len(ds)-1-i] = d.EventType // oldest first
			}
			return out
		}
		want := []string{}
		expect := func(what string, more ...string) {
			t.Helper()
			want = append(want, more...)
			if got := types(); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("after %s: events %v, want %v", what, got, want)
			}
		}

		p, err := content.New(db.Content).CreateProject(ctx, &folio.ProjectInput{Title: ptr("P"), Description: ptr("d")})
		if err != nil {
			t.Fatal(err)
		}
		expect("create project", folio.EventProjectCreated)
		if _, err := content.New(db.Content).UpdateProject(ctx, p.ID, &folio.ProjectInput{Title: ptr("P2"), Description: ptr("d")}); err != nil {
			t.Fatal(err)
		}
		expect("update project", folio.EventProjectUpdated)
		if err := content.New(db.Content).DeleteProject(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
		expect("delete project", folio.EventProjectDeleted)
		if err := content.New(db.Content).DeleteProject(ctx, p.ID); !folio.IsNotFound(err) {
			t.Fatal(err)
		}
		expect("delete missing project")

		draft, err := content.New(db.Content).CreatePost(ctx, &folio.PostInput{Title: ptr("Draft"), Content: ptr("c")}, folio.PostAuthor{})
		if err != nil {
			t.Fatal(err)
		}
		expect("create draft")
		if _, err := content.New(db.Content).UpdatePost(ctx, draft.ID, &folio.PostInput{Status: ptr(folio.PostPublished)}); err != nil {
			t.Fatal(err)
		}
		expect("publish by update", folio.EventPostPublished)
		if _, err := content.New(db.Content).UpdatePost(ctx, draft.ID, &folio.PostInput{Title: ptr("Edited")}); err != nil {
			t.Fatal(err)
		}
		expect("edit a published post")
		if _, err := content.New(db.Content).SavePublishingOptions(ctx, &folio.PublishingPlan{PostID: draft.ID}); err != nil {
			t.Fatal(err)
		}
		expect("unpublish by publishing options", folio.EventPostUnpublished)
		at := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
		if _, err := content.New(db.Content).SavePublishingOptions(ctx, &folio.PublishingPlan{PostID: draft.ID, ScheduledAt: &at}); err != nil {
			t.Fatal(err)
		}
		expect("schedule")
		if _, published, err := content.New(db.Content).PublishScheduled(ctx, draft.ID, at); err != nil || !published {
			t.Fatal(err)
		}
		expect("scheduled publication", folio.EventPostPublished)
		if _, err := content.New(db.Content).CreatePost(ctx, &folio.PostInput{Title: ptr("Live"), Content: ptr("c"), Status: ptr(folio.PostPublished)}, folio.PostAuthor{}); err != nil {
			t.Fatal(err)
		}
		expect("create published", folio.EventPostPublished)

		obj := folio.MediaObject{Key: "abc.png", URL: "https://m.example/abc.png", Filename: "a.png", Size: 3, ContentType: "image/png"}
		if err := db.Media.RecordMedia(ctx, obj, "upload", "", ""); err != nil {
			t.Fatal(err)
		}
		if err := db.Media.RecordMedia(ctx, obj, "upload", "", ""); err != nil {
			t.Fatal(err)
		}
		expect("the same upload twice", folio.EventMediaUploaded)

		ob := mail.NewOutbox(db.Outbox, nil, folio.MailAddress{Email: "f@example.com"}, nil)
		item, err := ob.NewItem(&folio.MailMessage{From: folio.MailAddress{Email: "f@example.com"}, To: []folio.MailAddress{{Email: "o@example.com"}},
			Subject: "s", Text: "t"})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Contact.InsertContactMessage(ctx, folio.ContactMessage{ID: "c1", Name: "Ada", Email: "ada@example.com", Message: "Hi",
			CreatedAt: time.Now()}, item); err != nil {
			t.Fatal(err)
		}
		expect("contact message", folio.EventContactReceived)

		// Emit (no transaction of the caller's) for the events other code adds.
		if err := db.Webhooks.Emit(ctx, folio.Event{Type: folio.EventBookingCancelled, Data: map[string]string{"id": "b1"}}); err != nil {
			t.Fatal(err)
		}
		expect("Emit", folio.EventBookingCancelled)
		if ds, total, _ := db.Webhooks.WebhookDeliveries(ctx, none.ID, 1, 10); total != 1 || ds[0].EventType != folio.EventBookingCancelled {
			t.Fatalf("the booking.cancelled-only webhook got %+v", ds)
		}
		d, err := db.Webhooks.OutgoingDelivery(ctx, func() string { ds, _, _ := db.Webhooks.WebhookDeliveries(ctx, all.ID, 1, 1); return ds[0].ID }())
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		if err := json.Unmarshal(d.Body, &body); err != nil || body["type"] != folio.EventBookingCancelled || body["data"] == nil || body["timestamp"] == nil {
			t.Fatalf("body %s", d.Body)
		}
		js, _ := db.Jobs.JobsOfKind(ctx, folio.JobWebhookDelivery)
		if len(js) != len(want)+1 {
			t.Fatalf("%d delivery jobs for %d deliveries", len(js), len(want)+1)
		}
	})
}

func TestWebhookStore(t *testing.T) {
	foliotest.Engines(t, func(t *testing.T, db *sqldb.DB) {
		webhooktest.TestStore(t, func(*testing.T) webhooktest.Store { return db.Webhooks })
	})
}
