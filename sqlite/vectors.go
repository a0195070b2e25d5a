package sqlite

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/embedding"
	"github.com/carryover-dev/carryover/internal/tokenize"
	"github.com/carryover-dev/carryover/rank"
)

// BackfillBatch is how many chunks stored without a vector (by a version
// of carryover before vectors) one Apply embeds, newest first: embedding
// costs up to about 0.5 ms a chunk, so this adds at most some 30 ms to a
// hook, and an archive of 10,000 chunks catches up in about 150 ingests
// (or at once with Backfill).
const BackfillBatch = 64

// minEmbedShare is the fewest chunks worth embedding on a goroutine of
// their own.
const minEmbedShare = 16

// embedChunks returns the quantised vector of each chunk. An embedder is a
// pure function (see carryover.Embedder), so a large batch is split over
// the processors: embedding is the largest share of storing new chunks.
func (s *Store) embedChunks(chunks []carryover.Chunk) [][]byte {
	out := make([][]byte, len(chunks))
	embed := func(lo, hi int) {
		texts := make([]string, hi-lo)
		for i := range texts {
			texts[i] = embedding.ChunkText(chunks[lo+i])
		}
		for i, v := range s.emb.Embed(texts) {
			out[lo+i] = embedding.Quantize(v)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(chunks)/minEmbedShare)
	if workers <= 1 {
		embed(0, len(chunks))
		return out
	}
	var wg sync.WaitGroup
	per := (len(chunks) + workers - 1) / workers
	for lo := 0; lo < len(chunks); lo += per {
		wg.Go(func() { embed(lo, min(lo+per, len(chunks))) })
	}
	wg.Wait()
	return out
}

// vectorsUsable reports whether the stored vectors are the store
// embedder's, claiming the store for it when no embedder has written yet.
func (s *Store) vectorsUsable(ctx context.Context, tx *sql.Tx) (bool, error) {
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO meta (key, value) VALUES ('embedder', ?)`, s.emb.Name()); err != nil {
		return false, wrapErr("apply: vectors", err)
	}
	var name string
	if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'embedder'`).Scan(&name); err != nil {
		return false, wrapErr("apply: vectors", err)
	}
	return name == s.emb.Name(), nil
}

