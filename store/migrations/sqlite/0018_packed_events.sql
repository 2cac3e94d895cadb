-- An event's data compressed by vouch, as reports and requests are (see
-- store/pack.go): the data of most events is the same few keys around a
-- report kept in the log, and a dictionary trained on the store's own
-- events shrinks it about threefold. SQLite keeps each value as it is
-- given, so the column needs no change: an event written before holds its
-- JSON as text, a new one its bytes, and reads tell the two apart. This
-- migration only keeps the two engines' versions in step.

SELECT 1;
