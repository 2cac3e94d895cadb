// Package store is the durable log of `vouch serve`: every verification
// with its report and (size-capped) request, the events streamed to
// clients, batches and their items, API keys, and the overrides people
// add later.
//
// One [Store] interface has two implementations with one schema and
// embedded migrations: SQLite (pure Go, the default; WAL, one writer that
// commits concurrent inserts together, a pool of readers) and PostgreSQL
// (pgx). [Open] picks one from a DSN. The conformance suite in package
// storetest runs against both.
//
// Every row carries its tenant and every query filters by it; the only
// lookups across tenants are the ones authentication and maintenance need
// ([Keyring.Key], [Batches.PendingItems], [Log.Prune],
// [Batches.PruneLoading]).
//
// A write that returned nil is durable: the server answers 200 only after
// it.
package store

import (
	"context"
	"errors"
	"time"

	"github.com/vouchgate/vouch"
)

// Errors a Store returns; test with errors.Is.
var (
	// ErrNotFound: no row with that id in that tenant.
	ErrNotFound = errors.New("store: not found")
	// ErrDuplicate: a verification with the same tenant and idempotency
	// key, or the same tenant, id and attempt, is already stored. The
	// stored one is returned beside it.
	ErrDuplicate = errors.New("store: duplicate verification")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("store: closed")
)

// Store is the durable log: every role below, and the store's own
// lifecycle. Implementations are safe for concurrent use. A consumer that
// needs only some of it takes the role (or roles) it uses: [Log],
// [LabelLog], [Quality], [EventLog], [Batches], [Keyring] or [Secrets].
type Store interface {
	Log
	LabelLog
	Quality
	EventLog
	Batches
	Keyring
	Secrets

	// Ping reports whether the store is reachable.
	Ping(ctx context.Context) error
	// Close flushes pending writes and releases the store.
	Close() error
}

// Log is the verification log of a [Store]: its rows written, read and
// pruned.
type Log interface {
	// Insert writes a verification and the events it raised in one
	// transaction, assigning v.Seq and each event's Seq, and v.Issue
	// when it was empty (see [Verification.Issue]). When a
	// verification with the same tenant and IdempotencyKey, or the same
	// tenant, ID and Attempt, exists, nothing is written and Insert
	// returns that one (Result included) with ErrDuplicate.
	Insert(ctx context.Context, v *Verification, events []Event) (*Verification, error)
	// Import writes many verifications (no events) in one transaction,
	// for restores, re-verification and benchmarks: each is added to its
	// tally as Insert would, duplicates are skipped, and the number
	// written is returned. Each written one gets its Seq, and its Issue
	// as Insert gives it (a retry after its attempt 1 in vs finds it).
	Import(ctx context.Context, vs []*Verification) (int, error)
	// ByKey returns the tenant's verification with that idempotency key.
	ByKey(ctx context.Context, tenant, key string) (*Verification, error)
	// Get returns a verification by id; attempt 0 means the latest
	// attempt of that id. Request is filled in.
	Get(ctx context.Context, tenant, id string, attempt int) (*Verification, error)
	// List returns the tenant's verifications matching f, newest first
	// (by Seq; oldest first with f.Oldest), without their Request and
	// RequestHash, and without their Result unless f.Reports.
	List(ctx context.Context, tenant string, f Filter) (Page, error)
	// Tenants returns the tenants with verifications since the given
	// time.
	Tenants(ctx context.Context, since time.Time) ([]string, error)

	// Prune deletes up to limit verifications created before cutoff (with
	// their overrides and outcomes), the tallies of the hours before the
	// cutoff's, and events older than cutoff, returning how many
	// verifications it deleted; call it until it returns fewer than
	// limit.
	Prune(ctx context.Context, cutoff time.Time, limit int) (int, error)
}

// LabelLog is the labels of a [Store]: the overrides people add beside
// stored verifications, the outcomes seen downstream of them, and both
// read back for calibration.
type LabelLog interface {
	// AddOverride records a person's verdict beside a stored
	// verification (the report itself never changes); ErrNotFound when
	// the tenant has no verification with that id and attempt.
	AddOverride(ctx context.Context, o *Override) error
	// Overrides returns the overrides of a verification, oldest first.
	Overrides(ctx context.Context, tenant, id string, attempt int) ([]Override, error)

	// AddOutcome records what happened downstream of a verification
	// (named by its id, or by its task), beside it; ErrNotFound when the
	// tenant has no such verification.
	AddOutcome(ctx context.Context, o *Outcome) error
	// Labels returns the overrides and outcomes of the tenant's
	// verifications in the window, oldest first, each with the
	// verification it labels.
	Labels(ctx context.Context, tenant string, w Window) ([]Labelled, error)
}

