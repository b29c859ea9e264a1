CREATE TABLE projects (
    id               TEXT PRIMARY KEY,
    title            TEXT NOT NULL,
    description      TEXT NOT NULL,
    long_description TEXT NOT NULL DEFAULT '',
    technologies     TEXT NOT NULL DEFAULT '[]',
    status           TEXT NOT NULL CHECK (status IN ('published', 'draft', 'archived')),
    demo_url         TEXT NOT NULL DEFAULT '',
    source_url       TEXT NOT NULL DEFAULT '',
    images           TEXT NOT NULL DEFAULT '[]',
    created_at       TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL
);
CREATE INDEX projects_status_created ON projects (status, created_at DESC, id DESC);
CREATE INDEX projects_created ON projects (created_at DESC, id DESC);

-- One row per (project, technology) so the technology filter is an indexed, case-insensitive match.
CREATE TABLE project_technologies (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    technology TEXT NOT NULL,
    PRIMARY KEY (project_id, technology)
);
CREATE INDEX project_technologies_technology ON project_technologies (technology);
