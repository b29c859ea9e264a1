-- Blog posts (the dashboard's articles). seo, settings and cross_platform hold JSON ('' = never set).
CREATE TABLE posts (
    id             TEXT PRIMARY KEY,
    slug           TEXT NOT NULL UNIQUE,
    title          TEXT NOT NULL,
    content        TEXT NOT NULL,
    excerpt        TEXT NOT NULL DEFAULT '',
    category       TEXT NOT NULL DEFAULT '',
    tags           TEXT NOT NULL DEFAULT '[]',
    status         TEXT NOT NULL CHECK (status IN ('published', 'draft')),
    published_at   TIMESTAMPTZ,
    created_at     TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL,
    author_id      TEXT NOT NULL DEFAULT '',
    author_name    TEXT NOT NULL DEFAULT '',
    author_email   TEXT NOT NULL DEFAULT '',
    extblog_id     TEXT NOT NULL DEFAULT '',
    series         TEXT NOT NULL DEFAULT '',
    seo            TEXT NOT NULL DEFAULT '',
    settings       TEXT NOT NULL DEFAULT '',
    scheduled_at   TIMESTAMPTZ,
    cross_platform TEXT NOT NULL DEFAULT '',
    archived_at    TIMESTAMPTZ
);
CREATE INDEX posts_listing ON posts (status, published_at DESC, id DESC);
CREATE INDEX posts_created ON posts (created_at DESC, id DESC);
CREATE INDEX posts_category ON posts (LOWER(category));
CREATE INDEX posts_extblog_id ON posts (extblog_id) WHERE extblog_id <> '';

-- One row per (post, lowercased tag) so the tag filter is an indexed match.
CREATE TABLE post_tags (
    post_id TEXT NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    tag     TEXT NOT NULL,
    PRIMARY KEY (post_id, tag)
);
CREATE INDEX post_tags_tag ON post_tags (tag);

-- Former slugs of posts; GET /api/blog/{old} answers 301 to the post's current slug.
CREATE TABLE slug_redirects (
    old_slug   TEXT PRIMARY KEY,
    post_id    TEXT NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX slug_redirects_post ON slug_redirects (post_id);

-- Durable jobs (scheduled publishing, retries). key is unique so a job is enqueued once; a worker
-- owns a running job until lease_until, after which another instance may take it over.
CREATE TABLE jobs (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    key         TEXT NOT NULL UNIQUE,
    payload     TEXT NOT NULL DEFAULT '{}',
    run_at      TIMESTAMPTZ NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('pending', 'running', 'done', 'failed')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    lease_owner TEXT NOT NULL DEFAULT '',
    lease_until TIMESTAMPTZ,
    last_error  TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL,
    done_at     TIMESTAMPTZ
);
CREATE INDEX jobs_due ON jobs (status, run_at);