// Quality is what a [Store] keeps for the quality metrics: the tallies
// and calibration reads of a window, and the state of the alerts.
type Quality interface {
	// Tally returns what the metrics of a window are computed from: the
	// tallies of its verifications by kind and executor model, and their
	// failure codes by frequency.
	Tally(ctx context.Context, tenant string, w Window) (*WindowTally, error)
	// Scan calls fn with each of the tenant's verifications in the
	// window, with only the fields calibration reads filled in (Seq,
	// Tenant, ID, Attempt, Kind, Verdict, VerdictRow, Score, Confidence,
	// Dims, MustUndecided, Injection, Ledger, CreatedAt); it stops at fn's first
	// error and returns it. fn must not keep the Verification.
	Scan(ctx context.Context, tenant string, w Window, fn func(*Verification) error) error
	// Alerts returns the state of the tenant's alerts, by name.
	Alerts(ctx context.Context, tenant string) ([]Alert, error)
	// SetAlert writes an alert's state; when it starts or stops firing
	// it also writes the event ev returns, in the same transaction, and
	// returns true; an error from ev undoes the write. It fills in Since and UpdatedAt.
	SetAlert(ctx context.Context, a *Alert, ev func(*Alert) (Event, error)) (changed bool, err error)
}

// EventLog is the events of a [Store], streamed to clients (those
// written with a verification are written by [Log.Insert] and
// [Batches.CompleteItem]).
type EventLog interface {
	// AppendEvents writes events not tied to a new verification,
	// assigning their Seq.
	AppendEvents(ctx context.Context, events []Event) error
	// Events returns up to limit of the tenant's events with Seq > after,
	// in Seq order: those that are final, so that a later call after the
	// last returned never skips one committed late. On PostgreSQL an
	// event whose writer is younger than one still running waits for it
	// (Events waits up to two seconds, then returns without it: a later
	// call brings it).
	Events(ctx context.Context, tenant string, after int64, limit int) ([]Event, error)
	// LastEventSeq returns the Seq a stream of the tenant's events from
	// now on starts after: the highest, 0 when there is none, or on
	// PostgreSQL the Seq just below a writer still running, so that the
	// stream misses none of its events (and may begin with some committed
	// just before).
	LastEventSeq(ctx context.Context, tenant string) (int64, error)
}

// Batches is the batches of a [Store] and their items: created at once
// or uploaded a chunk at a time, worked item by item, and read back.
type Batches interface {
	// CreateBatch writes a batch and its items (requests in input order;
	// an item may be born done with an error, a line that did not parse)
	// in one transaction. b.Total is len(items).
	CreateBatch(ctx context.Context, b *Batch, items []BatchItem) error
	// BeginBatch writes a batch with no items in the state BatchLoading,
	// for a batch stored as it is uploaded: AppendItems adds its items a
	// chunk at a time, each in a short transaction, then CommitBatch
	// makes it visible, or AbortBatch deletes it. A loading batch is
	// nobody's to see or work: Batch and BatchResults answer ErrNotFound
	// for it, PendingItems passes it by. b's Kind and Policy are as for
	// CreateBatch; a zero CreatedAt is set to now, and b gets the stored
	// state.
	BeginBatch(ctx context.Context, b *Batch) error
	// AppendItems adds items to a loading batch in one transaction,
	// numbered on from the items before them (each item's Index is set),
	// each born pending or failed as in CreateBatch, and counts them in
	// the batch's Total and Failed. It returns ErrNotFound when the
	// tenant has no such batch loading (it was committed, aborted, or
	// deleted by PruneLoading).
	AppendItems(ctx context.Context, tenant, id string, items []BatchItem) error
	// CommitBatch ends the upload of a loading batch in one transaction:
	// the batch turns BatchRunning (BatchDone when every item failed, or
	// it has none) and is returned with its counts. It returns
	// ErrNotFound when the tenant has no such batch loading.
	CommitBatch(ctx context.Context, tenant, id string) (*Batch, error)
	// AbortBatch deletes a loading batch and its items, in transactions
	// of a bounded number of items; a batch that is not loading, or does
	// not exist, is left as it is and nil is returned.
	AbortBatch(ctx context.Context, tenant, id string) error
	// PruneLoading deletes, as AbortBatch does, the loading batches of
	// every tenant not written to (by BeginBatch or AppendItems) for at
	// least age by the store's clock: those left by an upload whose
	// process ended. It returns how many batches it deleted.
	PruneLoading(ctx context.Context, age time.Duration) (int, error)
	// Batch returns a batch with its counts.
	Batch(ctx context.Context, tenant, id string) (*Batch, error)
	// CompleteItem ends a pending item in one transaction, as c says:
	// with its verification (and the events it raised) written as Insert
	// would (a duplicate is not an error: the item then points at the
	// stored verification, unless c.Conflict makes it the item's error),
	// with a re-verification's result, or with an error. It updates the
	// batch's counts, and finishes the batch when it was the last item.
	// Completing an item that is not pending does nothing and returns
	// nil, so a retried job cannot count twice.
	CompleteItem(ctx context.Context, c Completion) error
	// CompleteItems completes many items in one transaction, in order,
	// each as CompleteItem does, except that an item the store no longer
	// holds (its batch deleted) is passed by, as one no longer pending is.
	CompleteItems(ctx context.Context, cs []Completion) error
	// PendingItems returns up to limit pending items across tenants
	// (Request filled in), oldest batch first, for resuming batches after
	// a restart.
	PendingItems(ctx context.Context, limit int) ([]BatchItem, error)
	// BatchResults calls fn for each item of a batch in index order, with
	// the item's result: the stored report for a done item (its Result,
	// in a re-verification batch), its error JSON for a failed one, nil
	// for a pending one. It stops at fn's
	// first error and returns it.
	BatchResults(ctx context.Context, tenant, id string, fn func(it BatchItem, result []byte) error) error
}

