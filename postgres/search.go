package postgres

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/embedding"
)

// DefaultSearchLimit is the number of hits returned when Query.Limit is 0.
const DefaultSearchLimit = 20

// maxCandidates bounds the rows one search ranks, as in the embedded
// store: ranking costs microseconds per matching row, and a common term
// matches every row.
const maxCandidates = 2000

// minNeighbourCos is the cosine a nearest neighbour needs to join the
// full-text candidates: below it, a chunk that shares none of the query's
// words is not about it.
const minNeighbourCos = 0.4

// HybridPool is the number of full-text candidates reranked with vectors
// (and, with pgvector, of nearest neighbours added to them).
const HybridPool = 50

// The blend of the embedded store (tuned on LoCoMo there): a candidate
// scores bm + vectorW × bmMax × max(cos, 0); contextW weighs the
// neighbouring chunks of the same turn in a candidate's vector.
const (
	vectorW  = 4
	contextW = 0.25
)

// rankWeights are ts_rank_cd's weights for D, C, B, A (text, summary,
// prompt, files/commands/errors), the embedded store's column weights 1,
// 1.5, 2, 3 divided by 3 (ts_rank_cd takes weights up to 1); rankScale
// multiplies them back.
const (
	rankWeights = `'{0.3333, 0.5, 0.6667, 1.0}'::real[]`
	rankScale   = 3
	// k1 and b of the BM25 shape below.
	bm25K1 = 1.2
	bm25B  = 0.75
)

// rankExpr is the full-text score of the chunk row m (columns tsv and len,
// and avglen over the candidates) for the terms $2 (tsquery[]) with their
// idf $3 (float8[]). It has BM25's shape, so that Hit.BM25 lands on the
// embedded store's scale (the thresholds of package retrieve assume it):
// per term, idf × tf(k1+1) / (tf + k1(1 - b + b·len/avglen)), where tf is
// ts_rank_cd of that term alone without normalisation (the field weights
// of its occurrences, × rankScale) and len the count of lexemes.
var rankExpr = fmt.Sprintf(`(SELECT coalesce(sum(u.idf * r.tf * %[1]g / (r.tf + %[2]g * (1 - %[3]g + %[3]g * m.len / m.avglen))), 0)
	FROM unnest($2::tsquery[], $3::float8[]) AS u(q, idf),
	LATERAL (SELECT %[4]d * ts_rank_cd(%[5]s, m.tsv, u.q, 0) AS tf) r WHERE r.tf > 0)`,
	bm25K1+1, bm25K1, bm25B, rankScale, rankWeights)

// candidate is a chunk found by a search, with its full-text score, its
// cosine with the query and its fused score.
type candidate struct {
	id             int64
	bm, cos, score float64
}

// Search ranks chunks by full-text relevance, then reranks the best
// HybridPool with vectors the way the embedded store does. Any text is a
// valid query: it is reduced to words and phrases (see queryTerms), each
// turned into a tsquery by phraseto_tsquery and OR-ed, so there is no
// query syntax and no syntax error. To bound the cost, the rarest terms are
// kept while they match at most maxCandidates chunks together; when the
// rarest alone matches more, its newest maxCandidates matches are ranked.
//
// Hit.BM25 is a BM25-shaped score (see rankExpr), Hit.Score adds the
// vector part. With pgvector, the HNSW index adds the query's nearest
// chunks (under the same filters) to the pool when the full text found
// anything; they score by their vector part (and their BM25, if any).
// Only chunks visible to the role are searched.
func (s *Store) Search(ctx context.Context, q carryover.Query) ([]carryover.Hit, error) {
	terms := queryTerms(q.Text)
	if len(terms) == 0 {
		return nil, nil
	}
	var w where
	w.args = []any{nil} // $1 is the tsquery
	if q.SessionID != "" {
		w.add("c.session_id = ?", clean(q.SessionID))
	}
	if q.Project != "" {
		w.add("c.project = ?", clean(q.Project))
	}
	if q.BeforeWindow > 0 {
		w.add("c.win < ?", q.BeforeWindow)
	}
	if q.File != "" {
		w.add("array_to_string(c.files, E'\\n') ILIKE ? ESCAPE '\\'", "%"+likeEscape(clean(q.File))+"%")
	}
	if !q.Since.IsZero() {
		w.add("greatest(c.start_at, c.end_at) >= ?", q.Since)
	}
	lim := q.Limit
	if lim <= 0 {
		lim = DefaultSearchLimit
	}
	p, err := s.plan(ctx, terms, w)
	if err != nil || len(p.queries) == 0 {
		return nil, err
	}
	args := append([]any{nil}, w.args[1:]...)
	args[0] = p.match
	matches := `SELECT c.id, c.tsv FROM chunks c WHERE c.tsv @@ $1::tsquery` + w.and()
	if p.total > maxCandidates {
		matches += fmt.Sprintf(" ORDER BY c.id DESC LIMIT %d", maxCandidates)
	}
	n2, n3 := len(args)+1, len(args)+2
	args = append(args, p.queries, p.idfs)
	rank := strings.NewReplacer("$2::", fmt.Sprintf("$%d::", n2), "$3::", fmt.Sprintf("$%d::", n3)).Replace(rankExpr)
	rows, err := s.pool.Query(ctx, `WITH hit AS (`+matches+`),
		m AS (SELECT id, tsv, length(tsv) AS len, greatest(avg(length(tsv)) OVER (), 1) AS avglen FROM hit)
		SELECT m.id, `+rank+` AS bm FROM m ORDER BY bm DESC, m.id LIMIT `+fmt.Sprint(max(lim, HybridPool)), args...)
	if err != nil {
		return nil, wrap("search", err)
	}
	var cands []candidate
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.id, &c.bm); err != nil {
			rows.Close()
			return nil, wrap("search", err)
		}
		cands = append(cands, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, wrap("search", err)
	}
	if cands, err = s.rerank(ctx, q.Text, p, w, cands); err != nil {
		return nil, err
	}
	cands = cands[:min(lim, len(cands))]
	return s.readHits(ctx, cands)
}

