-- A batch's counts in shards, so that its completions do not queue on
-- its row.
--
-- Every completion of an item added to its batch's done or failed and
-- held the batch's row until it committed: on PostgreSQL the completions
-- of one batch ran one commit at a time, whatever the number of workers.
-- A completion now adds to one shard of the batch's counts, chosen at
-- random (one shard on SQLite, whose one writer commits one group at a
-- time), and readers add the shards to the row's own done and failed,
-- which keep the items that failed as they were loaded and whatever was
-- counted before this migration. The completion that finds every item
-- counted turns the batch done, after its commit.

CREATE TABLE batch_counts (
	tenant   TEXT NOT NULL,
	batch_id TEXT NOT NULL,
	shard    INTEGER NOT NULL,
	done     INTEGER NOT NULL DEFAULT 0,
	failed   INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (tenant, batch_id, shard)
);
