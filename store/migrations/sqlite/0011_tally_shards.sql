-- Tallies in shards (see the PostgreSQL migration of this number): the
-- PostgreSQL tallies gain a shard column, so that concurrent commits do
-- not queue on one row. SQLite's one writer commits one group at a time,
-- so its tallies keep one shard and their tables do not change.

SELECT 1;
