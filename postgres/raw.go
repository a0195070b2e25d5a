package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/rawblock"
)

// rawWrite is a batch's raw lines compressed into blocks, and the stored
// tail block the plan was made on.
type rawWrite struct {
	plan rawblock.Plan
	tail *rawblock.Block
	from int
	// passages of the batch's raw lines, tokenized meanwhile.
	passages []indexedPassage
}

// prepareRaw compresses the batch's raw lines before the transaction, in
// a goroutine when the batch has chunks to embed meanwhile, and returns a
// function that waits for the result.
func (s *Store) prepareRaw(ctx context.Context, b carryover.Batch) func() (*rawWrite, error) {
	if len(b.Raw) == 0 {
		return func() (*rawWrite, error) { return nil, nil }
	}
	return rawblock.Background(len(b.Chunks) > 0, func() (*rawWrite, error) {
		w, err := s.planRaw(ctx, s.pool, b)
		if err == nil && !b.DeferPassages {
			w.passages = indexPassages(b.Raw)
		}
		return w, err
	})
}

// planRaw reads the owner's tail block of the session and plans the
// batch's raw lines after it (see rawblock.Prepare).
func (s *Store) planRaw(ctx context.Context, q querier, b carryover.Batch) (*rawWrite, error) {
	from := rawblock.TailFrom(b.Raw, b.RawReplace)
	tail, err := s.rawTail(ctx, q, b.Session.ID, from, true)
	if err != nil {
		return nil, err
	}
	c := s.codecs.Get()
	defer s.codecs.Put(c)
	plan, err := c.Prepare(b.Raw, b.RawReplace, tail)
	if err != nil {
		return nil, wrap("apply: raw lines", err)
	}
	return &rawWrite{plan: plan, tail: tail, from: from}, nil
}

// rawTail reads the owner's last block of the session starting before
// line from (the last block for 0), with its data when withData is set;
// nil when there is none.
func (s *Store) rawTail(ctx context.Context, q querier, sessionID string, from int, withData bool) (*rawblock.Block, error) {
	query, args := s.rawTailQuery(sessionID, from, withData)
	return scanRawTail(q.QueryRow(ctx, query, args...))
}

// scanRawTail reads rawTailQuery's row: nil when there is none.
func scanRawTail(r pgx.Row) (*rawblock.Block, error) {
	var b rawblock.Block
	err := r.Scan(&b.ID, &b.FirstLine, &b.LastLine, &b.FirstOffset, &b.EndOffset, &b.TextBytes, &b.Data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, wrap("raw lines: tail", err)
	}
	return &b, nil
}

// rawTailQuery is rawTail's query and its parameters.
func (s *Store) rawTailQuery(sessionID string, from int, withData bool) (string, []any) {
	data := "NULL::bytea"
	if withData {
		data = "data"
	}
	query := `SELECT id, first_line, last_line, first_offset, end_offset, text_bytes, ` + data + `
		FROM raw_blocks WHERE session_id = $1 AND owner = $2`
	args := []any{sessionID, s.owner}
	if from > 0 {
		query += ` AND first_line < $3`
		args = append(args, from)
	}
	return query + ` ORDER BY first_line DESC LIMIT 1`, args
}

