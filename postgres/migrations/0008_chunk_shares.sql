-- Schema version 8: chunks that several sessions hold (the embedded
-- store's version 10).
--
-- A chunk is stored once per owner, project and hash, under the session
-- that stored it first. A session resumed in a new transcript repeats the
-- old one's lines (same uuids, same text), so its first chunks have the
-- old session's hashes: a share row records that the resumed session
-- holds such a chunk too, at its own place (sequence number, turn, window
-- and lines). Reads by session include the chunks it shares; prune and
-- forget hand a chunk another session shares over to that session instead
-- of deleting it. A shared chunk cannot be deleted (the reference has no
-- cascade), so a prune that meets a share written since it handed the
-- chunks over fails rather than take the chunk. A share row belongs to
-- the owner of its session and of its chunk (one role: deduplication is
-- per owner) and is shared with its session's team, under the row
-- security of chunks. Every read of a session's chunks reads this table
-- too, so the roles that may use chunks get the same rights on it here
-- (an upgrade then needs no new grant).

CREATE TABLE chunk_shares (
	owner      text NOT NULL,
	team       text NOT NULL DEFAULT '',
	project    text NOT NULL,
	session_id text NOT NULL,
	chunk_id   bigint NOT NULL REFERENCES chunks (id),
	seq        integer NOT NULL,
	turn       integer NOT NULL,
	win        integer NOT NULL,
	first_line integer NOT NULL,
	last_line  integer NOT NULL,
	PRIMARY KEY (session_id, owner, chunk_id),
	FOREIGN KEY (session_id, owner) REFERENCES sessions (id, owner) ON DELETE CASCADE
);
CREATE INDEX chunk_shares_chunk ON chunk_shares (chunk_id);
CREATE INDEX chunk_shares_seq ON chunk_shares (session_id, owner, seq);

ALTER TABLE chunk_shares ENABLE ROW LEVEL SECURITY;
CREATE POLICY chunk_shares_read ON chunk_shares FOR SELECT USING (owner = current_user
	OR team <> '' AND team = ANY ((SELECT carryover_teams())::text[])
	AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = chunk_shares.session_id AND s.owner = current_user));
-- A role shares only its own chunks, so that no share row of another role
-- holds one of its chunks back from its prune.
CREATE POLICY chunk_shares_insert ON chunk_shares FOR INSERT
	WITH CHECK (owner = current_user AND (team = '' OR team = ANY ((SELECT carryover_teams())::text[]))
		AND EXISTS (SELECT 1 FROM chunks c WHERE c.id = chunk_shares.chunk_id AND c.owner = current_user));
CREATE POLICY chunk_shares_update ON chunk_shares FOR UPDATE USING (owner = current_user)
	WITH CHECK (owner = current_user AND (team = '' OR team = ANY ((SELECT carryover_teams())::text[]))
		AND EXISTS (SELECT 1 FROM chunks c WHERE c.id = chunk_shares.chunk_id AND c.owner = current_user));
CREATE POLICY chunk_shares_delete ON chunk_shares FOR DELETE USING (owner = current_user);

DO $$
DECLARE
	g record;
BEGIN
	FOR g IN SELECT a.privilege_type, a.is_grantable,
			CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END AS grantee
		FROM pg_catalog.pg_class c, aclexplode(c.relacl) a LEFT JOIN pg_catalog.pg_roles r ON r.oid = a.grantee
		WHERE c.oid = 'chunks'::regclass AND a.grantee <> c.relowner LOOP
		EXECUTE format('GRANT %s ON chunk_shares TO %s%s', g.privilege_type, g.grantee,
			CASE WHEN g.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
	END LOOP;
END
$$;

-- Chunks shared before this version are known by the items that point at
-- them from another session of their owner: an item keeps its own
-- session's sequence number, turn and window of its chunk. The lines are
-- the chunk's, moved by how far the item's line is from the line of the
-- same item (kind and key) of the chunk's session, when that session has
-- one pointing at the chunk (a chunk's working-set item always does). A
-- shared chunk no item of the other session points at cannot be told
-- apart, and stays its first session's only. The owner role migrates
-- (row security does not apply to it); a role under row security derives
-- only its own.
INSERT INTO chunk_shares (owner, team, project, session_id, chunk_id, seq, turn, win, first_line, last_line)
SELECT DISTINCT ON (i.session_id, i.owner, c.id) i.owner, s.team, s.project, i.session_id, c.id, i.chunk_seq, i.turn, i.win,
	c.first_line + coalesce(d.delta, 0), c.last_line + coalesce(d.delta, 0)
FROM items i
JOIN chunks c ON c.id = i.chunk_id AND c.owner = i.owner AND c.session_id <> i.session_id
JOIN sessions s ON s.id = i.session_id AND s.owner = i.owner
LEFT JOIN LATERAL (SELECT i.line - a.line AS delta FROM items a
	WHERE a.session_id = c.session_id AND a.owner = c.owner AND a.kind = i.kind AND a.key = i.key AND a.chunk_id = c.id) d ON true
WHERE i.owner = current_user OR NOT row_security_active('chunk_shares')
ORDER BY i.session_id, i.owner, c.id, d.delta IS NULL;