// Keyring is the API keys of a [Store].
type Keyring interface {
	// CreateKey stores an API key (its hash, never the secret).
	CreateKey(ctx context.Context, k *Key) error
	// Key returns a key by id, in any tenant (authentication looks keys
	// up before it knows the tenant); revoked keys are returned too.
	Key(ctx context.Context, id string) (*Key, error)
	// Keys lists the keys of a tenant, or of every tenant when tenant is
	// "", oldest first.
	Keys(ctx context.Context, tenant string) ([]Key, error)
	// RevokeKey marks a key revoked at the given time; ErrNotFound when
	// there is no such key.
	RevokeKey(ctx context.Context, id string, at time.Time) error
	// ActiveKeys counts the keys not revoked, in every tenant.
	ActiveKeys(ctx context.Context) (int, error)
}

// Secrets is the secrets of the deployment a [Store] keeps.
type Secrets interface {
	// Secret returns the named secret of the deployment (such as the key
	// that signs dashboard sessions): size random bytes, made the first
	// time the name is asked for and kept from then on, so that every
	// caller in every process on the store gets the same bytes, even
	// when first calls race. size counts only when the secret is made.
	Secret(ctx context.Context, name string, size int) ([]byte, error)
}

// Verification is one row of verification_logs: the report and request
// of one verification, and the columns queries need.
type Verification struct {
	// Seq is assigned by the store on insert; it orders rows and is the
	// list cursor.
	Seq    int64
	Tenant string
	// ID is the report's id: the request's id, or its content hash.
	ID      string
	Attempt int
	// IdempotencyKey is the Idempotency-Key header, or "ID/Attempt".
	IdempotencyKey string
	// RequestHash is the SHA-256 (hex) of the request body as received;
	// the same key with another hash is a conflict.
	RequestHash string
	// InteractionID and TargetID come from the request's interactionId
	// and target.
	InteractionID string
	TargetID      string
	// VerificationType is agent, orchestrator or moderator, from the kind.
	VerificationType string
	TaskID           string
	Goal             string
	Kind             vouch.Kind
	Verdict          vouch.Verdict
	Action           vouch.Action
	// Score is nil when nothing was decided.
	Score         *float64
	Confidence    float64
	NeedsReview   bool
	Criticality   string
	ExecutorModel string
	JudgeModels   []string
	CostUSD       float64
	DurationMs    float64
	// Result is the report as JSON.
	Result []byte
	// Request is the request as received, nil when it was over the cap
	// (RequestBytes says how large it was).
	Request      []byte
	RequestBytes int
	CreatedAt    time.Time

	// VerdictRow is the row of the verdict table that decided: 1 to 7 of
	// the seven-row table when Ledger is set; 1 to 6 of the six-row table
	// that came before the claim ledger when it is not; 0 unknown.
	VerdictRow int
	// Dims are the scores of the decided dimensions.
	Dims map[string]float64
	// MustUndecided: a must-pass criterion was left undecided; Injection:
	// the output tried to steer its verifier. With VerdictRow, Dims and
	// Ledger, they let calibration decide the verdict again.
	MustUndecided, Injection bool
	// Ledger is what the report's claim ledger says; nil when the report
	// has none (a verification stored before vouch kept the ledger, whose
	// VerdictRow numbers the six-row table).
	Ledger *Ledger
	// Codes are the failure codes the report raised (of failed checks and
	// of warnings), each once, in the report's order.
	Codes []string
	// TaskCostUSD is what the executor spent on the task, nil when
	// unknown.
	TaskCostUSD *float64
	// JudgeCalls, CacheHits and CacheMisses count the judge's calls.
	JudgeCalls, CacheHits, CacheMisses int
	// SelfConfidence is the confidence the executor reported in itself,
	// nil when it reported none.
	SelfConfidence *float64
	// Complexity is the size of what the task asked for: the subgoals of
	// the plan a decomposition verifies, else the task's written criteria
	// (vouch's Request.Complexity); nil when unknown (a row written before
	// the log kept it).
	Complexity *int
	// Issue is the first failure code of the task's first attempt: for
	// attempt 1 the first of its Codes, or [IssueNone] when it raised
	// none; for a retry, the one its attempt 1 raised, which the store
	// reads from the log when it writes the retry (when left empty).
	// Empty when unknown: a row written before the log kept it, or a
	// retry whose first attempt is not in the log.
	Issue string
}

