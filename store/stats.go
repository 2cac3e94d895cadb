package store

import "sync/atomic"

// WriteStats counts what a store's writes have committed since it
// opened. A rate of Commits is what the disk is asked to sync: on
// SQLite with synchronous=FULL each commit syncs the write-ahead log
// once (checkpoints sync besides, and NORMAL syncs only at them); on
// PostgreSQL with synchronous_commit on, each commit waits for a flush
// of the server's WAL. Writes / Commits is how many writes a commit
// carries: group commit at work.
type WriteStats struct {
	// Commits is the write transactions committed (not the schema's
	// migrations).
	Commits int64
	// Writes is the writes they held: each a call that writes (an
	// Insert, an Import of many rows, a batch item's completion or a
	// run's, a label, ...), also one that found nothing to change (a duplicate); a write
	// that failed is not counted, nor a transaction whose every write
	// failed.
	Writes int64
}

// WriteCounter is a store that counts its commits; the stores [Open]
// returns do.
type WriteCounter interface {
	WriteStats() WriteStats
}

// writeCounts are an engine's WriteStats.
type writeCounts struct {
	commits, writes atomic.Int64
}

// committed counts a transaction committed with n writes.
func (c *writeCounts) committed(n int) {
	c.commits.Add(1)
	c.writes.Add(int64(n))
}

func (c *writeCounts) stats() WriteStats {
	return WriteStats{Commits: c.commits.Load(), Writes: c.writes.Load()}
}

// WriteStats implements [WriteCounter].
func (s *sqlStore) WriteStats() WriteStats { return s.eng.counts().stats() }
