-- One row per stored media object (content-addressed key), for the dashboard's media library.
CREATE TABLE media (
    key          TEXT PRIMARY KEY,
    url          TEXT NOT NULL,
    filename     TEXT NOT NULL DEFAULT '',
    size         INTEGER NOT NULL,
    content_type TEXT NOT NULL,
    width        INTEGER NOT NULL DEFAULT 0,
    height       INTEGER NOT NULL DEFAULT 0,
    source       TEXT NOT NULL DEFAULT 'upload',
    prompt       TEXT NOT NULL DEFAULT '',
    created_by   TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL
);
CREATE INDEX media_created ON media (created_at DESC, key);