// plan is what a search looks for: the tsquery of each kept term (their
// OR in match) with its idf, the rows the kept terms match (at most
// maxCandidates+1 each), and the row counts by term for the query vector.
type plan struct {
	match   string
	queries []string
	idfs    []float64
	total   int
	rows    int
	df      map[string]int
}

// plan turns the terms into tsqueries and counts, in one round trip, the
// rows each matches under the filters (up to maxCandidates+1); it keeps the
// rarest terms while their counts add up to at most maxCandidates.
func (s *Store) plan(ctx context.Context, terms []string, w where) (plan, error) {
	p := plan{df: make(map[string]int, len(terms))}
	texts := make([]string, len(terms))
	for i, t := range terms {
		texts[i] = plainWords(t)
	}
	args := append([]any{texts}, w.args[1:]...)
	rows, err := s.pool.Query(ctx, `SELECT t.i, q::text, (SELECT count(*) FROM (SELECT 1 FROM chunks c
			WHERE c.tsv @@ q`+w.and()+` LIMIT `+fmt.Sprint(maxCandidates+1)+`) x)
		FROM unnest($1::text[]) WITH ORDINALITY AS t(term, i), phraseto_tsquery('simple', t.term) AS q
		WHERE numnode(q) > 0`, args...)
	if err != nil {
		return p, wrap("search: plan", err)
	}
	type term struct {
		query string
		rows  int
	}
	var found []term
	for rows.Next() {
		var i int
		var t term
		if err := rows.Scan(&i, &t.query, &t.rows); err != nil {
			rows.Close()
			return p, wrap("search: plan", err)
		}
		p.df[terms[i-1]] = t.rows
		if t.rows > 0 {
			found = append(found, t)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return p, wrap("search: plan", err)
	}
	if len(found) == 0 {
		return p, nil
	}
	if err := s.pool.QueryRow(ctx, `SELECT greatest(reltuples::bigint, 0) FROM pg_class
		WHERE oid = 'chunks'::regclass`).Scan(&p.rows); err != nil {
		return p, wrap("search: plan", err)
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].rows < found[j].rows })
	for i, t := range found {
		if i > 0 && p.total+t.rows > maxCandidates {
			break
		}
		p.total += t.rows
		p.queries = append(p.queries, t.query)
	}
	// A young table has no statistics yet: count at least what matched.
	p.rows = max(p.rows, found[len(found)-1].rows)
	parts := make([]string, len(p.queries))
	for i, q := range p.queries {
		parts[i] = "(" + q + ")"
		p.idfs = append(p.idfs, embedding.IDF(p.rows, found[i].rows))
	}
	p.match = strings.Join(parts, " | ")
	return p, nil
}

