-- The dashboard's session key is no longer kept in the store.
--
-- Whoever could read the database could sign a session with it. The key
-- is now a file of its own (mode 0600, see sessionKeyFile): the stored
-- one is deleted, which signs out the sessions it signed.

DELETE FROM settings WHERE name = 'dashboard.session_key';
