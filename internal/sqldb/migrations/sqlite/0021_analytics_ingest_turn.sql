-- The ingest turn (sqldb.takeIngestTurn): every batch of page views, and every prune, adds one
-- to it in its transaction. The row lock serialises them across instances (it replaces an
-- advisory lock on PostgreSQL), and an instance whose last batch took the turn just before
-- knows the visitors it remembers are current, so it reads only the others.
CREATE TABLE analytics_ingest (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    turn BIGINT NOT NULL
);
INSERT INTO analytics_ingest (id, turn) VALUES (1, 0);
