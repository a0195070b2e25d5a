package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/rawblock"
	"github.com/carryover-dev/carryover/passage"
)

// rawWrite is a batch's raw lines compressed into blocks, and the stored
// tail block the plan was made on.
type rawWrite struct {
	plan rawblock.Plan
	tail *rawblock.Block
	from int
	// passages of the batch's raw lines, cut while the transaction
	// inserts the rest.
	passages []passage.Passage
}

// prepareRaw reads the session's tail block and compresses the batch's
// raw lines after it, in a goroutine when the batch has chunks to insert
// meanwhile, and returns a function that waits for the result. The tail
// is read at once: the write transaction, which may start before the
// compression ends, holds the connection a read in the goroutine would
// otherwise open another one for.
func (s *Store) prepareRaw(ctx context.Context, b carryover.Batch) func() (*rawWrite, error) {
	if len(b.Raw) == 0 {
		return func() (*rawWrite, error) { return nil, nil }
	}
	from := rawblock.TailFrom(b.Raw, b.RawReplace)
	tail, err := rawTail(ctx, s.db, b.Session.ID, from, true)
	if err != nil {
		return func() (*rawWrite, error) { return nil, err }
	}
	return rawblock.Background(len(b.Chunks) > 0, func() (*rawWrite, error) {
		w, err := s.packRaw(b, tail, from)
		if err == nil && !b.DeferPassages {
			w.passages = cutPassages(b.Raw)
		}
		return w, err
	})
}

// cutPassages cuts the raw lines' texts into passages (package passage).
func cutPassages(raw []carryover.RawLine) []passage.Passage {
	var out []passage.Passage
	for _, l := range raw {
		out = append(out, passage.Split(l.Line, l.Text)...)
	}
	return out
}

// rowQueryer is what the raw reads need of the pool or a transaction.
type rowQueryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// planRaw reads the session's tail block and plans the batch's raw lines
// after it (see rawblock.Prepare).
func (s *Store) planRaw(ctx context.Context, q rowQueryer, b carryover.Batch) (*rawWrite, error) {
	from := rawblock.TailFrom(b.Raw, b.RawReplace)
	tail, err := rawTail(ctx, q, b.Session.ID, from, true)
	if err != nil {
		return nil, err
	}
	return s.packRaw(b, tail, from)
}

// packRaw plans the batch's raw lines after tail, the stored block
// TailFrom names (see rawblock.Prepare).
func (s *Store) packRaw(b carryover.Batch, tail *rawblock.Block, from int) (*rawWrite, error) {
	c := s.codecs.Get()
	defer s.codecs.Put(c)
	plan, err := c.Prepare(b.Raw, b.RawReplace, tail)
	if err != nil {
		return nil, wrapErr("apply: raw lines", err)
	}
	return &rawWrite{plan: plan, tail: tail, from: from}, nil
}

// rawTail reads the session's last block starting before line from (its
// last block for 0), with its data when withData is set; nil when there is
// none.
func rawTail(ctx context.Context, q rowQueryer, sessionID string, from int, withData bool) (*rawblock.Block, error) {
	data := "NULL"
	if withData {
		data = "data"
	}
	query := `SELECT id, first_line, last_line, first_offset, end_offset, text_bytes, ` + data + `
		FROM raw_blocks WHERE session_id = ?`
	args := []any{sessionID}
	if from > 0 {
		query += ` AND first_line < ?`
		args = append(args, from)
	}
	var b rawblock.Block
	err := q.QueryRowContext(ctx, query+` ORDER BY first_line DESC LIMIT 1`, args...).Scan(
		&b.ID, &b.FirstLine, &b.LastLine, &b.FirstOffset, &b.EndOffset, &b.TextBytes, &b.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, wrapErr("raw lines: tail", err)
	}
	return &b, nil
}

