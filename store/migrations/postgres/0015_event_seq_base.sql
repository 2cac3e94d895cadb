-- Event Seqs that go on past a restore into another cluster.
--
-- An event's Seq is base plus its transaction's id times 65,536 plus its
-- place (see store/postgres.go). Transaction ids belong to the cluster: a
-- database restored into a new one (a dump, a logical replica, a major
-- upgrade) starts again from low ids, below the Seqs it holds and below
-- the ids its clients resume after. When a store opens and finds the
-- next Seq not above the highest stored, it raises base past it.
--
-- The Seq no longer has a default, so that a vouch from before this
-- scheme fails to write an event rather than write one every reader
-- would skip.

CREATE TABLE event_seq_base (
	one  BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
	base BIGINT NOT NULL
);
INSERT INTO event_seq_base (base) VALUES (0);
ALTER TABLE events ALTER COLUMN seq DROP DEFAULT;
