-- Every decision the service makes about a finding (acted on, ticketed, recorded, suppressed or
-- blocked), with the hash of the rules it was made under: the audit trail behind the tickets and
-- the record of shadow-mode rules.

CREATE TABLE decisions (
  id          bigserial   PRIMARY KEY,
  fabric      text        NOT NULL,
  decided_at  timestamptz NOT NULL DEFAULT now(),
  finding_at  timestamptz NOT NULL,
  rule        text        NOT NULL,
  decision    text        NOT NULL,   -- finding, disable, isolate, ticket, suppressed, blocked
  guard       text        NOT NULL DEFAULT '',
  entity      text        NOT NULL,   -- link key, or switch:<name> / node:<name>
  port        text        NOT NULL DEFAULT '',
  peer        text        NOT NULL DEFAULT '',
  reason      text        NOT NULL,
  rules_hash  text        NOT NULL,
  ticket_id   bigint      REFERENCES tickets (id),
  details     jsonb       NOT NULL DEFAULT '{}'
);
CREATE INDEX decisions_recent ON decisions (fabric, id DESC);
CREATE INDEX decisions_ticket ON decisions (ticket_id) WHERE ticket_id IS NOT NULL;
