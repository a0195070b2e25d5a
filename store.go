package carryover

import (
	"context"
	"errors"
	"fmt"
)

// Store is the archive. Implementations must be safe for concurrent use by
// several processes (Claude Code runs hooks in parallel) and must never lose
// rows already stored when a write fails.
type Store interface {
	// Apply writes a batch in one transaction. A batch of a forgotten
	// session, or of a subagent of one (Session.Parent), stores nothing
	// and returns ErrForgotten (checked inside the transaction, so a write
	// racing the forget cannot bring it back).
	// Chunks whose Hash already exists in the project are not stored
	// twice: when the stored one is another session's (a session resumed
	// in a new transcript repeats the old one's lines), the batch's
	// session shares it, at the batch's seq, turn, window and lines. An
	// item whose (session, kind, key) exists is merged into it (a
	// later line, a fix that resolved it, the latest todo list); the session
	// row is upserted and the ingest state replaced.
	Apply(ctx context.Context, b Batch) error
	// IngestState returns the session's ingest state, or ErrNotFound.
	IngestState(ctx context.Context, sessionID string) (IngestState, error)

	// Session returns one session, or ErrNotFound.
	Session(ctx context.Context, id string) (Session, error)
	// Sessions lists sessions, most recently updated first, each with its
	// number of chunks and of subagents.
	Sessions(ctx context.Context, f SessionFilter) ([]Session, error)
	// Chunks lists chunks in sequence order. With f.SessionID, the
	// session's include those it shares, with its id and places (the
	// filters apply to those); without, each chunk comes once, as the
	// session that stored it holds it.
	Chunks(ctx context.Context, f ChunkFilter) ([]Chunk, error)
	// Items lists items, newest line first.
	Items(ctx context.Context, f ItemFilter) ([]Item, error)
	// Compactions lists a session's compactions in order.
	Compactions(ctx context.Context, sessionID string) ([]Compaction, error)
	// RawLines returns the session's raw lines numbered from to to
	// (inclusive; to <= 0 reads to the last), in order. Lines the archive
	// never received (a session archived before it kept raw lines, a line
	// range past the end) are absent: the result may be shorter or have
	// gaps, and is empty, without error, for an unknown session.
	RawLines(ctx context.Context, sessionID string, from, to int) ([]RawLine, error)
	// RawRange returns the numbers of the first and last raw lines stored
	// for the session (0, 0 when there are none).
	RawRange(ctx context.Context, sessionID string) (first, last int, err error)

	// Search ranks chunks by full-text relevance. Any text is a valid query:
	// it never fails on syntax. Scores are higher-is-better. A chunk is
	// one hit; a search within a session includes the chunks it shares,
	// placed as it holds them.
	Search(ctx context.Context, q Query) ([]Hit, error)

	// RecordInjection appends to the audit log.
	RecordInjection(ctx context.Context, in Injection) (int64, error)
	// Injections lists audit records of a session (all when ""), newest first.
	Injections(ctx context.Context, sessionID string, limit int) ([]Injection, error)

	// AddNote stores a note; a note of kind "state" replaces the session's
	// previous state note.
	AddNote(ctx context.Context, n Note) (int64, error)
	// Notes lists notes of a session (or of a project when sessionID is ""),
	// oldest first.
	Notes(ctx context.Context, project, sessionID string) ([]Note, error)

	// RecordHookRun appends a hook invocation for stats.
	RecordHookRun(ctx context.Context, r HookRun) error
	// HookRuns lists hook invocations, newest first.
	HookRuns(ctx context.Context, f HookRunFilter) ([]HookRun, error)
	// Redactions returns the running count of masked secrets by kind, for
	// a project ("" for all).
	Redactions(ctx context.Context, project string) (map[string]int, error)

	// Prune removes the sessions f selects, with their subagents, and
	// everything that belongs to them: chunks (with their full-text and
	// vector rows), items, compactions, raw lines, injections and notes.
	// A chunk that a session not removed shares is handed over to it
	// instead (PruneReport.Shared). With f.DryRun it only reports; with
	// f.Forget it also records the
	// session as forgotten (its subagents, archived or not, are refused
	// with it).
	Prune(ctx context.Context, f PruneFilter) (PruneReport, error)
	// Forgotten reports whether a session is recorded as forgotten.
	Forgotten(ctx context.Context, sessionID string) (bool, error)
	// Unforget removes a session's forgotten record, so that it can be
	// archived again; ErrNotFound when there is none.
	Unforget(ctx context.Context, sessionID string) error
	// Size is the store's size in bytes (as stored, indexes included).
	Size(ctx context.Context) (int64, error)

	Close() error
}

