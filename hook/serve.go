package hook

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/spool"
	"github.com/carryover-dev/carryover/storeopen"
)

// ReadCachePages is the page cache of a hook or command that mostly reads:
// at 100k chunks a recall reads some 500 pages, and a cache of 64 instead
// of 500 reads about 30 of them again but spares some 800 page faults
// (8-11 ms).
const ReadCachePages = 64

// ReadMmapBytes is how much of the store a hook that mostly reads maps
// rather than copies into its page cache (see sqlite.Options.MmapBytes):
// a restore then takes some 100 page faults fewer. Its worker turns a
// fault on the map (an I/O error) into a panic it recovers from.
const ReadMmapBytes = 256 << 20

const (
	// defaultConnectTimeout bounds a hook's connection to the server.
	defaultConnectTimeout = 300 * time.Millisecond
	// pushSessions is how many pending sessions a hook pushes at most
	// (its own, when pending, counts).
	pushSessions = 3
)

// run is one event being handled: its payload, the store it is served
// from and where its output goes.
type run struct {
	h   *Handler
	ev  Event
	in  Input
	st  carryover.Store
	out io.Writer
	// project, when not nil, is set to the session's project once the
	// run has read it, so that recording the run need not read it again.
	project *string
	// corrupt records that a step found the store damaged though the
	// event carried on (an ingest or an audit row that failed): the store
	// is then moved aside and the event served again on a fresh one.
	corrupt bool
	// warmed records that SQLite's memory is being faulted in (warmStore).
	warmed bool
}

// serve decodes the payload and does the event's work on the configured
// store, leaving the store it served from open for the caller to record
// the run on and close: opening it again would cost about as much as the
// work of an event that finds nothing to inject. The store is nil when it
// was not opened, was damaged, or was a fresh one. *project is set to the
// session's project when the run read it.
func (h *Handler) serve(ctx context.Context, ev Event, stdin io.Reader, out io.Writer, project *string) (carryover.Store, error) {
	in, err := Decode(stdin)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		// The deadline passed while the payload was read: Run has recorded
		// a timeout and returned; the store is not even opened.
		return nil, err
	}
	if err := carryover.ValidSessionID(in.SessionID); err != nil {
		return nil, err
	}
	if in.TranscriptPath != "" {
		if err := ingest.ValidPath(in.TranscriptPath); err != nil {
			return nil, err
		}
	}
	if !h.hasWork(ev, in) {
		return nil, errNoWork // not even the store is opened
	}
	// Waiting for a busy store must leave time to finish inside the
	// deadline: half of it where a restore or recall follows the write;
	// most of it where archiving is all there is to do (a lock lost there
	// is a write lost until the next hook; SessionEnd has no next one).
	busy := time.Second
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		busy = max(left/2, 50*time.Millisecond)
		if !ev.injects() {
			busy = max(left*9/10, 50*time.Millisecond)
		}
	}
	if h.Config.DatabaseURL != "" {
		return h.serveWithServer(ctx, ev, in, out, busy, project)
	}
	return h.serveLocal(ctx, ev, in, out, busy, project)
}

// knowProject notes the session's project for recording the run.
func (r *run) knowProject(project string) {
	if r.project != nil && project != "" {
		*r.project = project
	}
}

// errNoWork means the event had nothing to do with its payload: the store
// was not opened. It is no failure.
var errNoWork = errors.New("nothing to do")

// injects reports whether the event can put text in front of the model or
// the summariser (its store wait leaves time for that).
func (e Event) injects() bool {
	return e == SessionStart || e == UserPromptSubmit || e == PreCompact || e.perToolCall()
}

// perToolCall reports whether the event fires for tool calls, maybe
// hundreds of times a session: a run that finds nothing to do without
// opening the store is not recorded (a write per tool call would cost more
// than the run itself).
func (e Event) perToolCall() bool {
	return e == PostToolUse || e == PostToolUseFailure
}

