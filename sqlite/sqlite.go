// Package sqlite implements carryover.Store on an embedded SQLite file
// (modernc.org/sqlite, pure Go).
//
// One file holds every project. Each connection runs in WAL mode with a busy
// timeout and takes the write lock when a transaction begins, so several hook
// processes can write at once without losing rows. Chunks and items are
// indexed with FTS5; see [Store.Search] for how raw text becomes a query.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/carryover-dev/carryover"
	cembed "github.com/carryover-dev/carryover/embedding"
	"github.com/carryover-dev/carryover/internal/rawblock"
	"github.com/carryover-dev/carryover/internal/replace"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

var _ carryover.Store = (*Store)(nil)

// ErrCorrupt means the file is not a SQLite database or is damaged.
var ErrCorrupt = errors.New("store is corrupt or not a database")

// DefaultBusyTimeout is how long a statement waits for another process's
// lock when Options.BusyTimeout is zero.
const DefaultBusyTimeout = 5 * time.Second

//go:embed migrations/*.sql
var migrationFS embed.FS

// Options configures Open.
type Options struct {
	// BusyTimeout bounds the wait for a lock held by another process
	// (default 5s). Hooks pass something shorter than their deadline.
	BusyTimeout time.Duration
	// CachePages bounds each connection's page cache, in pages (default
	// SQLite's, 2,000 KiB). A short-lived process that reads a few hundred
	// pages about once is faster with a small one, which reuses its
	// memory: every page of a growing cache is fresh memory, and touching
	// fresh memory costs page faults that on a VM take longer than reading
	// the page again from the OS's cache.
	CachePages int
	// MmapBytes, when > 0, has SQLite read up to that many bytes of the
	// file through a memory map (PRAGMA mmap_size) rather than copy the
	// pages it reads into its cache: a process that reads a few hundred
	// pages once then maps the OS's cache, which faults in many pages at
	// a time, instead of filling fresh memory a page at a time. A read of
	// a mapped page the OS cannot provide (an I/O error) is a fault, not
	// an error: see runtime/debug.SetPanicOnFault.
	MmapBytes int64
	// DeferHookRuns has RecordHookRun and RecordInjection append to the
	// journals beside the store rather than write the store (see runs.go):
	// for a process that otherwise only reads.
	DeferHookRuns bool
	// ReadOnly opens an existing, migrated store without creating or
	// changing anything; every write fails.
	ReadOnly bool
	// Embedder embeds chunks as Apply stores them and queries as Search
	// ranks them (default embedding.DefaultHashed()). A store keeps the vectors
	// of the embedder that wrote first; opened with another, it ranks by
	// BM25 alone.
	Embedder carryover.Embedder
}

// Store is a carryover.Store backed by one SQLite file. It is safe for
// concurrent use, also by several processes on the same file.
type Store struct {
	db   *sql.DB
	path string
	emb  carryover.Embedder
	// codecs compress and read the raw lines' blocks.
	codecs rawblock.Pool
	// writing admits one of this process's write transactions at a time
	// (see enterWrite); busy bounds the wait, as SQLite's own timeout does.
	writing chan struct{}
	busy    time.Duration
	// abs is the store's absolute path, which names its journals: journal
	// the runs journal (runsJournal), records the journal of injections
	// and reaches (recordsJournal); deferRuns sends RecordHookRun and
	// RecordInjection there.
	abs, journal, records string
	deferRuns             bool
	// readOnly: the store is not written, nor is anything created beside
	// it (the reaches a search found are not journaled).
	readOnly bool
	// jread holds what this process read of the journal files (see
	// cachedJournal).
	jmu   sync.Mutex
	jread map[string]journalRead
}

// Open opens the store at path, creating its directory (0700) and file
// (0600) when needed, and migrates the schema when it is older than this
// package's.
//
// Open only uses a file that is carryover's: a missing or empty one (it
// creates its store there), a store it made (marked with ApplicationID), or
// one made before the marker (carryover's tables and a schema version it
// wrote; the first read-write open marks it). Anything else, another
// application's database or any other file, is refused unchanged with an
// error wrapping ErrNotStore. A file that is a SQLite database only by its
// size, its header damaged, yields one wrapping ErrCorrupt; a schema
// written by a newer carryover one wrapping carryover.ErrSchemaTooNew.
//
// A store this process cannot write (see CheckWrite) is opened read-only
// even without Options.ReadOnly: reads work, writes fail, and SQLite
// leaves no read-only side files behind.
func Open(ctx context.Context, path string, opt Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("open store: empty path")
	}
	s, err := open(ctx, path, opt)
	if err != nil {
		err = diskFull(path, err)
		if strings.ContainsRune(path, 0) || len(path) > MaxPathLen {
			return nil, fmt.Errorf("open store: %w", err) // not a path to print
		}
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return s, nil
}

