-- Quality: what the metrics, alerts and calibration read.
--
-- verification_logs gains the facts the verdict table read (so that
-- calibration can decide a verdict again under other thresholds and
-- weights) and the figures the metrics sum; metric_tallies and
-- metric_codes keep those sums per hour and per day (period 3600 or 86400
-- seconds, bucket its UTC start), so that a window of a month adds about
-- a thousand rows rather than every verification in it; outcomes
-- are what happened downstream; alerts hold each alert's state.

ALTER TABLE verification_logs ADD COLUMN verdict_row INTEGER NOT NULL DEFAULT 0;
ALTER TABLE verification_logs ADD COLUMN dims TEXT NOT NULL DEFAULT '';
ALTER TABLE verification_logs ADD COLUMN must_undecided BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE verification_logs ADD COLUMN injection BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE verification_logs ADD COLUMN codes TEXT NOT NULL DEFAULT '';
ALTER TABLE verification_logs ADD COLUMN task_cost_usd DOUBLE PRECISION;
ALTER TABLE verification_logs ADD COLUMN judge_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE verification_logs ADD COLUMN cache_hits INTEGER NOT NULL DEFAULT 0;
ALTER TABLE verification_logs ADD COLUMN cache_misses INTEGER NOT NULL DEFAULT 0;
ALTER TABLE verification_logs ADD COLUMN self_confidence DOUBLE PRECISION;

-- The outcomes table of 0001 was never written; it is made again with the
-- verification it labels, which goes with it when pruned.
DROP TABLE outcomes;
CREATE TABLE outcomes (
	seq             INTEGER PRIMARY KEY AUTOINCREMENT,
	tenant          TEXT NOT NULL,
	verification_id TEXT NOT NULL,
	attempt         INTEGER NOT NULL,
	task_id         TEXT NOT NULL DEFAULT '',
	interaction_id  TEXT NOT NULL DEFAULT '',
	good            BOOLEAN NOT NULL,
	detail          TEXT NOT NULL DEFAULT '',
	reporter        TEXT NOT NULL DEFAULT '',
	created_at      TEXT NOT NULL,
	FOREIGN KEY (tenant, verification_id, attempt)
		REFERENCES verification_logs (tenant, id, attempt) ON DELETE CASCADE
);
CREATE INDEX outcomes_verification ON outcomes (tenant, verification_id, attempt);
CREATE INDEX overrides_tenant ON overrides (tenant, seq);

