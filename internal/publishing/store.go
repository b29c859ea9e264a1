package publishing

import (
	"context"
	"time"

	"github.com/foliohq/folio"
)

// Store keeps each article's link to its platform post and the bookkeeping of platform events.
type Store interface {
	// ExtblogState returns the article's platform link, or ENOTFOUND.
	ExtblogState(ctx context.Context, postID string) (folio.ExtblogState, error)
	// SetExtblogPublished links the article to the live platform post extblogID: it stores the
	// id, clears the unpublished mark and forgets any tombstone of that post.
	SetExtblogPublished(ctx context.Context, postID, extblogID string) error
	// SetExtblogUnpublished marks the article's platform post extblogID unpublished at at (nil
	// clears the mark); nothing changes when the article is no longer linked to extblogID.
	SetExtblogUnpublished(ctx context.Context, postID, extblogID string, at *time.Time) error
	// ClearExtblogID unlinks the article from platform post extblogID.
	ClearExtblogID(ctx context.Context, postID, extblogID string) error
	// AcquireExtblogLease takes the article's publication lease for d when it is free or lapsed
	// at now; ReleaseExtblogLease gives it back when token still holds it.
	AcquireExtblogLease(ctx context.Context, postID, token string, now time.Time, d time.Duration) (bool, error)
	ReleaseExtblogLease(ctx context.Context, postID, token string) error
	// ClaimExtblogDelivery records a platform webhook delivery id and reports whether it is new;
	// ReleaseExtblogDelivery forgets one whose application failed, so a retry is applied.
	ClaimExtblogDelivery(ctx context.Context, deliveryID, event, postID string, at time.Time) (bool, error)
	ReleaseExtblogDelivery(ctx context.Context, deliveryID string) error
	// ExtblogTombstoned reports whether a POST_DELETED event removed platform post extblogID.
	ExtblogTombstoned(ctx context.Context, extblogID string) (bool, error)
	// ApplyExtblogDeleted archives and unlinks the article linked to platform post extblogID
	// and tombstones the post; it reports whether an article changed. When the article is marked
	// unpublished nothing changes: the event is the echo of folio's own unpublish.
	ApplyExtblogDeleted(ctx context.Context, extblogID string, at time.Time) (bool, error)
	// UpsertExtblogPost mirrors a platform post into the linked article, the article its
	// canonical URL names, or a new published article; it reports whether anything changed.
	UpsertExtblogPost(ctx context.Context, u folio.ExtblogUpsert) (bool, error)
}

// Posts reads the articles the dashboard routes name.
type Posts interface {
	// Post returns a post by id, or ENOTFOUND.
	Post(ctx context.Context, id string) (*folio.Post, error)
}
