-- Silences (maintenance windows): while one is in force the service leaves the ports, switches or
-- hosts it names alone. Patterns are RE2, matched in full against names; '' means any, but at
-- least one must be set. A person may end a silence early (expired_at, expired_by).

CREATE TABLE silences (
  id              bigserial   PRIMARY KEY,
  fabric          text        NOT NULL,
  port_pattern    text        NOT NULL DEFAULT '',   -- against port names '<guid>_<n>'
  switch_pattern  text        NOT NULL DEFAULT '',   -- against switch (system) names
  host_pattern    text        NOT NULL DEFAULT '',   -- against host names
  reason          text        NOT NULL CHECK (reason <> ''),
  created_by      text        NOT NULL DEFAULT '',
  created_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz NOT NULL,
  expired_at      timestamptz,                       -- ended early by a person
  expired_by      text,
  CHECK (port_pattern <> '' OR switch_pattern <> '' OR host_pattern <> ''),
  CHECK (expires_at > created_at)
);
CREATE INDEX silences_current ON silences (fabric, expires_at) WHERE expired_at IS NULL;
