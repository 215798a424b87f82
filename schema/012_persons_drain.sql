-- A node a person had drained already when the service asked to drain it for a ticket: the
-- service waits for that drain (the cut follows once the node is drained) but it is the person's.
-- It never counts against scheduler.max_drained_nodes, never as a drain the service sent or a
-- node it holds drained, and the service never resumes it.
ALTER TABLE node_drains ADD COLUMN by_person boolean NOT NULL DEFAULT false;
