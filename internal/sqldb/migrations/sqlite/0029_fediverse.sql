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
