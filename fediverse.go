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

// FediversePostPayload is the payload of a JobFediversePost job: a post event.
type FediversePostPayload struct {
	Event  string    `json:"event"` // EventPostPublished, EventPostUnpublished
	PostID string    `json:"postId"`
	Slug   string    `json:"slug"`
	At     time.Time `json:"at"`
}

// FediverseDeliverPayload is the payload of a JobFediverseDeliver job.
type FediverseDeliverPayload struct {
	Inbox    string `json:"inbox"`
	Activity string `json:"activity"` // the JSON body, signed when sent
}
