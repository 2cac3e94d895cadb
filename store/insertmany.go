package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A PostgreSQL group transaction (see pgEngine.commitGroup) writes the
// rows of its insertions with one statement, and their events with
// another, where each written alone costs a statement per row and per
// event: a round trip, and PostgreSQL's executor start for each (see
// docs/performance.md). Each statement takes a column's values as an
// array, whatever the number of rows: one prepared statement of each,
// where a VALUES list would prepare one for every size of group, each
// plan kept by every connection (about 14 KB per row of the statement).
// Should the statement for all fail, the group runs again write by
// write, which finds the write to blame (see pgEngine.groupTx).

// manyWriter writes many rows in a statement for all.
type manyWriter interface {
	// insertLogRows inserts verification rows (each its columns in the
	// order of insertedCols) and returns the Seq of each inserted row by
	// its unique key; a row whose unique key matched a stored row is not
	// inserted, and has none.
	insertLogRows(ctx context.Context, tx conn, rows [][]any) (map[uniqueKey]int64, error)
	// insertEventRows inserts events (each its columns in the order of
	// eventColumns) in a write transaction, after those it inserted
	// before, and returns their Seqs in order.
	insertEventRows(ctx context.Context, tx conn, events [][]any) ([]int64, error)
}

// insertMany writes ins, the insertions of one group transaction, as
// insertOne would write each in turn, with a statement for all their
// rows and one for all their events. It reports false, having run
// nothing, when the writes of ins depend on each other (two share a
// unique key, or a later attempt reads a first attempt of the group):
// then each must be written in turn. An error leaves tx to be rolled
// back.
func (s *sqlStore) insertMany(ctx context.Context, tx conn, w manyWriter, ins []*insertion) (bool, error) {
	if !independent(ins) {
		return false, nil
	}
	// The rows go in the order of their unique keys, not of ins: each
	// insert locks its key until the commit, so two transactions that
	// insert the same keys (twin requests of two batches, or of two
	// processes) in opposite orders would each wait on the other, a
	// deadlock PostgreSQL ends by failing one of them. In one order, the
	// later waits for the earlier's commit, then finds its rows stored.
	byKey := slices.Clone(ins)
	slices.SortFunc(byKey, compareKeys)
	rows := make([][]any, 0, len(ins))
	for _, in := range byKey {
		in.reset()
		a, err := s.rowArgs(ctx, tx, in.p)
		if err != nil {
			return true, err
		}
		rows = append(rows, a)
	}
	seqs, err := w.insertLogRows(ctx, tx, rows)
	if err != nil {
		return true, err
	}
	var (
		evArgs  [][]any
		written []*insertion // those whose events follow, in evArgs' order
	)
	for _, in := range ins {
		v := in.p.Verification
		seq, ok := seqs[uniqueKey{v.Tenant, v.IdempotencyKey}]
		if !ok { // a unique key matched a stored row: nothing was written
			if in.dup, err = s.duplicated(ctx, tx, v); err != nil {
				return true, err
			}
			continue
		}
		in.seq = seq
		if err := s.tally(ctx, tx, v); err != nil {
			return true, err
		}
		for _, e := range in.evs {
			evArgs = append(evArgs, s.eventArgs(e, seq))
		}
		if len(in.evs) > 0 {
			written = append(written, in)
		}
	}
	if len(evArgs) == 0 {
		return true, nil
	}
	evSeqs, err := w.insertEventRows(ctx, tx, evArgs)
	if err != nil {
		return true, err
	}
	for _, in := range written {
		in.seqs, evSeqs = evSeqs[:len(in.evs):len(in.evs)], evSeqs[len(in.evs):]
	}
	return true, nil
}

// compareKeys orders insertions by their verifications' unique keys.
func compareKeys(a, b *insertion) int { return a.key().compare(b.key()) }

// key is the unique key of in's verification.
func (in *insertion) key() uniqueKey {
	return uniqueKey{in.p.Tenant, in.p.IdempotencyKey}
}

// uniqueKey is a verification's key among its tenant's: its idempotency
// key.
type uniqueKey struct{ tenant, key string }

// compare orders keys by tenant, then key: the order in which a
// transaction writes the rows of many keys (see insertMany).
func (k uniqueKey) compare(o uniqueKey) int {
	return cmp.Or(strings.Compare(k.tenant, o.tenant), strings.Compare(k.key, o.key))
}

// independent reports whether the insertions of ins can be written in
// one statement: no two share a unique key (a tenant's idempotency key,
// or id and attempt), and none that reads its task's first attempt (a
// later attempt without its issue) shares its task with another.
func independent(ins []*insertion) bool {
	type attemptKey struct {
		tenant, id string
		attempt    int
	}
	keys := make(map[uniqueKey]bool, len(ins))
	attempts := make(map[attemptKey]bool, len(ins))
	tasks := make(map[attemptKey]int, len(ins)) // by task: attempt 0
	for _, in := range ins {
		v := in.p.Verification
		k, a := uniqueKey{v.Tenant, v.IdempotencyKey}, attemptKey{v.Tenant, v.ID, v.Attempt}
		if keys[k] || attempts[a] {
			return false
		}
		keys[k], attempts[a] = true, true
		tasks[attemptKey{v.Tenant, v.ID, 0}]++
	}
	for _, in := range ins {
		v := in.p.Verification
		if v.Attempt > 1 && in.issue == "" && tasks[attemptKey{v.Tenant, v.ID, 0}] > 1 {
			return false
		}
	}
	return true
}