func open(ctx context.Context, path string, opt Options) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := checkPath(abs); err != nil {
		return nil, err
	}
	if opt.BusyTimeout <= 0 {
		opt.BusyTimeout = DefaultBusyTimeout
	}
	var unwritable error
	if !opt.ReadOnly {
		if _, err := os.Lstat(abs); err == nil {
			if unwritable = CheckWrite(abs); unwritable != nil {
				opt.ReadOnly = true
			}
		}
	}
	if !opt.ReadOnly {
		if err := createFile(abs); err != nil {
			return nil, err
		}
	}
	unmarked, err := checkHeader(abs)
	if err != nil {
		return nil, err
	}
	// Side files this user cannot read stop SQLite before it reads a
	// page: those of a store the header marks as carryover's (or a new
	// one) are repaired first; an older store's, once its schema says it
	// is carryover's (see init).
	if !unmarked && !opt.ReadOnly {
		repairSideFiles(abs)
	}
	if unmarked {
		ms, err := migrations()
		if err != nil {
			return nil, err
		}
		if err := refuseForeign(ctx, abs, opt.BusyTimeout, ms[len(ms)-1].version); err != nil {
			return nil, err
		}
	}
	if opt.Embedder == nil {
		opt.Embedder = cembed.DefaultHashed()
	}
	mode := ""
	if opt.ReadOnly {
		mode = readMode(abs)
	}
	for attempt := 0; ; attempt++ {
		db, err := sql.Open("sqlite", dsn(abs, opt, mode))
		if err != nil {
			return nil, err
		}
		s := &Store{db: db, path: path, emb: opt.Embedder, writing: make(chan struct{}, 1), busy: opt.BusyTimeout,
			abs: abs, journal: runsJournal(abs), records: recordsJournal(abs), deferRuns: opt.DeferHookRuns, readOnly: opt.ReadOnly}
		err = s.init(ctx, abs, opt.ReadOnly, opt.BusyTimeout)
		if err == nil {
			return s, nil
		}
		db.Close()
		if errors.Is(err, errReopen) && attempt == 0 {
			continue
		}
		if unwritable != nil && !errors.Is(err, ErrNotStore) {
			err = fmt.Errorf("%w (and it cannot be written: %w)", err, unwritable)
		} else if side := unreadableSideFile(abs); side != nil && !errors.Is(err, ErrNotStore) {
			err = fmt.Errorf("%w (%w; to fix: %s)", err, side, side.Fix)
		}
		return nil, err
	}
}

// errReopen asks Open to open the store again: a connection that has seen
// a read-only -shm keeps it read-only.
var errReopen = errors.New("side files repaired: open again")

// MaxPathLen caps the store's path, in bytes.
const MaxPathLen = 4096

// checkPath refuses store paths that are too long or hold a NUL byte, and
// a store file, log or index that is a symbolic link or not a regular file:
// carryover never writes through a link someone else may have planted.
func checkPath(abs string) error {
	if strings.ContainsRune(abs, 0) {
		return errors.New("path contains a NUL byte")
	}
	if len(abs) > MaxPathLen {
		return fmt.Errorf("path is %d bytes long, at most %d", len(abs), MaxPathLen)
	}
	for _, p := range []string{abs, abs + "-wal", abs + "-shm"} {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link: carryover does not write through links", p)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
	}
	return nil
}

// createFile creates the database file with mode 0600 (SQLite gives its
// -wal and -shm files the same mode) and its directory with 0700. An
// existing file is left as it is: it may not be carryover's (see
// makePrivate for a store that is).
func createFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// dsn sets the pragmas on every connection the pool opens: they are
// per-connection state. The WAL journal mode is not among them: it is
// persistent, set once when the store is created (see init), and asking
// for it again would cost most of an open.
//
// mode "immutable" opens a read-only store that nothing can write as such
// (see readMode).
func dsn(path string, opt Options, mode string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", opt.BusyTimeout.Milliseconds()))
	if opt.ReadOnly {
		q.Set("mode", "ro")
		if mode == "immutable" {
			q.Set("immutable", "1")
		}
	} else {
		q.Set("_txlock", "immediate")
	}
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	if opt.CachePages > 0 {
		q.Add("_pragma", fmt.Sprintf("cache_size(%d)", opt.CachePages))
	}
	if opt.MmapBytes > 0 {
		q.Add("_pragma", fmt.Sprintf("mmap_size(%d)", opt.MmapBytes))
	}
	return "file:" + (&url.URL{Path: filepath.ToSlash(path)}).EscapedPath() + "?" + q.Encode()
}

// Path returns the path the store was opened with.
func (s *Store) Path() string { return s.path }

// Close closes the store.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close store: %w", err)
	}
	return nil
}

type migration struct {
	version int
	name    string
}