// Backfiller is a store that can catch up chunks an older carryover
// archived: their vectors and, in a store that keeps them, other rows
// derived from them (an optional capability: `carryover ingest` uses it to
// catch up at once rather than a batch per hook).
type Backfiller interface {
	// Backfill catches up a batch of such chunks, sized by limit (limit
	// chunks to embed), and returns how many it went through (0 when none
	// is left).
	Backfill(ctx context.Context, limit int) (int, error)
}

// Footprinter is a store that tells how many bytes each session's rows
// take (an optional capability: prune --max-size estimates with it what
// removing sessions frees, which for a chunk several sessions hold is
// nothing until the last of them goes).
type Footprinter interface {
	// Footprints returns the bytes of the rows the store holds for
	// sessions: a session's own (its items, compactions, raw lines,
	// injections, notes, and the chunks no other session shares, with
	// their vectors) under its id alone, and the chunks several sessions
	// hold under all their ids. A session may have no footprint, or
	// several. Bytes are those of the stored values (text, vectors), not
	// of indexes or free space.
	Footprints(ctx context.Context) ([]Footprint, error)
}

// Footprint is the bytes of rows that removing Sessions, all of them,
// frees.
type Footprint struct {
	Sessions []string // sorted, distinct
	Bytes    int64
}

// ItemGroup is a group of item kinds and how many of its newest items to
// read.
type ItemGroup struct {
	Kinds []ItemKind
	Limit int // 0: no limit
	// LastWindow keeps only the items of the filter's last window,
	// BeforeWindow-1, when BeforeWindow > 0: what the conversation shows
	// until its next compaction.
	LastWindow bool
}

// filter is f narrowed to the group.
func (g ItemGroup) filter(f ItemFilter) ItemFilter {
	f.Kinds, f.Limit = g.Kinds, g.Limit
	if g.LastWindow && f.BeforeWindow > 1 {
		f.FromWindow = max(f.FromWindow, f.BeforeWindow-1)
	}
	return f
}

// ItemGrouper is a store that reads the newest items of several groups of
// kinds in one query (an optional capability: the restore reads ten
// groups, and one query costs a store about what each of ten does).
type ItemGrouper interface {
	// ItemGroups returns for each group what Items returns for f with the
	// group's Kinds, Limit and LastWindow, in the same order. f's own
	// Kinds and Limit are ignored; a kind may be in one group only.
	ItemGroups(ctx context.Context, f ItemFilter, groups []ItemGroup) ([][]Item, error)
}

// ReadItemGroups reads the groups from st: in one query when st is an
// ItemGrouper, else with Items, a query per group.
func ReadItemGroups(ctx context.Context, st Store, f ItemFilter, groups []ItemGroup) ([][]Item, error) {
	if g, ok := st.(ItemGrouper); ok {
		return g.ItemGroups(ctx, f, groups)
	}
	out := make([][]Item, len(groups))
	for i, gr := range groups {
		got, err := st.Items(ctx, gr.filter(f))
		if err != nil {
			return nil, err
		}
		out[i] = got
	}
	return out, nil
}

// RestoreReads names what a restore reads of a session besides its
// summary: the item groups of Items (ReadItemGroups), the notes of
// SessionID and, when Project is set, of Project (Notes), and the chunks of
// Recent (Chunks).
type RestoreReads struct {
	Items     ItemFilter
	Groups    []ItemGroup
	SessionID string
	Project   string
	Recent    ChunkFilter
}

