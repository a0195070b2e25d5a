-- Schema version 5: the raw archive, every transcript line's JSON after
-- masking, so that the exact text outlives Claude Code's transcript and
-- the chunks' truncation. A row is a zstd-compressed block of consecutive
-- lines of one session (see internal/rawblock), compressed by the client;
-- blocks of a session never overlap. They belong to their session (of
-- their owner) and go with it, and are shared with its team, under the
-- same row security as chunks (see 0003_owner_scope.sql).
-- After upgrading, grant the users this table like the others (see
-- docs/postgres.md: GRANT ... ON ALL TABLES IN SCHEMA, and ON ALL SEQUENCES).

CREATE TABLE raw_blocks (
	id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	owner        text NOT NULL,
	team         text NOT NULL DEFAULT '',
	session_id   text NOT NULL,
	first_line   integer NOT NULL,
	last_line    integer NOT NULL,
	first_offset bigint NOT NULL,  -- transcript byte offset of the first line
	end_offset   bigint NOT NULL,  -- just past the last line
	text_bytes   integer NOT NULL, -- the lines' text, uncompressed
	data         bytea NOT NULL,
	FOREIGN KEY (session_id, owner) REFERENCES sessions (id, owner) ON DELETE CASCADE,
	UNIQUE (session_id, owner, first_line)
);
-- Compressed already: storing it again compressed would only cost time.
ALTER TABLE raw_blocks ALTER COLUMN data SET STORAGE EXTERNAL;

ALTER TABLE raw_blocks ENABLE ROW LEVEL SECURITY;
CREATE POLICY raw_blocks_read ON raw_blocks FOR SELECT USING (owner = current_user
	OR team <> '' AND team = ANY ((SELECT carryover_teams())::text[])
	AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = raw_blocks.session_id AND s.owner = current_user));
CREATE POLICY raw_blocks_insert ON raw_blocks FOR INSERT
	WITH CHECK (owner = current_user AND (team = '' OR team = ANY ((SELECT carryover_teams())::text[])));
CREATE POLICY raw_blocks_update ON raw_blocks FOR UPDATE USING (owner = current_user)
	WITH CHECK (owner = current_user AND (team = '' OR team = ANY ((SELECT carryover_teams())::text[])));
CREATE POLICY raw_blocks_delete ON raw_blocks FOR DELETE USING (owner = current_user);
