-- Schema version 1. Times are unix milliseconds (0 for unknown); lists are
-- JSON arrays of strings.

CREATE TABLE projects (
	id   INTEGER PRIMARY KEY,
	root TEXT NOT NULL UNIQUE
);

CREATE TABLE sessions (
	id              TEXT PRIMARY KEY,
	project_id      INTEGER NOT NULL REFERENCES projects (id),
	transcript_path TEXT NOT NULL DEFAULT '',
	version         TEXT NOT NULL DEFAULT '',
	title           TEXT NOT NULL DEFAULT '',
	started_ms      INTEGER NOT NULL DEFAULT 0,
	updated_ms      INTEGER NOT NULL DEFAULT 0,
	windows         INTEGER NOT NULL DEFAULT 0,
	turns           INTEGER NOT NULL DEFAULT 0,
	ingest_path     TEXT NOT NULL DEFAULT '',
	ingest_file_id  TEXT NOT NULL DEFAULT '',
	ingest_offset   INTEGER NOT NULL DEFAULT 0,
	ingest_line     INTEGER NOT NULL DEFAULT 0,
	ingest_cursor   BLOB
);
CREATE INDEX sessions_project_updated ON sessions (project_id, updated_ms);
CREATE INDEX sessions_updated ON sessions (updated_ms);

CREATE TABLE chunks (
	id         INTEGER PRIMARY KEY,
	project_id INTEGER NOT NULL REFERENCES projects (id),
	session_id TEXT NOT NULL REFERENCES sessions (id),
	seq        INTEGER NOT NULL,
	turn       INTEGER NOT NULL,
	win        INTEGER NOT NULL,
	first_line INTEGER NOT NULL,
	last_line  INTEGER NOT NULL,
	start_ms   INTEGER NOT NULL,
	end_ms     INTEGER NOT NULL,
	prompt     TEXT NOT NULL,
	summary    TEXT NOT NULL,
	text       TEXT NOT NULL,
	tools      TEXT NOT NULL, -- JSON array
	files      TEXT NOT NULL, -- JSON array
	commands   TEXT NOT NULL, -- JSON array
	errors     TEXT NOT NULL, -- JSON array
	sidechain  INTEGER NOT NULL,
	agent_id   TEXT NOT NULL,
	hash       TEXT NOT NULL,
	-- terms holds the parts of compound identifiers (fooBar, foo_bar), so
	-- that "foo bar" finds them; computed when the chunk is stored.
	terms      TEXT NOT NULL,
	UNIQUE (project_id, hash)
);
CREATE INDEX chunks_session_seq ON chunks (session_id, seq);
-- Covers the search filters, so ranking never reads the wide chunk rows.
CREATE INDEX chunks_filter ON chunks (id, project_id, session_id, win, start_ms, end_ms);

-- The full-text index reads its content through this view, which renders
-- the JSON lists as one element per line.
CREATE VIEW chunk_search (id, prompt, summary, files, commands, errors, text, terms) AS
SELECT id, prompt, summary,
	(SELECT group_concat(value, char(10)) FROM json_each(files)),
	(SELECT group_concat(value, char(10)) FROM json_each(commands)),
	(SELECT group_concat(value, char(10)) FROM json_each(errors)),
	text, terms
FROM chunks;

CREATE VIRTUAL TABLE chunks_fts USING fts5 (
	prompt, summary, files, commands, errors, text, terms,
	content = 'chunk_search',
	content_rowid = 'id',
	tokenize = "unicode61 remove_diacritics 2 tokenchars '_'"
);

CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
	INSERT INTO chunks_fts (rowid, prompt, summary, files, commands, errors, text, terms)
	SELECT id, prompt, summary, files, commands, errors, text, terms FROM chunk_search WHERE id = new.id;
END;

CREATE TRIGGER chunks_bd BEFORE DELETE ON chunks BEGIN
	INSERT INTO chunks_fts (chunks_fts, rowid, prompt, summary, files, commands, errors, text, terms)
	SELECT 'delete', id, prompt, summary, files, commands, errors, text, terms FROM chunk_search WHERE id = old.id;
