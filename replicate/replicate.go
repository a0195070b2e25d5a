// Package replicate copies an archive from one carryover.Store to another:
// sessions with their chunks, items, compactions and ingest state, then
// notes, the injection audit log, hook runs and redaction counts.
//
// A copy is idempotent and resumable. Every write goes through the
// destination's own merge rules (Store.Apply): chunks are deduplicated by
// hash, items merge on (session, kind, key), compactions on (session,
// window), so running a copy twice writes nothing new, and a copy stopped
// half-way (a cancelled context, a lost connection, a killed process) is
// completed by running it again. A session's ingest state is written last:
// until then the destination keeps the state it had, so an interrupted copy
// never makes an ingest skip lines whose chunks did not arrive.
//
// Records without a natural key are deduplicated by content:
//   - a note is skipped when the destination has a note of the same session,
//     project, kind, text and time (to the millisecond); a "state" note is
//     also skipped when the destination's state note of that scope is as
//     recent or newer, since adding it would replace a newer state;
//   - an injection is skipped when the destination has one of the same
//     session, event, window, hash and time (to the millisecond); its chunk
//     and item ids are translated to the destination's ids through the
//     chunks' hashes and the items' (kind, key);
//   - a hook run is skipped when one of the same session, project, event,
//     outcome, time (to the millisecond) and latency (to the microsecond)
//     exists.
//
// A session the destination records as forgotten (see
// carryover.PruneFilter.Forget) is skipped with its notes, injections and
// hook runs, and counted in Report.Forgotten: a copy never brings back
// what was forgotten there.
//
// Redaction counts are per-project running totals without history, so the
// copy only raises the destination's count of a kind to the source's.
//
// Raw lines are only ever appended to a session's archive (or replaced
// from the first line by an ingest that found the transcript rewritten),
// so the copy adds the source's lines after the destination's last one,
// and leaves the destination's own alone.
package replicate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/carryover-dev/carryover"
)

// DefaultBatch is how many chunks one transaction writes.
const DefaultBatch = 200

// Options configures Copy.
type Options struct {
	// Sessions limits the copy to these sessions with their notes,
	// injections and hook runs. Nil copies the whole archive, project
	// notes and redaction counts included.
	Sessions []string
	// Batch is the number of chunks per transaction (default DefaultBatch).
	Batch int
	// Progress, when set, is called after every write and once per session.
	Progress func(Progress)
}

// Progress says how far a copy is.
type Progress struct {
	Session       string // the session being copied ("" in the audit phase)
	SessionsDone  int
	SessionsTotal int
	Chunks        int // chunks stored so far (counted as each session is done)
}

// Report counts what a copy wrote (rows already present are not counted).
type Report struct {
	Sessions    int // sessions visited
	Chunks      int // stored: not one sent that the destination holds already (a chunk sessions share)
	Items       int // items sent (merged into existing ones when present)
	Compactions int
	Notes       int
	Injections  int
	HookRuns    int
	RawLines    int
	// Unmapped counts chunk and item ids of injections that have no
	// counterpart in the destination; they are left out of the copy.
	Unmapped int
	// Forgotten counts the sessions skipped because the destination
	// records them as forgotten.
	Forgotten int
}

