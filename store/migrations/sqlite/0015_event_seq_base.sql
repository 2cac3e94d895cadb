-- Event Seqs that go on past a restore into another PostgreSQL cluster
-- (see the PostgreSQL migration of this number). SQLite's Seqs are its
-- own rowids: nothing changes.

SELECT 1;