// writeRaw stores the planned blocks in the batch's transaction. When
// another writer changed the session's tail since the plan was made, it
// plans again on what the transaction sees.
func (s *Store) writeRaw(ctx context.Context, tx *sql.Tx, b carryover.Batch, w *rawWrite) error {
	if w == nil {
		return nil
	}
	now, err := rawTail(ctx, tx, b.Session.ID, w.from, false)
	if err != nil {
		return err
	}
	if !rawblock.Same(now, w.tail) {
		ps := w.passages
		if w, err = s.planRaw(ctx, tx, b); err != nil {
			return err
		}
		w.passages = ps
	}
	p := w.plan
	if p.DeleteFrom > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM raw_blocks WHERE session_id = ? AND first_line >= ?`, b.Session.ID, p.DeleteFrom); err != nil {
			return wrapErr("apply: raw lines", err)
		}
	}
	if p.DeleteID > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM raw_blocks WHERE id = ?`, p.DeleteID); err != nil {
			return wrapErr("apply: raw lines", err)
		}
	}
	for _, bl := range p.Blocks {
		if _, err := tx.ExecContext(ctx, `INSERT INTO raw_blocks
			(session_id, first_line, last_line, first_offset, end_offset, text_bytes, data) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			b.Session.ID, bl.FirstLine, bl.LastLine, bl.FirstOffset, bl.EndOffset, bl.TextBytes, bl.Data); err != nil {
			return wrapErr("apply: raw lines", err)
		}
	}
	return writePassages(ctx, tx, b, w.passages)
}

// writePassages indexes the passages of the batch's raw lines, after
// removing those of the lines it replaces (a replaced tail, or lines an
// earlier ingest stored already), when every line before them is indexed
// and the batch does not defer them; else it leaves them to
// IndexPassages.
func writePassages(ctx context.Context, tx *sql.Tx, b carryover.Batch, ps []passage.Passage) error {
	first, last := b.Raw[0].Line, b.Raw[len(b.Raw)-1].Line
	mark, err := passageMark(ctx, tx, b.Session.ID)
	if err != nil {
		return err
	}
	to := last
	if b.RawReplace {
		to = math.MaxInt
	}
	if b.DeferPassages || first > mark+1 {
		// Left for later: what the batch replaces is not indexed any more.
		if first <= mark {
			if _, err := tx.ExecContext(ctx, `DELETE FROM passages WHERE session_id = ? AND line BETWEEN ? AND ?`, b.Session.ID, first, to); err != nil {
				return wrapErr("apply: passages", err)
			}
			return setPassageMark(ctx, tx, b.Session.ID, first-1)
		}
		return nil
	}
	if err := indexPassages(ctx, tx, b.Session.ID, first, to, ps); err != nil {
		return err
	}
	return setPassageMark(ctx, tx, b.Session.ID, max(last, mark))
}

// indexPassages replaces the passages of lines from..to with ps.
func indexPassages(ctx context.Context, tx *sql.Tx, session string, from, to int, ps []passage.Passage) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM passages WHERE session_id = ? AND line BETWEEN ? AND ?`, session, from, to); err != nil {
		return wrapErr("apply: passages", err)
	}
	if len(ps) == 0 {
		return nil
	}
	// The ids are given, not taken from each insert, so that a statement
	// writes many rows: a statement costs the driver far more than a
	// row. The transaction holds the write lock; max + 1 is the id SQLite
	// would pick.
	var next int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM passages`).Scan(&next); err != nil {
		return wrapErr("apply: passages", err)
	}
	var rows, idx strings.Builder
	for len(ps) > 0 {
		n := min(len(ps), passageRows)
		rows.Reset()
		idx.Reset()
		rows.WriteString(`INSERT INTO passages (id, session_id, line, part) VALUES `)
		idx.WriteString(`INSERT INTO passages_fts (rowid, text) VALUES `)
		rowArgs := make([]any, 0, 4*n)
		idxArgs := make([]any, 0, 2*n)
		for i, p := range ps[:n] {
			if i > 0 {
				rows.WriteString(", ")
				idx.WriteString(", ")
			}
			rows.WriteString("(?, ?, ?, ?)")
			idx.WriteString("(?, ?)")
			id := next + int64(i)
			rowArgs = append(rowArgs, id, session, p.Line, p.Part)
			idxArgs = append(idxArgs, id, passage.Index(p))
		}
		if _, err := tx.ExecContext(ctx, rows.String(), rowArgs...); err != nil {
			return wrapErr("apply: passages", err)
		}
		if _, err := tx.ExecContext(ctx, idx.String(), idxArgs...); err != nil {
			return wrapErr("apply: passages", err)
		}
		ps, next = ps[n:], next+int64(n)
	}
	return nil
}

// passageRows is how many passages one statement inserts (SQLite binds at
// most 32,766 parameters).
const passageRows = 250

// passageMark is the last raw line of the session up to which every
// line's passages are indexed (0 when none).
func passageMark(ctx context.Context, q rowQueryer, session string) (int, error) {
	var mark int
	err := q.QueryRowContext(ctx, `SELECT line FROM passage_marks WHERE session_id = ?`, session).Scan(&mark)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return mark, wrapErr("passages: mark", err)
}

func setPassageMark(ctx context.Context, tx *sql.Tx, session string, line int) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO passage_marks (session_id, line) VALUES (?, ?)
		ON CONFLICT (session_id) DO UPDATE SET line = excluded.line`, session, line)
	return wrapErr("passages: mark", err)
}

