-- Batches stored as they are uploaded.
--
-- A batch's items are now written a chunk at a time while its body is
-- read, each chunk in a short transaction of its own. Until its last
-- chunk is stored the batch is 'loading': no read shows it and nothing
-- works it; then it turns 'running' (or 'done') in one transaction, or is
-- deleted with its items when the upload fails.
--
-- loaded_at is when a chunk of a loading batch was last written (NULL
-- once the batch is complete): a loading batch not written to for long
-- was left by a process that ended mid-upload, and is deleted.

ALTER TABLE batches ADD COLUMN loaded_at TIMESTAMPTZ;
