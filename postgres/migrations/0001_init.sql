-- Schema version 1. Every row carries its owner (a role name), its project
-- and its team ('' = private to the owner); row-level security (below)
-- lets a role read its own rows and those shared with a team role it is a
-- member of, and write only its own. {{vec_type}} is bytea (int8-quantised
-- vectors) or vector(N) when the server has pgvector.

CREATE TABLE meta (
	key   text PRIMARY KEY,
	value text NOT NULL
);

CREATE TABLE sessions (
	id              text PRIMARY KEY,
	owner           text NOT NULL,
	team            text NOT NULL DEFAULT '',
	project         text NOT NULL,
	transcript_path text NOT NULL DEFAULT '',
	version         text NOT NULL DEFAULT '',
	title           text NOT NULL DEFAULT '',
	started         timestamptz,
	updated         timestamptz,
	windows         integer NOT NULL DEFAULT 0,
	turns           integer NOT NULL DEFAULT 0,
	ingest_path     text NOT NULL DEFAULT '',
	ingest_file_id  text NOT NULL DEFAULT '',
	ingest_offset   bigint NOT NULL DEFAULT 0,
	ingest_line     integer NOT NULL DEFAULT 0,
	ingest_cursor   bytea
);
CREATE INDEX sessions_project_updated ON sessions (project, updated DESC);
CREATE INDEX sessions_updated ON sessions (updated DESC);

CREATE TABLE chunks (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	owner      text NOT NULL,
	team       text NOT NULL DEFAULT '',
	project    text NOT NULL,
	session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	seq        integer NOT NULL,
	turn       integer NOT NULL,
	win        integer NOT NULL,
	first_line integer NOT NULL,
	last_line  integer NOT NULL,
	start_at   timestamptz,
	end_at     timestamptz,
	prompt     text NOT NULL,
	summary    text NOT NULL,
	text       text NOT NULL,
	tools      text[] NOT NULL DEFAULT '{}',
	files      text[] NOT NULL DEFAULT '{}',
	commands   text[] NOT NULL DEFAULT '{}',
	errors     text[] NOT NULL DEFAULT '{}',
	sidechain  boolean NOT NULL DEFAULT false,
	agent_id   text NOT NULL DEFAULT '',
	hash       text NOT NULL,
	-- Weighted: A files, commands, errors; B prompt; C summary; D text and
	-- the parts of compound identifiers (see indexTexts).
	tsv        tsvector NOT NULL,
	vec        {{vec_type}},
	-- Deduplication is per owner: a key shared across owners would let one
	-- role learn of (or block) another's rows.
	UNIQUE (owner, project, hash)
);
CREATE INDEX chunks_session_seq ON chunks (session_id, seq);
CREATE INDEX chunks_project ON chunks (project, id);
CREATE INDEX chunks_tsv ON chunks USING gin (tsv);
{{vec_index}}

CREATE TABLE items (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	owner      text NOT NULL,
	team       text NOT NULL DEFAULT '',
	project    text NOT NULL,
	session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	chunk_id   bigint REFERENCES chunks (id) ON DELETE SET NULL,
	chunk_seq  integer NOT NULL,
	kind       text NOT NULL,
	key        text NOT NULL,
	text       text NOT NULL,
	detail     text NOT NULL,
	turn       integer NOT NULL,
	win        integer NOT NULL,
	line       integer NOT NULL,
	time       timestamptz,
	weight     double precision NOT NULL,
	resolved   boolean NOT NULL,
	count      integer NOT NULL,
	UNIQUE (session_id, kind, key)
);
CREATE INDEX items_session_line ON items (session_id, line);
CREATE INDEX items_project_time ON items (project, time);
CREATE INDEX items_chunk ON items (chunk_id);

CREATE TABLE compactions (
	owner        text NOT NULL,
	team         text NOT NULL DEFAULT '',
	project      text NOT NULL,
	session_id   text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	win          integer NOT NULL,
	trigger_type text NOT NULL,
	pre_tokens   integer NOT NULL,
	post_tokens  integer NOT NULL,
	line         integer NOT NULL,
	time         timestamptz,
	summary      text NOT NULL,
	PRIMARY KEY (session_id, win)
);

-- Injections, notes and hook runs keep no reference to sessions: they are
-- an audit trail and may name sessions that were never ingested.
CREATE TABLE injections (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	owner      text NOT NULL,
	team       text NOT NULL DEFAULT '',
	project    text NOT NULL,
	time       timestamptz NOT NULL,
	session_id text NOT NULL,
	event      text NOT NULL,
	win        integer NOT NULL,
	chars      integer NOT NULL,
	tokens     integer NOT NULL,
	chunk_ids  bigint[] NOT NULL DEFAULT '{}',
	item_ids   bigint[] NOT NULL DEFAULT '{}',
	hash       text NOT NULL,
	latency_us bigint NOT NULL
);
CREATE INDEX injections_session ON injections (session_id, id);

CREATE TABLE notes (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	owner      text NOT NULL,
	team       text NOT NULL DEFAULT '',
	project    text NOT NULL,
	time       timestamptz NOT NULL,
	session_id text NOT NULL,
	kind       text NOT NULL,
	text       text NOT NULL
);
CREATE INDEX notes_session ON notes (session_id, id);
CREATE INDEX notes_project ON notes (project, id);

CREATE TABLE hook_runs (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	owner      text NOT NULL,
	team       text NOT NULL DEFAULT '',
	project    text NOT NULL,
	time       timestamptz,
	session_id text NOT NULL,
	event      text NOT NULL,
	latency_us bigint NOT NULL,
	outcome    text NOT NULL,
	chars      integer NOT NULL
);
CREATE INDEX hook_runs_time ON hook_runs (time);
CREATE INDEX hook_runs_session ON hook_runs (session_id, id);

CREATE TABLE redactions (
	owner   text NOT NULL,
	team    text NOT NULL DEFAULT '',
	project text NOT NULL,
	kind    text NOT NULL,
	count   bigint NOT NULL,
	PRIMARY KEY (owner, project, kind)
);

-- The team roles the current role is a member of (directly or not). The
-- policies call it as a scalar subquery, so it runs once per statement.
CREATE FUNCTION carryover_teams() RETURNS text[] LANGUAGE sql STABLE AS $$
	SELECT coalesce(array_agg(rolname::text), '{}') FROM pg_roles
	WHERE rolname <> current_user AND pg_has_role(current_user, oid, 'MEMBER')
$$;

DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['sessions', 'chunks', 'items', 'compactions', 'injections', 'notes', 'hook_runs', 'redactions'] LOOP
		EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
		EXECUTE format('CREATE POLICY %I ON %I FOR SELECT USING (owner = current_user OR team IN (SELECT unnest(carryover_teams())))', t || '_read', t);
		EXECUTE format('CREATE POLICY %I ON %I FOR INSERT WITH CHECK (owner = current_user)', t || '_insert', t);
		EXECUTE format('CREATE POLICY %I ON %I FOR UPDATE USING (owner = current_user) WITH CHECK (owner = current_user)', t || '_update', t);
		EXECUTE format('CREATE POLICY %I ON %I FOR DELETE USING (owner = current_user)', t || '_delete', t);
	END LOOP;
END
$$;