// IndexPassages indexes the passages of up to maxLines raw lines of the
// session after its mark (see Batch.DeferPassages), and reports whether
// every stored line is indexed.
func (s *Store) IndexPassages(ctx context.Context, sessionID string, maxLines int) (bool, error) {
	// One query when nothing is left, the common case of every hook that
	// calls this.
	var mark, last int
	err := s.db.QueryRowContext(ctx, `SELECT coalesce((SELECT line FROM passage_marks WHERE session_id = ?1), 0),
		coalesce((SELECT max(last_line) FROM raw_blocks WHERE session_id = ?1), 0)`, sessionID).Scan(&mark, &last)
	if err != nil || last <= mark {
		return err == nil, wrapErr("index passages", err)
	}
	to := min(last, mark+max(maxLines, 1))
	lines, err := s.RawLines(ctx, sessionID, mark+1, to)
	if err != nil {
		return false, err
	}
	ps := cutPassages(lines)
	tx, end, err := s.beginWrite(ctx, s.db)
	if err != nil {
		return false, wrapErr("index passages", err)
	}
	defer end()
	// A write meanwhile moved the mark: its own turn, next time.
	if now, err := passageMark(ctx, tx, sessionID); err != nil || now != mark {
		return false, err
	}
	if err := indexPassages(ctx, tx, sessionID, mark+1, to, ps); err != nil {
		return false, err
	}
	if err := setPassageMark(ctx, tx, sessionID, to); err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, wrapErr("index passages", err)
	}
	return to >= last, nil
}

// RawLines returns the session's raw lines numbered from to to (to <= 0:
// to the last), in order; lines never stored are absent.
func (s *Store) RawLines(ctx context.Context, sessionID string, from, to int) ([]carryover.RawLine, error) {
	from = max(from, 1)
	query, args := rawLinesQuery(sessionID, from, to)
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, wrapErr("raw lines", err)
	}
	return s.scanRawLines(rows, sessionID, from, to)
}

// RawLinesAt returns, by ref, what RawLines returns for the ref's line
// alone (carryover.LinesReader): by one statement, prepared once.
func (s *Store) RawLinesAt(ctx context.Context, refs []carryover.LineRef) ([][]carryover.RawLine, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	query, _ := rawLinesQuery("", 1, 1)
	stmt, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, wrapErr("raw lines", err)
	}
	defer stmt.Close()
	return carryover.ByLine(refs, func(r carryover.LineRef) ([]carryover.RawLine, error) {
		line := max(r.Line, 1)
		_, args := rawLinesQuery(r.SessionID, line, line)
		rows, err := stmt.QueryContext(ctx, args...)
		if err != nil {
			return nil, wrapErr("raw lines", err)
		}
		return s.scanRawLines(rows, r.SessionID, line, line)
	})
}

// rawLinesQuery is RawLines' query and its parameters.
func rawLinesQuery(sessionID string, from, to int) (string, []any) {
	query := `SELECT id, first_line, last_line, first_offset, end_offset, text_bytes, data
		FROM raw_blocks WHERE session_id = ? AND last_line >= ?`
	args := []any{sessionID, from}
	if to > 0 {
		query += ` AND first_line <= ?`
		args = append(args, to)
	}
	return query + ` ORDER BY first_line`, args
}

// scanRawLines decodes the blocks rawLinesQuery read and returns their
// lines from from to to, closing rows.
func (s *Store) scanRawLines(rows *sql.Rows, sessionID string, from, to int) ([]carryover.RawLine, error) {
	defer rows.Close()
	c := s.codecs.Get()
	defer s.codecs.Put(c)
	var out []carryover.RawLine
	for rows.Next() {
		var b rawblock.Block
		if err := rows.Scan(&b.ID, &b.FirstLine, &b.LastLine, &b.FirstOffset, &b.EndOffset, &b.TextBytes, &b.Data); err != nil {
			return nil, wrapErr("raw lines", err)
		}
		lines, err := c.Decode(b)
		if err != nil {
			return nil, wrapErr("raw lines of session "+sessionID, err)
		}
		out = append(out, rawblock.Select(lines, from, to)...)
	}
	return out, wrapErr("raw lines", rows.Err())
}

// RawRange returns the first and last raw line numbers stored for the
// session (0, 0 when none).
func (s *Store) RawRange(ctx context.Context, sessionID string) (first, last int, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT coalesce(min(first_line), 0), coalesce(max(last_line), 0)
		FROM raw_blocks WHERE session_id = ?`, sessionID).Scan(&first, &last)
	return first, last, wrapErr("raw range", err)
}
