-- UFM Remediator: initial schema. Every row is tagged with the fabric (one UFM) it belongs to.

CREATE TABLE cursors (
  fabric      text        NOT NULL,
  source      text        NOT NULL,   -- e.g. 'rest_events'
  position    bigint      NOT NULL,   -- last event id consumed
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (fabric, source)
);

CREATE TABLE tickets (
  id              bigserial   PRIMARY KEY,
  fabric          text        NOT NULL,
  link_key        text        NOT NULL,   -- both port names, sorted, joined by '|'
  port_a          text        NOT NULL,
  port_b          text        NOT NULL DEFAULT '',
  state           text        NOT NULL CHECK (state IN ('open', 'port_disabled', 'ticket_only',
                                'acknowledged', 'repair_reported', 'verifying', 'closed',
                                'escalated')),
  rule            text        NOT NULL,
  reason          text        NOT NULL,
  action_port     text        NOT NULL DEFAULT '',  -- the end this service acts on
  disabled_by_us  boolean     NOT NULL DEFAULT false,
  attempts        integer     NOT NULL DEFAULT 0,   -- failed verifications so far
  acknowledged_by text,
  soak_until      timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  closed_at       timestamptz
);
-- One open ticket per link: the database, not the code, is the last word on it.
CREATE UNIQUE INDEX tickets_one_open_per_link ON tickets (fabric, link_key) WHERE state <> 'closed';
CREATE INDEX tickets_by_state ON tickets (fabric, state);

CREATE TABLE ticket_events (
  id         bigserial   PRIMARY KEY,
  ticket_id  bigint      NOT NULL REFERENCES tickets (id),
  at         timestamptz NOT NULL DEFAULT now(),
  kind       text        NOT NULL,   -- opened, evidence, action, repair_reported, soak_passed, ...
  actor      text        NOT NULL,   -- 'service' or the person's name
  message    text        NOT NULL,
  details    jsonb       NOT NULL DEFAULT '{}'
);
CREATE INDEX ticket_events_by_ticket ON ticket_events (ticket_id, id);

-- An intent to act on a port, written before acting, in the same transaction as the ticket
-- change; a restart resumes any row left 'pending' or 'submitted'.
CREATE TABLE port_actions (
  id          bigserial   PRIMARY KEY,
  fabric      text        NOT NULL,
  ticket_id   bigint      REFERENCES tickets (id),
  port        text        NOT NULL,
  system_guid text        NOT NULL DEFAULT '',
  action      text        NOT NULL CHECK (action IN ('disable', 'enable')),
  state       text        NOT NULL CHECK (state IN ('pending', 'submitted', 'confirmed', 'failed',
                                                    'skipped')),
  reason      text        NOT NULL,
  job_id      text,
  error       text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX port_actions_open ON port_actions (fabric, state) WHERE state IN ('pending', 'submitted');
CREATE INDEX port_actions_by_ticket ON port_actions (ticket_id, id);
