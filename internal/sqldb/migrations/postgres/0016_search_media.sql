-- Full-text search over posts and projects (docs/api.md, "Search and tags"): one row per searchable record with a
-- tsvector of its words (title weight A, body weight B) under a GIN index. The words are folded
-- in Go (internal/search: case, diacritics) before to_tsvector('simple', …) sees them, because
-- the unaccent extension may not be installed; queries are folded the same way. The index is
-- written in the same transaction as every post and project write; after this migration the Go
-- side fills it from the existing rows (DB.RebuildSearchIndex).
CREATE TABLE search_docs (
    kind    TEXT NOT NULL CHECK (kind IN ('post', 'project')),
    ref_id  TEXT NOT NULL,
    visible BOOLEAN NOT NULL,
    doc     tsvector NOT NULL,
    PRIMARY KEY (kind, ref_id)
);
CREATE INDEX search_docs_doc ON search_docs USING GIN (doc);

-- Responsive variants of uploaded images (JSON list of {width, height, url, key}) and their
-- blurhash placeholder (docs/api.md, "Media and AI images").
ALTER TABLE media ADD COLUMN variants TEXT NOT NULL DEFAULT '[]';
ALTER TABLE media ADD COLUMN blurhash TEXT NOT NULL DEFAULT '';
