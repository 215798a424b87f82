-- Authentication and the audit log. Users, their sessions and API tokens are global (one login
-- for every fabric's service sharing this database); audit rows say which fabric's service took
-- the request. Session ids and API tokens are kept only as SHA-256 digests (hex), passwords only
-- as argon2id hashes.

CREATE TABLE users (
  id             bigserial   PRIMARY KEY,
  name           text        NOT NULL UNIQUE
                             CHECK (name ~ '^[A-Za-z0-9._@-]{1,64}$'),
  role           text        NOT NULL
                             CHECK (role IN ('viewer', 'technician', 'engineer', 'admin')),
  password_hash  text        NOT NULL CHECK (password_hash LIKE '$argon2id$%'),
  created_at     timestamptz NOT NULL DEFAULT now(),
  disabled       boolean     NOT NULL DEFAULT false
);

-- A browser login: the cookie carries the id, the table its digest.
CREATE TABLE sessions (
  id_hash     text        PRIMARY KEY CHECK (length(id_hash) = 64),
  user_id     bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  csrf        text        NOT NULL,      -- sent back in X-CSRF-Token on every mutation
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  CHECK (expires_at > created_at)
);
CREATE INDEX sessions_by_user ON sessions (user_id);
CREATE INDEX sessions_by_expiry ON sessions (expires_at);

-- Tokens for scripts and tools, sent as "Authorization: Bearer <token>".
CREATE TABLE api_tokens (
  id            bigserial   PRIMARY KEY,
  user_id       bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash    text        NOT NULL UNIQUE CHECK (length(token_hash) = 64),
  prefix        text        NOT NULL,    -- the token's first characters, to recognise it
  label         text        NOT NULL DEFAULT '',
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz,
  revoked_at    timestamptz
);
CREATE INDEX api_tokens_by_user ON api_tokens (user_id);

-- Every mutation through the API (accepted or refused), logins and logouts: who, when, what, and
-- the answer. details: the request body without secrets.
CREATE TABLE audit_log (
  id       bigserial   PRIMARY KEY,
  at       timestamptz NOT NULL DEFAULT now(),
  fabric   text        NOT NULL DEFAULT '',
  actor    text        NOT NULL DEFAULT '',  -- the user's name; '' when anonymous
  role     text        NOT NULL DEFAULT '',
  via      text        NOT NULL DEFAULT '' CHECK (via IN ('', 'session', 'token', 'anonymous')),
  action   text        NOT NULL,             -- e.g. 'ticket.acknowledge', 'login'
  method   text        NOT NULL DEFAULT '',
  path     text        NOT NULL DEFAULT '',
  target   text        NOT NULL DEFAULT '',  -- the route's parameters, e.g. 'id=12'
  status   integer     NOT NULL,             -- the HTTP status answered (0 while the change is being made)
  details  jsonb       NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX audit_log_by_actor ON audit_log (actor, id);