// pgMany are the statements with which a PostgreSQL store writes many
// rows at once (see manyWriter), built for its schema when it opens:
// each column's values come as an array of the column's type.
type pgMany struct {
	logs, events string
}

// newPGMany builds the statements of pgMany for the schema q sees.
func newPGMany(ctx context.Context, q pgQuerier) (pgMany, error) {
	logs, err := unnest(ctx, q, "verification_logs", nil, insertedCols)
	if err != nil {
		return pgMany{}, err
	}
	// The events' places come first, then their columns.
	events, err := unnest(ctx, q, "events", []string{"bigint"}, eventColumns)
	if err != nil {
		return pgMany{}, err
	}
	return pgMany{
		logs: `INSERT INTO verification_logs (` + insertedCols + `) SELECT * FROM ` + logs +
			` ON CONFLICT DO NOTHING RETURNING seq, tenant, idempotency_key`,
		events: `INSERT INTO events (seq, ` + eventColumns + `) SELECT ` + pgEventSeq + ` + u.place, u.` +
			strings.Join(columnNames(eventColumns), ", u.") + ` FROM ` + events +
			` AS u(place, ` + eventColumns + `) RETURNING seq`,
	}, nil
}

// columnNames splits a list of columns (comma-separated).
func columnNames(cols string) []string {
	names := strings.Split(cols, ",")
	for i, c := range names {
		names[i] = strings.TrimSpace(c)
	}
	return names
}

// unnest returns "unnest($1::type[], ...)": an array parameter of each
// type of lead, then one of each column of cols (comma-separated) of
// table, of the column's type without its modifier (as a row's own
// INSERT, the statement's assignment to the column applies it).
func unnest(ctx context.Context, q pgQuerier, table string, lead []string, cols string) (string, error) {
	rs, err := q.Query(ctx, `SELECT attname, format_type(atttypid, NULL) FROM pg_attribute
		WHERE attrelid = $1::text::regclass AND attnum > 0 AND NOT attisdropped`, table)
	if err != nil {
		return "", fmt.Errorf("the columns of %s: %w", table, err)
	}
	types := map[string]string{}
	for rs.Next() {
		var name, typ string
		if err := rs.Scan(&name, &typ); err != nil {
			rs.Close()
			return "", err
		}
		types[name] = typ
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return "", fmt.Errorf("the columns of %s: %w", table, err)
	}
	arrays := slices.Clone(lead)
	for _, c := range columnNames(cols) {
		typ, ok := types[c]
		if !ok {
			return "", fmt.Errorf("%s has no column %s", table, c)
		}
		arrays = append(arrays, typ)
	}
	var b strings.Builder
	b.WriteString("unnest(")
	for i, typ := range arrays {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d::%s[]", i+1, typ)
	}
	b.WriteString(")")
	return b.String(), nil
}

// columns turns rows into an array of each column's values.
func columns(rows [][]any) []any {
	if len(rows) == 0 {
		return nil
	}
	cols := make([]any, len(rows[0]))
	for c := range cols {
		col := make([]any, len(rows))
		for r, row := range rows {
			col[r] = row[c]
		}
		cols[c] = col
	}
	return cols
}

// insertLogRows implements manyWriter.
func (e *pgEngine) insertLogRows(ctx context.Context, tx conn, rows [][]any) (map[uniqueKey]int64, error) {
	rs, err := tx.query(ctx, e.many.logs, columns(rows)...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	seqs := make(map[uniqueKey]int64, len(rows))
	for rs.Next() {
		var (
			seq int64
			k   uniqueKey
		)
		if err := rs.Scan(&seq, &k.tenant, &k.key); err != nil {
			return nil, err
		}
		seqs[k] = seq
	}
	return seqs, rs.Err()
}

// insertEventRows implements manyWriter: the events are numbered after
// those the transaction inserted before (see insertEvent).
func (e *pgEngine) insertEventRows(ctx context.Context, tx conn, events [][]any) ([]int64, error) {
	c, ok := tx.(pgConn)
	if !ok || c.events == nil {
		return nil, errors.New("events outside a write transaction")
	}
	if *c.events+len(events)-1 > maxTxEvents {
		return nil, fmt.Errorf("more than %d events in one transaction", maxTxEvents)
	}
	places := make([]int64, len(events))
	for i := range places {
		places[i] = int64(*c.events)
		*c.events++
	}
	rs, err := c.query(ctx, e.many.events, append([]any{places}, columns(events)...)...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	seqs := make([]int64, 0, len(events))
	for rs.Next() {
		var seq int64
		if err := rs.Scan(&seq); err != nil {
			return nil, err
		}
		seqs = append(seqs, seq)
	}
	if err := rs.Err(); err != nil {
		return nil, err
	}
	if len(seqs) != len(events) {
		return nil, fmt.Errorf("%d events inserted of %d", len(seqs), len(events))
	}
	// An event's Seq grows with its place: in order of Seq, the events
	// are in the order of their places.
	slices.Sort(seqs)
	return seqs, nil
}