// IssueNone is the [Verification.Issue] of a task whose first attempt
// raised no failure code: what sent it back was a low score, or nothing
// did.
const IssueNone = "NO_CODE"

// IssueOf returns the issue of a first attempt that raised codes: the
// first of them, or [IssueNone].
func IssueOf(codes []string) string {
	if len(codes) == 0 {
		return IssueNone
	}
	return codes[0]
}

// Ledger is what a report's claim ledger says, as the log keeps it: the
// counts the coverage metric sums (decided claims ÷ claims), and whether
// the verdict table's row-6 condition held, which calibration needs to
// decide the verdict again.
type Ledger struct {
	// Claims counts the claims of the ledger; Unverified and Refuted
	// count those left unverified and those refuted (the others were
	// verified).
	Claims, Unverified, Refuted int
	// LeftUnverified is the row-6 condition of the verdict table apart
	// from the score: a claim was left unverified, or the output made no
	// claim and nothing was decided. It is kept whatever row decided: an
	// output a low score sent back (row 2 or 3) may have left claims
	// unverified too, and would be unverified, not a pass, under a lower
	// passAt.
	LeftUnverified bool
}

// Decided is the number of claims decided: verified or refuted.
func (l *Ledger) Decided() int { return l.Claims - l.Unverified }

// Filter selects verifications; zero fields do not filter. Verdict is
// matched as stored: pass, retry, fail or unverified.
type Filter struct {
	Kind                  vouch.Kind
	Verdict               vouch.Verdict
	Action                vouch.Action
	TaskID, InteractionID string
	ExecutorModel         string
	NeedsReview           *bool
	// Since is inclusive, Until exclusive.
	Since, Until time.Time
	// Unreviewed keeps only the verifications no override labels yet
	// (the review queue, with NeedsReview).
	Unreviewed bool
	// Before is a cursor: only rows with Seq < Before (0: from the
	// newest).
	Before int64
	// Oldest lists oldest first (by Seq) instead of newest first; its
	// cursor is After.
	Oldest bool
	// After is the cursor of an Oldest list: only rows with Seq > After.
	After int64
	// Limit caps the page (default 50, at most 1000).
	Limit int
	// Reports fills in each item's Result; without it Result is nil, and
	// the page is read without the reports (quicker: a list shows their
	// columns).
	Reports bool
}

// Page is one page of a list.
type Page struct {
	Items []Verification
	// Next is the cursor of the next page (its Filter.Before; with
	// Filter.Oldest, its Filter.After), 0 when this page is the last.
	Next int64
}

// Override is a person's verdict on a stored verification.
type Override struct {
	Tenant, VerificationID string
	Attempt                int
	Verdict                vouch.Verdict
	Reason                 string
	Reviewer               string
	CreatedAt              time.Time
}

