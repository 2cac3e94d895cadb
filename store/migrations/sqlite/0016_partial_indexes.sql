-- Three indexes of the log keep only the rows they find.
--
-- Lists by task and by interaction look up a non-empty id, and the review
-- queue reads the rows that need review; yet every row had an entry in
-- each of these indexes, most of them for an empty id or a row needing
-- none. Each now holds only the rows it can find (the queries name the
-- same conditions, so that SQLite's planner uses them too).

DROP INDEX verification_logs_task;
CREATE INDEX verification_logs_task ON verification_logs (tenant, task_id, seq) WHERE task_id <> '';
DROP INDEX verification_logs_interaction;
CREATE INDEX verification_logs_interaction ON verification_logs (tenant, interaction_id, seq) WHERE interaction_id <> '';
DROP INDEX verification_logs_review;
CREATE INDEX verification_logs_review ON verification_logs (tenant, seq) WHERE needs_review;
