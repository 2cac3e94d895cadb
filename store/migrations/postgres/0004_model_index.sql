-- The log filtered by executor model (the dashboard's and the API's
-- model filter) reads an index, not the whole log.

CREATE INDEX verification_logs_model ON verification_logs (tenant, executor_model, seq);
