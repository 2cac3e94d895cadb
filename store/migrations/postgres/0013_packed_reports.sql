-- Reports and requests compressed by vouch, as SQLite's are (see
-- store/pack.go): zstd shrinks these few kilobytes of JSON about fourfold,
-- where PostgreSQL's own compression (TOAST) takes only values over about
-- 2 KB, and less well. The report becomes bytes; a row written before
-- holds its JSON as it is, and reads tell the two apart. Both columns are
-- then stored without PostgreSQL's compression, which would only spend
-- time on compressed bytes. The ALTER rewrites the log once, under a lock
-- that holds writes back while it runs (about a minute per million rows).

ALTER TABLE verification_logs
	ALTER COLUMN result TYPE BYTEA USING convert_to(result, 'UTF8'),
	ALTER COLUMN result SET STORAGE EXTERNAL,
	ALTER COLUMN request SET STORAGE EXTERNAL;
