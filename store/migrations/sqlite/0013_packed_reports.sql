-- Reports and requests compressed on PostgreSQL too (see the PostgreSQL
-- migration of this number). SQLite's have been since the start of
-- compression, in columns that hold text and bytes alike: nothing
-- changes.

SELECT 1;
