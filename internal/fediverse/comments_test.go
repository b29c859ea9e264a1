package fediverse_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
)

func ptr[T any](v T) *T { return &v }

// TestInboxReplyThenDeleteNote: Mastodon's reply (its documented Create{Note}) to a published
// post becomes a pending comment of its author; Mastodon's Delete of the Note (a Tombstone)
// removes it. Another server cannot delete it.
func TestInboxReplyThenDeleteNote(t *testing.T) {
	svc, db := newService(t)
	_, rk := keys(t)
	rm := newRemote(t, rk)
	ctx := context.Background()
	if _, err := content.New(db.Content).CreatePost(ctx, &folio.PostInput{Title: ptr("Hello fediverse"), Content: ptr("x"),
		Status: ptr(folio.PostPublished)}, folio.PostAuthor{Name: "Owner"}); err != nil {
		t.Fatal(err)
	}
	body := rm.fixture(t, "create_note_reply.json")
	if err := svc.Inbox(ctx, signedByRemote(t, rk, rm.actor()+"#main-key", body, time.Now()), body); err != nil {
		t.Fatalf("Inbox(Create) = %v", err)
	}
	cs, n, err := db.Fediverse.Comments(ctx, folio.CommentFilter{Page: 1, Limit: 10})
	if err != nil || n != 1 || cs[0].AuthorID != rm.actor() || cs[0].Status != folio.CommentPending ||
		!strings.Contains(cs[0].Content, "Nice post!") || strings.Contains(cs[0].Content, "<script") {
		t.Fatalf("comments after the reply: %+v, %d, %v", cs, n, err)
	}
	del := rm.fixture(t, "delete_note.json")
	if err := svc.Inbox(ctx, signedByRemote(t, rk, rm.actor()+"#main-key", del, time.Now()), del); err != nil {
		t.Fatalf("Inbox(Delete) = %v", err)
	}
	if _, n, _ := db.Fediverse.Comments(ctx, folio.CommentFilter{Page: 1, Limit: 10}); n != 0 {
		t.Fatalf("comments after the Note's Delete = %d, want 0", n)
	}
}

// TestSiteFollowsSettings: the actor's id, name and icon, and the posts' URLs, follow the
// settings at each use.
func TestSiteFollowsSettings(t *testing.T) {
	svc, _ := newService(t)
	if a := svc.Actor(); a.ID != siteURL+"/ap/actor" || a.Name != "site" || a.Icon != nil {
		t.Fatalf("without settings: %+v", a)
	}
	cur := folio.SiteSettings{URL: "https://new.example/", Name: "New Site", PhotoURL: "https://new.example/me.png"}
	svc.Site = func() folio.SiteSettings { return cur }
	a := svc.Actor()
	if a.ID != "https://new.example/ap/actor" || a.Inbox != "https://new.example/ap/inbox" || a.Name != "New Site" ||
		a.PreferredUsername != "site" || a.Icon == nil || a.Icon.URL != cur.PhotoURL || a.PublicKey.ID != "https://new.example/ap/actor#main-key" {
		t.Fatalf("with settings: %+v", a)
	}
	if u := svc.PostURL("x"); u != "https://new.example/blog/x" {
		t.Fatalf("PostURL = %s", u)
	}
	if _, err := svc.WebFinger("acct:site@new.example", "other.example"); err != nil {
		t.Fatalf("WebFinger on the new host: %v", err)
	}
	cur = folio.SiteSettings{} // settings without a URL: FOLIO_SITE_URL's
	if a := svc.Actor(); a.ID != siteURL+"/ap/actor" {
		t.Fatalf("after the URL was cleared: %s", a.ID)
	}
}