// insertVectors stores the vectors of the chunks newly inserted (ids by
// Seq; a duplicate keeps its row's vector).
func insertVectors(ctx context.Context, tx *sql.Tx, chunks []carryover.Chunk, ids map[int]int64, vecs [][]byte) error {
	// A linked chunk inherits the parent of the chunk before it (0 when
	// that one has no vector yet: a backfill goes newest first).
	ins, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO chunk_vecs (id, linked, vec, parent)
		SELECT c.id, p.id IS NOT NULL, ?1,
			CASE WHEN p.id IS NULL THEN c.id ELSE coalesce((SELECT v.parent FROM chunk_vecs v WHERE v.id = p.id), 0) END
		FROM chunks c LEFT JOIN chunks p ON p.id = c.id - 1 AND p.session_id = c.session_id AND p.turn = c.turn
		WHERE c.id = ?2`)
	if err != nil {
		return wrapErr("apply: vectors", err)
	}
	defer ins.Close()
	for i, c := range chunks {
		if _, err := ins.ExecContext(ctx, vecs[i], ids[c.Seq]); err != nil {
			return wrapErr("apply: vectors", err)
		}
	}
	return nil
}

// indexBackfillFactor is how many chunks Backfill adds to the full-text
// index per chunk it may embed: indexing costs a fraction of embedding.
const indexBackfillFactor = 4

// termsBackfillFactor is how many chunk ids Backfill goes through for
// their terms per chunk it may embed: most hold no Han, Kana or Hangul,
// and cost only their reading.
const termsBackfillFactor = 4

// Backfill catches a migrated store up, newest chunks first: it goes
// through termsBackfillFactor × limit chunk ids stored before migration
// 0006 for their terms, adds up to indexBackfillFactor × limit chunks to
// the full-text index (see migration 0004), embeds up to limit chunks
// that were stored before the store had vectors and puts up to
// spansBackfillFactor × limit chunks into the spans of their projects
// (see spans.go), and returns how many chunks it went through; 0 means
// every chunk is indexed, with its terms, has its vector and is in a
// span. Apply calls it with
// BackfillBatch after each batch; `carryover ingest` may call it until it
// returns 0. Vectors of another embedder's store are left alone.
func (s *Store) Backfill(ctx context.Context, limit int) (int, error) {
	t, err := s.backfillTerms(ctx, termsBackfillFactor*limit)
	if err != nil {
		return t, err
	}
	n, err := s.backfillIndex(ctx, indexBackfillFactor*limit)
	if err != nil {
		return t + n, err
	}
	m, err := s.backfillVectors(ctx, limit)
	if err != nil {
		return t + n + m, err
	}
	k, err := s.backfillSpans(ctx, spansBackfillFactor*limit)
	return t + n + m + k, err
}

// backfillTerms computes the terms column again for the chunks with the
// limit ids below the 'terms_backfill_below' bound (see migration 0006),
// newest first, and lowers the bound past them (to 1 when none is left),
// in one transaction. Only chunks with a Han, Kana or Hangul character
// (tokenize.HasCJK) can change; those that did are updated, and the
// triggers index them again. It returns how many ids it went through.
func (s *Store) backfillTerms(ctx context.Context, limit int) (int, error) {
	var below int64
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'terms_backfill_below'`).Scan(&below)
	if errors.Is(err, sql.ErrNoRows) || err == nil && below <= 1 {
		return 0, nil
	}
	if err != nil {
		return 0, wrapErr("backfill terms", err)
	}
	from := max(below-int64(limit), 1)
	// Read and computed outside the write transaction, which then checks
	// that no other process moved the bound meanwhile.
	rows, err := s.db.QueryContext(ctx, `SELECT `+chunkCols+`, c.terms FROM chunks c JOIN projects p ON p.id = c.project_id
		WHERE c.id >= ? AND c.id < ?`, from, below)
	if err != nil {
		return 0, wrapErr("backfill terms", err)
	}
	type change struct {
		id    int64
		terms string
	}
	var changes []change
	for rows.Next() {
		var terms string
		c, err := scanChunk(rows, &terms)
		if err != nil {
			rows.Close()
			return 0, wrapErr("backfill terms", err)
		}
		texts := append([]string{c.Prompt, c.Summary, c.Text}, slices.Concat(c.Files, c.Commands, c.Errors)...)
		if !slices.ContainsFunc(texts, tokenize.HasCJK) {
			continue
		}
		if t := rank.ChunkTerms(c); t != terms {
			changes = append(changes, change{c.ID, t})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, wrapErr("backfill terms", err)
	}
	tx, end, err := s.beginWrite(ctx, s.db)
	if err != nil {
		return 0, wrapErr("backfill terms", err)
	}
	defer end()
	var now int64
	if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'terms_backfill_below'`).Scan(&now); err != nil {
		return 0, wrapErr("backfill terms", err)
	}
	if now != below {
		return 0, nil // another process did these
	}
	for _, c := range changes {
		if _, err := tx.ExecContext(ctx, `UPDATE chunks SET terms = ? WHERE id = ?`, c.terms, c.id); err != nil {
			return 0, wrapErr("backfill terms", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = 'terms_backfill_below'`, from); err != nil {
		return 0, wrapErr("backfill terms", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, wrapErr("backfill terms: commit", err)
	}
	return int(below - from), nil
}

