-- The job scheduler (scheduler: in the configuration, docs/SCHEDULER.md): a host is drained before
-- its last link is cut and resumed after the repair; the jobs a bad link hurts are recorded.

-- draining: the host's drain is asked for and its jobs are ending; the cut waits.
-- drained: the host is drained; the cut is under way.
ALTER TABLE tickets DROP CONSTRAINT tickets_state_check;
ALTER TABLE tickets ADD CONSTRAINT tickets_state_check
  CHECK (state IN ('open', 'port_disabled', 'ticket_only', 'acknowledged', 'repair_reported',
                   'verifying', 'closed', 'escalated', 'draining', 'drained'));
-- The jobs running on the ticket's host when it opened ([{id, user, name, nodes, state}]);
-- NULL while not looked up (or with no scheduler).
ALTER TABLE tickets ADD COLUMN host_jobs jsonb;

-- A cut that waits for its host's drain: the executor leaves 'waiting' rows alone; the drain's
-- completion makes it 'pending', in the same transaction.
ALTER TABLE port_actions DROP CONSTRAINT port_actions_state_check;
ALTER TABLE port_actions ADD CONSTRAINT port_actions_state_check
  CHECK (state IN ('waiting', 'pending', 'submitted', 'confirmed', 'failed', 'skipped'));

-- One drain of a node in the scheduler, for one ticket: the outbox of drains and resumes.
--   pending   recorded with its ticket; not yet asked of the scheduler
--   draining  asked for (sent_at once the scheduler took it); the node's jobs are ending
--   drained   the node has no jobs left; the ticket's cut was released
--   resuming  the repaired link passed its soak: the node is to be resumed, if still ours
--   resumed   given back to the scheduler
--   released  not resumed by the service, and why (note): a person's drain, a person resumed
--             it, the ticket closed without a passed soak, ...
--   failed    the scheduler refused the drain (an unknown node): the cut did not happen
CREATE TABLE node_drains (
  id           bigserial   PRIMARY KEY,
  fabric       text        NOT NULL,
  ticket_id    bigint      NOT NULL REFERENCES tickets (id),
  host         text        NOT NULL,   -- as UFM names it
  node         text        NOT NULL,   -- as the scheduler names it
  reason       text        NOT NULL,   -- the drain reason the scheduler shows: names the ticket
  cut_action   bigint      REFERENCES port_actions (id),  -- the cut waiting for the drain
  -- handed_over: another of the service's tickets holds the node, under this drain's reason
  state        text        NOT NULL CHECK (state IN ('pending', 'draining', 'drained', 'resuming',
                                                     'resumed', 'released', 'handed_over',
                                                     'failed')),
  note         text        NOT NULL DEFAULT '',
  tries        integer     NOT NULL DEFAULT 0,    -- scheduler failures in a row
  next_try_at  timestamptz,
  sent_at      timestamptz,                       -- the scheduler took the drain
  escalated    boolean     NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  drained_at   timestamptz,
  resumed_at   timestamptz
);
CREATE INDEX node_drains_open ON node_drains (fabric, state)
  WHERE state IN ('pending', 'draining', 'drained', 'resuming');
CREATE INDEX node_drains_by_ticket ON node_drains (ticket_id, id);
