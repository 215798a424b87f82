-- The dashboard and API: where a ticket's link is (for the technician's queue, filters and
-- search), its priority, who works it, how it ended, and the counter history of ticketed ports.

ALTER TABLE tickets
  ADD COLUMN severity        text  NOT NULL DEFAULT 'major'
    CHECK (severity IN ('critical', 'major', 'minor', 'warning', 'info')),
  ADD COLUMN assigned_to     text,
  ADD COLUMN resolution      text  NOT NULL DEFAULT '',  -- repaired, wont_fix, cleared, ...
  ADD COLUMN resolution_note text  NOT NULL DEFAULT '',
  -- Where the link is, from UFM's inventory when the ticket was filed: the switch end's system
  -- name, its rack (dashboard.rack_pattern), the host end's system name, both ends as UFM
  -- described them, and the text that search matches (names, labels, GUIDs, cable serials).
  ADD COLUMN switch_name     text  NOT NULL DEFAULT '',
  ADD COLUMN rack            text  NOT NULL DEFAULT '',
  ADD COLUMN host_name       text  NOT NULL DEFAULT '',
  ADD COLUMN ends            jsonb NOT NULL DEFAULT '[]',
  ADD COLUMN search_text     text  NOT NULL DEFAULT '';
-- 1 is the most urgent: escalated tickets and critical rules, then major, minor, the rest.
ALTER TABLE tickets ADD COLUMN priority smallint GENERATED ALWAYS AS (
  CASE WHEN state = 'escalated' OR severity = 'critical' THEN 1
       WHEN severity = 'major' THEN 2
       WHEN severity = 'minor' THEN 3
       ELSE 4 END) STORED;
UPDATE tickets SET search_text = lower(port_a || ' ' || port_b) WHERE search_text = '';
UPDATE tickets SET resolution = CASE WHEN link_key = 'storm' THEN 'rearmed' ELSE 'repaired' END
  WHERE state = 'closed' AND resolution = '';

CREATE INDEX tickets_queue ON tickets (priority, created_at) WHERE state <> 'closed';
CREATE INDEX tickets_by_created ON tickets (created_at, id);
CREATE INDEX tickets_by_rule ON tickets (rule, priority, created_at);
-- Search (part of a name, label, GUID or cable serial) by trigram index where pg_trgm is
-- available (a trusted extension since PostgreSQL 13); without it, search scans the table.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
  CREATE INDEX tickets_search ON tickets USING gin (search_text gin_trgm_ops);
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pg_trgm is not available (%): ticket search scans the table', SQLERRM;
END
$$;

-- Error counters of ticketed ports over time (the ticket page's chart), one row per port and
-- telemetry sample; kept dashboard.counter_history_s.
CREATE TABLE counter_samples (
  fabric   text        NOT NULL,
  port     text        NOT NULL,
  at       timestamptz NOT NULL,
  counters jsonb       NOT NULL,  -- {"SymbolErrorCounterExtended": 123, ...}
  PRIMARY KEY (fabric, port, at)
);
CREATE INDEX counter_samples_by_time ON counter_samples (at);
