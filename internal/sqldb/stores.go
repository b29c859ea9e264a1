package sqldb

// Each domain has a store type of its own over the one engine (DB): it holds the domain's SQL,
// and the use case above it sees it through the narrow interface it declares. A store embeds the
// engine for its transactions, statement cache and clock.

// ContentStore stores posts, projects, their search index and media records.
type ContentStore struct{ *DB }

// BookingStore stores bookings, meeting types and availability overrides.
type BookingStore struct{ *DB }

// IdentityStore stores users, API keys, sessions' revocations and second factors.
type IdentityStore struct{ *DB }

// AuditStore stores the audit log.
type AuditStore struct{ *DB }

// JobStore stores the durable job queue.
type JobStore struct{ *DB }

// OutboxStore stores outgoing mail until it is sent.
type OutboxStore struct{ *DB }

// WebhookStore stores webhooks, the events they receive and their deliveries.
type WebhookStore struct{ *DB }

// ExtblogStore stores the state of posts cross-published to the external blog platform.
type ExtblogStore struct{ *DB }

// ContactStore stores contact-form messages.
type ContactStore struct{ *DB }

// ArchiveStore reads and writes whole-site archives (export and import).
type ArchiveStore struct{ *DB }

func (db *DB) openStores() {
	db.Content = &ContentStore{db}
	db.Bookings = &BookingStore{db}
	db.Identity = &IdentityStore{db}
	db.Audit = &AuditStore{db}
	db.Jobs = &JobStore{db}
	db.Outbox = &OutboxStore{db}
	db.Webhooks = &WebhookStore{db}
	db.Extblog = &ExtblogStore{db}
	db.Contact = &ContactStore{db}
	db.Archive = &ArchiveStore{db}
}
