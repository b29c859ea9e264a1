// Package publishingtest holds a conformance suite that every publishing.Store (the SQL ones on
// both engines) must pass.
package publishingtest

import (
	"context"
	"testing"
	"time"

	"github.com/foliohq/folio"
	"github.com/foliohq/folio/internal/content"
	"github.com/foliohq/folio/internal/publishing"
)

// Stores are the stores one subtest runs on: Store under test, and Content over the same data to
// create and read the articles.
type Stores struct {
	Store   publishing.Store
	Content content.Store
}

func ptr[T any](v T) *T { return &v }

// TestStore runs the conformance suite; open returns fresh, empty stores for each subtest.
func TestStore(t *testing.T, open func(t *testing.T) Stores) {
	ctx := context.Background()
	now := time.Date(2030, 3, 4, 9, 0, 0, 0, time.UTC)
	code := func(err error) string {
		if err == nil {
			return ""
		}
		return folio.ErrorCode(err)
	}
	article := func(t *testing.T, s Stores, slug string) *folio.Post {
		t.Helper()
		p, err := content.New(s.Content).CreatePost(ctx, &folio.PostInput{Title: ptr("Article " + slug), Slug: ptr(slug),
			Content: ptr("Body of " + slug + "."), Status: ptr(folio.PostPublished)}, folio.PostAuthor{Name: "A"})
		if err != nil {
			t.Fatalf("CreatePost(%q): %v", slug, err)
		}
		return p
	}
	state := func(t *testing.T, s Stores, id string) folio.ExtblogState {
		t.Helper()
		st, err := s.Store.ExtblogState(ctx, id)
		if err != nil {
			t.Fatalf("ExtblogState(%s): %v", id, err)
		}
		return st
	}
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	t.Run("StateRoundTrip", func(t *testing.T) {
		s := open(t)
		a, b := article(t, s, "a"), article(t, s, "b")
		if st := state(t, s, a.ID); st.ExtblogID != "" || st.Unpublished() {
			t.Fatalf("new article state = %+v, want unlinked", st)
		}
		if _, err := s.Store.ExtblogState(ctx, "missing"); code(err) != folio.ENOTFOUND {
			t.Fatalf("ExtblogState(missing) = %v, want ENOTFOUND", err)
		}
		must(t, s.Store.SetExtblogPublished(ctx, a.ID, "x1"))
		if st := state(t, s, a.ID); st.ExtblogID != "x1" || st.Unpublished() {
			t.Fatalf("state = %+v, want linked to x1", st)
		}
		if p, err := s.Content.Post(ctx, a.ID); err != nil || p.ExtblogID != "x1" {
			t.Fatalf("Post(a).ExtblogID = %v, %v; want x1", p, err)
		}
		if err := s.Store.SetExtblogPublished(ctx, b.ID, "x1"); code(err) != folio.ECONFLICT {
			t.Fatalf("linking a second article to x1 = %v, want ECONFLICT", err)
		}
		if err := s.Store.SetExtblogPublished(ctx, "missing", "x2"); code(err) != folio.ENOTFOUND {
			t.Fatalf("SetExtblogPublished(missing) = %v, want ENOTFOUND", err)
		}
	})

	t.Run("PublishedAndUnpublished", func(t *testing.T) {
		s := open(t)
		a := article(t, s, "a")
		must(t, s.Store.SetExtblogPublished(ctx, a.ID, "x1"))
		must(t, s.Store.SetExtblogUnpublished(ctx, a.ID, "x1", &now))
		if st := state(t, s, a.ID); st.ExtblogID != "x1" || st.UnpublishedAt == nil || !st.UnpublishedAt.Equal(now) {
			t.Fatalf("state = %+v, want x1 unpublished at %v", st, now)
		}
		// A mark for a platform post the article is no longer linked to changes nothing.
		must(t, s.Store.SetExtblogUnpublished(ctx, a.ID, "other", nil))
		if st := state(t, s, a.ID); !st.Unpublished() {
			t.Fatalf("state = %+v: a mark for another platform post cleared it", st)
		}
		must(t, s.Store.SetExtblogUnpublished(ctx, a.ID, "x1", nil))
		if st := state(t, s, a.ID); st.Unpublished() {
			t.Fatalf("state = %+v, want the mark cleared", st)
		}
		must(t, s.Store.SetExtblogUnpublished(ctx, a.ID, "x1", &now))
		must(t, s.Store.SetExtblogPublished(ctx, a.ID, "x1"))
		if st := state(t, s, a.ID); st.Unpublished() {
			t.Fatalf("state = %+v: publishing again keeps the mark", st)
		}
	})

	t.Run("ClearID", func(t *testing.T) {
		s := open(t)
		a := article(t, s, "a")
		must(t, s.Store.SetExtblogPublished(ctx, a.ID, "x1"))
		must(t, s.Store.SetExtblogUnpublished(ctx, a.ID, "x1", &now))
		must(t, s.Store.ClearExtblogID(ctx, a.ID, "other"))
		if st := state(t, s, a.ID); st.ExtblogID != "x1" {
			t.Fatalf("state = %+v: clearing another platform post unlinked it", st)
		}
		must(t, s.Store.ClearExtblogID(ctx, a.ID, "x1"))
		if st := state(t, s, a.ID); st.ExtblogID != "" || st.Unpublished() {
			t.Fatalf("state = %+v, want unlinked and unmarked", st)
		}
		// The platform post may now link another article.
		b := article(t, s, "b")
		must(t, s.Store.SetExtblogPublished(ctx, b.ID, "x1"))
	})

	t.Run("Lease", func(t *testing.T) {
		s := open(t)
		a := article(t, s, "a")
		acquire := func(token string, at time.Time) bool {
			t.Helper()
			ok, err := s.Store.AcquireExtblogLease(ctx, a.ID, token, at, time.Minute)
			must(t, err)
			return ok
		}
		if !acquire("one", now) {
			t.Fatal("a free lease was not acquired")
		}
		if acquire("two", now.Add(30*time.Second)) {
			t.Fatal("a second caller acquired a held lease")
		}
		must(t, s.Store.ReleaseExtblogLease(ctx, a.ID, "two")) // not its lease: nothing happens
		if acquire("two", now.Add(30*time.Second)) {
			t.Fatal("a release by a caller not holding the lease freed it")
		}
		must(t, s.Store.ReleaseExtblogLease(ctx, a.ID, "one"))
		if !acquire("two", now.Add(30*time.Second)) {
			t.Fatal("a released lease was not acquired")
		}
		if !acquire("three", now.Add(2*time.Minute)) {
			t.Fatal("a lapsed lease was not acquired")
		}
		other := article(t, s, "b")
		if ok, err := s.Store.AcquireExtblogLease(ctx, other.ID, "one", now.Add(2*time.Minute), time.Minute); err != nil || !ok {
			t.Fatalf("the lease of another article = %v, %v; want acquired", ok, err)
		}
	})

	t.Run("Deliveries", func(t *testing.T) {
		s := open(t)
		claim := func(id string, at time.Time) bool {
			t.Helper()
			ok, err := s.Store.ClaimExtblogDelivery(ctx, id, "POST_UPDATED", "x1", at)
			must(t, err)
			return ok
		}
		if !claim("d1", now) {
			t.Fatal("a new delivery was not claimed")
		}
		if claim("d1", now) {
			t.Fatal("a delivery was claimed twice")
		}
		must(t, s.Store.ReleaseExtblogDelivery(ctx, "d1"))
		if !claim("d1", now) {
			t.Fatal("a released delivery was not claimed again")
		}
		// Claims older than 30 days are forgotten.
		if !claim("d2", now.Add(31*24*time.Hour)) || !claim("d1", now.Add(31*24*time.Hour)) {
			t.Fatal("a delivery claimed 31 days ago is still remembered")
		}
	})

	t.Run("TombstonesAndDelete", func(t *testing.T) {
		s := open(t)
		a, b := article(t, s, "a"), article(t, s, "b")
		tomb := func(id string) bool {
			t.Helper()
			gone, err := s.Store.ExtblogTombstoned(ctx, id)
			must(t, err)
			return gone
		}
		must(t, s.Store.SetExtblogPublished(ctx, a.ID, "x1"))
		if tomb("x1") {
			t.Fatal("a live platform post is tombstoned")
		}
		changed, err := s.Store.ApplyExtblogDeleted(ctx, "x1", now)
		if err != nil || !changed {
			t.Fatalf("ApplyExtblogDeleted(x1) = %v, %v; want changed", changed, err)
		}
		p, err := s.Content.Post(ctx, a.ID)
		if err != nil || p.ArchivedAt == nil || !p.ArchivedAt.Equal(now) || p.ExtblogID != "" {
			t.Fatalf("after the delete Post(a) = %+v, %v; want archived at %v and unlinked", p, err, now)
		}
		if !tomb("x1") {
			t.Fatal("a deleted platform post is not tombstoned")
		}
		// folio publishing the platform post again forgets its tombstone.
		must(t, s.Store.SetExtblogPublished(ctx, b.ID, "x1"))
		if tomb("x1") {
			t.Fatal("a platform post published again is still tombstoned")
		}
		// The echo of folio's own unpublish changes nothing: the post stays restorable.
		must(t, s.Store.SetExtblogUnpublished(ctx, b.ID, "x1", &now))
		if changed, err := s.Store.ApplyExtblogDeleted(ctx, "x1", now); err != nil || changed {
			t.Fatalf("ApplyExtblogDeleted of an unpublished post = %v, %v; want unchanged", changed, err)
		}
		if p, err := s.Content.Post(ctx, b.ID); err != nil || p.ArchivedAt != nil || p.ExtblogID != "x1" {
			t.Fatalf("Post(b) = %+v, %v; want linked and not archived", p, err)
		}
		if tomb("x1") {
			t.Fatal("the echo of an unpublish tombstoned the platform post")
		}
		if changed, err := s.Store.ApplyExtblogDeleted(ctx, "x9", now); err != nil || changed || !tomb("x9") {
			t.Fatalf("ApplyExtblogDeleted(unknown) = %v, %v; want unchanged and tombstoned", changed, err)
		}
	})

	t.Run("UpsertPlatformPost", func(t *testing.T) {
		s := open(t)
		u := folio.ExtblogUpsert{ExtblogID: "x1", Title: "From the platform", Slug: "from-the-platform",
			Content: "Platform body.", Tags: []string{"Go", "go", "SQL"}, PublishedAt: &now, Now: now}
		changed, err := s.Store.UpsertExtblogPost(ctx, u)
		if err != nil || !changed {
			t.Fatalf("UpsertExtblogPost(new) = %v, %v; want changed", changed, err)
		}
		p, err := s.Content.PostBySlug(ctx, "from-the-platform")
		if err != nil || p.Title != u.Title || p.Content != u.Content || p.Excerpt == "" || p.Status != folio.PostPublished ||
			p.PublishedAt == nil || !p.PublishedAt.Equal(now) || p.ExtblogID != "x1" || len(p.Tags) != 2 {
			t.Fatalf("mirrored article = %+v, %v", p, err)
		}
		if changed, err := s.Store.UpsertExtblogPost(ctx, u); err != nil || changed {
			t.Fatalf("UpsertExtblogPost(same) = %v, %v; want unchanged", changed, err)
		}
		u.Title, u.Now = "Renamed on the platform", now.Add(time.Hour)
		if changed, err := s.Store.UpsertExtblogPost(ctx, u); err != nil || !changed {
			t.Fatalf("UpsertExtblogPost(renamed) = %v, %v; want changed", changed, err)
		}
		if q, err := s.Content.Post(ctx, p.ID); err != nil || q.Title != u.Title || q.Slug != p.Slug {
			t.Fatalf("renamed article = %+v, %v; want the new title and the same slug", q, err)
		}
		// A platform post whose canonical URL names one of our articles links that article.
		mine := article(t, s, "mine")
		if changed, err := s.Store.UpsertExtblogPost(ctx, folio.ExtblogUpsert{ExtblogID: "x2", Title: "Mine", Slug: "mine",
			Content: "Copy.", LinkSlug: "mine", Now: now}); err != nil || !changed {
			t.Fatalf("UpsertExtblogPost(canonical) = %v, %v; want changed", changed, err)
		}
		if st := state(t, s, mine.ID); st.ExtblogID != "x2" {
			t.Fatalf("state of the canonical article = %+v, want linked to x2", st)
		}
		if q, err := s.Content.Post(ctx, mine.ID); err != nil || q.Title != mine.Title {
			t.Fatalf("the canonical article = %+v, %v; want it linked, not rewritten", q, err)
		}
		// A new article whose platform slug is taken gets a free one.
		if _, err := s.Store.UpsertExtblogPost(ctx, folio.ExtblogUpsert{ExtblogID: "x3", Title: "Other", Slug: "mine",
			Content: "Other body.", Now: now}); err != nil {
			t.Fatal(err)
		}
		if q, err := s.Content.PostBySlug(ctx, "mine-2"); err != nil || q.ExtblogID != "x3" {
			t.Fatalf("PostBySlug(mine-2) = %+v, %v; want the article of x3", q, err)
		}
	})
}
