-- Requests a rate limit refuses are counted, not recorded one by one (docs/api.md, "Audit log"): one row per
-- client, action and rate-limit window, whose id is derived from those three (internal/audit),
-- so every instance adds its refusals to the same row. refused is how many requests the row
-- stands for; 0 on every other row.
ALTER TABLE audit_log ADD COLUMN refused INTEGER NOT NULL DEFAULT 0;
