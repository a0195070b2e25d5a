-- Schema version 4: stemmed full-text search, a narrow project index and
-- the parent turn of each vector.

-- The full-text index stems English words (Porter) on both sides, so that
-- "painted" finds "painting" and "tests" finds "test"; identifiers, paths
-- and their parts are stemmed alike on both sides and still match. On
-- LoCoMo this raises BM25's turn R@10 from 0.564 to 0.610.
--
-- Re-indexing a large archive takes longer than a hook may run, so the new
-- index holds exactly the chunks whose id is at least the meta value
-- 'fts_backfill_below': here the newest 1,000, and Backfill adds the older
-- ones a batch at a time, newest first (moving the bound down). The
-- triggers keep to that bound.
DROP TABLE chunks_fts;
CREATE VIRTUAL TABLE chunks_fts USING fts5 (
	prompt, summary, files, commands, errors, text, terms,
	content = 'chunk_search',
	content_rowid = 'id',
	tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'"
);
INSERT OR REPLACE INTO meta (key, value) SELECT 'fts_backfill_below', max(coalesce(max(id), 0) + 1 - 1000, 1) FROM chunks;
-- Not 'rebuild': it cannot read a content view that uses json_each.
INSERT INTO chunks_fts (rowid, prompt, summary, files, commands, errors, text, terms)
SELECT id, prompt, summary, files, commands, errors, text, terms FROM chunk_search
WHERE id >= (SELECT value FROM meta WHERE key = 'fts_backfill_below');

DROP TRIGGER IF EXISTS chunks_ai;
DROP TRIGGER IF EXISTS chunks_bd;
DROP TRIGGER IF EXISTS chunks_bu;
DROP TRIGGER IF EXISTS chunks_au;

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

-- A search within a project checks each full-text match's project: with
-- the project first, the lookups of one project's matches stay within its
-- part of this narrow index, so a fresh process reads few of its pages.
CREATE INDEX chunks_project ON chunks (project_id, id, win);

-- parent is the id of the first chunk of the chunk's turn (following
-- linked), so that a search can group its candidates by turn from the
-- rows it reads for their vectors; 0 when unknown (vectors stored before
-- this version), and the chunk is then its own parent.
ALTER TABLE chunk_vecs ADD COLUMN parent INTEGER NOT NULL DEFAULT 0;