-- One row per tenant, period, bucket and group; every other column is a
-- sum (see store.Tally).
CREATE TABLE metric_tallies (
	tenant         TEXT NOT NULL,
	period         INTEGER NOT NULL,
	bucket         TEXT NOT NULL,
	kind           TEXT NOT NULL,
	executor_model TEXT NOT NULL,
	criticality    TEXT NOT NULL,
	n                  DOUBLE PRECISION NOT NULL DEFAULT 0,
	first_attempts     DOUBLE PRECISION NOT NULL DEFAULT 0,
	first_pass         DOUBLE PRECISION NOT NULL DEFAULT 0,
	retries            DOUBLE PRECISION NOT NULL DEFAULT 0,
	retried_tasks      DOUBLE PRECISION NOT NULL DEFAULT 0,
	retry_pass         DOUBLE PRECISION NOT NULL DEFAULT 0,
	verdict_pass       DOUBLE PRECISION NOT NULL DEFAULT 0,
	verdict_retry      DOUBLE PRECISION NOT NULL DEFAULT 0,
	verdict_fail       DOUBLE PRECISION NOT NULL DEFAULT 0,
	action_accept      DOUBLE PRECISION NOT NULL DEFAULT 0,
	action_retry       DOUBLE PRECISION NOT NULL DEFAULT 0,
	action_reformulate DOUBLE PRECISION NOT NULL DEFAULT 0,
	action_follow_up   DOUBLE PRECISION NOT NULL DEFAULT 0,
	action_escalate    DOUBLE PRECISION NOT NULL DEFAULT 0,
	needs_review       DOUBLE PRECISION NOT NULL DEFAULT 0,
	confidence_0       DOUBLE PRECISION NOT NULL DEFAULT 0,
	confidence_1       DOUBLE PRECISION NOT NULL DEFAULT 0,
	confidence_2       DOUBLE PRECISION NOT NULL DEFAULT 0,
	confidence_3       DOUBLE PRECISION NOT NULL DEFAULT 0,
	confidence_4       DOUBLE PRECISION NOT NULL DEFAULT 0,
	confidence_5       DOUBLE PRECISION NOT NULL DEFAULT 0,
	confidence_6       DOUBLE PRECISION NOT NULL DEFAULT 0,
	confidence_7       DOUBLE PRECISION NOT NULL DEFAULT 0,
	confidence_8       DOUBLE PRECISION NOT NULL DEFAULT 0,
	confidence_9       DOUBLE PRECISION NOT NULL DEFAULT 0,
	score_0            DOUBLE PRECISION NOT NULL DEFAULT 0,
	score_1            DOUBLE PRECISION NOT NULL DEFAULT 0,
	score_2            DOUBLE PRECISION NOT NULL DEFAULT 0,
	score_3            DOUBLE PRECISION NOT NULL DEFAULT 0,
	score_4            DOUBLE PRECISION NOT NULL DEFAULT 0,
	score_5            DOUBLE PRECISION NOT NULL DEFAULT 0,
	score_6            DOUBLE PRECISION NOT NULL DEFAULT 0,
	score_7            DOUBLE PRECISION NOT NULL DEFAULT 0,
	score_8            DOUBLE PRECISION NOT NULL DEFAULT 0,
	score_9            DOUBLE PRECISION NOT NULL DEFAULT 0,
	score_none         DOUBLE PRECISION NOT NULL DEFAULT 0,
	cost_usd           DOUBLE PRECISION NOT NULL DEFAULT 0,
	priced             DOUBLE PRECISION NOT NULL DEFAULT 0,
	priced_cost_usd    DOUBLE PRECISION NOT NULL DEFAULT 0,
	task_cost_usd      DOUBLE PRECISION NOT NULL DEFAULT 0,
	judge_calls        DOUBLE PRECISION NOT NULL DEFAULT 0,
	cache_hits         DOUBLE PRECISION NOT NULL DEFAULT 0,
	cache_misses       DOUBLE PRECISION NOT NULL DEFAULT 0,
	self_assessed      DOUBLE PRECISION NOT NULL DEFAULT 0,
	self_confidence    DOUBLE PRECISION NOT NULL DEFAULT 0,
	self_score         DOUBLE PRECISION NOT NULL DEFAULT 0,
	PRIMARY KEY (tenant, period, bucket, kind, executor_model, criticality)
);

-- How often each failure code (a failed check's, a warning's) was raised
-- per tenant, period, bucket and group, with the newest verification that
-- raised it.
CREATE TABLE metric_codes (
	tenant          TEXT NOT NULL,
	period          INTEGER NOT NULL,
	bucket          TEXT NOT NULL,
	kind            TEXT NOT NULL,
	executor_model  TEXT NOT NULL,
	criticality     TEXT NOT NULL,
	code            TEXT NOT NULL,
	n               INTEGER NOT NULL DEFAULT 0,
	example_id      TEXT NOT NULL DEFAULT '',
	example_attempt INTEGER NOT NULL DEFAULT 0,
	example_at      TEXT NOT NULL,
	PRIMARY KEY (tenant, period, bucket, kind, executor_model, criticality, code)
);
CREATE INDEX metric_codes_code ON metric_codes (tenant, period, code, bucket);

CREATE TABLE alerts (
	tenant     TEXT NOT NULL,
	name       TEXT NOT NULL,
	severity   TEXT NOT NULL,
	firing     BOOLEAN NOT NULL,
	value      DOUBLE PRECISION,
	threshold  DOUBLE PRECISION NOT NULL,
	labels     INTEGER NOT NULL DEFAULT 0,
	message    TEXT NOT NULL DEFAULT '',
	since      TEXT NOT NULL,
	updated_at TEXT NOT NULL,
	PRIMARY KEY (tenant, name)
);