// RestoreRead is what RestoreReads names, read.
type RestoreRead struct {
	Groups       [][]Item
	SessionNotes []Note
	ProjectNotes []Note // none when RestoreReads.Project is ""
	Recent       []Chunk
}

// RestoreReader is a store that reads what a restore reads in one round
// trip (an optional capability: the four reads do not depend on each
// other, and a server's store waits on each).
type RestoreReader interface {
	ReadRestore(ctx context.Context, r RestoreReads) (RestoreRead, error)
}

// ReadForRestore reads what r names: at once when st is a RestoreReader,
// else one read after the other.
func ReadForRestore(ctx context.Context, st Store, r RestoreReads) (RestoreRead, error) {
	if rr, ok := st.(RestoreReader); ok {
		return rr.ReadRestore(ctx, r)
	}
	var out RestoreRead
	var err error
	if out.Groups, err = ReadItemGroups(ctx, st, r.Items, r.Groups); err != nil {
		return out, fmt.Errorf("items: %w", err)
	}
	if out.SessionNotes, err = st.Notes(ctx, "", r.SessionID); err != nil {
		return out, fmt.Errorf("notes: %w", err)
	}
	if r.Project != "" {
		if out.ProjectNotes, err = st.Notes(ctx, r.Project, ""); err != nil {
			return out, fmt.Errorf("notes: %w", err)
		}
	}
	if out.Recent, err = st.Chunks(ctx, r.Recent); err != nil {
		return out, fmt.Errorf("chunks: %w", err)
	}
	return out, nil
}

// InjectionsBrief is a store that lists audit records without their text
// (an optional capability: the hooks read which rows a window was shown,
// and the texts are most of the records).
type InjectionsBrief interface {
	// InjectionsWithoutText is Injections with Text and Reason left empty.
	InjectionsWithoutText(ctx context.Context, sessionID string, limit int) ([]Injection, error)
}

// ReadInjectionsWithoutText lists audit records as Injections does, but
// for their Text and Reason, which are empty when st is an
// InjectionsBrief.
func ReadInjectionsWithoutText(ctx context.Context, st Store, sessionID string, limit int) ([]Injection, error) {
	if b, ok := st.(InjectionsBrief); ok {
		return b.InjectionsWithoutText(ctx, sessionID, limit)
	}
	return st.Injections(ctx, sessionID, limit)
}

// LineRef names one transcript line of a session.
type LineRef struct {
	SessionID string
	Line      int
}

// LinesReader is a store that reads several transcript lines back, or the
// chunks that hold them, at once (an optional capability: a search reads
// back the lines of the passages it found, and a server's store waits on
// each read).
type LinesReader interface {
	// RawLinesAt returns, by ref, what RawLines returns for the ref's
	// line alone.
	RawLinesAt(ctx context.Context, refs []LineRef) ([][]RawLine, error)
	// ChunksAt returns, by ref, what Chunks returns for the chunks
	// overlapping the ref's line, the first only (ChunkAt).
	ChunksAt(ctx context.Context, refs []LineRef) ([][]Chunk, error)
}

// ChunkAt is the filter of the first chunk that holds a transcript line.
func ChunkAt(r LineRef) ChunkFilter {
	return ChunkFilter{SessionID: r.SessionID, Turn: -1, FromLine: r.Line, ToLine: r.Line, Limit: 1}
}

// ReadRawLinesAt returns, by ref, what RawLines returns for the ref's line
// alone: at once when st is a LinesReader.
func ReadRawLinesAt(ctx context.Context, st Store, refs []LineRef) ([][]RawLine, error) {
	if r, ok := st.(LinesReader); ok {
		return r.RawLinesAt(ctx, refs)
	}
	return ByLine(refs, func(r LineRef) ([]RawLine, error) { return st.RawLines(ctx, r.SessionID, r.Line, r.Line) })
}

// ReadChunksAt returns, by ref, the first chunk that holds the ref's line
// (ChunkAt), in a slice of one or none: at once when st is a LinesReader.
func ReadChunksAt(ctx context.Context, st Store, refs []LineRef) ([][]Chunk, error) {
	if r, ok := st.(LinesReader); ok {
		return r.ChunksAt(ctx, refs)
	}
	return ByLine(refs, func(r LineRef) ([]Chunk, error) { return st.Chunks(ctx, ChunkAt(r)) })
}

