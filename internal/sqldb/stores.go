package sqldb

import "time"

// Each domain has a store type of its own over the one engine (DB): it holds the domain's SQL,
// and the use case above it sees it through the narrow interface it declares. A store embeds the
// engine for its transactions, statement cache and clock.

// PostStore stores posts: their rows, slugs and redirects, publishing state and tags.
type PostStore struct{ *DB }

// ProjectStore stores projects.
type ProjectStore struct{ *DB }

// SearchStore searches posts and projects and rebuilds their index (each write keeps its own
// entry current in its transaction).
type SearchStore struct{ *DB }

// MediaStore stores the records of uploaded and generated media.
type MediaStore struct{ *DB }

// ContentStore is what the content use case stores through (content.Store): posts, projects and
// the search over both.
type ContentStore struct {
	*PostStore
	*ProjectStore
	*SearchStore
}

// Clock is the time content writes are stamped with (DB.Now, which tests pin).
func (s *ContentStore) Clock() time.Time { return s.PostStore.Now() }

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

// SettingsStore stores the owner's settings document.
type SettingsStore struct{ *DB }

// ArchiveStore reads and writes whole-site archives (export and import).
type ArchiveStore struct{ *DB }

// FediverseStore stores the site actor's key and its followers (internal/fediverse).
type FediverseStore struct{ *DB }

// SubscriberStore stores the readers who follow the site by e-mail.
type SubscriberStore struct{ *DB }

func (db *DB) openStores() {
	db.Posts = &PostStore{db}
	db.Projects = &ProjectStore{db}
	db.Search = &SearchStore{db}
	db.Media = &MediaStore{db}
	db.Content = &ContentStore{db.Posts, db.Projects, db.Search}
	db.Bookings = &BookingStore{db}
	db.Identity = &IdentityStore{db}
	db.Audit = &AuditStore{db}
	db.Jobs = &JobStore{db}
	db.Outbox = &OutboxStore{db}
	db.Webhooks = &WebhookStore{db}
	db.Extblog = &ExtblogStore{db}
	db.Contact = &ContactStore{db}
	db.Archive = &ArchiveStore{db}
	db.Settings = &SettingsStore{db}
	db.Fediverse = &FediverseStore{db}
	db.Subscribers = &SubscriberStore{db}
}
