package postgres

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/rank"
)

// DefaultSearchLimit is the number of hits returned when Query.Limit is 0.
const DefaultSearchLimit = 20

// maxCandidates bounds the rows one search ranks (rank.MaxCandidates).
const maxCandidates = rank.MaxCandidates

// HybridPool is the number of full-text candidates reranked with vectors
// (rank.Pool).
const HybridPool = rank.Pool

// minNeighbourCos is the cosine a nearest neighbour needs to join the
// candidates (Options.VectorNeighbours): below it, a chunk that shares none
// of the query's words is not about it.
const minNeighbourCos = 0.4

// Search ranks chunks the way the embedded store does (package rank), on
// the same tokens (see index.go): any text is a valid query, reduced to
// words, identifier parts and phrases (queryTerms), each the tsquery
// phrase of its tokens, so there is no query syntax and no syntax error.
// The rarest terms are kept while their matches under the filters add up
// to at most rank.MaxCandidates; when even the rarest matches more, its
// newest rank.CappedCandidates matches are ranked. Every match gets its
// BM25 (Hit.BM25, on the embedded store's scale), the best rank.Pool are
// reranked with their vectors, their parent turns and, within one session,
// their turns as documents (Hit.Score). Only chunks visible to the role are
// searched, and only those indexed since schema version 4 (see Backfill).
func (s *Store) Search(ctx context.Context, q carryover.Query) ([]carryover.Hit, error) {
	terms := queryTerms(q.Text)
	if len(terms) == 0 {
		return nil, nil
	}
	lim := q.Limit
	if lim <= 0 {
		lim = DefaultSearchLimit
	}
	var shares sessionShares
	if q.SessionID != "" {
		var err error
		if shares, err = s.readShares(ctx, q.SessionID); err != nil {
			return nil, err
		}
	}
	p, err := s.plan(ctx, q, terms, shares)
	if err != nil || len(p.kept) == 0 {
		return nil, err
	}
	st, err := s.stats(ctx, q, p)
	if err != nil {
		return nil, err
	}
	cands, err := s.candidates(ctx, p, st, s.filters(q, p.shares != nil, 2), false)
	if err != nil {
		return nil, err
	}
	if len(cands) > max(lim, HybridPool) {
		cands = cands[:max(lim, HybridPool)]
	}
	if q.SessionID != "" && !p.capped {
		// As in the embedded store, only within one session and not when
		// its rarest query word is in thousands of its chunks.
		turnDoc, err := s.turnScores(ctx, q, p, st)
		if err != nil {
			return nil, err
		}
		for i := range cands {
			cands[i].TurnDoc = turnDoc[cands[i].ID]
		}
	}
	if cands, err = s.rerank(ctx, q, p, st, cands); err != nil {
		return nil, err
	}
	hits, err := s.readHits(ctx, cands[:min(lim, len(cands))])
	if err != nil {
		return nil, err
	}
	// A chunk the session shares is its chunk, where it holds it.
	for i := range hits {
		if sh, ok := p.shares[hits[i].Chunk.ID]; ok {
			sh.Put(&hits[i].Chunk, q.SessionID)
		}
	}
	return hits, nil
}

// sessionShares are the chunks a session shares, by chunk id; nil when
// it shares none.
type sessionShares map[int64]carryover.ChunkPlace

// readShares reads the chunks the session (the one Session picks) shares.
func (s *Store) readShares(ctx context.Context, session string) (sessionShares, error) {
	var w where
	w.add("x.session_id = ?", clean(session))
	s.ofSession(&w, "x.owner", clean(session))
	rows, err := s.pool.Query(ctx, `SELECT x.chunk_id, x.seq, x.turn, x.win, x.first_line, x.last_line FROM chunk_shares x`+w.sql(), w.args...)
	if err != nil {
		return nil, wrap("search: shared chunks", err)
	}
	defer rows.Close()
	var out sessionShares
	for rows.Next() {
		var id int64
		var sh carryover.ChunkPlace
		if err := rows.Scan(&id, &sh.Seq, &sh.Turn, &sh.Window, &sh.FirstLine, &sh.LastLine); err != nil {
			return nil, wrap("search: shared chunks", err)
		}
		if out == nil {
			out = sessionShares{}
		}
		out[id] = sh
	}
	return out, wrap("search: shared chunks", rows.Err())
}

