-- Schema version 12: passages, windows of lines of every message text and
-- tool result, whole (package passage), so that search finds a line deep
-- in a long tool result no chunk kept. The index is contentless: a
-- passage's text is read back from its raw line (raw_blocks) and cut
-- again, so the text is stored once, compressed. A row names the
-- transcript line and the passage's index among the line's passages;
-- its rowid is the index row's. Passages go with their session (prune,
-- forget) and with the raw lines a batch replaces. Stores archived before
-- hold none for their old lines: a new, empty table.
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
-- passage_marks holds, per session, the last raw line up to which every
-- line's passages are indexed: a write the user waits on (a cold archive
-- in PreCompact) leaves them to a later hook (IndexPassages).
CREATE TABLE passage_marks (
	session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
	line       INTEGER NOT NULL
) WITHOUT ROWID;
