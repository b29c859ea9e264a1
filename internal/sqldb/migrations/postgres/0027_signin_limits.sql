-- Sign-in hardening, second round (docs/api.md, "Authentication and permissions").
-- signin_tickets: the tickets of two-factor sign-in's second step, kept here so that any instance
-- takes one, once. id is the SHA-256 of the ticket (the ticket itself is never stored); issued_at
-- is the password step's time as a session's iat, expires_at the end of its 5 minutes (both Unix
-- seconds); attempts counts the codes tried with it.
CREATE TABLE signin_tickets (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    issued_at  BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX signin_tickets_expires_at ON signin_tickets (expires_at);

-- signin_unlocks counts the runs of `folio user unlock` for the user: it is part of the key of the
-- sign-in failure limit, so an unlock starts the account afresh on every instance.
ALTER TABLE users ADD COLUMN signin_unlocks BIGINT NOT NULL DEFAULT 0;
