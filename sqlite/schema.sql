-- The current schema, for a new store: what the migrations make of an
-- empty database, dumped by `go test ./sqlite -run TestFreshSchema
-- -update-schema` after a migration is added. Do not edit by hand.
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
, owner TEXT NOT NULL DEFAULT '', team TEXT NOT NULL DEFAULT '', parent TEXT NOT NULL DEFAULT '', cwd TEXT NOT NULL DEFAULT '', branch TEXT NOT NULL DEFAULT '');
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
CREATE INDEX chunks_filter ON chunks (id, project_id, session_id, win, start_ms, end_ms);
CREATE VIEW chunk_search (id, prompt, summary, files, commands, errors, text, terms) AS
SELECT id, prompt, summary,
	(SELECT group_concat(value, char(10)) FROM json_each(files)),
	(SELECT group_concat(value, char(10)) FROM json_each(commands)),
	(SELECT group_concat(value, char(10)) FROM json_each(errors)),
	text, terms
FROM chunks;
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
, text TEXT NOT NULL DEFAULT '', reason TEXT NOT NULL DEFAULT '');
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
CREATE TABLE chunk_vecs (
	id     INTEGER PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE,
	linked INTEGER NOT NULL,
	vec    BLOB NOT NULL
, parent INTEGER NOT NULL DEFAULT 0);
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value NOT NULL
);
CREATE TABLE hook_runs (
	id         INTEGER PRIMARY KEY,
	time_ms    INTEGER NOT NULL,
	session_id TEXT NOT NULL,
	project    TEXT NOT NULL,
	event      TEXT NOT NULL,
	latency_us INTEGER NOT NULL,
	outcome    TEXT NOT NULL,
	chars      INTEGER NOT NULL
);
CREATE INDEX hook_runs_time ON hook_runs (time_ms);
CREATE INDEX hook_runs_session ON hook_runs (session_id, id);
CREATE TABLE redactions (
	project TEXT NOT NULL,
	kind    TEXT NOT NULL,
	count   INTEGER NOT NULL,
	PRIMARY KEY (project, kind)
);
CREATE VIRTUAL TABLE chunks_fts USING fts5 (
	prompt, summary, files, commands, errors, text, terms,
	content = 'chunk_search',
	content_rowid = 'id',
	tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'"
);
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks
WHEN new.id >= (SELECT value FROM meta WHERE key = 'fts_backfill_below') BEGIN
	INSERT INTO chunks_fts (rowid, prompt, summary, files, commands, errors, text, terms)
	SELECT id, prompt, summary, files, commands, errors, text, terms FROM chunk_search WHERE id = new.id;
END;
CREATE TRIGGER chunks_bd BEFORE DELETE ON chunks
WHEN old.id >= (SELECT value FROM meta WHERE key = 'fts_backfill_below') BEGIN
	INSERT INTO chunks_fts (chunks_fts, rowid, prompt, summary, files, commands, errors, text, terms)
	SELECT 'delete', id, prompt, summary, files, commands, errors, text, terms FROM chunk_search WHERE id = old.id;
END;
CREATE TRIGGER chunks_bu BEFORE UPDATE ON chunks
WHEN old.id >= (SELECT value FROM meta WHERE key = 'fts_backfill_below') BEGIN
	INSERT INTO chunks_fts (chunks_fts, rowid, prompt, summary, files, commands, errors, text, terms)
	SELECT 'delete', id, prompt, summary, files, commands, errors, text, terms FROM chunk_search WHERE id = old.id;
END;
CREATE TRIGGER chunks_au AFTER UPDATE ON chunks
WHEN new.id >= (SELECT value FROM meta WHERE key = 'fts_backfill_below') BEGIN
	INSERT INTO chunks_fts (rowid, prompt, summary, files, commands, errors, text, terms)
	SELECT id, prompt, summary, files, commands, errors, text, terms FROM chunk_search WHERE id = new.id;
END;
CREATE INDEX chunks_project ON chunks (project_id, id, win);
CREATE TABLE forgotten (
	session_key TEXT PRIMARY KEY,
	time_ms     INTEGER NOT NULL
) WITHOUT ROWID;
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
CREATE INDEX sessions_parent ON sessions (parent) WHERE parent <> '';
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
CREATE TABLE passages (
	id         INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
	line       INTEGER NOT NULL,
	part       INTEGER NOT NULL
);
CREATE INDEX passages_session_line ON passages (session_id, line);
CREATE VIRTUAL TABLE passages_fts USING fts5 (
	text,
	content = '',
	contentless_delete = 1,
	tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'"
);
CREATE TRIGGER passages_ad AFTER DELETE ON passages BEGIN
	DELETE FROM passages_fts WHERE rowid = old.id;
END;
CREATE TABLE passage_marks (
	session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
	line       INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE term_reach (
	idx   TEXT NOT NULL,
	term  TEXT NOT NULL,
	cap   INTEGER NOT NULL,
	reach INTEGER NOT NULL,
	PRIMARY KEY (idx, term, cap)
) WITHOUT ROWID;
CREATE TRIGGER chunks_reach_ad AFTER DELETE ON chunks BEGIN
	DELETE FROM term_reach WHERE idx = 'chunks_fts';
	UPDATE meta SET value = value + 1 WHERE key = 'reach_gen:chunks_fts';
END;
CREATE TRIGGER chunks_reach_au AFTER UPDATE OF prompt, summary, files, commands, errors, text, terms ON chunks BEGIN
	DELETE FROM term_reach WHERE idx = 'chunks_fts';
	UPDATE meta SET value = value + 1 WHERE key = 'reach_gen:chunks_fts';
END;
CREATE TRIGGER passages_reach_ad AFTER DELETE ON passages BEGIN
	DELETE FROM term_reach WHERE idx = 'passages_fts';
	UPDATE meta SET value = value + 1 WHERE key = 'reach_gen:passages_fts';
END;
CREATE TABLE chunk_spans (
	lo         INTEGER PRIMARY KEY,
	hi         INTEGER NOT NULL,
	project_id INTEGER NOT NULL
);
CREATE INDEX chunk_spans_project ON chunk_spans (project_id, lo);
CREATE TRIGGER chunks_spans_au AFTER UPDATE OF id, project_id ON chunks
WHEN old.id IS NOT new.id OR old.project_id IS NOT new.project_id BEGIN
	DELETE FROM chunk_spans;
	UPDATE meta SET value = (SELECT min(coalesce(max(id), 0), 9223372036854775806) + 1 FROM chunks) WHERE key = 'spans_below';
END;
CREATE TRIGGER chunks_spans_ad AFTER DELETE ON chunks
WHEN old.id > coalesce((SELECT max(id) FROM chunks), 0) BEGIN
	DELETE FROM chunk_spans WHERE lo > coalesce((SELECT max(id) FROM chunks), 0);
	UPDATE chunk_spans SET hi = (SELECT max(id) FROM chunks) WHERE hi > (SELECT max(id) FROM chunks);
END;
INSERT INTO meta (key, value) VALUES ('fts_backfill_below', 1);
INSERT INTO meta (key, value) VALUES ('reach_gen:chunks_fts', 0);
INSERT INTO meta (key, value) VALUES ('reach_gen:passages_fts', 0);
INSERT INTO meta (key, value) VALUES ('spans_below', 1);
INSERT INTO meta (key, value) VALUES ('terms_backfill_below', 1);
INSERT INTO meta (key, value) VALUES ('vec_backfill_below', 1);
