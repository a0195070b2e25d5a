-- Schema version 4: the embedded store's ranking (see postgres/index.go).
-- tsv now holds the SQLite index's tokens (Porter-stemmed), each weighted
-- by its field (A files, commands and errors; B the prompt; C the summary;
-- D the text and the extra terms) at positions that never join two
-- fields; fts_len is the chunk's length in tokens. A chunk written before
-- has fts_len NULL until Backfill indexes it again (each owner's own,
-- newest first), and is not searched until then. Each session counts its
-- indexed chunks and their tokens: BM25's row count and average length
-- are their sums over the sessions a role can read.

ALTER TABLE chunks ADD COLUMN fts_len integer;
ALTER TABLE sessions ADD COLUMN fts_chunks bigint NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN fts_tokens bigint NOT NULL DEFAULT 0;
CREATE INDEX chunks_backfill ON chunks (owner, id) WHERE fts_len IS NULL;
-- A chunk's turn: its first chunk, and its neighbours in it.
CREATE INDEX chunks_session_turn ON chunks (session_id, turn, id);
