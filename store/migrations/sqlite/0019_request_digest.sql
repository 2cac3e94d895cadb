-- A verification's request hash as bytes: the SHA-256 of its body, and
-- the server's policy fingerprint when it has one (32 or 40 bytes), where
-- request_hash held them as 81 characters of hex. A new row keeps
-- request_hash empty when its hash has that form (see store/digest.go);
-- a row written before keeps its text, and reads take whichever is set.
-- Adding a column with no default rewrites nothing.

ALTER TABLE verification_logs ADD COLUMN request_digest BLOB;
