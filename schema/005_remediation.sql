-- Acting safely: isolation as well as disable, retries of transient failures, announcements in
-- UFM's own log, guards recorded on tickets, repair kinds, and the circuit breaker.

ALTER TABLE port_actions DROP CONSTRAINT port_actions_action_check;
ALTER TABLE port_actions ADD CONSTRAINT port_actions_action_check
  CHECK (action IN ('disable', 'enable', 'isolate', 'unisolate'));
ALTER TABLE port_actions
  ADD COLUMN tries        integer     NOT NULL DEFAULT 0,      -- transient failures so far
  ADD COLUMN next_try_at  timestamptz,                          -- not before (after a failure)
  ADD COLUMN announced    boolean     NOT NULL DEFAULT false,  -- UFM external event posted
  ADD COLUMN confirmed_at timestamptz;
-- Confirmed actions whose UFM external event is still to be posted.
CREATE INDEX port_actions_unannounced ON port_actions (fabric)
  WHERE state = 'confirmed' AND NOT announced;
CREATE INDEX port_actions_by_port ON port_actions (fabric, port, id);
CREATE INDEX port_actions_recent ON port_actions (fabric, created_at)
  WHERE action IN ('disable', 'isolate');

ALTER TABLE tickets
  ADD COLUMN method      text NOT NULL DEFAULT 'disable' CHECK (method IN ('disable', 'isolate')),
  ADD COLUMN guard       text NOT NULL DEFAULT '',   -- the guard that kept the service's hands off
  ADD COLUMN explanation text NOT NULL DEFAULT '',   -- the evidence in plain words
  ADD COLUMN repair_kind text NOT NULL DEFAULT '';   -- what staff last reported doing
CREATE INDEX tickets_by_link ON tickets (fabric, link_key, created_at);

-- The circuit breaker, one per fabric: tripped by a storm of findings, re-armed by a person.
CREATE TABLE breaker (
  fabric      text        PRIMARY KEY,
  tripped     boolean     NOT NULL DEFAULT false,
  tripped_at  timestamptz,
  reason      text        NOT NULL DEFAULT '',
  ticket_id   bigint      REFERENCES tickets (id),   -- the storm ticket
  rearmed_by  text,
  rearmed_at  timestamptz
);
