-- Passkeys, sign-in links and identity providers (docs/api.md, "Passkeys, identity providers,
-- sign-in links").
-- passkeys: a user's WebAuthn credentials. credential_id is the credential's raw id, base64url
-- without padding (unique: one authenticator key belongs to one account); credential is the
-- WebAuthn library's record (public key, flags, counter) as JSON; sign_count and the backup flags
-- are kept beside it for lists.
CREATE TABLE passkeys (
    id              TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    credential_id   TEXT NOT NULL UNIQUE,
    name            TEXT NOT NULL,
    credential      TEXT NOT NULL,
    sign_count      INTEGER NOT NULL DEFAULT 0,
    backup_eligible INTEGER NOT NULL DEFAULT 0,
    backup_state    INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL,
    last_used_at    TEXT
);
CREATE INDEX passkeys_user_id ON passkeys (user_id);

-- auth_challenges: single-use secrets of sign-in ceremonies (a WebAuthn challenge, a sign-in link,
-- an OpenID Connect state), under the SHA-256 of the secret, so any instance takes one, once.
CREATE TABLE auth_challenges (
    id         TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    user_id    TEXT NOT NULL DEFAULT '',
    data       TEXT NOT NULL DEFAULT '',
    expires_at INTEGER NOT NULL
);
CREATE INDEX auth_challenges_expires_at ON auth_challenges (expires_at);

-- external_identities: an account at an identity provider (settings auth.providers[].id) linked to
-- a user; subject is the provider's stable id of the account (OpenID Connect sub).
CREATE TABLE external_identities (
    provider   TEXT NOT NULL,
    subject    TEXT NOT NULL,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email      TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    PRIMARY KEY (provider, subject)
);
CREATE INDEX external_identities_user_id ON external_identities (user_id);
