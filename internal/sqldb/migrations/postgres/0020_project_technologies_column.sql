-- The technology filter matches a lowered copy of a project's technologies kept on the project
-- (a JSON array, lowered in Go so both engines agree beyond ASCII) instead of one row per
-- technology in project_technologies: those rows and their two indexes were most of the cost of
-- creating a project, while a filter over a portfolio's few hundred projects is a
-- quick scan.
ALTER TABLE projects ADD COLUMN technologies_lower TEXT NOT NULL DEFAULT '[]';
UPDATE projects SET technologies_lower = t.lowered
    FROM (SELECT project_id, json_agg(technology)::text AS lowered FROM project_technologies GROUP BY project_id) AS t
    WHERE t.project_id = projects.id;
DROP TABLE project_technologies;
