package postgres

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/embedding"
	"github.com/carryover-dev/carryover/rank"
)

func (s *Store) embedChunks(chunks []carryover.Chunk) [][]float32 {
	if len(chunks) == 0 {
		return nil
	}
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = embedding.ChunkText(c)
	}
	return s.emb.Embed(texts)
}

// vectorsUsable reports whether the stored vectors are the store
// embedder's, claiming the schema for it when no embedder has written yet.
// A pgvector column also fixes the dimension.
func (s *Store) vectorsUsable(ctx context.Context, tx pgx.Tx) (bool, error) {
	if s.pgvector && s.emb.Dim() != s.dim {
		return false, nil
	}
	if name := s.embedder.Load(); name != nil {
		return *name == s.emb.Name(), nil
	}
	var name string
	err := tx.QueryRow(ctx, `WITH ins AS (INSERT INTO meta (key, value) VALUES ('embedder', $1)
		ON CONFLICT (key) DO NOTHING RETURNING value)
		SELECT value FROM ins UNION ALL SELECT value FROM meta WHERE key = 'embedder' LIMIT 1`, s.emb.Name()).Scan(&name)
	if errors.Is(err, pgx.ErrNoRows) {
		// A concurrent writer inserted the row after this statement's
		// snapshot: DO NOTHING returned nothing and the SELECT could not see
		// it. A new statement (read committed) does.
		err = tx.QueryRow(ctx, `SELECT value FROM meta WHERE key = 'embedder'`).Scan(&name)
	}
	if err != nil {
		return false, wrap("apply: vectors", err)
	}
	// Not remembered yet: the transaction that claimed it may roll back.
	return name == s.emb.Name(), nil
}

// searchVectors reports whether Search may use the stored vectors.
func (s *Store) searchVectors(ctx context.Context) (bool, error) {
	if s.pgvector && s.emb.Dim() != s.dim {
		return false, nil
	}
	if name := s.embedder.Load(); name != nil {
		return *name == s.emb.Name(), nil
	}
	var name string
	err := s.pool.QueryRow(ctx, `SELECT value FROM meta WHERE key = 'embedder'`).Scan(&name)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, wrap("search: vectors", err)
	}
	s.knowEmbedder(name)
	return name == s.emb.Name(), nil
}

// knowEmbedder remembers the embedder a committed meta row names ("" for
// none yet).
func (s *Store) knowEmbedder(name string) {
	if name != "" {
		s.embedder.Store(&name)
	}
}

// vecCol is the vector column as Go reads it.
func (s *Store) vecCol(col string) string {
	if s.pgvector {
		return col + "::real[]"
	}
	return col
}

// decode turns a scanned vector column into a unit vector (nil for NULL).
func (s *Store) decode(raw any) []float32 {
	switch v := raw.(type) {
	case []byte:
		if v == nil {
			return nil
		}
		return embedding.Dequantize(nil, v)
	case []float32:
		return v
	}
	return nil
}

// vecDest is a scan destination for vecCol.
func (s *Store) vecDest() any {
	if s.pgvector {
		return new([]float32)
	}
	return new([]byte)
}

func deref(p any) any {
	switch v := p.(type) {
	case *[]float32:
		return *v
	case *[]byte:
		return *v
	}
	return nil
}

// candidateVector is a candidate's vector, blended with its neighbours'
// in its turn, and its parent turn.
type candidateVector struct {
	vec    []float32
	parent int64 // the id of its turn's first chunk
}

// candidateVectors reads the vectors of ids, each blended with the vectors
// of the chunks just before and after it (by seq) in the same turn of its
// owner's session (rank.Blend): a sub-turn window is scored with its
// parent turn as context. A chunk without a vector gets none.
func (s *Store) candidateVectors(ctx context.Context, ids []int64) (map[int64]candidateVector, error) {
	rows, err := s.pool.Query(ctx, `SELECT c.id, n.seq - c.seq,
			(SELECT min(p.id) FROM chunks p WHERE p.session_id = c.session_id AND p.owner = c.owner AND p.turn = c.turn), `+s.vecCol("n.vec")+`
		FROM chunks c JOIN chunks n ON n.session_id = c.session_id AND n.owner = c.owner AND n.turn = c.turn
			AND n.seq BETWEEN c.seq - 1 AND c.seq + 1
		WHERE c.id = ANY ($1) AND n.vec IS NOT NULL`, ids)
	if err != nil {
		return nil, wrap("search: vectors", err)
	}
	defer rows.Close()
	type read struct {
		parent          int64
		own, prev, next []float32
	}
	byID := make(map[int64]*read, len(ids))
	for rows.Next() {
		var id, parent int64
		var rel int
		dst := s.vecDest()
		if err := rows.Scan(&id, &rel, &parent, dst); err != nil {
			return nil, wrap("search: vectors", err)
		}
		r := byID[id]
		if r == nil {
			r = &read{parent: parent}
			byID[id] = r
		}
		v := s.decode(deref(dst))
		switch rel {
		case -1:
			r.prev = v
		case 0:
			r.own = v
		case 1:
			r.next = v
		}
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("search: vectors", err)
	}
	out := make(map[int64]candidateVector, len(byID))
	for id, r := range byID {
		if r.own != nil {
			out[id] = candidateVector{vec: rank.Blend(slices.Clone(r.own), r.prev, r.next), parent: r.parent}
		}
	}
	return out, nil
}

// maxEmbedQueryBytes bounds the query text embedded.
const maxEmbedQueryBytes = 4 << 10

// queryVector embeds a search query, its words weighted by their idf when
// the embedder supports it (n rows, df by word as the plan counted them).
func (s *Store) queryVector(text string, n int, df map[string]int) []float32 {
	if len(text) > maxEmbedQueryBytes {
		text = strings.ToValidUTF8(text[:maxEmbedQueryBytes], "")
	}
	qe, ok := s.emb.(carryover.QueryEmbedder)
	if !ok {
		return s.emb.Embed([]string{text})[0]
	}
	return qe.EmbedQuery(text, func(t string) float64 { return embedding.IDF(max(n, 1), df[t]) })
}
