-- Pruning finds old rows tenant by tenant: the log's by its (tenant,
-- created_at) index, the events by their (tenant, seq) index, oldest
-- first. The indexes of created_at over every tenant, which only pruning
-- read, go: each cost every verification an entry (about 85 bytes of the
-- two) and a b-tree insert in the write.

DROP INDEX verification_logs_created;
DROP INDEX events_created;