// migrations lists the embedded migrations in version order; a file
// NNNN_name.sql brings the schema to version NNNN.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a version", e.Name())
		}
		ms = append(ms, migration{version: v, name: e.Name()})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// init checks that the file is carryover's and its schema version and,
// only when the version is behind, switches the file to WAL and migrates
// it; a store made before the marker is marked. Opening a current store
// costs one read of two header fields.
func (s *Store) init(ctx context.Context, abs string, readOnly bool, busy time.Duration) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	want := ms[len(ms)-1].version
	o, err := readOwner(ctx, s.db, want)
	if err != nil {
		return err
	}
	switch {
	case o.version > want:
		return fmt.Errorf("schema version %d, this carryover knows %d: %w", o.version, want, carryover.ErrSchemaTooNew)
	case readOnly && o.blank:
		return errors.New("no store there yet: open it read-write once to create it")
	case readOnly && o.version < want:
		return fmt.Errorf("schema version %d, want %d: open the store read-write once to migrate it", o.version, want)
	case readOnly:
		return nil
	}
	// The file is carryover's (or empty): it may be written and repaired.
	// A store its header marks had its side files repaired before SQLite
	// opened it (see open); an older one's are repaired now, and reopened.
	if !o.marked && repairSideFiles(abs) {
		return errReopen
	}
	makePrivate(abs)
	if o.version == want {
		if o.marked {
			return nil
		}
		return s.mark(ctx)
	}
	// Outside the migration's transaction: the journal mode cannot change
	// inside one.
	if err := s.setWAL(ctx, busy); err != nil {
		return wrapErr("set journal mode", err)
	}
	return s.migrate(ctx, ms)
}

// mark gives a store made before the marker existed its ApplicationID.
func (s *Store) mark(ctx context.Context) error {
	// PRAGMA takes no bound parameters; the id is a constant.
	if _, err := s.db.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", ApplicationID)); err != nil {
		return wrapErr("mark the store as carryover's", err)
	}
	return nil
}

// setWAL switches the file to WAL. Processes opening a new store at once
// race here, and SQLite reports the lock another one holds at once, without
// waiting for it: this waits, up to busy.
//
// A file not in WAL yet is switched from an in-memory journal: switching
// writes the file's first page, and a rollback journal beside the store
// would be taken for its own by a process still holding a damaged store
// that was just moved aside from this path, which would roll it back into
// that file and empty it.
func (s *Store) setWAL(ctx context.Context, busy time.Duration) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	deadline := time.Now().Add(busy)
	for {
		var mode string
		err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode)
		if err == nil && mode != "wal" {
			err = conn.QueryRowContext(ctx, "PRAGMA journal_mode = MEMORY").Scan(&mode)
		}
		if err == nil {
			_, err = conn.ExecContext(ctx, "PRAGMA journal_mode = WAL")
		}
		if code, ok := primaryCode(err); !ok || code != codeBusy || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// schemaSQL is the current schema (and the rows the migrations leave in
// an empty store), dumped from a store the migrations made: a new store
// is created by it in one statement rather than by replaying every
// migration, which drops and re-creates indexes a new store never had.
// TestFreshSchema proves the two give the same store.
//
//go:embed schema.sql
var schemaSQL string

func (s *Store) migrate(ctx context.Context, ms []migration) error {
	return s.migrateWith(ctx, ms, true)
}

// migrateWith brings the schema to the last migration's version; a blank
// database gets schemaSQL when useSchema is set (the tests compare it with
// the migrations' result).
func (s *Store) migrateWith(ctx context.Context, ms []migration, useSchema bool) (err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return wrapErr("migrate", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	// Another process may have migrated while this one waited for the lock.
	var have int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&have); err != nil {
		return wrapErr("migrate: read schema version", err)
	}
	want := ms[len(ms)-1].version
	if have > want {
		return fmt.Errorf("schema version %d, this carryover knows %d: %w", have, want, carryover.ErrSchemaTooNew)
	}
	fresh := false
	if useSchema && have == 0 {
		var objects int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&objects); err != nil {
			return wrapErr("migrate: read schema", err)
		}
		fresh = objects == 0
	}
	if fresh {
		if _, err := tx.ExecContext(ctx, schemaSQL); err != nil {
			return wrapErr("create schema", err)
		}
	}
	for _, m := range ms {
		if fresh || m.version <= have {
			continue
		}
		body, err := migrationFS.ReadFile("migrations/" + m.name)
		if err != nil {
			return fmt.Errorf("migrate %s: %w", m.name, err)
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			return wrapErr("migrate "+m.name, err)
		}
		if err := migrateGo(ctx, tx, m.version); err != nil {
			return fmt.Errorf("migrate %s: %w", m.name, err)
		}
	}
	// PRAGMA takes no bound parameters; want is an integer from our own
	// files. The marker is written with the schema, in one transaction.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", want)); err != nil {
		return wrapErr("migrate: set schema version", err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", ApplicationID)); err != nil {
		return wrapErr("migrate: mark the store as carryover's", err)
	}
	if err := tx.Commit(); err != nil {
		return wrapErr("migrate: commit", err)
	}
	if fresh {
		// A journal beside a new store is an older store's (one deleted
		// by hand): its injections and kept matches name that store's
		// rows, and are not folded into this one.
		for _, p := range JournalFiles(s.abs) {
			if fi, err := journalFile(p); fi != nil && err == nil {
				replace.Remove(p)
			}
		}
	}
	return nil
}

