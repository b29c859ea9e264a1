-- External blog platform synchronisation (internal/publishing).

-- Set while an article's platform post is unpublished (removed on the platform, restorable); the
-- article keeps its extblog_id. NULL: the post is live on the platform (or there is none).
ALTER TABLE posts ADD COLUMN extblog_unpublished_at TEXT;

-- One article per platform post.
CREATE UNIQUE INDEX posts_extblog_id_unique ON posts (extblog_id) WHERE extblog_id <> '';

-- Webhook deliveries already applied, by the platform's delivery uuid (metadata.uuid).
CREATE TABLE extblog_deliveries (
    delivery_id TEXT PRIMARY KEY,
    event       TEXT NOT NULL,
    post_id     TEXT NOT NULL,
    received_at TEXT NOT NULL
);
CREATE INDEX extblog_deliveries_received ON extblog_deliveries (received_at);

-- Platform posts a POST_DELETED event removed: later (out-of-order) events for them change nothing
-- until folio itself publishes the post again.
CREATE TABLE extblog_tombstones (
    post_id    TEXT PRIMARY KEY,
    deleted_at TEXT NOT NULL
);

-- Per-article publication lease, so concurrent publications of one article (on any instance)
-- never create two platform posts.
CREATE TABLE extblog_leases (
    post_id     TEXT PRIMARY KEY,
    token       TEXT NOT NULL,
    lease_until TEXT NOT NULL
);
