// Package storeopen is the one place that maps carryover's configuration to
// a carryover.Store: the PostgreSQL server database_url names, else the
// local SQLite file (which, with a server, is the hooks' spool while the
// server cannot be reached; see package spool). It also exposes what
// callers need of the local store beyond carryover.Store: its errors, the
// move of a damaged store aside, its write check and the allocator
// warm-up of a cold hook. Callers (hook, bench, doctor, install, the CLI)
// import this package and no adapter.
package storeopen

import (
	"context"
	"fmt"
	"io/fs"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/postgres"
	"github.com/carryover-dev/carryover/sqlite"
)

// Config selects the store. Its paths are resolved already (package
// config): this package opens what it is given.
type Config struct {
	DB          string // the SQLite store (with DatabaseURL, the hooks' local spool)
	DatabaseURL string // the PostgreSQL server, "" for none
	Owner       string // identity written on the server's rows ("" for the OS user)
	Team        string // team new rows are shared with on the server ("" for private)
}

// LocalOptions configure the local store: its busy timeout, page cache,
// memory map and read-only mode (see sqlite.Options).
type LocalOptions = sqlite.Options

// ServerOptions configure the connection to the server: its timeout and
// the identity of the rows written (see postgres.Options).
type ServerOptions = postgres.Options

// Health is what LocalStore.Check found.
type Health = sqlite.Health

// LocalStore is the local SQLite store: a carryover.Store that can also
// check itself (doctor).
type LocalStore interface {
	carryover.Store
	// Check verifies the schema, the file's integrity, full-text search
	// and that the file can be written (a write rolled back).
	Check(ctx context.Context) (Health, error)
}

// Local opens (creating unless opt.ReadOnly) the SQLite store at path.
// Its errors name the store.
func Local(ctx context.Context, path string, opt LocalOptions) (LocalStore, error) {
	st, err := sqlite.Open(ctx, path, opt)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return st, nil
}

// Server connects to the PostgreSQL server at dsn within
// opt.ConnectTimeout (default 300 ms), plus a little for the handshake's
// round trips; the error names the server with its password masked.
func Server(ctx context.Context, dsn string, opt ServerOptions) (carryover.Store, error) {
	timeout := opt.ConnectTimeout
	if timeout <= 0 {
		timeout = postgres.DefaultConnectTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout+100*time.Millisecond)
	defer cancel()
	st, err := postgres.Open(ctx, dsn, opt)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", postgres.RedactURL(dsn), err)
	}
	return st, nil
}

// Open opens the configured store: the server when cfg.DatabaseURL is set
// (connecting within connect), else the local file with opt.
func Open(ctx context.Context, cfg Config, connect time.Duration, opt LocalOptions) (carryover.Store, error) {
	if cfg.DatabaseURL != "" {
		return Server(ctx, cfg.DatabaseURL, ServerOptions{ConnectTimeout: connect, Owner: cfg.Owner, Team: cfg.Team})
	}
	return Local(ctx, cfg.DB, opt)
}

// CheckURL rejects what is not a PostgreSQL URL before anything connects.
func CheckURL(dsn string) error { return postgres.CheckURL(dsn) }

// RedactURL is dsn with its password masked, for messages and logs.
func RedactURL(dsn string) string { return postgres.RedactURL(dsn) }

// Errors of the local store.
var (
	// ErrCorrupt: the file is damaged or not a database.
	ErrCorrupt = sqlite.ErrCorrupt
	// ErrNotStore: the file is not carryover's store (another
	// application's database, or no database at all); it is left as is.
	ErrNotStore = sqlite.ErrNotStore
	// ErrFull: the disk holding the store is full.
	ErrFull = sqlite.ErrFull
)

// IsBusy reports whether err is another process holding the local store's
// lock past the busy timeout.
func IsBusy(err error) bool { return sqlite.IsBusy(err) }

// NotWritableError says why this user cannot write the local store, and
// how to fix it.
type NotWritableError = sqlite.NotWritableError

// CheckWrite returns a *NotWritableError when this process could not write
// the local store at path (a missing store: its directory), nil when it
// can or when opening it repairs what is in the way (see sqlite.CheckWrite).
func CheckWrite(path string) error { return sqlite.CheckWrite(path) }

// Owned reports whether the file at path is a carryover store, changing
// nothing: nil if it is, an error wrapping fs.ErrNotExist if there is no
// file, one wrapping ErrNotStore for any other file. Deleting a store goes
// by it.
func Owned(ctx context.Context, path string) error { return sqlite.Owned(ctx, path) }

// MoveAsideOnce moves the damaged local store at path, with its side files,
// aside under a dated name and returns that name, unless another process
// did already (the file there is no longer opened, its Lstat when this
// process found it damaged): then, or when there is nothing to move, it
// returns "".
func MoveAsideOnce(path string, opened fs.FileInfo, now time.Time) (string, error) {
	return sqlite.MoveAsideOnce(path, opened, now)
}

// MovedAside lists the damaged stores moved aside from path, oldest first.
func MovedAside(path string) ([]string, error) { return sqlite.MovedAside(path) }

// JournalFiles are the files of the journals beside the local store path
// (see LocalOptions.DeferHookRuns), whether they exist or not.
func JournalFiles(path string) []string { return sqlite.JournalFiles(path) }

// CheckJournal reports a journal beside the local store path that the
// hooks cannot use: a *JournalError wrapping ErrJournalForeign or
// ErrJournalFull.
func CheckJournal(path string) error { return sqlite.CheckJournal(path) }

// JournalError is the error CheckJournal returns: which journal, and what
// is wrong with it.
type JournalError = sqlite.JournalError

// Problems CheckJournal reports.
var (
	ErrJournalForeign = sqlite.ErrJournalForeign
	ErrJournalFull    = sqlite.ErrJournalFull
)

// BackfillBatch is how many chunks the local store embeds per write when
// it fills in missing vectors.
const BackfillBatch = sqlite.BackfillBatch

// WarmAllocator faults in the memory the local store allocates from, so
// that a large write that follows takes pages already mapped; it is meant
// for a goroutine on an idle core of a one-event hook (see
// sqlite.WarmAllocator).
func WarmAllocator() { sqlite.WarmAllocator() }
