package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/postgres"
	"github.com/carryover-dev/carryover/replicate"
	"github.com/carryover-dev/carryover/sqlite"
)

// Store selection: with database_url (or CARRYOVER_DATABASE_URL) set, hooks
// and the CLI use that PostgreSQL server, otherwise the SQLite file. The
// SQLite file stays the spool of the hooks: when the server cannot be
// reached or fails, a hook does its work on the local file and marks the
// session pending (a file named after it in the directory next to the
// store, see pendingDir); the next hook that reaches the server pushes
// pending sessions first, a few at a time, and `carryover sync` pushes all
// of them.

const (
	// hookConnectTimeout bounds a hook's connection to the server.
	hookConnectTimeout = 300 * time.Millisecond
	// cliConnectTimeout bounds the CLI's.
	cliConnectTimeout = 5 * time.Second
	// hookPushSessions is how many pending sessions a hook pushes at most
	// (its own, when pending, counts).
	hookPushSessions = 3
)

// openServer connects to the configured server.
func openServer(ctx context.Context, cfg config, dsn string, timeout time.Duration) (*postgres.Store, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout+100*time.Millisecond)
	defer cancel()
	st, err := postgres.Open(ctx, dsn, postgres.Options{ConnectTimeout: timeout, Owner: cfg.Owner, Team: cfg.Team})
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", redactURL(dsn), err)
	}
	return st, nil
}

// serverHint is the hint of a server that cannot be used.
func serverHint(dsn string) string {
	return fmt.Sprintf("check that the server at %s is running and reachable, and the database_url setting "+
		"(or CARRYOVER_DATABASE_URL); hooks keep working on the local store meanwhile and 'carryover sync' pushes their backlog", redactURL(dsn))
}

// checkURL rejects what is not a PostgreSQL URL before anything connects.
func checkURL(dsn string) error {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" && u.Query().Get("host") == "" {
		return hintErr{fmt.Errorf("not a PostgreSQL URL: %q", redactURL(dsn)),
			"write it as postgres://USER@HOST:PORT/DATABASE (see docs/postgres.md)"}
	}
	return nil
}