// Summary says what a copy copied, on one line.
func (r Report) Summary() string {
	s := fmt.Sprintf("%s: %s, %s, %s, %s, %s, %s", plural(r.Sessions, "session"), plural(r.Chunks, "new chunk"),
		plural(r.Items, "item"), plural(r.Compactions, "compaction"), plural(r.Notes, "note"), plural(r.Injections, "injection"),
		plural(r.HookRuns, "hook run"))
	if r.Forgotten > 0 {
		s += fmt.Sprintf(" (%s forgotten there skipped)", plural(r.Forgotten, "session"))
	}
	if r.Unmapped > 0 {
		s += fmt.Sprintf(" (%s without a counterpart left out)", plural(r.Unmapped, "audit reference"))
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Add returns the sum of two reports.
func (r Report) Add(o Report) Report {
	return Report{Sessions: r.Sessions + o.Sessions, Chunks: r.Chunks + o.Chunks, Items: r.Items + o.Items,
		Compactions: r.Compactions + o.Compactions, Notes: r.Notes + o.Notes, Injections: r.Injections + o.Injections,
		HookRuns: r.HookRuns + o.HookRuns, RawLines: r.RawLines + o.RawLines, Unmapped: r.Unmapped + o.Unmapped,
		Forgotten: r.Forgotten + o.Forgotten}
}

// Copy copies src into dst (see the package documentation for the rules).
// It stops at the first error with what was written kept; calling it again
// continues.
func Copy(ctx context.Context, dst, src carryover.Store, opt Options) (Report, error) {
	c := &copier{dst: dst, src: src, opt: opt, batch: opt.Batch, gone: map[string]bool{}}
	if c.batch <= 0 {
		c.batch = DefaultBatch
	}
	err := c.run(ctx)
	return c.rep, err
}

type copier struct {
	dst, src carryover.Store
	opt      Options
	batch    int
	rep      Report
	done     int
	total    int
	ids      *idMap
	// gone caches whether the destination forgot a session.
	gone map[string]bool
}

func (c *copier) progress(session string) {
	if c.opt.Progress != nil {
		c.opt.Progress(Progress{Session: session, SessionsDone: c.done, SessionsTotal: c.total, Chunks: c.rep.Chunks})
	}
}

func (c *copier) run(ctx context.Context) error {
	sessions, err := c.sessions(ctx)
	if err != nil {
		return err
	}
	c.total = len(sessions)
	c.rep.Sessions = len(sessions)
	c.progress("")
	// Items that point at a chunk stored under another session (a duplicate
	// the source recognised by hash) are written once every session's
	// chunks are in, so that the chunk is found by hash rather than stored
	// again under the wrong session.
	type pending struct {
		sess  carryover.Session
		items []carryover.Item
		state carryover.IngestState
	}
	var later []pending
	before := map[string]int{}
	for _, s := range sessions {
		if before[s.ID], err = c.stored(ctx, s.ID); err != nil {
			return err
		}
		foreign, state, err := c.copySession(ctx, s)
		if errors.Is(err, carryover.ErrForgotten) {
			c.skipForgotten(s.ID)
			continue
		}
		if err != nil {
			return fmt.Errorf("copy session %s: %w", s.ID, err)
		}
		if len(foreign) > 0 {
			later = append(later, pending{s, foreign, state})
			continue
		}
		if err := c.countStored(ctx, s.ID, before[s.ID]); err != nil {
			return err
		}
		c.done++
		c.progress(s.ID)
	}
	for _, p := range later {
		err := c.copyForeign(ctx, p.sess, p.items, p.state)
		if errors.Is(err, carryover.ErrForgotten) {
			c.skipForgotten(p.sess.ID)
			continue
		}
		if err != nil {
			return fmt.Errorf("copy session %s: %w", p.sess.ID, err)
		}
		if err := c.countStored(ctx, p.sess.ID, before[p.sess.ID]); err != nil {
			return err
		}
		c.done++
		c.progress(p.sess.ID)
	}
	if c.opt.Sessions == nil {
		if err := c.copyRedactions(ctx, sessions); err != nil {
			return err
		}
	}
	c.ids = newIDMap(c.src, c.dst)
	if err := c.copyNotes(ctx); err != nil {
		return err
	}
	if err := c.copyInjections(ctx); err != nil {
		return err
	}
	return c.copyHookRuns(ctx)
}

// stored returns how many chunks the destination stores under its own
// session of that id (not those the session shares).
func (c *copier) stored(ctx context.Context, sessionID string) (int, error) {
	s, err := c.dst.Session(ctx, sessionID)
	if err == nil {
		// A session without ingest state is another owner's (see copySession).
		_, err = c.dst.IngestState(ctx, sessionID)
	}
	if errors.Is(err, carryover.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("destination session %s: %w", sessionID, err)
	}
	return s.Chunks - s.Shared, nil
}

// countStored counts the chunks the copy of a session stored, given how
// many the destination stored before.
func (c *copier) countStored(ctx context.Context, sessionID string, before int) error {
	n, err := c.stored(ctx, sessionID)
	c.rep.Chunks += max(n-before, 0)
	return err
}

// forgotten reports whether the destination forgot the session.
func (c *copier) forgotten(ctx context.Context, sessionID string) (bool, error) {
	if sessionID == "" {
		return false, nil
	}
	gone, ok := c.gone[sessionID]
	if !ok {
		var err error
		if gone, err = c.dst.Forgotten(ctx, sessionID); err != nil {
			return false, fmt.Errorf("destination forgotten %s: %w", sessionID, err)
		}
		c.gone[sessionID] = gone
	}
	return gone, nil
}

// skipForgotten counts a session the destination refused as forgotten
// (found before the copy, or by a forget that raced it).
func (c *copier) skipForgotten(sessionID string) {
	c.gone[sessionID] = true
	c.rep.Forgotten++
	c.done++
	c.progress(sessionID)
}

// sessions lists what to copy, oldest first.
func (c *copier) sessions(ctx context.Context) ([]carryover.Session, error) {
	if c.opt.Sessions == nil {
		all, err := c.src.Sessions(ctx, carryover.SessionFilter{})
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		return c.inSourceOrder(ctx, all)
	}
	var out []carryover.Session
	for _, id := range c.opt.Sessions {
		s, err := c.src.Session(ctx, id)
		if errors.Is(err, carryover.ErrNotFound) {
			continue // only notes or audit rows name it
		}
		if err != nil {
			return nil, fmt.Errorf("session %s: %w", id, err)
		}
		out = append(out, s)
	}
	return c.inSourceOrder(ctx, out)
}

// inSourceOrder sorts sessions by their first chunk's id in the source, so
// that the destination assigns ids in a similar order and orders ties (of
// search scores, of items at one line) the same way. Sessions without
// chunks go last.
func (c *copier) inSourceOrder(ctx context.Context, sessions []carryover.Session) ([]carryover.Session, error) {
	first := make(map[string]int64, len(sessions))
	for _, s := range sessions {
		l, err := c.src.Chunks(ctx, carryover.ChunkFilter{SessionID: s.ID, Turn: -1, Limit: 1})
		if err != nil {
			return nil, fmt.Errorf("first chunk of %s: %w", s.ID, err)
		}
		first[s.ID] = math.MaxInt64
		if len(l) > 0 {
			first[s.ID] = l[0].ID
		}
	}
	slices.SortStableFunc(sessions, func(a, b carryover.Session) int {
		return cmp.Or(cmp.Compare(first[a.ID], first[b.ID]), a.Started.Compare(b.Started), cmp.Compare(a.ID, b.ID))
	})
	return sessions, nil
}

// copySession writes a session's row, compactions, chunks and the items of
// its own chunks. It returns the items whose chunk belongs to another
// session, and the ingest state to write once they are in; when there are
// none it has written the state already.
func (c *copier) copySession(ctx context.Context, s carryover.Session) ([]carryover.Item, carryover.IngestState, error) {
	if gone, err := c.forgotten(ctx, s.ID); err != nil {
		return nil, carryover.IngestState{}, err
	} else if gone {
		return nil, carryover.IngestState{}, carryover.ErrForgotten
	}
	srcState, err := c.src.IngestState(ctx, s.ID)
	if err != nil && !errors.Is(err, carryover.ErrNotFound) {
		return nil, srcState, fmt.Errorf("source ingest state: %w", err)
	}
	srcState.SessionID = s.ID
	dstState := carryover.IngestState{SessionID: s.ID}
	have := map[string]bool{}
	dstSess, err := c.dst.Session(ctx, s.ID)
	exists := err == nil
	if err != nil && !errors.Is(err, carryover.ErrNotFound) {
		return nil, srcState, fmt.Errorf("destination session: %w", err)
	}
	if exists {
		dstState, err = c.dst.IngestState(ctx, s.ID)
		if errors.Is(err, carryover.ErrNotFound) {
			// Another owner's session of that id (a teammate's, on a
			// shared server): the destination has none of its own.
			exists, dstState = false, carryover.IngestState{SessionID: s.ID}
		} else if err != nil {
			return nil, srcState, fmt.Errorf("destination ingest state: %w", err)
		}
	}
	if exists {
		if sameState(dstState, srcState) && dstSess.Chunks >= s.Chunks {
			// Copied completely before (the state is written last):
			// only the session row, and raw lines archived before the
			// destination kept them, may have news.
			if err := c.copyRaw(ctx, s, dstState, exists); err != nil {
				return nil, srcState, err
			}
			return nil, srcState, c.apply(ctx, carryover.Batch{Session: row(s), State: dstState})
		}
		if err := c.eachChunk(ctx, c.dst, s.ID, func(ch []carryover.Chunk) error {
			for _, x := range ch {
				have[x.Hash] = true
			}
			return nil
		}); err != nil {
			return nil, srcState, fmt.Errorf("destination chunks: %w", err)
		}
	}
	final := srcState
	if dstState.FileID == srcState.FileID && dstState.Offset > srcState.Offset {
		final = dstState // the destination has read further: never go back
	}

	comps, err := c.src.Compactions(ctx, s.ID)
	if err != nil {
		return nil, srcState, fmt.Errorf("source compactions: %w", err)
	}
	// Chunks first, in sequence order; the first batch also carries the
	// session row and the compactions.
	seqs := map[int]bool{}
	b := carryover.Batch{Session: row(s), Compactions: comps, State: dstState}
	err = c.eachChunk(ctx, c.src, s.ID, func(page []carryover.Chunk) error {
		for _, ch := range page {
			seqs[ch.Seq] = true
			if !have[ch.Hash] {
				ch.ID = 0
				b.Chunks = append(b.Chunks, ch)
			}
		}
		if len(b.Chunks) == 0 && len(b.Compactions) == 0 && exists {
			return nil
		}
		if err := c.apply(ctx, b); err != nil {
			return err
		}
		b = carryover.Batch{Session: row(s), State: dstState}
		return nil
	})
	if err != nil {
		return nil, srcState, err
	}
	if err := c.copyRaw(ctx, s, dstState, exists); err != nil {
		return nil, srcState, err
	}
	// Then items in the source's order, each finding its chunk by sequence
	// number. An item whose chunk the source stored under another session
	// waits (see Copy).
	items, err := c.src.Items(ctx, carryover.ItemFilter{SessionID: s.ID})
	if err != nil {
		return nil, srcState, fmt.Errorf("source items: %w", err)
	}
	slices.SortFunc(items, func(a, b carryover.Item) int { return cmp.Compare(a.ID, b.ID) })
	var foreign []carryover.Item
	for _, it := range items {
		if it.ChunkID != 0 && !seqs[it.ChunkSeq] {
			foreign = append(foreign, it)
			continue
		}
		b.Items = append(b.Items, it)
		if len(b.Items) >= 4*c.batch {
			if err := c.apply(ctx, b); err != nil {
				return nil, srcState, err
			}
			b = carryover.Batch{Session: row(s), State: dstState}
		}
	}
	if len(foreign) > 0 {
		if len(b.Items) > 0 || len(b.Compactions) > 0 || !exists {
			if err := c.apply(ctx, b); err != nil {
				return nil, srcState, err
			}
		}
		return foreign, final, nil
	}
	b.State = final
	return nil, final, c.apply(ctx, b)
}

// copyForeign writes items whose chunk the source stored under another
// session. The chunk goes with them under this session's sequence number:
// the destination finds it by hash and points the items at its row (it is
// stored under this session only when the destination lacks it).
func (c *copier) copyForeign(ctx context.Context, s carryover.Session, items []carryover.Item, state carryover.IngestState) error {
	var ids []int64
	for _, it := range items {
		if !slices.Contains(ids, it.ChunkID) {
			ids = append(ids, it.ChunkID)
		}
	}
	byID := map[int64]carryover.Chunk{}
	for part := range slices.Chunk(ids, 500) {
		chunks, err := c.src.Chunks(ctx, carryover.ChunkFilter{Turn: -1, IDs: part})
		if err != nil {
			return fmt.Errorf("source chunks: %w", err)
		}
		for _, ch := range chunks {
			byID[ch.ID] = ch
		}
	}
	b := carryover.Batch{Session: row(s), Items: items, State: state}
	seen := map[int]bool{}
	for _, it := range items {
		ch, ok := byID[it.ChunkID]
		if !ok || seen[it.ChunkSeq] || ch.Project != s.Project {
			continue
		}
		seen[it.ChunkSeq] = true
		ch.ID, ch.SessionID, ch.Seq = 0, s.ID, it.ChunkSeq
		b.Chunks = append(b.Chunks, ch)
	}
	return c.apply(ctx, b)
}

// apply writes one batch and counts it.
func (c *copier) apply(ctx context.Context, b carryover.Batch) error {
	if err := c.dst.Apply(ctx, b); err != nil {
		return err
	}
	c.rep.Items += len(b.Items)
	c.rep.Compactions += len(b.Compactions)
	if len(b.Chunks) > 0 || len(b.Items) > 0 {
		c.progress(b.Session.ID)
	}
	return nil
}

// rawPage is how many raw lines one read of the source returns, and
// rawBatchBytes bounds the text one transaction writes.
const (
	rawPage       = 1000
	rawBatchBytes = 1 << 20
)

// copyRaw adds the source's raw lines of the session after the last one
// the destination has (none when it has no session of its own: a
// teammate's of that id is not it). Apply itself leaves out lines the
// destination has, so a writer racing the copy loses nothing.
func (c *copier) copyRaw(ctx context.Context, s carryover.Session, state carryover.IngestState, exists bool) error {
	_, srcLast, err := c.src.RawRange(ctx, s.ID)
	if err != nil {
		return fmt.Errorf("source raw lines: %w", err)
	}
	dstLast := 0
	if exists {
		if _, dstLast, err = c.dst.RawRange(ctx, s.ID); err != nil {
			return fmt.Errorf("destination raw lines: %w", err)
		}
	}
	var batch []carryover.RawLine
	size := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := c.dst.Apply(ctx, carryover.Batch{Session: row(s), State: state, Raw: batch}); err != nil {
			return err
		}
		c.rep.RawLines += len(batch)
		batch, size = nil, 0
		return nil
	}
	for from := dstLast + 1; from <= srcLast; from += rawPage {
		lines, err := c.src.RawLines(ctx, s.ID, from, min(from+rawPage-1, srcLast))
		if err != nil {
			return fmt.Errorf("source raw lines: %w", err)
		}
		for _, l := range lines {
			// A batch holds consecutive lines.
			if n := len(batch); n > 0 && batch[n-1].Line+1 != l.Line || size >= rawBatchBytes {
				if err := flush(); err != nil {
					return err
				}
			}
			batch = append(batch, l)
			size += len(l.Text) + 1
		}
	}
	return flush()
}

// eachChunk calls fn with the session's chunks in sequence order, a page at
// a time.
func (c *copier) eachChunk(ctx context.Context, st carryover.Store, sessionID string, fn func([]carryover.Chunk) error) error {
	from := 0
	for {
		page, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: sessionID, Turn: -1, FromSeq: from, Limit: c.batch})
		if err != nil {
			return err
		}
		if len(page) == 0 {
			return nil
		}
		if err := fn(page); err != nil {
			return err
		}
		if len(page) < c.batch {
			return nil
		}
		from = page[len(page)-1].Seq + 1
	}
}

