package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/tokenize"
	"github.com/carryover-dev/carryover/passage"
	"github.com/carryover-dev/carryover/rank"
)

// indexedPassage is a passage as the passages table holds it: its place
// and its tokens, not its text (see 0010_passages.sql).
type indexedPassage struct {
	line, part int
	tsv        string // tsvector literal
	len        int    // tokens
}

// indexPassages cuts the raw lines' texts into passages and tokenizes
// them as the embedded store's index does (tokenize.FTS over
// passage.Index).
func indexPassages(raw []carryover.RawLine) []indexedPassage {
	var out []indexedPassage
	for _, l := range raw {
		for _, p := range passage.Split(l.Line, l.Text) {
			tsv, n := passageVector(passage.Index(p))
			out = append(out, indexedPassage{line: p.Line, part: p.Part, tsv: tsv, len: n})
		}
	}
	return out
}

// passageVector is the tsvector literal of a text's tokens, each at its
// positions, and the number of tokens.
func passageVector(text string) (string, int) {
	pos := map[string][]int{}
	n := 0
	tokenize.FTS(text, func(tok []byte) {
		n++
		pos[string(tok)] = append(pos[string(tok)], n)
	})
	lexemes := make([]string, 0, len(pos))
	for t := range pos {
		if len(t) <= maxLexeme && utf8.ValidString(t) {
			lexemes = append(lexemes, t)
		}
	}
	slices.Sort(lexemes)
	var b strings.Builder
	for _, t := range lexemes {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quoteLexeme(t))
		b.WriteByte(':')
		// PostgreSQL keeps at most 256 positions of a lexeme.
		for i, p := range pos[t][:min(len(pos[t]), 256)] {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(min(p, maxPosition)))
		}
	}
	return b.String(), n
}

// queuePassages queues the batch's passages after removing those of the
// lines it replaces (a replaced tail, or lines an earlier ingest stored),
// when every line before them is indexed (up to mark, the session's
// passage mark) and the batch does not defer them; else it leaves them to
// IndexPassages.
func (s *Store) queuePassages(batch *pgx.Batch, sess session, b carryover.Batch, ps []indexedPassage, mark int) {
	first, last := b.Raw[0].Line, b.Raw[len(b.Raw)-1].Line
	to := last
	if b.RawReplace {
		to = math.MaxInt32
	}
	if b.DeferPassages || first > mark+1 {
		if first <= mark {
			batch.Queue(`DELETE FROM passages WHERE session_id = $1 AND owner = $2 AND line BETWEEN $3 AND $4`, sess.id, s.owner, first, to)
			s.queueMark(batch, sess, first-1)
		}
		return
	}
	s.queueIndex(batch, sess, first, to, ps)
	s.queueMark(batch, sess, max(last, mark))
}

func (s *Store) queueIndex(batch *pgx.Batch, sess session, from, to int, ps []indexedPassage) {
	batch.Queue(`DELETE FROM passages WHERE session_id = $1 AND owner = $2 AND line BETWEEN $3 AND $4`, sess.id, s.owner, from, to)
	for _, p := range ps {
		batch.Queue(`INSERT INTO passages (owner, team, session_id, line, part, len, tsv) VALUES ($1, $2, $3, $4, $5, $6, $7::tsvector)`,
			s.owner, sess.team, sess.id, p.line, p.part, p.len, p.tsv)
	}
}

func (s *Store) queueMark(batch *pgx.Batch, sess session, line int) {
	batch.Queue(`INSERT INTO passage_marks (owner, team, session_id, line) VALUES ($1, $2, $3, $4)
		ON CONFLICT (session_id, owner) DO UPDATE SET line = excluded.line`, s.owner, sess.team, sess.id, line)
}

// passageMarkQuery reads the last raw line of the owner's session up to
// which every line's passages are indexed (no row: 0).
const passageMarkQuery = `SELECT line FROM passage_marks WHERE session_id = $1 AND owner = $2`