// filters returns the conditions of q on the chunks c, their parameters
// numbered after lead leading ones (left nil for the caller). With shared,
// a search within a session also takes the chunks it shares, by its own
// windows.
func (s *Store) filters(q carryover.Query, shared bool, lead int) where {
	w := where{args: make([]any, lead)}
	w.add("c.fts_len IS NOT NULL")
	if id := clean(q.SessionID); id != "" {
		switch {
		case !shared && q.BeforeWindow > 0:
			w.add("c.session_id = ? AND c.win < ?", id, q.BeforeWindow)
		case !shared:
			w.add("c.session_id = ?", id)
		case q.BeforeWindow > 0:
			w.add(`(c.session_id = ? AND c.win < ? OR c.id IN (SELECT x.chunk_id FROM chunk_shares x
				WHERE x.session_id = ? AND x.win < ?))`, id, q.BeforeWindow, id, q.BeforeWindow)
		default:
			w.add("(c.session_id = ? OR c.id IN (SELECT x.chunk_id FROM chunk_shares x WHERE x.session_id = ?))", id, id)
		}
		// A share row is of its chunk's owner.
		s.ofSession(&w, "c.owner", id)
	}
	if q.Project != "" {
		w.add("c.project = ?", clean(q.Project))
	}
	if q.BeforeWindow > 0 && q.SessionID == "" {
		w.add("c.win < ?", q.BeforeWindow)
	}
	if q.File != "" {
		w.add("array_to_string(c.files, E'\\n') ILIKE ? ESCAPE '\\'", "%"+likeEscape(clean(q.File))+"%")
	}
	if !q.Since.IsZero() {
		w.add("greatest(c.start_at, c.end_at) >= ?", q.Since)
	}
	return w
}

// phrase is a query term as the index matches it.
type phrase struct {
	tokens []string
	query  string // tsquery literal
	rows   int    // matches under the filters, at most maxCandidates+1
	df     int    // matches among every chunk the role can read
}

// plan is what a search looks for.
type plan struct {
	kept []phrase // rarest first; their OR is the search's match
	// capped: the rarest term alone matches more than maxCandidates rows,
	// and only its rank.CappedCandidates newest matches are ranked.
	capped bool
	df     map[string]int // matches under the filters by term (capped), for the query vector
	shares sessionShares  // in a search within a session, the chunks it shares
}

// match is the tsquery of the kept phrases, OR-ed.
func (p plan) match() string {
	parts := make([]string, len(p.kept))
	for i, ph := range p.kept {
		parts[i] = "(" + ph.query + ")"
	}
	return strings.Join(parts, " | ")
}

