-- Schema version 10: passages, windows of lines of every message text and
-- tool result, whole (package passage), so that search finds a line deep
-- in a long tool result no chunk kept. A row holds the passage's tokens
-- (the chunks' tokenizer, see index.go) as a tsvector and its length in
-- tokens, not its text: a passage is read back from its raw line
-- (raw_blocks) and cut again. Rows belong to their session (of their
-- owner) and go with it, under the same row security as raw_blocks.
-- After upgrading, grant the users this table like the others (see
-- docs/postgres.md: GRANT ... ON ALL TABLES IN SCHEMA, and ON ALL SEQUENCES).

CREATE TABLE passages (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	owner      text NOT NULL,
	team       text NOT NULL DEFAULT '',
	session_id text NOT NULL,
	line       integer NOT NULL,
	part       integer NOT NULL,
	len        integer NOT NULL,
	tsv        tsvector NOT NULL,
	FOREIGN KEY (session_id, owner) REFERENCES sessions (id, owner) ON DELETE CASCADE
);
CREATE INDEX passages_session_line ON passages (session_id, owner, line);
CREATE INDEX passages_tsv ON passages USING gin (tsv);

ALTER TABLE passages ENABLE ROW LEVEL SECURITY;
CREATE POLICY passages_read ON passages FOR SELECT USING (owner = current_user
	OR team <> '' AND team = ANY ((SELECT carryover_teams())::text[])
	AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = passages.session_id AND s.owner = current_user));
CREATE POLICY passages_insert ON passages FOR INSERT
	WITH CHECK (owner = current_user AND (team = '' OR team = ANY ((SELECT carryover_teams())::text[])));
CREATE POLICY passages_update ON passages FOR UPDATE USING (owner = current_user)
	WITH CHECK (owner = current_user AND (team = '' OR team = ANY ((SELECT carryover_teams())::text[])));
CREATE POLICY passages_delete ON passages FOR DELETE USING (owner = current_user);

-- passage_marks holds, per session and owner, the last raw line up to
-- which every line's passages are indexed: a write the user waits on (a
-- cold archive in PreCompact) leaves them to a later hook (IndexPassages).
CREATE TABLE passage_marks (
	owner      text NOT NULL,
	team       text NOT NULL DEFAULT '',
	session_id text NOT NULL,
	line       integer NOT NULL,
	PRIMARY KEY (session_id, owner),
	FOREIGN KEY (session_id, owner) REFERENCES sessions (id, owner) ON DELETE CASCADE
);
ALTER TABLE passage_marks ENABLE ROW LEVEL SECURITY;
CREATE POLICY passage_marks_read ON passage_marks FOR SELECT USING (owner = current_user);
CREATE POLICY passage_marks_insert ON passage_marks FOR INSERT WITH CHECK (owner = current_user);
CREATE POLICY passage_marks_update ON passage_marks FOR UPDATE USING (owner = current_user) WITH CHECK (owner = current_user);
CREATE POLICY passage_marks_delete ON passage_marks FOR DELETE USING (owner = current_user);
