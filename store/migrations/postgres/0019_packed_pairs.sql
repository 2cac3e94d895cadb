-- A verification's request and report compressed together, in one frame
-- kept in the report's column, the request's left NULL (see
-- store/pack.go): a report quotes much of its request, which the frame
-- then holds once. Rows written before keep the two apart, and reads
-- tell them apart; the columns need no change. This migration marks the
-- format, so that an older vouch, which cannot read it, refuses the store.

SELECT 1;