// ByLine returns what read returns for each ref, in the refs' order, or
// its first error.
func ByLine[T any](refs []LineRef, read func(LineRef) (T, error)) ([]T, error) {
	out := make([]T, len(refs))
	for i, r := range refs {
		var err error
		if out[i], err = read(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// IngestStateSession is a store that reads a session's ingest state and
// the session without its counts in one round trip (an optional
// capability: every archive reads both, and a server's store waits on
// each).
type IngestStateSession interface {
	// IngestStateAndSession returns what ReadIngestStateAndSession does.
	IngestStateAndSession(ctx context.Context, sessionID string) (IngestState, Session, bool, error)
}

// ReadIngestStateAndSession returns the session's ingest state, with
// IngestState's error (wrapping ErrNotFound when there is none), and, when
// there is one, the session as SessionWithoutCounts reads it and whether it
// could: at once when st is an IngestStateSession.
func ReadIngestStateAndSession(ctx context.Context, st Store, sessionID string) (IngestState, Session, bool, error) {
	if r, ok := st.(IngestStateSession); ok {
		return r.IngestStateAndSession(ctx, sessionID)
	}
	state, err := st.IngestState(ctx, sessionID)
	if err != nil {
		return state, Session{}, false, err
	}
	sess, err := SessionWithoutCounts(ctx, st, sessionID)
	return state, sess, err == nil, nil
}

// SessionAndInjections is a store that reads a session without its counts
// and its latest audit records without their texts in one round trip (an
// optional capability: prompt recall reads both, and a server's store
// waits on each).
type SessionAndInjections interface {
	// SessionAndInjections returns what SessionWithoutCounts and
	// ReadInjectionsWithoutText return (see ReadSessionAndInjections).
	SessionAndInjections(ctx context.Context, sessionID string, limit int) (Session, []Injection, error)
}

// ReadSessionAndInjections returns the session as SessionWithoutCounts
// does and its latest limit audit records as ReadInjectionsWithoutText
// does: at once when st is a SessionAndInjections. An unknown session's
// error wraps ErrNotFound, and its records are returned all the same.
func ReadSessionAndInjections(ctx context.Context, st Store, sessionID string, limit int) (Session, []Injection, error) {
	if r, ok := st.(SessionAndInjections); ok {
		return r.SessionAndInjections(ctx, sessionID, limit)
	}
	sess, err := SessionWithoutCounts(ctx, st, sessionID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return sess, nil, err
	}
	prev, perr := ReadInjectionsWithoutText(ctx, st, sessionID, limit)
	if perr != nil {
		return sess, nil, perr
	}
	return sess, prev, err
}

// SessionWithoutCounts returns the session as Store.Session does, but for
// its Chunks, Shared and Subagents, which are zero: counting a session's
// chunks reads each one's index entry (some 0.3 ms of a prompt's recall
// for a session of 2,000 chunks), and the hooks use none of them. An
// unknown session is an error wrapping ErrNotFound.
func SessionWithoutCounts(ctx context.Context, st Store, id string) (Session, error) {
	if id == "" {
		return Session{}, fmt.Errorf("session: empty id: %w", ErrNotFound)
	}
	ss, err := st.Sessions(ctx, SessionWithoutCountsFilter(id))
	if err != nil {
		return Session{}, err
	}
	return PickSession(ss, id)
}

// SessionWithoutCountsFilter is the filter SessionWithoutCounts lists the
// session by.
func SessionWithoutCountsFilter(id string) SessionFilter {
	return SessionFilter{IDPrefix: id, NoCounts: true}
}

// PickSession returns the session of ss with the id, or an error wrapping
// ErrNotFound.
func PickSession(ss []Session, id string) (Session, error) {
	for _, s := range ss {
		if s.ID == id {
			return s, nil
		}
	}
	return Session{}, fmt.Errorf("session %q: %w", id, ErrNotFound)
}
