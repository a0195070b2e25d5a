-- Schema version 7: the raw archive, every transcript line's JSON after
-- masking, so that the exact text outlives Claude Code's transcript and
-- the chunks' truncation. A row is a zstd-compressed block of consecutive
-- lines of one session (see internal/rawblock); blocks of a session never
-- overlap. They go with their session (prune, forget). A new, empty
-- table: the migration costs the same on any store.
CREATE TABLE raw_blocks (
	id           INTEGER PRIMARY KEY,
	session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	first_line   INTEGER NOT NULL,
	last_line    INTEGER NOT NULL,
	first_offset INTEGER NOT NULL, -- transcript byte offset of the first line
	end_offset   INTEGER NOT NULL, -- just past the last line
	text_bytes   INTEGER NOT NULL, -- the lines' text, uncompressed
	data         BLOB NOT NULL,
	UNIQUE (session_id, first_line)
);
