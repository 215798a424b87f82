-- What made each decision, so that a finding is decided once though its events are read again
-- (after a restart or a change of leader the event source reads again the events a rule's window
-- or hold still held): the rule, the entity, and the event that completed the finding, by its
-- type, UFM's stamp to the second and its ports (act/decided_once.h). Empty for findings made of
-- no stamped event (counters, a soak's re-cut).
ALTER TABLE decisions ADD COLUMN trigger text NOT NULL DEFAULT '';
CREATE INDEX decisions_trigger ON decisions (fabric, trigger) WHERE trigger <> '';