// hasWork reports whether the event has anything to do with this payload
// and configuration.
func (h *Handler) hasWork(ev Event, in Input) bool {
	switch ev {
	case SessionStart:
		return in.Source == "compact" || in.Source == "resume" || in.Source == "startup" && h.Config.StartupBrief
	case UserPromptSubmit:
		return h.Config.Recall
	case PostToolUse:
		return h.postToolUseWork(in)
	case PostToolUseFailure:
		return !in.IsInterrupt && retrieve.RecallableFailure(in.ToolName, in.Error)
	}
	return true
}

// readsMostly reports whether the event's hook mostly reads (see
// ReadsMostly): its store keeps a small page cache (ReadCachePages) and
// maps what it reads (ReadMmapBytes); those that archive keep the default
// cache, which their writes fill.
func (h *Handler) readsMostly(ev Event) bool {
	return ReadsMostly(ev, h.Config.PostToolUseArchive)
}

// ReadsMostly reports the events whose hook mostly reads the store (and
// archives little or nothing): restore, recall and the tool hooks, unless
// PostToolUse archives after every call.
func ReadsMostly(ev Event, postToolUseArchive bool) bool {
	return ev == UserPromptSubmit || ev == SessionStart || ev == PostToolUseFailure || ev == PostToolUse && !postToolUseArchive
}

func openLocal(ctx context.Context, db string, busy time.Duration, readsMostly bool) (carryover.Store, error) {
	opt := storeopen.LocalOptions{BusyTimeout: busy}
	if readsMostly {
		// Such a run mostly writes nothing else: its record goes to the
		// store's journal, sparing it a write of the store.
		opt.CachePages, opt.MmapBytes, opt.DeferHookRuns = ReadCachePages, ReadMmapBytes, true
	}
	return storeopen.Local(ctx, db, opt)
}

// serveLocal serves the event from the local store. A damaged store is
// moved aside and the event served again on a fresh one, archiving this
// session from its transcript, so that nothing of it is lost; the other
// sessions come back with 'carryover ingest --all'.
func (h *Handler) serveLocal(ctx context.Context, ev Event, in Input, out io.Writer, busy time.Duration, project *string) (carryover.Store, error) {
	db := h.Config.DB
	opened, err := os.Lstat(db)
	// A new store: the whole transcript is new. The memory is faulted in
	// while the store is created, rather than once the ingest knows what
	// is new, when reading keeps both cores busy.
	warmed := errors.Is(err, fs.ErrNotExist) && h.warmStore(transcriptSize(in))
	st, err := openLocal(ctx, db, busy, h.readsMostly(ev))
	corrupt := false
	if err == nil {
		var buf bytes.Buffer
		r := &run{h: h, ev: ev, in: in, st: st, out: &buf, project: project, warmed: warmed}
		err = r.do(ctx)
		if !errors.Is(err, storeopen.ErrCorrupt) && !r.corrupt {
			if _, werr := out.Write(buf.Bytes()); err == nil {
				err = werr
			}
			return st, err
		}
		corrupt = true
		// Not closed: closing a damaged store makes SQLite checkpoint its
		// log and delete the log by name, which, once the file is moved
		// aside, may be a fresh store's. The process exits soon.
	}
	if !corrupt && (!errors.Is(err, storeopen.ErrCorrupt) || errors.Is(err, storeopen.ErrNotStore)) {
		// Open's errors name the store. A file that is not carryover's
		// (not a database at all, or another application's) is left alone.
		return nil, err
	}
	h.log().Error("store is damaged", "db", db, "err", err)
	moved, merr := storeopen.MoveAsideOnce(db, opened, time.Now())
	if merr != nil {
		return nil, fmt.Errorf("damaged store: %w", merr)
	}
	if moved != "" {
		h.log().Warn("damaged store moved aside; a fresh one takes its place", "moved", moved,
			"recover", "carryover ingest --all")
	}
	fresh, err := openLocal(ctx, db, busy, h.readsMostly(ev))
	if err != nil {
		return nil, fmt.Errorf("open fresh store: %w", err)
	}
	defer fresh.Close()
	r := &run{h: h, ev: ev, in: in, st: fresh, out: out, project: project}
	return nil, r.do(ctx)
}

