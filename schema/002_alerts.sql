-- Alerts about the intake itself (lost or replayed UFM events, unreadable inputs), shown as a
-- banner on the dashboard until a person dismisses them; and per-source cursor state beyond the
-- position (the newest event's UFM timestamp; a log file's identity).

CREATE TABLE alerts (
  id          bigserial   PRIMARY KEY,
  fabric      text        NOT NULL,
  kind        text        NOT NULL,   -- event_id_gap, event_id_regression, ...
  message     text        NOT NULL,
  details     jsonb       NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL DEFAULT now(),
  cleared_at  timestamptz,
  cleared_by  text
);
CREATE INDEX alerts_active ON alerts (fabric, id) WHERE cleared_at IS NULL;

ALTER TABLE cursors ADD COLUMN state jsonb NOT NULL DEFAULT '{}';
