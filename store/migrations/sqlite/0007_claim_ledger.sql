-- The claim ledger and the verdict unverified.
--
-- A report now lists every claim its output makes, each verified, refuted
-- or unverified, and a fourth verdict, unverified, says that nothing was
-- found false but some claim could not be checked either way (row 6 of
-- the seven-row verdict table).
--
-- verification_logs gains what the ledger says: claims counts its claims
-- (NULL for a row written before this migration, whose report has no
-- ledger and whose verdict_row numbers the six-row table),
-- claims_unverified and claims_refuted the claims left unverified and
-- refuted, and left_unverified whether the row-6 condition held whatever
-- row decided (a claim left unverified, or no claim and nothing decided),
-- which calibration needs to decide the verdict again under other
-- thresholds.
--
-- metric_tallies gains the unverified verdicts and the sums of coverage
-- (decided claims ÷ claims): the verifications with a ledger, their
-- claims, those decided (verified or refuted) and those refuted. Rows
-- written before keep 0 in every new sum, and no ledger.

ALTER TABLE verification_logs ADD COLUMN claims INTEGER;
ALTER TABLE verification_logs ADD COLUMN claims_unverified INTEGER NOT NULL DEFAULT 0;
ALTER TABLE verification_logs ADD COLUMN claims_refuted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE verification_logs ADD COLUMN left_unverified BOOLEAN NOT NULL DEFAULT FALSE;

ALTER TABLE metric_tallies ADD COLUMN verdict_unverified DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN ledgers DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN claims DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN claims_decided DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE metric_tallies ADD COLUMN claims_refuted DOUBLE PRECISION NOT NULL DEFAULT 0;
