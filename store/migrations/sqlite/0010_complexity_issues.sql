-- Two views of the quality metrics: score by task complexity, and retry
-- success by issue type.
--
-- verification_logs gains complexity, the size of what the task asked
-- for: the subgoals of the plan a decomposition verifies, else the task's
-- written criteria (NULL for a row written before this migration, which
-- no complexity bin counts); and issue, the first failure code of the
-- task's first attempt (for attempt 1 its own; for a retry the one its
-- attempt 1 raised, read when the retry is written; NO_CODE when attempt
-- 1 raised none; '' when unknown: written before this migration, or the
-- first attempt is not in the log).
--
-- metric_tallies gains, per complexity bin (0, 1, 2-3, 4-7, 8 and more),
-- the verifications, those that passed, those with a score and the sum of
-- their scores. metric_issues counts, per first-attempt issue, the first
-- attempts sent back, the tasks retried (their attempt 2) and the retries
-- that passed. Rows written before keep 0 in each.

ALTER TABLE verification_logs ADD COLUMN complexity INTEGER;
ALTER TABLE verification_logs ADD COLUMN issue TEXT NOT NULL DEFAULT '';

ALTER TABLE metric_tallies ADD COLUMN complexity_0_n DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_0_pass DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_0_scored DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_0_score DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_1_n DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_1_pass DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_1_scored DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_1_score DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_2_n DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_2_pass DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_2_scored DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_2_score DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_3_n DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_3_pass DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_3_scored DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_3_score DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_4_n DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_4_pass DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_4_scored DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN complexity_4_score DOUBLE PRECISION NOT NULL DEFAULT 0;

CREATE TABLE metric_issues (
	tenant         TEXT NOT NULL,
	period         INTEGER NOT NULL,
	bucket         TEXT NOT NULL,
	kind           TEXT NOT NULL,
	executor_model TEXT NOT NULL,
	criticality    TEXT NOT NULL,
	issue          TEXT NOT NULL,
	sent_back      INTEGER NOT NULL DEFAULT 0,
	retried        INTEGER NOT NULL DEFAULT 0,
	retry_pass     INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (tenant, period, bucket, kind, executor_model, criticality, issue)
);
