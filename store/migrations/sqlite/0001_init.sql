-- The verification log of vouch serve: one schema for SQLite and PostgreSQL
-- (same tables, columns and indexes; only the types of seq, timestamps and
-- bytes differ). Timestamps are UTC text of one fixed width,
-- 2006-01-02T15:04:05.000000Z, so that text order is time order.

CREATE TABLE verification_logs (
	seq               INTEGER PRIMARY KEY AUTOINCREMENT,
	tenant            TEXT NOT NULL,
	id                TEXT NOT NULL,
	attempt           INTEGER NOT NULL,
	idempotency_key   TEXT NOT NULL,
	request_hash      TEXT NOT NULL DEFAULT '',
	interaction_id    TEXT NOT NULL DEFAULT '',
	verification_type TEXT NOT NULL DEFAULT '',
	target_id         TEXT NOT NULL DEFAULT '',
	task_id           TEXT NOT NULL DEFAULT '',
	goal              TEXT NOT NULL DEFAULT '',
	kind              TEXT NOT NULL DEFAULT '',
	verdict           TEXT NOT NULL DEFAULT '',
	action            TEXT NOT NULL DEFAULT '',
	score             DOUBLE PRECISION,
	confidence        DOUBLE PRECISION NOT NULL DEFAULT 0,
	needs_review      BOOLEAN NOT NULL DEFAULT FALSE,
	criticality       TEXT NOT NULL DEFAULT '',
	executor_model    TEXT NOT NULL DEFAULT '',
	judge_models      TEXT NOT NULL DEFAULT '[]',
	cost_usd          DOUBLE PRECISION NOT NULL DEFAULT 0,
	duration_ms       DOUBLE PRECISION NOT NULL DEFAULT 0,
	result            TEXT NOT NULL,
	request           BLOB,
	request_bytes     INTEGER NOT NULL DEFAULT 0,
	created_at        TEXT NOT NULL,
	UNIQUE (tenant, id, attempt),
	UNIQUE (tenant, idempotency_key)
);
CREATE INDEX verification_logs_tenant_seq ON verification_logs (tenant, seq, created_at);
CREATE INDEX verification_logs_kind ON verification_logs (tenant, kind, seq);
CREATE INDEX verification_logs_verdict ON verification_logs (tenant, verdict, seq);
CREATE INDEX verification_logs_task ON verification_logs (tenant, task_id, seq);
CREATE INDEX verification_logs_interaction ON verification_logs (tenant, interaction_id, seq);
CREATE INDEX verification_logs_review ON verification_logs (tenant, needs_review, seq);
CREATE INDEX verification_logs_tenant_created ON verification_logs (tenant, created_at);
CREATE INDEX verification_logs_created ON verification_logs (created_at);

CREATE TABLE overrides (
	seq             INTEGER PRIMARY KEY AUTOINCREMENT,
	tenant          TEXT NOT NULL,
	verification_id TEXT NOT NULL,
	attempt         INTEGER NOT NULL,
	verdict         TEXT NOT NULL,
	reason          TEXT NOT NULL DEFAULT '',
	reviewer        TEXT NOT NULL DEFAULT '',
	created_at      TEXT NOT NULL,
	FOREIGN KEY (tenant, verification_id, attempt)
		REFERENCES verification_logs (tenant, id, attempt) ON DELETE CASCADE
);
CREATE INDEX overrides_verification ON overrides (tenant, verification_id, attempt);

CREATE TABLE outcomes (
	seq             INTEGER PRIMARY KEY AUTOINCREMENT,
	tenant          TEXT NOT NULL,
	verification_id TEXT NOT NULL DEFAULT '',
	attempt         INTEGER NOT NULL DEFAULT 0,
	task_id         TEXT NOT NULL DEFAULT '',
	good            BOOLEAN NOT NULL,
	detail          TEXT NOT NULL DEFAULT '',
	created_at      TEXT NOT NULL
);
CREATE INDEX outcomes_verification ON outcomes (tenant, verification_id, attempt);
CREATE INDEX outcomes_task ON outcomes (tenant, task_id);

CREATE TABLE events (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT,
	tenant     TEXT NOT NULL,
	type       TEXT NOT NULL DEFAULT '',
	data       TEXT NOT NULL,
	created_at TEXT NOT NULL
);
CREATE INDEX events_tenant_seq ON events (tenant, seq);
CREATE INDEX events_created ON events (created_at);

CREATE TABLE batches (
	seq         INTEGER PRIMARY KEY AUTOINCREMENT,
	tenant      TEXT NOT NULL,
	id          TEXT NOT NULL,
	state       TEXT NOT NULL,
	total       INTEGER NOT NULL,
	done        INTEGER NOT NULL DEFAULT 0,
	failed      INTEGER NOT NULL DEFAULT 0,
	created_at  TEXT NOT NULL,
	finished_at TEXT,
	UNIQUE (tenant, id)
);
CREATE INDEX batches_state ON batches (state, created_at, seq);

CREATE TABLE batch_items (
	tenant          TEXT NOT NULL,
	batch_id        TEXT NOT NULL,
	idx             INTEGER NOT NULL,
	state           TEXT NOT NULL,
	request         BLOB,
	verification_id TEXT NOT NULL DEFAULT '',
	attempt         INTEGER NOT NULL DEFAULT 0,
	error           TEXT,
	PRIMARY KEY (tenant, batch_id, idx),
	FOREIGN KEY (tenant, batch_id) REFERENCES batches (tenant, id) ON DELETE CASCADE
);
CREATE INDEX batch_items_pending ON batch_items (tenant, batch_id, idx) WHERE state = 'pending';

CREATE TABLE api_keys (
	id         TEXT PRIMARY KEY,
	tenant     TEXT NOT NULL,
	name       TEXT NOT NULL DEFAULT '',
	hash       BLOB NOT NULL,
	scopes     TEXT NOT NULL DEFAULT '[]',
	created_at TEXT NOT NULL,
	revoked_at TEXT
);
CREATE INDEX api_keys_tenant ON api_keys (tenant, created_at);