// redactURL hides a URL's password.
func redactURL(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		if i := strings.LastIndex(dsn, "@"); i >= 0 {
			if j := strings.Index(dsn, "://"); j >= 0 && j < i {
				return dsn[:j+3] + "…" + dsn[i:]
			}
		}
		return dsn
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// hookWithServer runs a hook event against the server, and on the local
// store when the server cannot be reached in time or fails. The server gets
// at most 60% of what is left of the deadline, so that the local fallback
// always has time to do the work.
func (a *app) hookWithServer(ctx context.Context, cfg config, ev hook.Event, in hook.Input, out io.Writer, busy time.Duration) error {
	budget := time.Second
	if dl, ok := ctx.Deadline(); ok {
		budget = time.Until(dl)
	}
	sctx, cancel := context.WithTimeout(ctx, budget*6/10)
	var buf bytes.Buffer
	err := a.hookOnServer(sctx, cfg, ev, in, &buf)
	cancel()
	if err == nil {
		_, err = out.Write(buf.Bytes())
		return err
	}
	// A session forgotten on the server must not be archived locally either.
	if ctx.Err() != nil || errors.Is(err, carryover.ErrForgotten) {
		return err
	}
	a.log.Warn("server unavailable: using the local store", "event", ev, "session", in.SessionID, "err", err)
	local, lerr := sqlite.Open(ctx, cfg.DB, sqlite.Options{BusyTimeout: busy})
	if lerr != nil {
		return fmt.Errorf("open local store: %w (server: %v)", lerr, err)
	}
	defer local.Close()
	// Marked before the work: a hook cut off by its deadline has still
	// committed batches to push.
	if merr := markPending(cfg.DB, in.SessionID); merr != nil {
		a.log.Error("mark session pending", "session", in.SessionID, "err", merr)
	}
	return a.runHookEvent(ctx, cfg, local, ev, in, out)
}

// errPending means the session's own backlog could not be pushed: the
// server's copy is behind the local one, which must serve this event.
var errPending = errors.New("the session's local backlog is not pushed yet")

func (a *app) hookOnServer(ctx context.Context, cfg config, ev hook.Event, in hook.Input, out io.Writer) error {
	st, err := openServer(ctx, cfg, cfg.DatabaseURL, hookConnectTimeout)
	if err != nil {
		return err
	}
	defer st.Close()
	if marks, err := pendingSessions(cfg.DB); err != nil {
		a.log.Error("pending sessions", "err", err)
	} else if len(marks) > 0 {
		// Pushing may take two thirds of what is left; what it does not
		// finish, the next hook or 'carryover sync' completes.
		pctx := ctx
		if dl, ok := ctx.Deadline(); ok {
			var cancel context.CancelFunc
			pctx, cancel = context.WithTimeout(ctx, time.Until(dl)*2/3)
			defer cancel()
		}
		left, _, err := a.pushPending(pctx, cfg, st, marks, in.SessionID, hookPushSessions, nil)
		if err != nil {
			a.log.Warn("push pending sessions", "err", err)
		}
		for _, m := range left {
			if m.session == in.SessionID {
				return errPending
			}
		}
	}
	return a.runHookEvent(ctx, cfg, st, ev, in, out)
}

// pushPending copies pending sessions from the local store to the server,
// first (when pending) the session named first, at most limit sessions
// (0: all). It returns the marks still pending and what it copied.
func (a *app) pushPending(ctx context.Context, cfg config, server carryover.Store, marks []pendingMark, first string, limit int, progress func(replicate.Progress)) (left []pendingMark, rep replicate.Report, err error) {
	for i, m := range marks {
		if m.session == first && i > 0 {
			marks[0], marks[i] = marks[i], marks[0]
		}
	}
	local, err := sqlite.Open(ctx, cfg.DB, sqlite.Options{BusyTimeout: time.Second})
	if err != nil {
		return marks, rep, fmt.Errorf("open local store: %w", err)
	}
	defer local.Close()
	for i, m := range marks {
		if limit > 0 && i >= limit || ctx.Err() != nil {
			return marks[i:], rep, ctx.Err()
		}
		var each func(replicate.Progress)
		if progress != nil {
			each = func(p replicate.Progress) {
				progress(replicate.Progress{Session: p.Session, SessionsDone: i + p.SessionsDone, SessionsTotal: len(marks), Chunks: rep.Chunks + p.Chunks})
			}
		}
		r, err := replicate.Copy(ctx, server, local, replicate.Options{Sessions: []string{m.session}, Progress: each})
		rep = addReports(rep, r)
		if err != nil {
			return marks[i:], rep, fmt.Errorf("push session %s: %w", m.session, err)
		}
		if err := m.clear(); err != nil {
			a.log.Error("clear pending mark", "session", m.session, "err", err)
		}
		a.log.Info("pushed pending session", "session", m.session, "chunks", r.Chunks, "items", r.Items, "injections", r.Injections)
	}
	return nil, rep, nil
}

func addReports(a, b replicate.Report) replicate.Report {
	return replicate.Report{Sessions: a.Sessions + b.Sessions, Chunks: a.Chunks + b.Chunks, Items: a.Items + b.Items,
		Compactions: a.Compactions + b.Compactions, Notes: a.Notes + b.Notes, Injections: a.Injections + b.Injections,
		HookRuns: a.HookRuns + b.HookRuns, Unmapped: a.Unmapped + b.Unmapped}
}

// pendingDir holds one file per session whose hooks wrote to the local
// store because the server could not be used.
func pendingDir(db string) string { return db + ".pending" }

// pendingMark is a pending session and the token its mark held when read:
// a mark rewritten since (the session went on offline) is not cleared.
type pendingMark struct {
	session, path, token string
}

func markPending(db, session string) error {
	if err := validSessionID(session); err != nil {
		return err
	}
	dir := pendingDir(db)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".mark-*")
	if err != nil {
		return err
	}
	token := strconv.FormatInt(time.Now().UnixNano(), 10) + "-" + strconv.Itoa(os.Getpid())
	_, werr := tmp.WriteString(token)
	if err := errors.Join(werr, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	// A rename replaces the mark atomically: a reader sees the old token
	// or the new one.
	return os.Rename(tmp.Name(), filepath.Join(dir, session))
}

// pendingSessions lists the marks, oldest first.
func pendingSessions(db string) ([]pendingMark, error) {
	entries, err := os.ReadDir(pendingDir(db))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var marks []pendingMark
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || validSessionID(name) != nil || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(pendingDir(db), name)
		token, err := os.ReadFile(path)
		if err != nil {
			continue // cleared meanwhile
		}
		marks = append(marks, pendingMark{session: name, path: path, token: string(token)})
	}
	return marks, nil
}

// clear removes the mark unless it was rewritten since it was read.
func (m pendingMark) clear() error {
	token, err := os.ReadFile(m.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if string(token) != m.token {
		return nil
	}
	return os.Remove(m.path)
}