// scanMark reads passageMarkQuery's row into mark, left as it is when
// there is none.
func scanMark(r pgx.Row, mark *int) error {
	if err := r.Scan(mark); !errors.Is(err, pgx.ErrNoRows) {
		return wrap("passages: mark", err)
	}
	return nil
}

// IndexPassages indexes the passages of up to maxLines raw lines of the
// owner's session after its mark (see Batch.DeferPassages), and reports
// whether every stored line is indexed.
func (s *Store) IndexPassages(ctx context.Context, sessionID string, maxLines int) (bool, error) {
	// One round trip when nothing is left, the common case of every hook
	// that calls this.
	var mark, last int
	var team string
	err := s.pool.QueryRow(ctx, `SELECT coalesce((SELECT line FROM passage_marks WHERE session_id = $1 AND owner = $2), 0),
		coalesce((SELECT max(last_line) FROM raw_blocks WHERE session_id = $1 AND owner = $2), 0),
		coalesce((SELECT team FROM sessions WHERE id = $1 AND owner = $2), '')`, sessionID, s.owner).Scan(&mark, &last, &team)
	if err != nil || last <= mark {
		return err == nil, wrap("index passages", err)
	}
	to := min(last, mark+max(maxLines, 1))
	lines, err := s.RawLines(ctx, sessionID, mark+1, to)
	if err != nil {
		return false, err
	}
	ps := indexPassages(lines)
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return false, wrap("index passages", err)
	}
	defer tx.Rollback(ctx)
	// The session's row, locked as Apply locks it: no write of the
	// session runs meanwhile; then the mark again, in the same round trip.
	lock := &pgx.Batch{}
	lock.Queue(`SELECT 1 FROM sessions WHERE id = $1 AND owner = $2 FOR UPDATE`, sessionID, s.owner).QueryRow(func(r pgx.Row) error {
		var one int
		return r.Scan(&one)
	})
	now := 0
	lock.Queue(passageMarkQuery, sessionID, s.owner).QueryRow(func(r pgx.Row) error { return scanMark(r, &now) })
	if err := tx.SendBatch(ctx, lock).Close(); err != nil {
		return false, wrap("index passages", err)
	}
	if now != mark {
		return false, nil
	}
	batch := &pgx.Batch{}
	sess := session{id: sessionID, team: team}
	s.queueIndex(batch, sess, mark+1, to, ps)
	s.queueMark(batch, sess, to)
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		return false, wrap("index passages", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, wrap("index passages", err)
	}
	return to >= last, nil
}

