-- Indexes for the ticket list's filters as the service issues them.
DROP INDEX IF EXISTS tickets_by_link;
CREATE INDEX tickets_by_link ON tickets (fabric, link_key, created_at) INCLUDE (id);
CREATE INDEX tickets_by_rule_age ON tickets (rule, created_at);
