-- Values of the deployment rather than of a tenant, made once and shared
-- by every process on the store: the key that signs the dashboard's
-- session cookies, so that a session signed by one server is accepted by
-- the others behind one address, and outlives a restart.

CREATE TABLE settings (
	name       TEXT PRIMARY KEY,
	value      BLOB NOT NULL,
	created_at TEXT NOT NULL
);
