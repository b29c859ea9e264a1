-- The owner's settings (docs/api.md, "Settings"): one row whose document holds the fields the owner
-- set from the dashboard, as a JSON object of field path → value (secrets encrypted); fields not in
-- it take the environment's defaults. version counts the saves: a save names the version it read
-- and fails when another came first, so two changes at once never lose each other's fields.
CREATE TABLE settings (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    document   TEXT NOT NULL,
    version    INTEGER NOT NULL,
    updated_at TEXT
);
INSERT INTO settings (id, document, version) VALUES (1, '{}', 0);