// backfillIndex adds up to limit chunks below the 'fts_backfill_below'
// bound to the full-text index, newest first, and lowers the bound past
// them (to 1 when none is left), in one transaction.
func (s *Store) backfillIndex(ctx context.Context, limit int) (int, error) {
	var below int64
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'fts_backfill_below'`).Scan(&below)
	if errors.Is(err, sql.ErrNoRows) || err == nil && below <= 1 {
		return 0, nil
	}
	if err != nil {
		return 0, wrapErr("backfill index", err)
	}
	tx, end, err := s.beginWrite(ctx, s.db)
	if err != nil {
		return 0, wrapErr("backfill index", err)
	}
	defer end()
	// Again inside the transaction: another process may have moved it.
	if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'fts_backfill_below'`).Scan(&below); err != nil {
		return 0, wrapErr("backfill index", err)
	}
	var n int
	var from sql.NullInt64
	err = tx.QueryRowContext(ctx, `SELECT count(*), min(id) FROM (SELECT id FROM chunks WHERE id < ? ORDER BY id DESC LIMIT ?)`,
		below, limit).Scan(&n, &from)
	if err != nil {
		return 0, wrapErr("backfill index", err)
	}
	next := int64(1)
	if n > 0 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO chunks_fts (rowid, prompt, summary, files, commands, errors, text, terms)
			SELECT id, prompt, summary, files, commands, errors, text, terms FROM chunk_search WHERE id >= ? AND id < ?`,
			from.Int64, below); err != nil {
			return 0, wrapErr("backfill index", err)
		}
		if n == limit {
			next = from.Int64
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = 'fts_backfill_below'`, next); err != nil {
		return 0, wrapErr("backfill index", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, wrapErr("backfill index: commit", err)
	}
	return n, nil
}

// backfillVectors embeds up to limit chunks (newest first) that were
// stored before the store had vectors, and returns how many it embedded.
func (s *Store) backfillVectors(ctx context.Context, limit int) (int, error) {
	var below int64
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'vec_backfill_below'`).Scan(&below)
	if errors.Is(err, sql.ErrNoRows) || err == nil && below <= 1 {
		return 0, nil
	}
	if err != nil {
		return 0, wrapErr("backfill", err)
	}
	var name string
	err = s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'embedder'`).Scan(&name)
	if err == nil && name != s.emb.Name() {
		return 0, nil // another embedder's store: its vectors would not compare
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, wrapErr("backfill", err)
	}
	// Embed outside the write transaction: it is the slow part.
	rows, err := s.db.QueryContext(ctx, `SELECT `+chunkCols+` FROM chunks c JOIN projects p ON p.id = c.project_id
		WHERE c.id < ? AND c.id NOT IN (SELECT id FROM chunk_vecs WHERE id < ?)
		ORDER BY c.id DESC LIMIT ?`, below, below, limit)
	if err != nil {
		return 0, wrapErr("backfill", err)
	}
	var chunks []carryover.Chunk
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			rows.Close()
			return 0, wrapErr("backfill", err)
		}
		chunks = append(chunks, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, wrapErr("backfill", err)
	}
	vecs := s.embedChunks(chunks)
	tx, end, err := s.beginWrite(ctx, s.db)
	if err != nil {
		return 0, wrapErr("backfill", err)
	}
	defer end()
	ok, err := s.vectorsUsable(ctx, tx)
	if err != nil || !ok {
		return 0, err
	}
	ids := make(map[int]int64, len(chunks))
	for i := range chunks {
		// Key by position: chunks of several sessions share Seq values.
		ids[i] = chunks[i].ID
		chunks[i].Seq = i
	}
	if err := insertVectors(ctx, tx, chunks, ids, vecs); err != nil {
		return 0, err
	}
	next := int64(0)
	if len(chunks) == limit {
		next = chunks[len(chunks)-1].ID
	}
	if _, err := tx.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = 'vec_backfill_below'`, next); err != nil {
		return 0, wrapErr("backfill", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, wrapErr("backfill: commit", err)
	}
	return len(chunks), nil
}

// docFreq is what the query side's idf knows of the archive: the rows of
// ids lo..hi each query word matches, as the search plan counted them
// (capped at maxCandidates+1: beyond that a word is common anyway). Words
// the plan did not count (whole identifiers, paths) count as rare.
type docFreq struct {
	df     map[string]int
	lo, hi int64
}

// maxEmbedQueryBytes bounds the query text embedded: a pasted log says
// what it is about in its first part.
const maxEmbedQueryBytes = 4 << 10

// queryVector embeds a search query, its words weighted by their idf when
// the embedder supports it. last is the highest chunk id: with df's range,
// it counts the chunks an idf is of.
func (s *Store) queryVector(text string, df docFreq, last int64) []float32 {
	if len(text) > maxEmbedQueryBytes {
		text = strings.ToValidUTF8(text[:maxEmbedQueryBytes], "")
	}
	qe, ok := s.emb.(carryover.QueryEmbedder)
	if !ok {
		return s.emb.Embed([]string{text})[0]
	}
	n := int(max(min(df.hi, last)-df.lo+1, 1))
	return qe.EmbedQuery(text, func(t string) float64 { return embedding.IDF(n, df.df[t]) })
}

// candidateVectors reads, in one query, the stored vectors of ids and of
// the chunks just before and after each in the same turn (by id: a turn's
// chunks are stored together), for candidateVecs.vector to blend. It
// returns nil when none of ids has a vector (none backfilled yet, or
// another embedder's store).
func (s *Store) candidateVectors(ctx context.Context, ids []int64) (*candidateVecs, error) {
	// The highest chunk id comes with the embedder's name: the query's
	// vector needs it, and a statement costs a fresh process more than
	// its work.
	var name sql.NullString
	var last int64
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key = 'embedder'), (SELECT coalesce(max(id), 0) FROM chunks)`).Scan(&name, &last)
	if err != nil {
		return nil, wrapErr("search: vectors", err)
	}
	if !name.Valid || name.String != s.emb.Name() {
		return nil, nil
	}
	want := make(map[int64]bool, 3*len(ids))
	for _, id := range ids {
		want[id-1], want[id], want[id+1] = true, true, true
	}
	var b strings.Builder
	for id := range want {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, id)
	}
	// The ids are integers from the index: inlining them keeps this one
	// statement whatever their number.
	rows, err := s.db.QueryContext(ctx, `SELECT id, linked, parent, vec FROM chunk_vecs WHERE id IN (`+b.String()+`)`)
	if err != nil {
		return nil, wrapErr("search: vectors", err)
	}
	defer rows.Close()
	cv := &candidateVecs{stored: make(map[int64]storedVector, len(want)), last: last}
	for rows.Next() {
		var id int64
		var st storedVector
		var raw sql.RawBytes
		if err := rows.Scan(&id, &st.linked, &st.parent, &raw); err != nil {
			return nil, wrapErr("search: vectors", err)
		}
		// Kept quantised: a quarter of the memory, and a fresh process
		// pays a page fault for every page of memory it touches first.
		st.vec = bytes.Clone(raw)
		cv.stored[id] = st
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr("search: vectors", err)
	}
	for _, id := range ids {
		if _, ok := cv.stored[id]; ok {
			return cv, nil
		}
	}
	return nil, nil
}

