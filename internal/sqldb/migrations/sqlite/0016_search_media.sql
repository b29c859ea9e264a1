-- Full-text search over posts and projects (docs/api.md, "Search and tags"). search_docs has one row per searchable
-- record; search_fts (FTS5, contentless: the text lives in posts and projects) holds its words
-- under the same rowid. The words are folded in Go (internal/search: case, diacritics) before
-- they reach FTS5, so both engines match alike; remove_diacritics only backs that up. The index
-- is written in the same transaction as every post and project write; after this migration the
-- Go side fills it from the existing rows (DB.RebuildSearchIndex).
CREATE TABLE search_docs (
    doc_id  INTEGER PRIMARY KEY,
    kind    TEXT NOT NULL CHECK (kind IN ('post', 'project')),
    ref_id  TEXT NOT NULL,
    visible INTEGER NOT NULL,
    UNIQUE (kind, ref_id)
);
CREATE VIRTUAL TABLE search_fts USING fts5(
    title, body,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3'
);

-- Responsive variants of uploaded images (JSON list of {width, height, url, key}) and their
-- blurhash placeholder (docs/api.md, "Media and AI images").
ALTER TABLE media ADD COLUMN variants TEXT NOT NULL DEFAULT '[]';
ALTER TABLE media ADD COLUMN blurhash TEXT NOT NULL DEFAULT '';