// lexemes are the distinct tokens of the kept phrases.
func (p plan) lexemes() []string {
	var out []string
	for _, ph := range p.kept {
		for _, t := range ph.tokens {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// plan counts, in one round trip, the rows each term's phrase matches
// under the filters (up to maxCandidates+1), and keeps the rarest while
// their counts add up to at most maxCandidates, as the embedded store's
// plan does.
func (s *Store) plan(ctx context.Context, q carryover.Query, terms []string, shares sessionShares) (plan, error) {
	p := plan{df: make(map[string]int, len(terms)), shares: shares}
	var phrases []phrase
	var queries []string
	var termOf []string
	for _, t := range terms {
		ph := phrase{tokens: rank.Phrase(t)}
		if ph.query = phraseQuery(ph.tokens); ph.query == "" {
			continue
		}
		phrases = append(phrases, ph)
		queries = append(queries, ph.query)
		termOf = append(termOf, t)
	}
	if len(phrases) == 0 {
		return p, nil
	}
	w := s.filters(q, p.shares != nil, 1)
	w.args[0] = queries
	rows, err := s.pool.Query(ctx, `SELECT (SELECT count(*) FROM (SELECT 1 FROM chunks c
			WHERE c.tsv @@ t.q::tsquery`+w.and()+` LIMIT `+fmt.Sprint(maxCandidates+1)+`) x)
		FROM unnest($1::text[]) WITH ORDINALITY AS t(q, i) ORDER BY t.i`, w.args...)
	if err != nil {
		return p, wrap("search: plan", err)
	}
	i := 0
	for rows.Next() {
		if err := rows.Scan(&phrases[i].rows); err != nil {
			rows.Close()
			return p, wrap("search: plan", err)
		}
		p.df[termOf[i]] = phrases[i].rows
		i++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return p, wrap("search: plan", err)
	}
	found := slices.DeleteFunc(phrases, func(ph phrase) bool { return ph.rows == 0 })
	if len(found) == 0 {
		return p, nil
	}
	// Of terms that all match more than maxCandidates rows, the first the
	// query names is kept. The embedded store keeps the rarest, from the
	// id its count stops at; the index here returns matches in no order,
	// and taking each common term's first matches in id order sorts all
	// of them: at 1M chunks that made a search of common words three
	// times slower than the IDF count it saves.
	sort.SliceStable(found, func(i, j int) bool { return found[i].rows < found[j].rows })
	total := 0
	for i, ph := range found {
		if i > 0 && total+ph.rows > maxCandidates {
			break
		}
		total += ph.rows
		p.kept = append(p.kept, ph)
	}
	p.capped = total > maxCandidates
	return p, nil
}

// searchStats is what BM25 and the query vector need to know of the
// archive.
type searchStats struct {
	rows   int     // indexed chunks the role can read
	avgLen float64 // their average length in tokens
	// lo and hi are the ids of the session's first and last chunks in a
	// search within one session; the query vector's idf counts the rows
	// between them, as the embedded store's does (the whole table when
	// not in one session: lo 0, hi the last id).
	lo, hi              int64
	firstTurn, lastTurn int
}

// stats reads, in one batch (a transaction of its own), the index
// statistics and each kept phrase's rows among all the chunks the role can
// read (FTS5's idf counts the whole index). Each phrase is counted by a
// query of its own: one pass over all their matches that tested each row
// against each phrase (count(*) FILTER) read every matching row's tsvector
// out of TOAST, where a count of one word's matches needs only the index
// and the rows' visibility (a phrase of several words still reads them,
// to check their order).
func (s *Store) stats(ctx context.Context, q carryover.Query, p plan) (searchStats, error) {
	var st searchStats
	dfs := make([]int64, len(p.kept))
	var tokens int64
	batch := &pgx.Batch{}
	batch.Queue(`BEGIN READ ONLY`) // for the counts' setting, below
	// Sessions counts every session the role can read; a teammate's
	// session with the id of one of the role's own is counted, though its
	// chunks are not searched (row security): a rare case, and a small
	// error in N.
	batch.Queue(`SELECT coalesce(sum(fts_chunks), 0)::bigint, coalesce(sum(fts_tokens), 0)::bigint FROM sessions`).
		QueryRow(func(r pgx.Row) error { return r.Scan(&st.rows, &tokens) })
	if q.SessionID != "" && p.shares == nil {
		var w where
		w.add("session_id = ?", clean(q.SessionID))
		s.ofSession(&w, "owner", clean(q.SessionID))
		batch.Queue(`SELECT coalesce(min(id), 0), coalesce(max(id), 0),
			coalesce((SELECT turn FROM chunks`+w.sql()+` ORDER BY id LIMIT 1), 0),
			coalesce((SELECT turn FROM chunks`+w.sql()+` ORDER BY id DESC LIMIT 1), 0)
			FROM chunks`+w.sql(), w.args...).QueryRow(func(r pgx.Row) error {
			return r.Scan(&st.lo, &st.hi, &st.firstTurn, &st.lastTurn)
		})
	} else if q.SessionID != "" {
		// The chunks it shares are older ones, of its first turns: the
		// range and the turns take them in, placed by the share rows.
		var w where
		w.add("session_id = ?", clean(q.SessionID))
		s.ofSession(&w, "owner", clean(q.SessionID))
		batch.Queue(`SELECT coalesce(min(id), 0), coalesce(max(id), 0), coalesce(min(turn), 0), coalesce(max(turn), 0)
			FROM (SELECT id, turn FROM chunks`+w.sql()+` UNION ALL SELECT chunk_id, turn FROM chunk_shares`+w.sql()+`) u`,
			w.args...).QueryRow(func(r pgx.Row) error {
			return r.Scan(&st.lo, &st.hi, &st.firstTurn, &st.lastTurn)
		})
	} else {
		batch.Queue(`SELECT coalesce(max(id), 0) FROM chunks`).QueryRow(func(r pgx.Row) error { return r.Scan(&st.hi) })
	}
	// The planner prices a common word's count as a scan of the table,
	// which detoasts every row's tsvector to test it (a word in a third of
	// 100k chunks: 310 ms), where the GIN index's bitmap reads only the
	// matching rows' pages and not their tsvectors (50–80 ms); its
	// estimates do not see that cost. The counts, last, are planned
	// without a sequential scan, within the batch's own transaction (its
	// BEGIN and COMMIT in the batch: one round trip still); but not for a
	// role under row security, whose policies' subqueries would be planned
	// without one too (TestScaleRowSecurity at 20k chunks: a role's search
	// took 533 ms instead of 201). A batch that fails leaves its
	// connection in the transaction, and the pool drops it.
	batch.Queue(`SELECT set_config('enable_seqscan', 'off', true) WHERE NOT row_security_active('chunks')`)
	for i, ph := range p.kept {
		batch.Queue(`SELECT count(*) FROM chunks c WHERE c.tsv @@ $1::tsquery AND c.fts_len IS NOT NULL`, ph.query).
			QueryRow(func(r pgx.Row) error { return r.Scan(&dfs[i]) })
	}
	batch.Queue(`COMMIT`)
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return st, wrap("search: statistics", err)
	}
	for i := range p.kept {
		p.kept[i].df = int(dfs[i])
		// Counted apart: a row written meanwhile may be in one count only.
		st.rows = max(st.rows, p.kept[i].df)
	}
	st.rows = max(st.rows, 1)
	st.avgLen = max(float64(tokens)/float64(st.rows), 1)
	return st, nil
}

// candidates scores the chunks that match the kept phrases under the
// filters w (whose first two parameters it sets), or, with byID, the chunks
// whose ids are w's third parameter, by BM25 (rank.BM25 from the positions
// of their query tokens), and returns them in rank.ByBM25 order.
func (s *Store) candidates(ctx context.Context, p plan, st searchStats, w where, byID bool) ([]rank.Candidate, error) {
	w.args[0], w.args[1] = p.match(), p.lexemes()
	hit := `SELECT c.id, c.fts_len, c.tsv FROM chunks c WHERE c.tsv @@ $1::tsquery` + w.and()
	switch {
	case byID:
		hit = `SELECT c.id, c.fts_len, c.tsv FROM chunks c WHERE c.fts_len IS NOT NULL AND c.id = ANY ($3) AND $1::tsquery IS NOT NULL`
	case p.capped:
		// Only the newest matches are worth ranking.
		hit += fmt.Sprintf(" ORDER BY c.id DESC LIMIT %d", rank.CappedCandidates)
	}
	rows, err := s.pool.Query(ctx, `WITH hit AS (`+hit+`)
		SELECT h.id, h.fts_len, u.lexeme, u.positions, u.weights FROM hit h, unnest(h.tsv) u
		WHERE u.lexeme = ANY ($2::text[])`, w.args...)
	if err != nil {
		return nil, wrap("search", err)
	}
	type row struct {
		len      int
		postings map[string][]rank.Posting
	}
	byRow := map[int64]*row{}
	var order []int64
	for rows.Next() {
		var id int64
		var n int
		var lexeme string
		var positions []int16
		var weights []string
		if err := rows.Scan(&id, &n, &lexeme, &positions, &weights); err != nil {
			rows.Close()
			return nil, wrap("search", err)
		}
		r := byRow[id]
		if r == nil {
			r = &row{len: n, postings: map[string][]rank.Posting{}}
			byRow[id] = r
			order = append(order, id)
		}
		ps := make([]rank.Posting, len(positions))
		for i, pos := range positions {
			ps[i] = rank.Posting{Pos: int(pos), Weight: labelWeights[weights[i]]}
		}
		r.postings[lexeme] = ps
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, wrap("search", err)
	}
	idf := make([]float64, len(p.kept))
	for i, ph := range p.kept {
		idf[i] = rank.IDF(st.rows, ph.df)
	}
	freq := make([]float64, len(p.kept))
	cands := make([]rank.Candidate, 0, len(order))
	for _, id := range order {
		r := byRow[id]
		for i, ph := range p.kept {
			freq[i] = rank.PhraseFreq(ph.tokens, r.postings)
		}
		cands = append(cands, rank.Candidate{ID: id, BM25: rank.BM25(idf, freq, r.len, st.avgLen)})
	}
	slices.SortFunc(cands, rank.ByBM25)
	return cands, nil
}

// turnScores scores the turns of the session of a search within one
// session as documents (rank.TurnScores) and returns each matching chunk's
// turn score: a term's frequency in a turn is the number of the turn's
// chunks that match it.
func (s *Store) turnScores(ctx context.Context, q carryover.Query, p plan, st searchStats) (map[int64]float64, error) {
	queries := make([]string, len(p.kept))
	for i, ph := range p.kept {
		queries[i] = ph.query
	}
	w := s.filters(q, p.shares != nil, 1)
	w.args[0] = queries
	rows, err := s.pool.Query(ctx, `SELECT t.i, c.id, c.turn FROM unnest($1::text[]) WITH ORDINALITY AS t(q, i)
		JOIN chunks c ON c.tsv @@ t.q::tsquery`+w.sql(), w.args...)
	if err != nil {
		return nil, wrap("search: turns", err)
	}
	turnOf := map[int64]int{}
	tfs := make([]map[int]int, len(p.kept))
	for i := range tfs {
		tfs[i] = map[int]int{}
	}
	for rows.Next() {
		var i int
		var id int64
		var turn int
		if err := rows.Scan(&i, &id, &turn); err != nil {
			rows.Close()
			return nil, wrap("search: turns", err)
		}
		if sh, ok := p.shares[id]; ok {
			turn = sh.Turn // the session's turn, not its first session's
		}
		turnOf[id] = turn
		tfs[i-1][turn]++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, wrap("search: turns", err)
	}
	score := rank.TurnScores(st.lastTurn-st.firstTurn+1, tfs)
	if score == nil {
		return nil, nil
	}
	out := make(map[int64]float64, len(turnOf))
	for id, turn := range turnOf {
		out[id] = score[turn]
	}
	return out, nil
}

// rerank gives cands their vectors' cosines with the query and their
// parent turns and orders them with rank.Fuse; with VectorNeighbours and
// pgvector, the chunks nearest to the query join them first.
func (s *Store) rerank(ctx context.Context, q carryover.Query, p plan, st searchStats, cands []rank.Candidate) ([]rank.Candidate, error) {
	if len(cands) == 0 {
		return cands, nil
	}
	ok, err := s.searchVectors(ctx)
	if err != nil {
		return nil, err
	}
	if ok {
		qv := s.queryVector(q.Text, int(max(st.hi-st.lo+1, 1)), p.df)
		if s.neighbours && s.pgvector {
			if cands, err = s.addNeighbours(ctx, q, p, st, qv, cands); err != nil {
				return nil, err
			}
		}
		ids := make([]int64, len(cands))
		for i, c := range cands {
			ids[i] = c.ID
		}
		vecs, err := s.candidateVectors(ctx, ids)
		if err != nil {
			return nil, err
		}
		for i := range cands {
			c := &cands[i]
			if v, ok := vecs[c.ID]; ok {
				c.Vector, c.Parent, c.Cos = true, v.parent, rank.Cosine(qv, v.vec)
			}
		}
	}
	rank.Fuse(cands)
	return cands, nil
}

// addNeighbours adds to cands the HybridPool chunks nearest to qv (by the
// HNSW index) that pass the filters, have a cosine of minNeighbourCos or
// more and are not candidates yet, with their BM25 (0 when they match no
// kept phrase), in rank.ByBM25 order.
func (s *Store) addNeighbours(ctx context.Context, q carryover.Query, p plan, st searchStats, qv []float32, cands []rank.Candidate) ([]rank.Candidate, error) {
	w := s.filters(q, p.shares != nil, 1)
	w.args[0] = qv
	rows, err := s.pool.Query(ctx, `SELECT id FROM (SELECT c.id, c.vec <=> $1::real[]::vector AS dist FROM chunks c
			WHERE c.vec IS NOT NULL`+w.and()+` ORDER BY dist LIMIT `+fmt.Sprint(HybridPool)+`) near
		WHERE 1 - dist >= `+fmt.Sprint(minNeighbourCos), w.args...)
	if err != nil {
		return nil, wrap("search: neighbours", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, wrap("search: neighbours", err)
	}
	ids = slices.DeleteFunc(ids, func(id int64) bool {
		return slices.ContainsFunc(cands, func(c rank.Candidate) bool { return c.ID == id })
	})
	if len(ids) == 0 {
		return cands, nil
	}
	near, err := s.candidates(ctx, p, st, where{args: []any{nil, nil, ids}}, true)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if !slices.ContainsFunc(near, func(c rank.Candidate) bool { return c.ID == id }) {
			near = append(near, rank.Candidate{ID: id}) // no query token: BM25 0
		}
	}
	cands = append(cands, near...)
	slices.SortStableFunc(cands, rank.ByBM25)
	return cands, nil
}

// readHits reads the chunks of cands, in their order.
func (s *Store) readHits(ctx context.Context, cands []rank.Candidate) ([]carryover.Hit, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	pos := make(map[int64]int, len(cands))
	ids := make([]int64, len(cands))
	for i, c := range cands {
		pos[c.ID] = i
		ids[i] = c.ID
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
		hits[i] = carryover.Hit{Chunk: ch, Score: cands[i].Score, BM25: cands[i].BM25}
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
