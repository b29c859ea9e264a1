package folio

import "time"

// ContactMessage is a stored contact-form message with the delivery status of its mail.
type ContactMessage struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Email     string    `json:"email"`
	Subject   string    `json:"subject,omitempty"`
	Message   string    `json:"message"`
	CreatedAt time.Time `json:"createdAt"`
	// Delivery is the outbox's view: pending, sent, failed (retrying) or dead (given up).
	Delivery OutboxEntry `json:"delivery"`
}

// OutboxEntry is an outgoing mail as admins list it (without the message body): the delivery of
// a contact message, or an item of GET /api/mail/outbox.
type OutboxEntry struct {
	ID            string     `json:"id"`
	Recipients    string     `json:"recipients"`
	Subject       string     `json:"subject"`
	Status        string     `json:"status"`
	Attempts      int        `json:"attempts"`
	NextAttemptAt *time.Time `json:"nextAttemptAt,omitempty"`
	LastError     string     `json:"lastError,omitempty"`
	CreatedAt     time.Time  `json:"createdAt"`
	SentAt        *time.Time `json:"sentAt,omitempty"`
}
