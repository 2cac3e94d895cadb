-- Tallies in shards, so that concurrent commits do not queue on one row.
--
-- Every verification adds to the tallies of its hour and day, and every
-- failure code it raised to that code's; on PostgreSQL each writer holds
-- the rows it added to until it commits, so that one tenant's
-- verifications of an hour waited on each other's commits. A writer now
-- adds to one of several shards of each row, chosen per transaction, and
-- readers sum the shards (they already summed rows). SQLite, whose one
-- writer commits one group at a time, keeps one shard: its tables do not
-- change.

ALTER TABLE metric_tallies ADD COLUMN shard SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies DROP CONSTRAINT metric_tallies_pkey;
ALTER TABLE metric_tallies ADD PRIMARY KEY (tenant, period, bucket, kind, executor_model, criticality, shard);

ALTER TABLE metric_codes ADD COLUMN shard SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE metric_codes DROP CONSTRAINT metric_codes_pkey;
ALTER TABLE metric_codes ADD PRIMARY KEY (tenant, period, bucket, kind, executor_model, criticality, code, shard);

ALTER TABLE metric_issues ADD COLUMN shard SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE metric_issues DROP CONSTRAINT metric_issues_pkey;
ALTER TABLE metric_issues ADD PRIMARY KEY (tenant, period, bucket, kind, executor_model, criticality, issue, shard);
