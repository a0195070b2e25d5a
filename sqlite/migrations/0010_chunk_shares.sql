-- Schema version 10: chunks that several sessions hold.
--
-- A chunk is stored once per project and hash, under the session that
-- stored it first. A session resumed in a new transcript repeats the old
-- one's lines (same uuids, same text), so its first chunks have the old
-- session's hashes: a share row records that the resumed session holds
-- such a chunk too, at its own place (sequence number, turn, window and
-- lines). Reads by session include the chunks it shares; prune and forget
-- hand a chunk another session shares over to that session instead of
-- deleting it. A shared chunk cannot be deleted (the reference has no
-- cascade): whatever deletes chunks must hand them over first.
CREATE TABLE chunk_shares (
	session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	chunk_id   INTEGER NOT NULL REFERENCES chunks (id),
	seq        INTEGER NOT NULL,
	turn       INTEGER NOT NULL,
	win        INTEGER NOT NULL,
	first_line INTEGER NOT NULL,
	last_line  INTEGER NOT NULL,
	PRIMARY KEY (session_id, chunk_id)
) WITHOUT ROWID;
CREATE INDEX chunk_shares_chunk ON chunk_shares (chunk_id);
CREATE INDEX chunk_shares_seq ON chunk_shares (session_id, seq);

-- Chunks shared before this version are known by the items that point at
-- them from another session: an item keeps its own session's sequence
-- number, turn and window of its chunk. The lines are the chunk's, moved
-- by how far the item's line is from the line of the same item (kind and
-- key) of the chunk's session, when that session has one pointing at the
-- chunk (a chunk's working-set item always does: it sits on the chunk's
-- last line). A shared chunk no item of the other session points at
-- cannot be told apart, and stays its first session's only.
WITH found AS (
	SELECT i.session_id, c.id AS chunk_id, i.chunk_seq AS seq, i.turn, i.win, c.first_line, c.last_line,
		(SELECT i.line - a.line FROM items a
			WHERE a.session_id = c.session_id AND a.kind = i.kind AND a.key = i.key AND a.chunk_id = c.id) AS delta
	FROM items i JOIN chunks c ON c.id = i.chunk_id
	WHERE c.session_id <> i.session_id
)
INSERT OR IGNORE INTO chunk_shares (session_id, chunk_id, seq, turn, win, first_line, last_line)
SELECT session_id, chunk_id, seq, turn, win, first_line + coalesce(delta, 0), last_line + coalesce(delta, 0)
FROM found ORDER BY session_id, chunk_id, delta IS NULL;