END;

CREATE TRIGGER chunks_bu BEFORE UPDATE ON chunks BEGIN
	INSERT INTO chunks_fts (chunks_fts, rowid, prompt, summary, files, commands, errors, text, terms)
	SELECT 'delete', id, prompt, summary, files, commands, errors, text, terms FROM chunk_search WHERE id = old.id;
END;

CREATE TRIGGER chunks_au AFTER UPDATE ON chunks BEGIN
	INSERT INTO chunks_fts (rowid, prompt, summary, files, commands, errors, text, terms)
	SELECT id, prompt, summary, files, commands, errors, text, terms FROM chunk_search WHERE id = new.id;
END;

CREATE TABLE items (
	id         INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions (id),
	chunk_id   INTEGER REFERENCES chunks (id) ON DELETE SET NULL,
	chunk_seq  INTEGER NOT NULL,
	kind       TEXT NOT NULL,
	key        TEXT NOT NULL,
	text       TEXT NOT NULL,
	detail     TEXT NOT NULL,
	turn       INTEGER NOT NULL,
	win        INTEGER NOT NULL,
	line       INTEGER NOT NULL,
	time_ms    INTEGER NOT NULL,
	weight     REAL NOT NULL,
	resolved   INTEGER NOT NULL,
	count      INTEGER NOT NULL,
	UNIQUE (session_id, kind, key)
);
CREATE INDEX items_session_line ON items (session_id, line);
CREATE INDEX items_chunk ON items (chunk_id);

CREATE VIRTUAL TABLE items_fts USING fts5 (
	text, detail,
	content = 'items',
	content_rowid = 'id',
	tokenize = "unicode61 remove_diacritics 2 tokenchars '_'"
);

CREATE TRIGGER items_ai AFTER INSERT ON items BEGIN
	INSERT INTO items_fts (rowid, text, detail) VALUES (new.id, new.text, new.detail);
END;

CREATE TRIGGER items_ad AFTER DELETE ON items BEGIN
	INSERT INTO items_fts (items_fts, rowid, text, detail) VALUES ('delete', old.id, old.text, old.detail);
END;

CREATE TRIGGER items_au AFTER UPDATE OF text, detail ON items BEGIN
	INSERT INTO items_fts (items_fts, rowid, text, detail) VALUES ('delete', old.id, old.text, old.detail);
	INSERT INTO items_fts (rowid, text, detail) VALUES (new.id, new.text, new.detail);
END;

CREATE TABLE compactions (
	session_id  TEXT NOT NULL REFERENCES sessions (id),
	win         INTEGER NOT NULL,
	trigger_type TEXT NOT NULL,
	pre_tokens  INTEGER NOT NULL,
	post_tokens INTEGER NOT NULL,
	line        INTEGER NOT NULL,
	time_ms     INTEGER NOT NULL,
	summary     TEXT NOT NULL,
	PRIMARY KEY (session_id, win)
);

-- Injections and notes keep the project as text: they are an audit trail
-- and may name sessions that were never ingested.
CREATE TABLE injections (
	id         INTEGER PRIMARY KEY,
	time_ms    INTEGER NOT NULL,
	session_id TEXT NOT NULL,
	project    TEXT NOT NULL,
	event      TEXT NOT NULL,
	win        INTEGER NOT NULL,
	chars      INTEGER NOT NULL,
	tokens     INTEGER NOT NULL,
	chunk_ids  TEXT NOT NULL, -- JSON array
	item_ids   TEXT NOT NULL, -- JSON array
	hash       TEXT NOT NULL,
	latency_us INTEGER NOT NULL
);
CREATE INDEX injections_session ON injections (session_id, id);

CREATE TABLE notes (
	id         INTEGER PRIMARY KEY,
	time_ms    INTEGER NOT NULL,
	session_id TEXT NOT NULL,
	project    TEXT NOT NULL,
	kind       TEXT NOT NULL,
	text       TEXT NOT NULL
);
CREATE INDEX notes_session ON notes (session_id, id);
CREATE INDEX notes_project ON notes (project, id);