// queueRaw queues the planned blocks in the batch's last steps. The tail
// block they go after was read in its first batch (pre), after the
// session's row, which it locks: no other Apply of the session changes
// its blocks until commit. When one did before, since the plan was made,
// it plans again on what the transaction sees.
func (s *Store) queueRaw(ctx context.Context, tx pgx.Tx, st *steps, sess session, b carryover.Batch, w *rawWrite, pre applied) error {
	if w == nil {
		return nil
	}
	if !rawblock.Same(pre.rawTail, w.tail) {
		ps := w.passages
		var err error
		if w, err = s.planRaw(ctx, tx, b); err != nil {
			return err
		}
		w.passages = ps
	}
	p := w.plan
	batch := &st.batch
	if p.DeleteFrom > 0 {
		batch.Queue(`DELETE FROM raw_blocks WHERE session_id = $1 AND owner = $2 AND first_line >= $3`, sess.id, s.owner, p.DeleteFrom)
	}
	if p.DeleteID > 0 {
		batch.Queue(`DELETE FROM raw_blocks WHERE id = $1 AND owner = $2`, p.DeleteID, s.owner)
	}
	for _, bl := range p.Blocks {
		batch.Queue(`INSERT INTO raw_blocks (owner, team, session_id, first_line, last_line, first_offset, end_offset, text_bytes, data)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			s.owner, sess.team, sess.id, bl.FirstLine, bl.LastLine, bl.FirstOffset, bl.EndOffset, bl.TextBytes, bl.Data)
	}
	st.end("apply: raw lines")
	s.queuePassages(batch, sess, b, w.passages, pre.passageMark)
	st.end("apply: passages")
	return nil
}

// rawOwner picks the session's owner as Session does: the store's owner
// when it has a session of that id, else a team's.
const rawOwner = `(SELECT owner FROM sessions WHERE id = $1 ORDER BY owner = $2 DESC, owner LIMIT 1)`

// RawLines returns the session's raw lines numbered from to to (to <= 0:
// to the last), in order; lines never stored are absent.
func (s *Store) RawLines(ctx context.Context, sessionID string, from, to int) ([]carryover.RawLine, error) {
	from = max(from, 1)
	query, args := s.rawLinesQuery(sessionID, from, to)
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, wrap("raw lines", err)
	}
	return s.scanRawLines(rows, sessionID, from, to)
}

// RawLinesAt returns, by ref, what RawLines returns for the ref's line
// alone, in one round trip (carryover.LinesReader).
func (s *Store) RawLinesAt(ctx context.Context, refs []carryover.LineRef) ([][]carryover.RawLine, error) {
	return byLine(ctx, s, refs, "raw lines", func(r carryover.LineRef) (string, []any) {
		return s.rawLinesQuery(r.SessionID, max(r.Line, 1), max(r.Line, 1))
	}, func(rows pgx.Rows, r carryover.LineRef) ([]carryover.RawLine, error) {
		return s.scanRawLines(rows, r.SessionID, max(r.Line, 1), max(r.Line, 1))
	})
}

// byLine runs query's statement for each ref in one batch and returns
// what scan makes of each one's rows, in the refs' order.
func byLine[T any](ctx context.Context, s *Store, refs []carryover.LineRef, op string,
	query func(carryover.LineRef) (string, []any), scan func(pgx.Rows, carryover.LineRef) (T, error)) ([]T, error) {
	out := make([]T, len(refs))
	if len(refs) == 0 {
		return out, nil
	}
	batch := &pgx.Batch{}
	for i, r := range refs {
		q, args := query(r)
		batch.Queue(q, args...).Query(func(rows pgx.Rows) error {
			var err error
			out[i], err = scan(rows, r)
			return err
		})
	}
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return nil, wrap(op, err)
	}
	return out, nil
}

// rawLinesQuery is RawLines' query and its parameters.
func (s *Store) rawLinesQuery(sessionID string, from, to int) (string, []any) {
	query := `SELECT id, first_line, last_line, first_offset, end_offset, text_bytes, data
		FROM raw_blocks WHERE session_id = $1 AND owner = ` + rawOwner + ` AND last_line >= $3`
	args := []any{sessionID, s.owner, from}
	if to > 0 {
		query += ` AND first_line <= $4`
		args = append(args, to)
	}
	return query + ` ORDER BY first_line`, args
}

// scanRawLines decodes the blocks rawLinesQuery read and returns their
// lines from from to to, closing rows.
func (s *Store) scanRawLines(rows pgx.Rows, sessionID string, from, to int) ([]carryover.RawLine, error) {
	defer rows.Close()
	c := s.codecs.Get()
	defer s.codecs.Put(c)
	var out []carryover.RawLine
	for rows.Next() {
		var b rawblock.Block
		if err := rows.Scan(&b.ID, &b.FirstLine, &b.LastLine, &b.FirstOffset, &b.EndOffset, &b.TextBytes, &b.Data); err != nil {
			return nil, wrap("raw lines", err)
		}
		lines, err := c.Decode(b)
		if err != nil {
			return nil, wrap("raw lines of session "+sessionID, err)
		}
		out = append(out, rawblock.Select(lines, from, to)...)
	}
	return out, wrap("raw lines", rows.Err())
}

// RawRange returns the first and last raw line numbers stored for the
// session (0, 0 when none).
func (s *Store) RawRange(ctx context.Context, sessionID string) (first, last int, err error) {
	err = s.pool.QueryRow(ctx, `SELECT coalesce(min(first_line), 0), coalesce(max(last_line), 0)
		FROM raw_blocks WHERE session_id = $1 AND owner = `+rawOwner, sessionID, s.owner).Scan(&first, &last)
	return first, last, wrap("raw range", err)
}
