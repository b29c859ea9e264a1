-- The site's ActivityPub actor (docs/api.md, "Fediverse"). fediverse_keys holds its one RSA key,
-- encrypted with a key derived from the instance secret; the first instance to start creates it
-- and the others read that one (the primary key makes the creation a race with one winner).
CREATE TABLE fediverse_keys (
    id          TEXT PRIMARY KEY,
    private_pem TEXT NOT NULL,
    public_pem  TEXT NOT NULL,
    created_at  TEXT NOT NULL
);

-- The accounts following the site: where to deliver (inbox, or the shared inbox of their server,
-- which takes one delivery for every follower on it).
CREATE TABLE fediverse_followers (
    actor_id     TEXT PRIMARY KEY,
    inbox        TEXT NOT NULL,
    shared_inbox TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL
);

-- Comments on posts: replies from the fediverse and Webmentions, held for moderation. content is
-- sanitised HTML (sanitised when received). (source, source_id) is the reply's Note id or the
-- Webmention's source URL, so a repeated delivery updates one comment instead of adding another.
CREATE TABLE comments (
    id           TEXT PRIMARY KEY,
    post_id      TEXT NOT NULL,
    source       TEXT NOT NULL,
    source_id    TEXT NOT NULL,
    author_name  TEXT NOT NULL DEFAULT '',
    author_url   TEXT NOT NULL DEFAULT '',
    content      TEXT NOT NULL,
    url          TEXT NOT NULL DEFAULT '',
    status       TEXT NOT NULL,
    published_at TEXT NOT NULL,
    created_at   TEXT NOT NULL
);
CREATE UNIQUE INDEX comments_source ON comments (source, source_id);
CREATE INDEX comments_post ON comments (post_id, status, published_at);
CREATE INDEX comments_status ON comments (status, created_at);

-- Likes and Announces (boosts) of posts, one per actor and kind, so they can be counted and undone.
CREATE TABLE post_reactions (
    post_id    TEXT NOT NULL,
    kind       TEXT NOT NULL,
    actor_id   TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (post_id, kind, actor_id)
);

-- Actors and whole domains the owner blocked: their activities are refused, their Webmentions
-- ignored. target is an actor id (a URL) or a host name.
CREATE TABLE fediverse_blocks (
    target     TEXT PRIMARY KEY,
    created_at TEXT NOT NULL
);
