-- Schema version 13: the reach of common query words, kept across
-- processes. A search's plan asks each word of the query for its match
-- just past the plan's cap in a full-text index (see planUpTo); for a
-- word that has one, the walk to it is most of a fresh process's search.
-- Rows are only ever added to the chunk and passage indexes above their
-- highest id, so a word's reach stays where it is until a row of that
-- index is deleted or its indexed text changes: then the index's reaches
-- are dropped, and its reach_gen counts the change, so that a reach found
-- before it is not stored after it (see reach.go).
CREATE TABLE term_reach (
	idx   TEXT NOT NULL,
	term  TEXT NOT NULL,
	cap   INTEGER NOT NULL,
	reach INTEGER NOT NULL,
	PRIMARY KEY (idx, term, cap)
) WITHOUT ROWID;
INSERT INTO meta (key, value) VALUES ('reach_gen:chunks_fts', 0), ('reach_gen:passages_fts', 0);
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
