// Package spool keeps the hooks' backlog while the PostgreSQL server cannot
// be reached: a hook that falls back to the local SQLite store marks its
// session pending (a file named after it in a directory beside the store),
// and the next hook that reaches the server, or `carryover sync`, pushes
// the pending sessions and clears their marks.
package spool

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/replace"
	"github.com/carryover-dev/carryover/replicate"
	"github.com/carryover-dev/carryover/sqlite"
)

// Dir holds one file per session whose hooks wrote to the local store db
// because the server could not be used.
func Dir(db string) string { return db + ".pending" }

// Mark is a pending session and the token its mark held when read: a mark
// rewritten since (the session went on offline) is not cleared.
type Mark struct {
	Session string
	path    string
	token   string
}

// MarkPending marks a session pending in the spool of the local store db.
func MarkPending(db, session string) error {
	if err := carryover.ValidSessionID(session); err != nil {
		return err
	}
	dir := Dir(db)
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
	return replace.File(tmp.Name(), filepath.Join(dir, session))
}

// Pending lists the marks of the local store db.
func Pending(db string) ([]Mark, error) {
	entries, err := os.ReadDir(Dir(db))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var marks []Mark
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || carryover.ValidSessionID(name) != nil || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(Dir(db), name)
		token, err := os.ReadFile(path)
		if err != nil {
			continue // cleared meanwhile
		}
		marks = append(marks, Mark{Session: name, path: path, token: string(token)})
	}
	return marks, nil
}

// Clear removes the mark unless it was rewritten since it was read.
func (m Mark) Clear() error {
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

// PushOptions tune Push.
type PushOptions struct {
	// First is pushed first when it is pending (a hook's own session).
	First string
	// Limit caps the sessions pushed (0: all).
	Limit int
	// Progress, when set, is called as sessions are copied.
	Progress func(replicate.Progress)
	Log      *slog.Logger
}

// Push copies pending sessions from the local store db to the server and
// clears their marks. It returns the marks still pending and what it
// copied.
func Push(ctx context.Context, server carryover.Store, db string, marks []Mark, opt PushOptions) (left []Mark, rep replicate.Report, err error) {
	log := opt.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	for i, m := range marks {
		if m.Session == opt.First && i > 0 {
			marks[0], marks[i] = marks[i], marks[0]
		}
	}
	local, err := sqlite.Open(ctx, db, sqlite.Options{BusyTimeout: time.Second})
	if err != nil {
		return marks, rep, fmt.Errorf("open local store: %w", err)
	}
	defer local.Close()
	for i, m := range marks {
		if opt.Limit > 0 && i >= opt.Limit || ctx.Err() != nil {
			return marks[i:], rep, ctx.Err()
		}
		var each func(replicate.Progress)
		if opt.Progress != nil {
			each = func(p replicate.Progress) {
				opt.Progress(replicate.Progress{Session: p.Session, SessionsDone: i + p.SessionsDone, SessionsTotal: len(marks), Chunks: rep.Chunks + p.Chunks})
			}
		}
		r, err := replicate.Copy(ctx, server, local, replicate.Options{Sessions: []string{m.Session}, Progress: each})
		rep = rep.Add(r)
		if err != nil {
			return marks[i:], rep, fmt.Errorf("push session %s: %w", m.Session, err)
		}
		if err := m.Clear(); err != nil {
			log.Error("clear pending mark", "session", m.Session, "err", err)
		}
		log.Info("pushed pending session", "session", m.Session, "chunks", r.Chunks, "items", r.Items, "injections", r.Injections)
	}
	return nil, rep, nil
}
