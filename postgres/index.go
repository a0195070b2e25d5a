package postgres

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/rank"
)

// The full-text index holds what the SQLite store's index holds, so that
// both rank alike (see package rank). PostgreSQL's own parser and stemmer
// split and stem differently (it keeps src/app/main.go whole, its English
// stemmer is Porter's second algorithm), so the tokens are made in Go with
// package tokenize's FTS, the SQLite index's tokenizer, and stored as a
// tsvector literal: each token at its position, weighted by its field, and
// the chunk's length in tokens in fts_len. A query term is the tsquery
// phrase of its tokens. BM25 is then computed in Go from the positions and
// weights of the candidates' query tokens (rank.BM25, rank.PhraseFreq),
// with FTS5's statistics: the rows and tokens of every indexed chunk the
// role can read (kept per session: sessions.fts_chunks and fts_tokens) and
// each phrase's rows.
//
// PostgreSQL keeps at most 256 positions of a lexeme in a row and none
// past 16383, and no lexeme of 2 KB or more: a chunk of more than 16,000
// tokens, or with one token more than 256 times, scores a little below its
// SQLite score, and a token of 2 KB (a run of base64) is not searchable.

// tsvWeights are the tsvector's weight labels of the fields' weights.
var tsvWeights = map[float64]byte{3: 'A', 2: 'B', 1.5: 'C', 1: 'D'}

// labelWeights are the fields' weights of the tsvector's labels.
var labelWeights = map[string]float64{"A": 3, "B": 2, "C": 1.5, "D": 1}

// maxLexeme is the longest lexeme a tsvector takes, in bytes.
const maxLexeme = 2046

// maxPosition is the last position a tsvector records.
const maxPosition = 16383

// indexed is a chunk as the full-text index holds it.
type indexed struct {
	tsv string // tsvector literal
	len int    // tokens, all fields
}

// indexChunk tokenizes a chunk for the index.
func indexChunk(c carryover.Chunk) indexed {
	doc := rank.NewDocument(rank.Fields(c))
	type lexeme struct {
		text string
		ps   []rank.Posting
	}
	lexemes := make([]lexeme, 0, len(doc.Postings))
	for t, ps := range doc.Postings {
		if len(t) > maxLexeme || !utf8.ValidString(t) {
			continue
		}
		lexemes = append(lexemes, lexeme{t, ps})
	}
	// Sorted: the same chunk always gives the same literal.
	slices.SortFunc(lexemes, func(a, b lexeme) int { return strings.Compare(a.text, b.text) })
	var b strings.Builder
	for _, l := range lexemes {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quoteLexeme(l.text))
		b.WriteByte(':')
		for i, p := range l.ps {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(min(p.Pos, maxPosition)))
			b.WriteByte(tsvWeights[p.Weight])
		}
	}
	return indexed{tsv: b.String(), len: doc.Len}
}

// lexemeEscaper doubles quotes and backslashes in a quoted lexeme.
var lexemeEscaper = strings.NewReplacer(`'`, `''`, `\`, `\\`)

// quoteLexeme quotes a lexeme for a tsvector or tsquery literal.
func quoteLexeme(s string) string {
	if strings.ContainsAny(s, `'\`) {
		s = lexemeEscaper.Replace(s)
	}
	return "'" + s + "'"
}

// phraseQuery is the tsquery literal of a phrase of tokens ("" when it has
// none, or one no tsvector holds).
func phraseQuery(tokens []string) string {
	parts := make([]string, 0, len(tokens))
	for _, t := range tokens {
		if len(t) > maxLexeme || !utf8.ValidString(t) {
			return ""
		}
		parts = append(parts, quoteLexeme(t))
	}
	return strings.Join(parts, " <-> ")
}

// BackfillBatch is how many chunks indexed by an older carryover one Apply
// indexes again (see Backfill).
const BackfillBatch = 256

// Backfill indexes again up to limit of this role's chunks stored before
// schema version 4 (fts_len NULL), newest first, and returns how many it
// indexed; 0 means none is left. Such chunks are not searched until then.
// Apply calls it with BackfillBatch after a batch whose transaction found
// such chunks; `carryover ingest` calls it until it returns 0.
func (s *Store) Backfill(ctx context.Context, limit int) (int, error) {
	if s.indexed.Load() {
		return 0, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT `+chunkCols+` FROM chunks c
		WHERE c.fts_len IS NULL AND c.owner = $1 ORDER BY c.id DESC LIMIT $2`, s.owner, limit)
	if err != nil {
		return 0, wrap("backfill index", err)
	}
	chunks, err := collect(rows, "backfill index", chunkRow)
	if err != nil {
		return 0, err
	}
	if len(chunks) == 0 {
		s.indexed.Store(true)
		return 0, nil
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, wrap("backfill index", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	// A concurrent backfill may have indexed some: fts_len IS NULL keeps
	// each chunk counted once in its session's statistics.
	batch := &pgx.Batch{}
	for _, c := range chunks {
		ix := indexChunk(c)
		batch.Queue(`WITH up AS (UPDATE chunks SET tsv = $1::tsvector, fts_len = $2 WHERE id = $3 AND fts_len IS NULL RETURNING session_id)
			UPDATE sessions SET fts_chunks = fts_chunks + 1, fts_tokens = fts_tokens + $2
			WHERE id = (SELECT session_id FROM up) AND owner = $4`,
			ix.tsv, ix.len, c.ID, s.owner)
	}
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		return 0, wrap("backfill index", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, wrap("backfill index: commit", err)
	}
	return len(chunks), nil
}
