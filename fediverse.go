package folio

import "time"

// Follower is an ActivityPub account following the site (docs/api.md, "Fediverse"): its actor
// id, its inbox and, when its server has one, the shared inbox that takes one delivery for all
// of the server's followers.
type Follower struct {
	ActorID     string    `json:"actorId"`
	Inbox       string    `json:"inbox"`
	SharedInbox string    `json:"sharedInbox,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
}

// DeliveryInbox is where deliveries to f go: the shared inbox when there is one.
func (f Follower) DeliveryInbox() string {
	if f.SharedInbox != "" {
		return f.SharedInbox
	}
	return f.Inbox
}

// ActorKey is the site actor's key pair as stored: the private key sealed with a key derived
// from the instance secret (it never leaves the server in clear), the public one in PEM.
type ActorKey struct {
	SealedPrivate string
	PublicPEM     string
	CreatedAt     time.Time
}

// Job kinds of the fediverse (internal/fediverse).
const (
	// JobFediversePost turns a post event into one delivery job per inbox; its key names the
	// event, so it fans out once across instances.
	JobFediversePost = "fediverse.post"
	// JobFediverseDeliver posts one signed activity to one inbox, with the webhook retry schedule.
	JobFediverseDeliver = "fediverse.deliver"
)

// Job kinds of Webmention (internal/webmention): verifying a received one, sending a published
// post's.
const (
	JobWebmentionVerify = "webmention.verify"
	JobWebmentionSend   = "webmention.send"
)

// Post events that reach the fediverse and no webhook (they are not in EventTypes): an edit of a
// post that was and stays published (delivered as Update), and the deletion of a published post
// (delivered as Delete, like an unpublication).
const (
	EventPostRevised = "post.revised"
	EventPostDeleted = "post.deleted"
)

// Revision is post.revised when a write changed a post that was published (before) and still
// is; otherwise no event. Transition covers the moves across "published".
func (p *Post) Revision(before string) []Event {
	if before == PostPublished && p.Status == PostPublished {
		return []Event{p.Event(EventPostRevised)}
	}
	return nil
}

// Deletion is post.deleted when the post deleted was published; otherwise no event.
func (p *Post) Deletion() []Event {
	if p.Status == PostPublished {
		return []Event{p.Event(EventPostDeleted)}
	}
	return nil
}

// FediversePostPayload is the payload of a JobFediversePost job: a post event.
type FediversePostPayload struct {
	Event  string    `json:"event"` // EventPostPublished, EventPostUnpublished, EventPostRevised, EventPostDeleted
	PostID string    `json:"postId"`
	Slug   string    `json:"slug"`
	At     time.Time `json:"at"`
}

// FediverseDeliverPayload is the payload of a JobFediverseDeliver job.
type FediverseDeliverPayload struct {
	Inbox    string `json:"inbox"`
	Activity string `json:"activity"` // the JSON body, signed when sent
}

// Comment is a reply to a post from the fediverse or a Webmention, held for moderation
// (docs/api.md, "Comments"). Content is sanitised HTML.
type Comment struct {
	ID          string    `json:"id"`
	PostID      string    `json:"postId"`
	Source      string    `json:"source"` // CommentActivityPub or CommentWebmention
	SourceID    string    `json:"sourceId"`
	AuthorName  string    `json:"authorName"`
	AuthorURL   string    `json:"authorUrl"`
	Content     string    `json:"content"`
	URL         string    `json:"url"`
	Status      string    `json:"status"` // CommentPending, CommentApproved, CommentRejected, CommentSpam
	PublishedAt time.Time `json:"publishedAt"`
	CreatedAt   time.Time `json:"createdAt"`
	// AuthorID identifies the author for the spam rule: a fediverse author's actor id, a
	// Webmention's author URL or its source's host; "" for none.
	AuthorID string `json:"authorId,omitempty"`
	// InReplyTo is, on a reply of the owner's, the id of the comment it answers.
	InReplyTo string `json:"inReplyTo,omitempty"`
}

// Comment sources and statuses.
const (
	CommentActivityPub = "activitypub"
	CommentWebmention  = "webmention"

	CommentPending  = "pending"
	CommentApproved = "approved"
	CommentRejected = "rejected"
	// CommentSpam is rejected and marks its author: their later comments land as spam.
	CommentSpam = "spam"
)

// IsCommentStatus reports whether s is a comment status.
func IsCommentStatus(s string) bool {
	return s == CommentPending || s == CommentApproved || s == CommentRejected || s == CommentSpam
}

// CommentFilter selects comments: of one post (PostID) and/or one status; a page of them.
type CommentFilter struct {
	PostID, Status string
	Page, Limit    int
}

// Reaction kinds: a Like or an Announce (boost) of a post.
const (
	ReactionLike     = "like"
	ReactionAnnounce = "announce"
)

// Reactions counts a post's reactions.
type Reactions struct {
	Likes     int `json:"likes"`
	Announces int `json:"announces"`
}

// Block is an actor (its id, a URL) or a whole domain (a host name) the owner blocked.
type Block struct {
	Target    string    `json:"target"`
	CreatedAt time.Time `json:"createdAt"`
}