// rerank scores cands (in full-text order) with the query's vector and
// sorts them best first; the sort is stable, so equal scores keep their
// order. With pgvector, the nearest chunks under the filters w join the
// pool first.
func (s *Store) rerank(ctx context.Context, query string, p plan, w where, cands []candidate) ([]candidate, error) {
	for i := range cands {
		cands[i].score = cands[i].bm
	}
	if len(cands) == 0 {
		return cands, nil
	}
	ok, err := s.searchVectors(ctx)
	if err != nil || !ok {
		return cands, err
	}
	qv := s.queryVector(query, p.rows, p.df)
	if s.pgvector {
		if cands, err = s.addNeighbours(ctx, qv, p, w, cands); err != nil {
			return nil, err
		}
	}
	ids := make([]int64, len(cands))
	for i, c := range cands {
		ids[i] = c.id
	}
	vecs, err := s.candidateVectors(ctx, ids, contextW)
	if err != nil || len(vecs) == 0 {
		return cands, err
	}
	for i := range cands {
		// The context blend leaves a vector longer than one.
		if v, ok := vecs[cands[i].id]; ok {
			if n := embedding.Dot(v, v); n > 0 {
				cands[i].cos = float64(embedding.Dot(qv, v)) / sqrt(float64(n))
			}
		}
	}
	bmMax := cands[0].bm
	for i := range cands {
		c := &cands[i]
		c.score = c.bm + vectorW*bmMax*max(c.cos, 0)
	}
	cands = slices.DeleteFunc(cands, func(c candidate) bool { return c.score <= 0 })
	slices.SortStableFunc(cands, func(a, b candidate) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	return cands, nil
}

// addNeighbours appends to cands the HybridPool chunks nearest to qv (by
// the HNSW index) that pass the filters and are not candidates yet, with
// their full-text score (0 when they match no kept term).
func (s *Store) addNeighbours(ctx context.Context, qv []float32, p plan, w where, cands []candidate) ([]candidate, error) {
	args := append([]any{qv}, w.args[1:]...)
	n2, n3 := len(args)+1, len(args)+2
	args = append(args, p.queries, p.idfs)
	rank := strings.NewReplacer("$2::", fmt.Sprintf("$%d::", n2), "$3::", fmt.Sprintf("$%d::", n3)).Replace(rankExpr)
	rows, err := s.pool.Query(ctx, `WITH near AS (SELECT c.id, c.tsv, c.vec <=> $1::real[]::vector AS dist FROM chunks c
			WHERE c.vec IS NOT NULL`+w.and()+` ORDER BY dist LIMIT `+fmt.Sprint(HybridPool)+`),
		m AS (SELECT id, tsv, length(tsv) AS len, greatest(avg(length(tsv)) OVER (), 1) AS avglen FROM near
			WHERE 1 - dist >= `+fmt.Sprint(minNeighbourCos)+`)
		SELECT m.id, `+rank+` FROM m`, args...)
	if err != nil {
		return nil, wrap("search: neighbours", err)
	}
	defer rows.Close()
	have := make(map[int64]bool, len(cands))
	for _, c := range cands {
		have[c.id] = true
	}
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.id, &c.bm); err != nil {
			return nil, wrap("search: neighbours", err)
		}
		if !have[c.id] {
			c.score = c.bm
			cands = append(cands, c)
		}
	}
	return cands, wrap("search: neighbours", rows.Err())
}

// readHits reads the chunks of cands, in their order.
func (s *Store) readHits(ctx context.Context, cands []candidate) ([]carryover.Hit, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	pos := make(map[int64]int, len(cands))
	ids := make([]int64, len(cands))
	for i, c := range cands {
		pos[c.id] = i
		ids[i] = c.id
	}
	rows, err := s.pool.Query(ctx, `SELECT `+chunkCols+` FROM chunks c WHERE c.id = ANY ($1)`, ids)
	if err != nil {
		return nil, wrap("search", err)
	}
	defer rows.Close()
	hits := make([]carryover.Hit, len(cands))
	for rows.Next() {
		ch, err := scanChunk(rows)
		if err != nil {
			return nil, wrap("search", err)
		}
		i := pos[ch.ID]
		hits[i] = carryover.Hit{Chunk: ch, Score: cands[i].score, BM25: cands[i].bm}
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("search", err)
	}
	// A chunk pruned between the two queries leaves a gap.
	return slices.DeleteFunc(hits, func(h carryover.Hit) bool { return h.Chunk.ID == 0 }), nil
}

// likeEscape escapes LIKE's wildcards in s (ESCAPE '\').
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s)
}
