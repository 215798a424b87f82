-- Notifications (notify: in the configuration, docs/NOTIFY.md): what people are told of, the
-- groups a route gathers it into, and the outbox of messages to receivers. Nothing is sent that
-- is not first recorded here, and a message is recorded before it is sent: a restart or a
-- receiver's outage delays messages, never loses them.

-- What happened that people are told of. A ticket's are written with its timeline event, in the
-- same transaction (Store::Tx::AddEvent): a ticket opened, a failed soak, an escalation, drift, a
-- ticket closed as repaired, the breaker tripped (its storm ticket opened) and re-armed. An
-- input's health (stale, failing, healthy again) is written by the notifier, which watches it.
CREATE TABLE notify_events (
  id           bigserial   PRIMARY KEY,
  fabric       text        NOT NULL,
  kind         text        NOT NULL,   -- the timeline event's kind, or input_stale, input_failing,
                                       -- input_ok
  ticket_id    bigint      REFERENCES tickets (id),
  subject      text        NOT NULL DEFAULT '',   -- an input's name
  message      text        NOT NULL DEFAULT '',   -- the timeline event's message, or the input's
  at           timestamptz NOT NULL DEFAULT now(),
  routed_at    timestamptz,                       -- put into its receivers' groups
  notice       jsonb,       -- what people are told (a Notification), written when routed
  resolves     boolean     NOT NULL DEFAULT false,  -- stays unresolved (repeated) until resolved
  silenced_by  bigint      REFERENCES silences (id),  -- not told: a silence covered it
  resolved_at  timestamptz   -- an input healthy again (a ticket's are resolved when it closes)
);
CREATE INDEX notify_events_unrouted ON notify_events (fabric, id) WHERE routed_at IS NULL;
CREATE INDEX notify_events_input ON notify_events (fabric, subject)
  WHERE ticket_id IS NULL AND resolved_at IS NULL;

-- A route's group for one receiver: the events that share the route's group_by labels. The
-- route's timings are copied in whenever an event joins, so a group flushes by the route that
-- filled it.
CREATE TABLE notify_groups (
  id                 bigserial        PRIMARY KEY,
  fabric             text             NOT NULL,
  receiver           text             NOT NULL,
  group_key          text             NOT NULL,   -- the route and its group_by labels' values
  labels             jsonb            NOT NULL DEFAULT '{}',
  group_wait_s       double precision NOT NULL,
  group_interval_s   double precision NOT NULL,
  repeat_interval_s  double precision NOT NULL,
  pending_since      timestamptz,   -- the oldest event not yet in a message
  flushed_at         timestamptz,   -- the group's last message
  UNIQUE (fabric, receiver, group_key)
);
CREATE INDEX notify_groups_pending ON notify_groups (fabric) WHERE pending_since IS NOT NULL;

-- A message to one receiver: its notifications as JSON (rendered for the receiver's type when
-- sent), sent until the receiver takes it.
--   pending    to be sent (again at next_try_at, after a failure worth retrying)
--   delivered  the receiver took it
--   refused    the receiver refused it (a 4xx other than 408 and 429): sending again won't help
--   expired    still not taken after notify.give_up_after_s, or its receiver left the config
CREATE TABLE notify_deliveries (
  id               bigserial   PRIMARY KEY,
  fabric           text        NOT NULL,
  receiver         text        NOT NULL,
  group_id         bigint      REFERENCES notify_groups (id),
  idempotency_key  text        NOT NULL UNIQUE,
  repeat           boolean     NOT NULL DEFAULT false,   -- a reminder of what is unresolved
  notifications    jsonb       NOT NULL,
  state            text        NOT NULL DEFAULT 'pending'
                               CHECK (state IN ('pending', 'delivered', 'refused', 'expired')),
  attempts         integer     NOT NULL DEFAULT 0,
  next_try_at      timestamptz NOT NULL DEFAULT now(),
  last_error       text        NOT NULL DEFAULT '',
  last_status      integer,    -- the receiver's last HTTP status (or SMTP reply code)
  created_at       timestamptz NOT NULL DEFAULT now(),
  delivered_at     timestamptz
);
CREATE INDEX notify_deliveries_pending ON notify_deliveries (fabric, next_try_at)
  WHERE state = 'pending';
CREATE INDEX notify_deliveries_recent ON notify_deliveries (fabric, id DESC);

-- Which events went into which group, and the message that carried each (NULL: not yet sent).
CREATE TABLE notify_group_events (
  group_id     bigint NOT NULL REFERENCES notify_groups (id),
  event_id     bigint NOT NULL REFERENCES notify_events (id),
  delivery_id  bigint REFERENCES notify_deliveries (id),
  PRIMARY KEY (group_id, event_id)
);
CREATE INDEX notify_group_events_unsent ON notify_group_events (group_id) WHERE delivery_id IS NULL;
CREATE INDEX notify_group_events_by_event ON notify_group_events (event_id);
CREATE INDEX notify_group_events_by_delivery ON notify_group_events (delivery_id);