// candidateVecs holds the quantised vectors candidateVectors read.
type candidateVecs struct {
	stored map[int64]storedVector
	last   int64     // the highest chunk id when they were read
	tmp    []float32 // a neighbour's vector, dequantised
}

type storedVector struct {
	linked bool // to the chunk before
	parent int64
	vec    []byte
}

// vector returns the vector of chunk id, dequantised into dst (reused
// when large enough) and blended with the vectors of its neighbours in the
// same turn (rank.Blend): a sub-turn window is scored with its parent turn
// as context. A blended vector is no longer a unit vector. It also
// returns the chunk's parent (see migration 0004): the id of its turn's
// first chunk, or its own id when unknown. ok is false for a chunk without
// a vector (not yet backfilled).
func (cv *candidateVecs) vector(dst []float32, id int64) (v []float32, parent int64, ok bool) {
	c, ok := cv.stored[id]
	if !ok {
		return dst, 0, false
	}
	v = embedding.Dequantize(dst, c.vec)
	if prev, ok := cv.stored[id-1]; ok && c.linked {
		cv.tmp = embedding.Dequantize(cv.tmp, prev.vec)
		rank.Blend(v, cv.tmp)
	}
	if next, ok := cv.stored[id+1]; ok && next.linked {
		cv.tmp = embedding.Dequantize(cv.tmp, next.vec)
		rank.Blend(v, cv.tmp)
	}
	return v, cmp.Or(c.parent, id), true
}
