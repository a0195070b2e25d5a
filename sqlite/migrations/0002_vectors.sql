-- Schema version 2: chunk vectors for hybrid search.

-- One int8-quantised vector per chunk (see embed.Quantize), in its own
-- table: a narrow row is cheap to read by id, and writing it does not fire
-- the chunks triggers that re-index the full text. linked is 1 when chunk
-- id - 1 belongs to the same turn of the same session, so that a search
-- can blend in a chunk's neighbours without reading the chunks.
CREATE TABLE chunk_vecs (
	id     INTEGER PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE,
	linked INTEGER NOT NULL,
	vec    BLOB NOT NULL
);

-- Store-wide settings: 'embedder' names the embedder of the stored vectors
-- (vectors of another are not comparable); 'vec_backfill_below' is the
-- chunk id below which chunks stored before vectors existed may still
-- lack one (Apply embeds them a batch at a time, newest first).
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value NOT NULL
);
INSERT INTO meta (key, value) SELECT 'vec_backfill_below', coalesce(max(id), 0) + 1 FROM chunks;
