package folio

import "time"

// Job is a durable unit of background work (see internal/jobs).
type Job struct {
	ID       string
	Kind     string
	Key      string
	Payload  string
	RunAt    time.Time
	Status   string // pending, running, done or failed
	Attempts int
	// LeaseOwner and LeaseUntil name the worker that holds a running job and until when.
	LeaseOwner string
	LeaseUntil time.Time
	LastError  string
	DoneAt     time.Time
}

// Job statuses.
const (
	JobPending = "pending"
	JobRunning = "running"
	JobDone    = "done"
	JobFailed  = "failed"
)

// JobPublishPost is the kind of the job that publishes a scheduled post.
const JobPublishPost = "publish"

// PublishJobPayload is the payload of a JobPublishPost job.
type PublishJobPayload struct {
	PostID      string    `json:"postId"`
	ScheduledAt time.Time `json:"scheduledAt"`
}

// JobWebhookDelivery is the job kind that sends one webhook delivery (internal/webhook); the
// job's key is JobWebhookDelivery + ":" + the delivery id and its payload the delivery id.
const JobWebhookDelivery = "webhook.deliver"

// WebhookJobPayload is the payload of a JobWebhookDelivery job.
type WebhookJobPayload struct {
	DeliveryID string `json:"deliveryId"`
}