// ErrFull means the store's file system (or a size limit) left no room
// for a write; the transaction was rolled back and nothing stored is lost.
var ErrFull = errors.New("no space left on the disk holding the store")

// SQLite primary result codes: the file is locked, damaged or foreign, an
// I/O error, or the disk full.
const (
	codeBusy    = 5  // SQLITE_BUSY
	codeIOErr   = 10 // SQLITE_IOERR
	codeCorrupt = 11 // SQLITE_CORRUPT
	codeFull    = 13 // SQLITE_FULL
	codeNotADB  = 26 // SQLITE_NOTADB
)

// wrapErr adds context to err (nil stays nil) and, when SQLite reports a
// damaged or foreign file, ErrCorrupt; a full disk, ErrFull.
func wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	if code, ok := primaryCode(err); ok && !errors.Is(err, ErrCorrupt) {
		switch code {
		case codeCorrupt, codeNotADB:
			return fmt.Errorf("%s: %w: %w", op, ErrCorrupt, err)
		case codeFull:
			return fmt.Errorf("%s: %w: %w", op, ErrFull, err)
		}
	}
	return fmt.Errorf("%s: %w", op, err)
}

// diskFull marks err with ErrFull when it is the OS's "no space left"
// (making the store's folder or file) or an I/O error of SQLite's while
// the file system holding the store at path has no room left: SQLite
// reports a -shm it could not grow as an I/O error.
func diskFull(path string, err error) error {
	if errors.Is(err, ErrFull) {
		return err
	}
	code, ok := primaryCode(err)
	if errors.Is(err, syscall.ENOSPC) || ok && code == codeIOErr && noSpace(filepath.Dir(path)) {
		return fmt.Errorf("%w: %w", ErrFull, err)
	}
	return err
}

// enterWrite waits until this process may open a write transaction and
// returns the func that lets the next one in. This process's writers queue
// here in order: left to SQLite's busy handler, which polls, a writer
// could wait out its whole timeout while others took the write lock again
// as soon as they had let it go. Other processes still meet at SQLite's
// lock.
func (s *Store) enterWrite(ctx context.Context) (func(), error) {
	if s.writing == nil {
		return func() {}, nil
	}
	t := time.NewTimer(s.busy)
	defer t.Stop()
	select {
	case s.writing <- struct{}{}:
		return func() { <-s.writing }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, errWritersBusy{}
	}
}

// beginWrite opens a write transaction on db (the pool or one of its
// connections) once this process's turn has come (see enterWrite). end
// rolls the transaction back unless it was committed, and lets the next
// writer in; call it on every way out.
func (s *Store) beginWrite(ctx context.Context, db interface {
	BeginTx(context.Context, *sql.TxOptions) (*sql.Tx, error)
}) (tx *sql.Tx, end func(), err error) {
	leave, err := s.enterWrite(ctx)
	if err != nil {
		return nil, nil, err
	}
	if tx, err = db.BeginTx(ctx, nil); err != nil {
		leave()
		return nil, nil, err
	}
	return tx, func() { tx.Rollback(); leave() }, nil
}

// errWritersBusy is SQLITE_BUSY of this process's own making: its other
// writers held the store past the busy timeout. IsBusy reports it.
type errWritersBusy struct{}

func (errWritersBusy) Error() string { return "database is locked by this process's other writers" }
func (errWritersBusy) Code() int     { return codeBusy }

// IsBusy reports whether err is SQLite's "database is locked": another
// process held the store's write lock past the busy timeout. Nothing was
// changed; the same command can be run again.
func IsBusy(err error) bool {
	code, ok := primaryCode(err)
	return ok && code == codeBusy
}

// primaryCode returns the SQLite primary result code of err, if it
// carries one. Extended result codes are on: the primary code is the low
// byte.
func primaryCode(err error) (int, bool) {
	var coded interface{ Code() int }
	if !errors.As(err, &coded) {
		return 0, false
	}
	return coded.Code() & 0xff, true
}

// ms converts a time to unix milliseconds, 0 for the zero time.
func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// fromMS converts unix milliseconds to a UTC time, the zero time for 0.
func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}
