-- Schema version 14: the runs of chunk ids that belong to one project.
-- A search of a project tested each full-text match against the project's
-- index, a lookup in an index of every chunk, which a fresh process reads
-- cold; the test against these few rows costs a fraction (see spans.go).
-- Every chunk with an id at or above spans_below lies in exactly one span,
-- of its own project; spans may also take in ids no chunk has (deleted
-- ones), but none past the newest chunk: deleting the newest chunks trims
-- the spans. The spans of the chunks stored before this migration are
-- added by Backfill, newest first, lowering spans_below to 1; a chunk
-- whose id or project changes drops every span, and Backfill starts again.
CREATE TABLE chunk_spans (
	lo         INTEGER PRIMARY KEY,
	hi         INTEGER NOT NULL,
	project_id INTEGER NOT NULL
);
CREATE INDEX chunk_spans_project ON chunk_spans (project_id, lo);
INSERT INTO meta (key, value) SELECT 'spans_below', min(coalesce(max(id), 0), 9223372036854775806) + 1 FROM chunks;
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
