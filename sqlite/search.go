package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/rank"
)

// DefaultSearchLimit is the number of hits returned when Query.Limit is 0.
const DefaultSearchLimit = 20

// maxCandidates bounds the rows one search ranks (rank.MaxCandidates).
const maxCandidates = rank.MaxCandidates

// chunkRank is bm25 with one weight per chunks_fts column, whose columns
// are rank's fields in order: the score scale of package rank.
var chunkRank = `bm25(chunks_fts, ` + rank.WeightList() + `)`

// Search ranks chunks by BM25 over the full-text index. Any text is
// accepted: it is reduced to quoted terms joined with OR (see queryTerms),
// so there is no query syntax and no syntax error; text with nothing
// searchable in it finds nothing. To bound the cost, the rarest terms are
// kept while they match at most maxCandidates chunks together (commoner
// terms have a low IDF and add little to the rank); when even the rarest
// term matches more, its newest rank.CappedCandidates matches are ranked.
// Limit defaults to DefaultSearchLimit.
//
// The best HybridPool (or Limit, if more) by BM25 are then reranked with
// the chunks' stored vectors, their parent turns and, within one session,
// their turns as documents (see rerank and package rank): Hit.BM25 is
// -bm25 and Hit.Score the fused score that orders the hits, both
// higher-is-better. The full-text index stems English words (Porter).
// Chunks without a vector yet (see Backfill) are ranked by BM25 alone.
func (s *Store) Search(ctx context.Context, q carryover.Query) ([]carryover.Hit, error) {
	return s.search(ctx, q, true)
}