// copyRedactions raises the destination's per-project counts to the
// source's.
func (c *copier) copyRedactions(ctx context.Context, sessions []carryover.Session) error {
	seen := map[string]bool{}
	for _, s := range sessions {
		if seen[s.Project] {
			continue
		}
		seen[s.Project] = true
		want, err := c.src.Redactions(ctx, s.Project)
		if err != nil {
			return fmt.Errorf("source redactions: %w", err)
		}
		if len(want) == 0 {
			continue
		}
		got, err := c.dst.Redactions(ctx, s.Project)
		if err != nil {
			return fmt.Errorf("destination redactions: %w", err)
		}
		add := map[string]int{}
		for kind, n := range want {
			if n > got[kind] {
				add[kind] = n - got[kind]
			}
		}
		if len(add) == 0 {
			continue
		}
		state, err := c.dst.IngestState(ctx, s.ID)
		if err != nil {
			return fmt.Errorf("destination ingest state: %w", err)
		}
		if err := c.dst.Apply(ctx, carryover.Batch{Session: row(s), State: state, Redactions: add}); err != nil {
			return fmt.Errorf("redactions: %w", err)
		}
	}
	return nil
}

// row is the session as a batch carries it.
func row(s carryover.Session) carryover.Session {
	s.Chunks = 0
	return s
}

func sameState(a, b carryover.IngestState) bool {
	return a.FileID == b.FileID && a.Offset == b.Offset && a.Line == b.Line && a.Path == b.Path
}
