-- The technology filter matches a lowered copy of a project's technologies kept on the project
-- (a JSON array, lowered in Go so both engines agree beyond ASCII) instead of one row per
-- technology in project_technologies: those rows and their two indexes were most of the cost of
-- creating a project, while a filter over a portfolio's few hundred projects is a
-- quick scan.
ALTER TABLE projects ADD COLUMN technologies_lower TEXT NOT NULL DEFAULT '[]';
UPDATE projects SET technologies_lower =
    (SELECT json_group_array(technology) FROM project_technologies WHERE project_id = projects.id);
DROP TABLE project_technologies;