// search is Search; with spans false, a search of a project reads the
// project index rather than the spans of chunk ids.
func (s *Store) search(ctx context.Context, q carryover.Query, spans bool) ([]carryover.Hit, error) {
	terms := queryTerms(q.Text)
	if len(terms) == 0 {
		return nil, nil
	}
	lo, hi := int64(0), int64(math.MaxInt64)
	var w where
	var shares sessionShares
	if q.SessionID != "" {
		// A session's chunks were mostly inserted together: bounding the
		// rowids lets FTS5 skip the rest of each posting list. The chunks
		// it shares (see Apply) are older ones: the range takes them in.
		var first, last sql.NullInt64
		var shared bool
		err := s.db.QueryRowContext(ctx, `SELECT min(id), max(id), EXISTS (SELECT 1 FROM chunk_shares WHERE session_id = ?1)
			FROM (SELECT id FROM chunks WHERE session_id = ?1 UNION ALL SELECT chunk_id FROM chunk_shares WHERE session_id = ?1)`,
			q.SessionID).Scan(&first, &last, &shared)
		if err != nil {
			return nil, wrapErr("search", err)
		}
		if !first.Valid {
			return nil, nil
		}
		lo, hi = first.Int64, last.Int64
		if !shared {
			w.add("c.session_id = ?", q.SessionID)
			if q.BeforeWindow > 0 {
				w.add("c.win < ?", q.BeforeWindow)
			}
		} else {
			if shares, err = s.readShares(ctx, q.SessionID); err != nil {
				return nil, err
			}
			// Its own chunks, and those it shares by its own windows.
			cond, win := "c.session_id = ?", ""
			args := []any{q.SessionID}
			if q.BeforeWindow > 0 {
				cond, win = cond+" AND c.win < ?", " AND win < ?"
				args = append(args, q.BeforeWindow)
			}
			args = append(args, q.SessionID)
			if q.BeforeWindow > 0 {
				args = append(args, q.BeforeWindow)
			}
			w.add("("+cond+" OR c.id IN (SELECT chunk_id FROM chunk_shares WHERE session_id = ?"+win+"))", args...)
		}
	}
	// A search of a project alone tests a match's project by the spans
	// of chunk ids (see spans.go), a few rows a fresh process reads once,
	// rather than by the project index, an entry per match; its matches
	// start at the project's first chunk. (Not up to its last: a chunk
	// stored since the spans were read is found as the index finds it.)
	mlo := lo
	bySpans := false
	if spans && q.Project != "" && q.SessionID == "" && q.File == "" && q.Since.IsZero() && q.BeforeWindow <= 0 {
		first, last, usable, err := s.projectRange(ctx, q.Project)
		if err != nil {
			return nil, wrapErr("search", err)
		}
		if usable && first > last {
			return nil, nil // no chunk of the project
		}
		if usable {
			bySpans, mlo = true, first
			w.add(spanProject("chunks_fts.rowid")+` = (SELECT id FROM projects WHERE root = ?)`, q.Project)
		}
	}
	if q.Project != "" && !bySpans {
		w.add("c.project_id = (SELECT id FROM projects WHERE root = ?)", q.Project)
	}
	if q.BeforeWindow > 0 && q.SessionID == "" {
		w.add("c.win < ?", q.BeforeWindow)
	}
	// chunks_project holds what a project's or window's check reads, in
	// a fifth of chunks_filter's pages: a fresh process reads each page it
	// touches, and a common term's matches touch most of them.
	index := "chunks_project"
	if q.SessionID != "" || q.File != "" || !q.Since.IsZero() {
		index = "chunks_filter"
	}
	if q.File != "" {
		w.add("c.files LIKE ? ESCAPE '\\'", "%"+likeEscape(q.File)+"%")
	}
	if !q.Since.IsZero() {
		w.add("max(c.start_ms, c.end_ms) >= ?", ms(q.Since))
	}
	join := ""
	if len(w.conds) > 0 && !bySpans {
		// The covering index holds every filter column: reading the chunk
		// rows themselves, text and all, costs more than the ranking.
		join = " JOIN chunks c INDEXED BY " + index + " ON c.id = chunks_fts.rowid"
	}
	p, err := s.plan(ctx, "chunks_fts", terms, lo, hi)
	if err != nil || p.match == "" {
		return nil, err
	}
	args := append([]any{p.match, mlo, hi}, w.args...)
	lim := q.Limit
	if lim <= 0 {
		lim = DefaultSearchLimit
	}
	// Rank on the index alone, then read the few winners whole. (bm, not
	// rank: that is the name of FTS5's own unweighted rank column.)
	ranked := `SELECT chunks_fts.rowid AS rid, -` + chunkRank + ` AS bm FROM chunks_fts` + join + `
		WHERE chunks_fts MATCH ? AND chunks_fts.rowid BETWEEN ? AND ?` + and(w)
	if p.capped {
		// Only the newest matches that pass the conditions are ranked,
		// found in the same pass over the index.
		ranked = `SELECT rid, bm FROM (` + ranked + ` ORDER BY chunks_fts.rowid DESC LIMIT ` + fmt.Sprint(rank.CappedCandidates) + `)`
	}
	rows, err := s.db.QueryContext(ctx, ranked+` ORDER BY bm DESC, rid LIMIT `+fmt.Sprint(max(lim, HybridPool)), args...)
	if err != nil {
		return nil, wrapErr("search", err)
	}
	var cands []rank.Candidate
	for rows.Next() {
		var c rank.Candidate
		if err := rows.Scan(&c.ID, &c.BM25); err != nil {
			rows.Close()
			return nil, wrapErr("search", err)
		}
		cands = append(cands, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, wrapErr("search", err)
	}
	if bySpans && len(cands) == 0 {
		// The spans read as usable may have been dropped since (a project
		// moved, doctor): the ranked query then finds nothing by them.
		if _, _, usable, err := s.projectRange(ctx, q.Project); err != nil || !usable {
			return s.search(ctx, q, false)
		}
	}
	if q.SessionID != "" && !p.capped {
		// Only within one session, and not when its rarest query word is
		// in thousands of its chunks: across a project, a hook could not
		// afford to read the turn of every matching row.
		turnDoc, err := s.turnScores(ctx, scope{lo: lo, hi: hi, w: w, session: q.SessionID, shares: shares}, p.kept)
		if err != nil {
			return nil, err
		}
		for i := range cands {
			cands[i].TurnDoc = turnDoc[cands[i].ID]
		}
	}
	if err := s.rerank(ctx, q.Text, docFreq{df: p.df, lo: lo, hi: hi}, cands); err != nil {
		return nil, err
	}
	cands = cands[:min(lim, len(cands))]
	hits, err := s.readHits(ctx, cands)
	if err != nil {
		return nil, err
	}
	// A chunk the session shares is its chunk, where it holds it.
	for i := range hits {
		if sh, ok := shares[hits[i].Chunk.ID]; ok {
			sh.Put(&hits[i].Chunk, q.SessionID)
		}
	}
	return hits, nil
}

// sessionShares are the chunks a session shares, by chunk id.
type sessionShares map[int64]carryover.ChunkPlace

// readShares reads the chunks the session shares.
func (s *Store) readShares(ctx context.Context, session string) (sessionShares, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT chunk_id, seq, turn, win, first_line, last_line FROM chunk_shares WHERE session_id = ?`, session)
	if err != nil {
		return nil, wrapErr("search: shared chunks", err)
	}
	defer rows.Close()
	out := sessionShares{}
	for rows.Next() {
		var id int64
		var sh carryover.ChunkPlace
		if err := rows.Scan(&id, &sh.Seq, &sh.Turn, &sh.Window, &sh.FirstLine, &sh.LastLine); err != nil {
			return nil, wrapErr("search: shared chunks", err)
		}
		out[id] = sh
	}
	return out, wrapErr("search: shared chunks", rows.Err())
}

// readHits reads the chunks of cands, in their order.
func (s *Store) readHits(ctx context.Context, cands []rank.Candidate) ([]carryover.Hit, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	pos := make(map[int64]int, len(cands))
	var b strings.Builder
	for i, c := range cands {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, c.ID)
		pos[c.ID] = i
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+chunkCols+` FROM chunks c JOIN projects p ON p.id = c.project_id
		WHERE c.id IN (`+b.String()+`)`)
	if err != nil {
		return nil, wrapErr("search", err)
	}
	defer rows.Close()
	hits := make([]carryover.Hit, len(cands))
	for rows.Next() {
		ch, err := scanChunk(rows)
		if err != nil {
			return nil, wrapErr("search", err)
		}
		i := pos[ch.ID]
		hits[i] = carryover.Hit{Chunk: ch, Score: cands[i].Score, BM25: cands[i].BM25}
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr("search", err)
	}
	return hits, nil
}

// scope is where a search looks: FTS rowids in [lo, hi], and rows that
// pass the conditions w over the chunks (alias c); in a search within a
// session, the session and the chunks it shares.
type scope struct {
	lo, hi  int64
	w       where
	session string
	shares  sessionShares
}

// plan picks the terms of a search over the FTS table fts. It counts the
// rows each term matches with rowids in [lo, hi] (up to maxCandidates+1),
// drops terms that match nothing, and keeps the rarest terms while their
// counts add up to at most maxCandidates.
func (s *Store) plan(ctx context.Context, fts string, terms []string, lo, hi int64) (searchPlan, error) {
	return s.planUpTo(ctx, fts, terms, lo, hi, maxCandidates)
}

// planUpTo is plan with limit in place of maxCandidates. Of terms that all
// match more than limit rows, the one kept is the rarest (byRarity): the
// one whose first limit+1 matches reach furthest.
func (s *Store) planUpTo(ctx context.Context, fts string, terms []string, lo, hi int64, limit int) (searchPlan, error) {
	// FTS5 returns a term's matches in rowid order. One walk takes a
	// term's first limit+1 matches: their count is the term's rows, up to
	// limit+1, and when there are that many, the last one's rowid is its
	// reach. A walk stops there, however common the term; a rarer one is
	// walked once, not probed and then counted. Over a whole index, the
	// reaches found before are kept (see reach.go) and not walked again.
	var matches *sql.Stmt
	defer func() {
		if matches != nil {
			matches.Close()
		}
	}()
	// walk returns the rows a term matches (up to limit+1) and, when it
	// matches more, its reach.
	walk := func(t string) (n int, reach int64, err error) {
		if matches == nil {
			if matches, err = s.db.PrepareContext(ctx, `SELECT count(*), coalesce(max(rowid), 0) FROM (SELECT rowid FROM `+fts+`
				WHERE `+fts+` MATCH ? AND rowid BETWEEN ? AND ? ORDER BY rowid LIMIT `+fmt.Sprint(limit+1)+`)`); err != nil {
				return 0, 0, err
			}
		}
		if err = matches.QueryRowContext(ctx, t, lo, hi).Scan(&n, &reach); err != nil || n <= limit {
			return n, 0, err
		}
		return n, reach, nil
	}
	var found, walked []termCount
	counts := make(map[string]int, len(terms))
	known, gen := map[string]int64(nil), int64(-1)
	if reachPlan(fts, lo, hi) {
		known, gen = s.knownReaches(ctx, fts, terms, limit)
	}
	for _, t := range terms {
		n := limit + 1
		reach, ok := known[t]
		if !ok {
			var err error
			if n, reach, err = walk(t); err != nil {
				return searchPlan{}, wrapErr("search: plan", err)
			}
			if reach > 0 && gen >= 0 {
				walked = append(walked, termCount{term: t, rows: n, reach: reach})
			}
		}
		if n > 0 {
			found = append(found, termCount{term: t, rows: n, reach: reach})
		}
		counts[strings.ReplaceAll(strings.Trim(t, `"`), `""`, `"`)] = n
	}
	s.journalReachesFound(fts, gen, limit, walked)
	if len(found) == 0 {
		return searchPlan{}, nil
	}
	byRarity(found, limit)
	kept, total := []string{found[0].term}, found[0].rows
	for _, t := range found[1:] {
		if total+t.rows > limit {
			break
		}
		kept, total = append(kept, t.term), total+t.rows
	}
	return searchPlan{match: strings.Join(kept, " OR "), capped: total > limit, df: counts, kept: kept}, nil
}

// termCount is a query term with the rows it matches, counted up to a
// limit+1, and, for a term that matches more, its reach: the rowid of its
// limit+1st match (FTS5 returns matches in rowid order).
type termCount struct {
	term  string
	rows  int
	reach int64
}

// byRarity sorts a search's terms rarest first, the order plan keeps them
// in: by the rows they match, and, of terms that match more than limit
// rows (every term of a capped search), by how far their first limit+1
// matches reach, the furthest first. Such terms are counted only to
// limit+1, so their counts tie; the reach tells the rarest: it ranks
// better, and bm25()'s IDF pass over its matches costs a fraction of a
// common word's. Ties keep the query's order.
func byRarity(ts []termCount, limit int) {
	sort.SliceStable(ts, func(i, j int) bool {
		a, b := ts[i], ts[j]
		if a.rows > limit && b.rows > limit {
			return a.reach > b.reach
		}
		return a.rows < b.rows
	})
}

// searchPlan is what plan chose.
type searchPlan struct {
	match string // the MATCH expression; "" when no term matches
	// capped: the rarest term alone matches more than maxCandidates rows,
	// and only its rank.CappedCandidates newest matches are worth ranking.
	capped bool
	df     map[string]int // rows each term matches (unquoted; at most maxCandidates+1)
	kept   []string       // the terms of match, quoted
}

// and renders w's conditions to follow other conditions.
func and(w where) string {
	if len(w.conds) == 0 {
		return ""
	}
	return " AND " + strings.Join(w.conds, " AND ")
}

// ItemHit is an item found by SearchItems, with its score (higher is
// better).
type ItemHit struct {
	Item  carryover.Item
	Score float64
}

// SearchItems ranks items by BM25 over their text (weight 2) and detail
// (weight 1), with the same query rules and cost bounds as Search. Query.BeforeWindow and
// Query.Since filter on the item's window and time.
func (s *Store) SearchItems(ctx context.Context, q carryover.Query) ([]ItemHit, error) {
	terms := queryTerms(q.Text)
	if len(terms) == 0 {
		return nil, nil
	}
	var w where
	if q.SessionID != "" {
		w.add("i.session_id = ?", q.SessionID)
	}
	if q.Project != "" {
		w.add("i.session_id IN (SELECT s.id FROM sessions s JOIN projects p ON p.id = s.project_id WHERE p.root = ?)", q.Project)
	}
	if q.BeforeWindow > 0 {
		w.add("i.win < ?", q.BeforeWindow)
	}
	if !q.Since.IsZero() {
		w.add("i.time_ms >= ?", ms(q.Since))
	}
	p, err := s.plan(ctx, "items_fts", terms, 0, math.MaxInt64)
	if err != nil || p.match == "" {
		return nil, err
	}
	lim := q.Limit
	if lim <= 0 {
		lim = DefaultSearchLimit
	}
	// Rank on the index, as Search does: when the rarest term is in more
	// than maxCandidates rows, only its newest rank.CappedCandidates
	// matches that pass the filters, found in the same pass.
	ranked := `SELECT items_fts.rowid AS rid, -bm25(items_fts, 2, 1) AS score
		FROM items_fts JOIN items i ON i.id = items_fts.rowid WHERE items_fts MATCH ?` + and(w)
	if p.capped {
		ranked += ` ORDER BY items_fts.rowid DESC LIMIT ` + fmt.Sprint(rank.CappedCandidates)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+itemCols+`, r.score FROM (`+ranked+`) r JOIN items i ON i.id = r.rid
		ORDER BY r.score DESC, i.id LIMIT `+fmt.Sprint(lim), append([]any{p.match}, w.args...)...)
	if err != nil {
		return nil, wrapErr("search items", err)
	}
	defer rows.Close()
	var hits []ItemHit
	sc := newItemScanner()
	var score float64
	sc.dest = append(sc.dest, &score)
	for rows.Next() {
		it, err := sc.scan(rows)
		if err != nil {
			return nil, wrapErr("search items", err)
		}
		hits = append(hits, ItemHit{Item: it, Score: score})
	}
	if err := rows.Err(); err != nil {
		return nil, wrapErr("search items", err)
	}
	return hits, nil
}
