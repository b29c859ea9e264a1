// Package fedtest holds the conformance suite every store of the fediverse (the SQL ones
// included) must pass.
package fedtest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/fediverse"
)

// TestStore runs the suite; open returns an empty store for each subtest.
func TestStore(t *testing.T, open func(t *testing.T) fediverse.Store) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)

	t.Run("the first actor key stored wins", func(t *testing.T) {
		s := open(t)
		if _, err := s.ActorKey(ctx); !folio.IsNotFound(err) {
			t.Fatalf("ActorKey on an empty store: err = %v, want ENOTFOUND", err)
		}
		first := folio.ActorKey{SealedPrivate: "sealed-1", PublicPEM: "pem-1", CreatedAt: now}
		got, err := s.CreateActorKey(ctx, first)
		if err != nil || got.SealedPrivate != "sealed-1" || got.PublicPEM != "pem-1" || !got.CreatedAt.Equal(now) {
			t.Fatalf("CreateActorKey = %+v, %v", got, err)
		}
		got, err = s.CreateActorKey(ctx, folio.ActorKey{SealedPrivate: "sealed-2", PublicPEM: "pem-2", CreatedAt: now})
		if err != nil || got.SealedPrivate != "sealed-1" {
			t.Fatalf("second CreateActorKey = %+v, %v; want the first key kept", got, err)
		}
		if got, err := s.ActorKey(ctx); err != nil || got.PublicPEM != "pem-1" {
			t.Fatalf("ActorKey = %+v, %v", got, err)
		}
	})

	t.Run("followers: added once, counted, listed oldest first, removed", func(t *testing.T) {
		s := open(t)
		a := folio.Follower{ActorID: "https://a.example/users/ann", Inbox: "https://a.example/users/ann/inbox", SharedInbox: "https://a.example/inbox", CreatedAt: now}
		b := folio.Follower{ActorID: "https://b.example/users/bob", Inbox: "https://b.example/users/bob/inbox", CreatedAt: now.Add(time.Second)}
		for _, f := range []folio.Follower{a, b, a} {
			if err := s.AddFollower(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := s.FollowerCount(ctx); err != nil || n != 2 {
			t.Fatalf("FollowerCount = %d, %v; want 2 (a repeated follow counts once)", n, err)
		}
		fs, total, err := s.Followers(ctx, 1, 10)
		if err != nil || total != 2 || len(fs) != 2 || fs[0].ActorID != a.ActorID || fs[0].SharedInbox != a.SharedInbox || fs[1].ActorID != b.ActorID {
			t.Fatalf("Followers = %+v, %d, %v", fs, total, err)
		}
		a.Inbox = "https://a.example/users/ann/inbox2"
		if err := s.AddFollower(ctx, a); err != nil {
			t.Fatal(err)
		}
		if fs, _, _ := s.Followers(ctx, 1, 1); len(fs) != 1 || fs[0].Inbox != a.Inbox {
			t.Fatalf("a follow again did not replace the inbox: %+v", fs)
		}
		if ok, err := s.RemoveFollower(ctx, b.ActorID); err != nil || !ok {
			t.Fatalf("RemoveFollower = %v, %v", ok, err)
		}
		if ok, err := s.RemoveFollower(ctx, b.ActorID); err != nil || ok {
			t.Fatalf("RemoveFollower of a non-follower = %v, %v; want false", ok, err)
		}
		if n, _ := s.FollowerCount(ctx); n != 1 {
			t.Fatalf("FollowerCount after removal = %d", n)
		}
	})

	t.Run("delivery inboxes: a shared inbox once for all its followers", func(t *testing.T) {
		s := open(t)
		for i, f := range []folio.Follower{
			{ActorID: "https://m.example/users/1", Inbox: "https://m.example/users/1/inbox", SharedInbox: "https://m.example/inbox"},
			{ActorID: "https://m.example/users/2", Inbox: "https://m.example/users/2/inbox", SharedInbox: "https://m.example/inbox"},
			{ActorID: "https://solo.example/me", Inbox: "https://solo.example/me/inbox"},
		} {
			f.CreatedAt = now.Add(time.Duration(i) * time.Second)
			if err := s.AddFollower(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.DeliveryInboxes(ctx)
		want := []string{"https://m.example/inbox", "https://solo.example/me/inbox"}
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("DeliveryInboxes = %v, %v; want %v", got, err, want)
		}
	})
}