// Event is one stored event: the event's JSON as streamed, and its
// store-assigned sequence number (the SSE id, for Last-Event-ID).
type Event struct {
	Seq    int64
	Tenant string
	Type   string
	Data   []byte
	// ReportAt, in an event written with a verification (Insert,
	// CompleteItem), says that Data holds the verification's Result at
	// this byte offset; the store then keeps the report once, in the
	// verification's row, and puts it back in place when the event is
	// read. 0: Data is stored as it is. Events returns it as 0.
	ReportAt  int
	CreatedAt time.Time
}

// Batch kinds.
const (
	// BatchVerify verifies the requests its items carry, writing a
	// report row for each.
	BatchVerify = "verify"
	// BatchReverify verifies stored verifications again under the
	// batch's policy; each item ends with the comparison of the old and
	// new verdicts, and the log is left as it is.
	BatchReverify = "reverify"
)

// Batch states.
const (
	// BatchLoading: the batch's items are being stored as its upload
	// arrives; it is neither shown nor worked (see [Batches.BeginBatch]).
	BatchLoading = "loading"
	BatchRunning = "running"
	BatchDone    = "done"
)

// Batch is a batch of verifications.
type Batch struct {
	Tenant, ID string
	// State is BatchLoading while the batch is uploaded (BeginBatch),
	// then BatchRunning until every item is done or failed.
	State               string
	Total, Done, Failed int
	CreatedAt           time.Time
	// FinishedAt is zero while the batch runs.
	FinishedAt time.Time
	// Kind is BatchVerify ("" on create) or BatchReverify.
	Kind string
	// Policy is the resolved policy (JSON) a re-verification batch
	// verifies under; nil otherwise.
	Policy []byte
}

// Batch item states.
const (
	ItemPending = "pending"
	ItemDone    = "done"
	ItemError   = "error"
)

// BatchItem is one request of a batch.
type BatchItem struct {
	Tenant, BatchID string
	// Index is the item's 0-based position in the batch's input.
	Index int
	State string
	// Request is the request as given (filled in by PendingItems and
	// Item). An item completed with a verification that stored its
	// request keeps none: the log holds it (Get that verification).
	Request []byte
	// VerificationID and Attempt name the stored verification of a done
	// item.
	VerificationID string
	Attempt        int
	// Error is the error JSON of a failed item.
	Error []byte
	// RefID and RefAttempt name the stored verification an item of a
	// re-verification batch verifies again (it then has no Request).
	RefID      string
	RefAttempt int
	// Result is the result of a done item of a re-verification batch.
	Result []byte
}

// Completion is how one pending batch item ends: with the first given of
// a Verification (and the Events it raised), a re-verification's Result
// (the comparison of its old and new verdicts, as JSON), or an Error (a
// JSON object).
type Completion struct {
	// Tenant, BatchID and Index name the item.
	Tenant, BatchID string
	Index           int
	// Verification is written as [Log.Insert] writes one, with Events;
	// the store assigns its Seq and theirs when this completion writes
	// it. Its Seq stays 0 when it does not: the item was no longer
	// pending, or the verification was stored already (the item then
	// points at the stored one).
	Verification *Verification
	Events       []Event
	// Conflict, when not nil, is asked about the verification stored
	// already under Verification's key (a copy of the request verified
	// at the same time, by another item or another process): it returns
	// the item's error when the stored one is another request's, and the
	// item fails with it; nil, and the item points at the stored one.
	Conflict func(stored *Verification) []byte
	// Result is the result of an item of a re-verification batch.
	Result []byte
	// Error is why the item failed.
	Error []byte
}

// Scopes an API key can hold.
const (
	ScopeVerify = "verify"
	ScopeRead   = "read"
	ScopeReview = "review"
	ScopeAdmin  = "admin"
	// ScopeOperator reads what spans tenants (the Prometheus /metrics,
	// which names every tenant): it is the operator's, and admin does not
	// imply it.
	ScopeOperator = "operator"
)

// Scopes lists every scope.
var Scopes = []string{ScopeVerify, ScopeRead, ScopeReview, ScopeAdmin, ScopeOperator}

// Key is an API key as stored: its hash, never its secret.
type Key struct {
	ID, Tenant, Name string
	// Hash is the SHA-256 of the key's whole secret (see NewKey).
	Hash      []byte
	Scopes    []string
	CreatedAt time.Time
	// RevokedAt is zero for a live key.
	RevokedAt time.Time
}