// serveWithServer serves the event from the PostgreSQL server, and from
// the local store when the server cannot be reached in time or fails. The
// server gets at most 60% of what is left of the deadline, so that the
// local fallback always has time to do the work. The store returned (to
// record the run on) is the one that served the event.
func (h *Handler) serveWithServer(ctx context.Context, ev Event, in Input, out io.Writer, busy time.Duration, project *string) (carryover.Store, error) {
	budget := time.Second
	if dl, ok := ctx.Deadline(); ok {
		budget = time.Until(dl)
	}
	sctx, cancel := context.WithTimeout(ctx, budget*6/10)
	var buf bytes.Buffer
	server, err := h.serveOnServer(sctx, ev, in, &buf, project)
	cancel()
	if err == nil {
		_, err = out.Write(buf.Bytes())
		return server, err
	}
	if server != nil {
		server.Close()
	}
	// A session forgotten on the server must not be archived locally either.
	if ctx.Err() != nil || errors.Is(err, carryover.ErrForgotten) {
		return nil, err
	}
	h.log().Warn("server unavailable: using the local store", "event", ev, "session", in.SessionID, "err", err)
	local, lerr := openLocal(ctx, h.Config.DB, busy, false)
	if lerr != nil {
		return nil, fmt.Errorf("open local store: %w (server: %v)", lerr, err)
	}
	// Marked before the work: a hook cut off by its deadline has still
	// committed batches to push.
	if merr := spool.MarkPending(h.Config.DB, in.SessionID); merr != nil {
		h.log().Error("mark session pending", "session", in.SessionID, "err", merr)
	}
	r := &run{h: h, ev: ev, in: in, st: local, out: out, project: project}
	return local, r.do(ctx)
}

// errPending means the session's own backlog could not be pushed: the
// server's copy is behind the local one, which must serve this event.
var errPending = errors.New("the session's local backlog is not pushed yet")

// serveOnServer connects, pushes the spooled backlog (the session's own
// first) and serves the event. The store is returned open unless nil.
func (h *Handler) serveOnServer(ctx context.Context, ev Event, in Input, out io.Writer, project *string) (carryover.Store, error) {
	timeout := cmp.Or(h.Config.ConnectTimeout, defaultConnectTimeout)
	st, err := storeopen.Server(ctx, h.Config.DatabaseURL, storeopen.ServerOptions{ConnectTimeout: timeout,
		Owner: h.Config.Owner, Team: h.Config.Team, OneRoundTrip: true, Session: in.SessionID})
	if err != nil {
		return nil, err
	}
	if marks, err := spool.Pending(h.Config.DB); err != nil {
		h.log().Error("pending sessions", "err", err)
	} else if len(marks) > 0 {
		// Pushing may take two thirds of what is left; what it does not
		// finish, the next hook or 'carryover sync' completes.
		pctx := ctx
		if dl, ok := ctx.Deadline(); ok {
			var cancel context.CancelFunc
			pctx, cancel = context.WithTimeout(ctx, time.Until(dl)*2/3)
			defer cancel()
		}
		left, _, err := spool.Push(pctx, st, h.Config.DB, marks, spool.PushOptions{First: in.SessionID, Limit: pushSessions, Log: h.log()})
		if err != nil {
			h.log().Warn("push pending sessions", "err", err)
		}
		for _, m := range left {
			if m.Session == in.SessionID {
				return st, errPending
			}
		}
	}
	// The run's injection is written with its run's record: one round
	// trip, not two.
	if a, ok := st.(interface{ HoldAudit() }); ok {
		a.HoldAudit()
	}
	r := &run{h: h, ev: ev, in: in, st: st, out: out, project: project}
	return st, r.do(ctx)
}
