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
//
// Store is the fediverse's store plus what the comment routes read.
type Store interface {
	fediverse.Store
	Comment(ctx context.Context, id string) (folio.Comment, error)
	Comments(ctx context.Context, f folio.CommentFilter) ([]folio.Comment, int, error)
	SetCommentStatus(ctx context.Context, id, status string) error
	Reactions(ctx context.Context, postID string) (folio.Reactions, error)
}

func TestStore(t *testing.T, open func(t *testing.T) Store) {
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

	t.Run("comments: saved once per source, moderated, listed by post and status", func(t *testing.T) {
		s := open(t)
		c := folio.Comment{ID: "c1", PostID: "p1", Source: folio.CommentActivityPub, SourceID: "https://m.example/notes/1",
			AuthorName: "Ann", AuthorURL: "https://m.example/@ann", Content: "<p>hi</p>", URL: "https://m.example/@ann/1",
			Status: folio.CommentPending, PublishedAt: now, CreatedAt: now}
		if err := s.SaveComment(ctx, c); err != nil {
			t.Fatal(err)
		}
		edited := c
		edited.ID, edited.Content, edited.Status = "c2", "<p>hi, edited</p>", folio.CommentApproved
		if err := s.SaveComment(ctx, edited); err != nil {
			t.Fatal(err)
		}
		got, err := s.Comment(ctx, "c1")
		if err != nil || got.Content != "<p>hi, edited</p>" || got.Status != folio.CommentPending || !got.PublishedAt.Equal(now) {
			t.Fatalf("after a second save from the same source: %+v, %v; want c1 edited and still pending", got, err)
		}
		other := folio.Comment{ID: "c3", PostID: "p2", Source: folio.CommentWebmention, SourceID: "https://blog.example/r",
			Content: "x", Status: folio.CommentPending, PublishedAt: now.Add(time.Minute), CreatedAt: now}
		if err := s.SaveComment(ctx, other); err != nil {
			t.Fatal(err)
		}
		if err := s.SetCommentStatus(ctx, "c1", folio.CommentApproved); err != nil {
			t.Fatal(err)
		}
		if err := s.SetCommentStatus(ctx, "nope", folio.CommentApproved); !folio.IsNotFound(err) {
			t.Fatalf("SetCommentStatus(unknown) = %v, want ENOTFOUND", err)
		}
		list := func(f folio.CommentFilter) []string {
			f.Page, f.Limit = 1, 10
			cs, n, err := s.Comments(ctx, f)
			if err != nil || n != len(cs) {
				t.Fatalf("Comments(%+v) = %d of %d, %v", f, len(cs), n, err)
			}
			var ids []string
			for _, c := range cs {
				ids = append(ids, c.ID)
			}
			return ids
		}
		if got := list(folio.CommentFilter{}); !slices.Equal(got, []string{"c3", "c1"}) {
			t.Fatalf("all comments, newest first = %v", got)
		}
		if got := list(folio.CommentFilter{PostID: "p1", Status: folio.CommentApproved}); !slices.Equal(got, []string{"c1"}) {
			t.Fatalf("approved of p1 = %v", got)
		}
		if got := list(folio.CommentFilter{Status: folio.CommentPending}); !slices.Equal(got, []string{"c3"}) {
			t.Fatalf("pending = %v", got)
		}
	})

	t.Run("spam: a spam author's later comments land as spam; an owner's reply keeps its parent", func(t *testing.T) {
		s := open(t)
		c := func(id, author, status string) folio.Comment {
			return folio.Comment{ID: id, PostID: "p1", Source: folio.CommentActivityPub, SourceID: "https://m.example/notes/" + id,
				AuthorID: author, Content: "x", Status: status, PublishedAt: now, CreatedAt: now}
		}
		for _, x := range []folio.Comment{c("s1", "https://m.example/users/spammer", folio.CommentPending),
			c("o1", "https://m.example/users/ok", folio.CommentPending)} {
			if err := s.SaveComment(ctx, x); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SetCommentStatus(ctx, "s1", folio.CommentSpam); err != nil {
			t.Fatal(err)
		}
		for _, x := range []folio.Comment{c("s2", "https://m.example/users/spammer", folio.CommentPending),
			c("o2", "https://m.example/users/ok", folio.CommentPending), c("n1", "", folio.CommentPending)} {
			if err := s.SaveComment(ctx, x); err != nil {
				t.Fatal(err)
			}
		}
		want := map[string]string{"s1": folio.CommentSpam, "s2": folio.CommentSpam, "o1": folio.CommentPending,
			"o2": folio.CommentPending, "n1": folio.CommentPending}
		for id, st := range want {
			if got, err := s.Comment(ctx, id); err != nil || got.Status != st {
				t.Fatalf("comment %s: %+v, %v; want status %s", id, got, err, st)
			}
		}
		reply := c("r1", "https://site.example/ap/actor", folio.CommentApproved)
		reply.InReplyTo = "o1"
		if err := s.SaveComment(ctx, reply); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Comment(ctx, "r1"); err != nil || got.InReplyTo != "o1" || got.AuthorID != reply.AuthorID || got.Status != folio.CommentApproved {
			t.Fatalf("reply: %+v, %v", got, err)
		}
		if cs, n, err := s.Comments(ctx, folio.CommentFilter{Status: folio.CommentSpam, Page: 1, Limit: 10}); err != nil || n != 2 || len(cs) != 2 {
			t.Fatalf("spam list: %d, %v", n, err)
		}
		if ok, err := s.DeleteComment(ctx, folio.CommentActivityPub, "https://m.example/notes/o1", "https://m.example/users/someone-else"); err != nil || ok {
			t.Fatalf("DeleteComment by another author = %v, %v; want nothing deleted", ok, err)
		}
		if ok, err := s.DeleteComment(ctx, folio.CommentActivityPub, "https://m.example/notes/o1", "https://m.example/users/ok"); err != nil || !ok {
			t.Fatalf("DeleteComment by its author = %v, %v", ok, err)
		}
		if _, err := s.Comment(ctx, "o1"); !folio.IsNotFound(err) {
			t.Fatalf("a deleted comment reads: %v", err)
		}
	})

	t.Run("reactions: once per actor and kind, undone", func(t *testing.T) {
		s := open(t)
		for _, r := range []struct{ kind, actor string }{{folio.ReactionLike, "a"}, {folio.ReactionLike, "a"}, {folio.ReactionLike, "b"}, {folio.ReactionAnnounce, "a"}} {
			if err := s.AddReaction(ctx, "p1", r.kind, r.actor, now); err != nil {
				t.Fatal(err)
			}
		}
		if r, err := s.Reactions(ctx, "p1"); err != nil || r != (folio.Reactions{Likes: 2, Announces: 1}) {
			t.Fatalf("Reactions = %+v, %v", r, err)
		}
		if err := s.RemoveReaction(ctx, folio.ReactionLike, "a"); err != nil {
			t.Fatal(err)
		}
		if r, _ := s.Reactions(ctx, "p1"); r != (folio.Reactions{Likes: 1, Announces: 1}) {
			t.Fatalf("Reactions after an Undo = %+v", r)
		}
	})

	t.Run("blocks: an actor or a domain; a block ends the follows it covers", func(t *testing.T) {
		s := open(t)
		for i, id := range []string{"https://bad.example/users/x", "http://bad.example:8080/users/y", "https://good.example/users/z", "https://bad.example.org/users/w"} {
			if err := s.AddFollower(ctx, folio.Follower{ActorID: id, Inbox: id + "/inbox", CreatedAt: now.Add(time.Duration(i) * time.Second)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Block(ctx, folio.Block{Target: "bad.example", CreatedAt: now}); err != nil {
			t.Fatal(err)
		}
		fs, _, _ := s.Followers(ctx, 1, 10)
		var left []string
		for _, f := range fs {
			left = append(left, f.ActorID)
		}
		if !slices.Equal(left, []string{"https://good.example/users/z", "https://bad.example.org/users/w"}) {
			t.Fatalf("followers after blocking bad.example: %v", left)
		}
		if b, err := s.Blocked(ctx, "https://other.example/u", "bad.example"); err != nil || !b {
			t.Fatalf("Blocked(bad.example) = %v, %v", b, err)
		}
		if b, _ := s.Blocked(ctx, "https://good.example/users/z", "good.example"); b {
			t.Fatal("good.example reads as blocked")
		}
		if bs, err := s.Blocks(ctx); err != nil || len(bs) != 1 || bs[0].Target != "bad.example" {
			t.Fatalf("Blocks = %+v, %v", bs, err)
		}
		if ok, err := s.Unblock(ctx, "bad.example"); err != nil || !ok {
			t.Fatalf("Unblock = %v, %v", ok, err)
		}
		if ok, _ := s.Unblock(ctx, "bad.example"); ok {
			t.Fatal("a second Unblock found a block")
		}
	})
}