// SearchPassages ranks passages by BM25 as the embedded store does, with
// Search's query rules: the rarest terms are kept while their matches add
// up to at most carryover.MaxPassageCandidates, and nothing is found when
// the rarest alone matches more. The collection's
// statistics are estimated (the table's row estimate; the candidates'
// mean length), so the scores are close to the embedded store's, not
// equal. Query.SessionID, Project and BeforeWindow filter.
func (s *Store) SearchPassages(ctx context.Context, q carryover.Query) ([]carryover.PassageHit, error) {
	terms := queryTerms(q.Text)
	lim := q.Limit
	if lim <= 0 {
		lim = DefaultSearchLimit
	}
	var phrases []phrase
	var queries []string
	for _, t := range terms {
		ph := phrase{tokens: rank.Phrase(t)}
		if ph.query = phraseQuery(ph.tokens); ph.query != "" {
			phrases = append(phrases, ph)
			queries = append(queries, ph.query)
		}
	}
	if len(phrases) == 0 {
		return nil, nil
	}
	w := where{args: make([]any, 1)}
	if id := clean(q.SessionID); id != "" {
		w.add("p.session_id = ?", id)
		s.ofSession(&w, "p.owner", id)
	}
	if q.Project != "" {
		w.add("p.session_id IN (SELECT o.id FROM sessions o WHERE o.project = ?)", clean(q.Project))
	}
	if q.BeforeWindow > 0 {
		w.add("(SELECT count(*) FROM compactions k WHERE k.session_id = p.session_id AND k.owner = p.owner AND k.line < p.line) < ?", q.BeforeWindow)
	}
	w.args[0] = queries
	// The table's row count (the planner's estimate, for the idf) comes
	// with each phrase's count: one round trip for both.
	var n float64
	rows, err := s.pool.Query(ctx, `SELECT (SELECT count(*) FROM (SELECT 1 FROM passages p
			WHERE p.tsv @@ t.q::tsquery`+w.and()+` LIMIT `+fmt.Sprint(carryover.MaxPassageCandidates+1)+`) x),
			(SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = 'passages'::regclass)
		FROM unnest($1::text[]) WITH ORDINALITY AS t(q, i) ORDER BY t.i`, w.args...)
	if err != nil {
		return nil, wrap("search passages: plan", err)
	}
	i := 0
	for rows.Next() {
		if err := rows.Scan(&phrases[i].rows, &n); err != nil {
			rows.Close()
			return nil, wrap("search passages: plan", err)
		}
		i++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, wrap("search passages: plan", err)
	}
	found := slices.DeleteFunc(phrases, func(ph phrase) bool { return ph.rows == 0 })
	if len(found) == 0 {
		return nil, nil
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].rows < found[j].rows })
	if found[0].rows > carryover.MaxPassageCandidates {
		return nil, nil // nothing specific enough to point at a line
	}
	var p plan
	total := 0
	for i, ph := range found {
		if i > 0 && total+ph.rows > carryover.MaxPassageCandidates {
			break
		}
		total += ph.rows
		p.kept = append(p.kept, ph)
	}
	w.args[0] = p.match()
	cands := `SELECT p.id, p.session_id, p.line, p.part, p.len, p.tsv FROM passages p WHERE p.tsv @@ $1::tsquery` + w.and() +
		` ORDER BY p.id DESC LIMIT ` + fmt.Sprint(carryover.MaxPassageCandidates)
	w.args = append(w.args, p.lexemes())
	rows, err = s.pool.Query(ctx, `WITH c AS (`+cands+`)
		SELECT c.id, c.session_id, c.line, c.part, c.len, coalesce(o.project, ''), u.lexeme, u.positions
		FROM c LEFT JOIN LATERAL (SELECT project FROM sessions s WHERE s.id = c.session_id LIMIT 1) o ON true,
			unnest(c.tsv) u WHERE u.lexeme = ANY ($`+fmt.Sprint(len(w.args))+`::text[])`, w.args...)
	if err != nil {
		return nil, wrap("search passages", err)
	}
	type cand struct {
		hit      carryover.PassageHit
		len      int
		postings map[string][]rank.Posting
	}
	byID := map[int64]*cand{}
	var order []int64
	for rows.Next() {
		var id int64
		var h carryover.PassageHit
		var length int
		var lexeme string
		var positions []int16
		if err := rows.Scan(&id, &h.SessionID, &h.Line, &h.Part, &length, &h.Project, &lexeme, &positions); err != nil {
			rows.Close()
			return nil, wrap("search passages", err)
		}
		c := byID[id]
		if c == nil {
			c = &cand{hit: h, len: length, postings: map[string][]rank.Posting{}}
			byID[id] = c
			order = append(order, id)
		}
		for _, pos := range positions {
			c.postings[lexeme] = append(c.postings[lexeme], rank.Posting{Pos: int(pos), Weight: 1})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, wrap("search passages", err)
	}
	if len(order) == 0 {
		return nil, nil
	}
	avg := 0.0
	for _, id := range order {
		avg += float64(byID[id].len)
	}
	avg /= float64(len(order))
	n = max(n, float64(len(order)))
	idf := make([]float64, len(p.kept))
	for i, ph := range p.kept {
		idf[i] = rank.IDF(int(n), ph.rows)
	}
	out := make([]carryover.PassageHit, 0, len(order))
	freq := make([]float64, len(p.kept))
	for _, id := range order {
		c := byID[id]
		for i, ph := range p.kept {
			freq[i] = rank.PhraseFreq(ph.tokens, c.postings)
		}
		c.hit.BM25 = rank.BM25(idf, freq, c.len, avg)
		out = append(out, c.hit)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].BM25 > out[j].BM25 })
	return out[:min(lim, len(out))], nil
}
