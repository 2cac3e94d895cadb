-- Re-verification: a batch of kind 'reverify' verifies stored
-- verifications again under the policy it carries (its resolved JSON). Its
-- items name the verification they re-verify (ref_id, ref_attempt) rather
-- than carry a request, and end with result, the comparison of the old and
-- the new verdict, instead of a report row: the log keeps what happened.

ALTER TABLE batches ADD COLUMN kind TEXT NOT NULL DEFAULT 'verify';
ALTER TABLE batches ADD COLUMN policy TEXT;
ALTER TABLE batch_items ADD COLUMN ref_id TEXT NOT NULL DEFAULT '';
ALTER TABLE batch_items ADD COLUMN ref_attempt INTEGER NOT NULL DEFAULT 0;
ALTER TABLE batch_items ADD COLUMN result TEXT;
