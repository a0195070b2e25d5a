package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ApplicationID marks a SQLite file as a carryover store: SQLite keeps it
// in the file's header (PRAGMA application_id). It reads "cary".
const ApplicationID = 0x63617279

// coreTables are the tables of carryover's first schema: a store made
// before the marker existed is recognised by them and a schema version
// carryover wrote.
var coreTables = []string{"projects", "sessions", "chunks", "items", "compactions", "injections", "notes"}

// sqliteMagic starts every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// checkHeader refuses, before SQLite opens it, a file that is not a SQLite
// database (unless it looks like a store whose header was damaged, which
// SQLite then reports as ErrCorrupt) or that another application marked as
// its own. A missing or empty file passes: carryover may create its store
// there. unmarked reports a file whose header does not carry the marker:
// another application's database, one made before the marker, a new store
// whose marker is still in its log, or a store whose header is damaged (or
// being written: only SQLite, which takes its locks, can tell).
func checkHeader(path string) (unmarked bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	head := make([]byte, 100)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	head = head[:n]
	switch {
	case n == 0:
		// SQLite writes a file's header before its first log; an empty
		// file beside a log is not one carryover made, and SQLite would
		// take it for a new database and write over that log.
		if wal, err := os.Lstat(path + "-wal"); err == nil && wal.Size() > 0 {
			return false, notStore("an empty file beside a database log (-wal)")
		}
		return false, nil
	case strings.HasPrefix(string(head), sqliteMagic):
		if n < 72 {
			return true, nil
		}
		switch id := binary.BigEndian.Uint32(head[68:72]); id {
		case ApplicationID:
			return false, nil
		case 0:
			return true, nil
		default:
			return false, notStore(fmt.Sprintf("a SQLite database of another application (application_id %#08x)", id))
		}
	case fi.Size()%512 == 0:
		return true, nil // a damaged header, maybe: SQLite will say
	}
	return false, notStore("not a SQLite database", ErrCorrupt)
}

// refuseForeign reads who made an unmarked database before a connection
// of the store's opens it: closing the last read-write connection to a
// database in WAL mode checkpoints its log into the file and deletes the
// log and index, which would rewrite another application's database, or a
// damaged store's; and a read-only connection creates or writes the index
// (-shm). See inspectUnmarked. And by name: once a damaged store is moved
// aside (MoveAside), those are a fresh store's. It returns only a refusal
// (ErrNotStore) or ErrCorrupt; any other failure is the open's to report.
func refuseForeign(ctx context.Context, abs string, busy time.Duration, want int) error {
	if _, err := inspectUnmarked(ctx, abs, busy, want); errors.Is(err, ErrNotStore) || errors.Is(err, ErrCorrupt) {
		return err
	}
	return nil
}

// maxInspectCopy bounds the file and log inspectUnmarked copies; a larger
// pair is read in place.
const maxInspectCopy = 64 << 20

// inspectUnmarked reads who made the unmarked database at abs (readOwner)
// without SQLite creating or writing its side files, which may be another
// application's: SQLite's readers of a WAL-mode database create its -wal
// and -shm, and write the -shm. With no log to read, the file is opened
// immutable (no side files, no locks); a read that fails (a checkpoint
// writing the file meanwhile) is made again through SQLite's locks. With a
// log, a private copy of the file and its log, in a directory beside them,
// is read instead (the log first: a checkpoint between the two copies
// leaves the copy consistent); in place only past maxInspectCopy or when
// that directory cannot be made.
func inspectUnmarked(ctx context.Context, abs string, busy time.Duration, want int) (owner, error) {
	wal, err := os.Lstat(abs + "-wal")
	if err != nil || wal.Size() == 0 {
		o, err := readOwnerAt(ctx, abs, busy, want, "immutable")
		if err == nil || errors.Is(err, ErrNotStore) && !errors.Is(err, ErrCorrupt) {
			return o, err
		}
		return readOwnerAt(ctx, abs, busy, want, "")
	}
	fi, err := os.Lstat(abs)
	if err != nil || fi.Size()+wal.Size() > maxInspectCopy {
		return readOwnerAt(ctx, abs, busy, want, "")
	}
	// Beside the file, not in $TMPDIR, which a project's settings can set:
	// the copy may be the user's archive.
	dir, err := os.MkdirTemp(filepath.Dir(abs), ".carryover-inspect-")
	if err != nil {
		return readOwnerAt(ctx, abs, busy, want, "")
	}
	defer os.RemoveAll(dir)
	cp := filepath.Join(dir, "db")
	if copyFile(abs+"-wal", cp+"-wal") != nil || copyFile(abs, cp) != nil {
		return readOwnerAt(ctx, abs, busy, want, "")
	}
	o, err := readOwnerAt(ctx, cp, busy, want, "")
	if err != nil && !errors.Is(err, ErrNotStore) {
		return readOwnerAt(ctx, abs, busy, want, "") // the copy may be torn; SQLite's locks decide
	}
	return o, err
}

// readOwnerAt runs readOwner on a read-only connection to path opened in
// mode (see dsn).
func readOwnerAt(ctx context.Context, path string, busy time.Duration, want int, mode string) (owner, error) {
	db, err := sql.Open("sqlite", dsn(path, Options{ReadOnly: true, BusyTimeout: busy}, mode))
	if err != nil {
		return owner{}, err
	}
	defer db.Close()
	return readOwner(ctx, db, want)
}

// copyFile copies src to a new private file dst, at most maxInspectCopy
// bytes.
func copyFile(src, dst string) error {
	in, err := os.OpenFile(src, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, io.LimitReader(in, maxInspectCopy))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// refusal is an error wrapping ErrNotStore (and maybe ErrCorrupt) with its
// own message.
type refusal struct {
	msg  string
	errs []error
}

func (e *refusal) Error() string   { return e.msg }
func (e *refusal) Unwrap() []error { return e.errs }

// notStore says what a file carryover will not touch is. A file that is
// not a database at all also wraps ErrCorrupt, which says just that.
func notStore(what string, also ...error) error {
	return &refusal{what + ": not a carryover store, left as is", append([]error{ErrNotStore}, also...)}
}

// owner is what a store's header and schema say about who made it.
type owner struct {
	version int  // PRAGMA user_version
	marked  bool // carries ApplicationID
	legacy  bool // carryover's tables and a version carryover wrote, made before the marker
	blank   bool // no schema, version or marker at all: an empty database
}

// readOwner reads the header fields and, when the marker is missing, the
// schema. Only a blank database, a marked one or a legacy one is
// carryover's; anything else is refused with ErrNotStore.
func readOwner(ctx context.Context, db *sql.DB, want int) (owner, error) {
	var o owner
	var id int64
	err := db.QueryRowContext(ctx, "SELECT (SELECT user_version FROM pragma_user_version), (SELECT application_id FROM pragma_application_id)").
		Scan(&o.version, &id)
	if err != nil {
		return o, wrapErr("read schema version", err)
	}
	switch uint32(id) {
	case ApplicationID:
		o.marked = true
		return o, nil
	case 0:
	default:
		return o, notStore(fmt.Sprintf("a SQLite database of another application (application_id %#08x)", uint32(id)))
	}
	// One statement, one snapshot: another process may be creating the
	// store, and its schema, version and marker commit together.
	var objects, core int
	err = db.QueryRowContext(ctx, `SELECT (SELECT user_version FROM pragma_user_version), (SELECT application_id FROM pragma_application_id),
		count(*), coalesce(sum(type = 'table' AND name IN (`+placeholders(len(coreTables))+`)), 0) FROM sqlite_master`,
		anySlice(coreTables)...).Scan(&o.version, &id, &objects, &core)
	if err != nil {
		return o, wrapErr("read schema", err)
	}
	if uint32(id) == ApplicationID {
		o.marked = true
		return o, nil
	}
	switch {
	case objects == 0 && o.version == 0:
		o.blank = true
		return o, nil
	case core == len(coreTables) && o.version >= 1 && o.version <= want:
		o.legacy = true
		return o, nil
	}
	var names []string
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name LIMIT 4")
	if err == nil {
		for rows.Next() {
			var n string
			if rows.Scan(&n) == nil {
				names = append(names, n)
			}
		}
		rows.Close()
	}
	what := "no tables"
	if len(names) > 0 {
		if len(names) == 4 {
			names[3] = "…"
		}
		what = "tables " + strings.Join(names, ", ")
	}
	return o, notStore(fmt.Sprintf("a SQLite database that carryover did not create (schema version %d, %s)", o.version, what))
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// Owned reports whether the file at path is a carryover store, without
// creating or changing anything: nil if it is, an error wrapping
// fs.ErrNotExist if there is no file, and one wrapping ErrNotStore for any
// other file (an empty one included). Deleting a store goes by it.
func Owned(ctx context.Context, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if err := checkPath(abs); err != nil {
		return err
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return err
	}
	if fi.Size() == 0 {
		return notStore("an empty file")
	}
	unmarked, err := checkHeader(abs)
	if err != nil {
		return err
	}
	ms, err := migrations()
	if err != nil {
		return err
	}
	var o owner
	if unmarked {
		o, err = inspectUnmarked(ctx, abs, 2*time.Second, ms[len(ms)-1].version)
	} else {
		o, err = readOwnerAt(ctx, abs, 2*time.Second, ms[len(ms)-1].version, readMode(abs))
	}
	if err != nil {
		return err
	}
	if o.blank {
		return notStore("an empty SQLite database")
	}
	return nil
}

// NotWritableError says why this process cannot write a store, and how to
// fix it.
type NotWritableError struct {
	Path   string // the file or directory in the way
	Reason string
	Fix    string // a command or step that makes the store writable
}

func (e *NotWritableError) Error() string { return e.Path + ": " + e.Reason }

// CheckWrite reports why this process could not write the store at path
// (a *NotWritableError), or nil when it can, or when Open will repair what
// is in the way: a -wal or -shm this user owns but cannot read or write
// beside a carryover store. A missing store is writable when its
// directory is.
func CheckWrite(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(abs)
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat(dir); err == nil && !writable(dir) {
			return &NotWritableError{dir, "the store's directory is read-only", allowWrite(dir)}
		}
		return nil
	}
	if err != nil {
		return err
	}
	if !writable(abs) {
		return &NotWritableError{abs, fmt.Sprintf("the store is read-only (mode %04o%s)", fi.Mode().Perm(), ownerNote(fi)), fixMode(abs, fi)}
	}
	if !writable(dir) {
		return &NotWritableError{dir, "the store's directory is read-only: SQLite cannot create the store's -wal and -shm files there",
			allowWrite(dir)}
	}
	for _, side := range []string{abs + "-wal", abs + "-shm"} {
		fi, err := os.Lstat(side)
		if err != nil || !fi.Mode().IsRegular() || writable(side) && readable(side) || ownedByMe(fi) {
			continue
		}
		what := "a read-only file"
		if !readable(side) {
			what = "a file this user cannot read"
		}
		e := &NotWritableError{Path: side, Reason: fmt.Sprintf("%s beside the store (mode %04o%s): nothing can be written to the store", what, fi.Mode().Perm(), ownerNote(fi))}
		switch {
		case strings.HasSuffix(side, "-shm"):
			// SQLite rebuilds the index from the store and its log.
			e.Fix = "when no Claude Code session is running: " + removeCmd(side)
		case fi.Size() == 0:
			e.Fix = "it is empty: " + removeCmd(side)
		default:
			e.Fix = "it holds the latest writes, do not delete it: sudo chown \"$(id -un)\" " + shellQuote(side)
		}
		return e
	}
	return nil
}

// unreadableSideFile names the store's -wal or -shm that this process
// cannot read, which SQLite cannot open the store without, or returns nil.
// Open repairs this user's before SQLite reads a carryover store, but not
// while the store's marker is still in its log (it may not be carryover's).
func unreadableSideFile(abs string) *NotWritableError {
	for _, side := range []string{abs + "-wal", abs + "-shm"} {
		fi, err := os.Lstat(side)
		if err != nil || !fi.Mode().IsRegular() || readable(side) {
			continue
		}
		e := &NotWritableError{Path: side, Reason: fmt.Sprintf("a file this user cannot read beside the store (mode %04o%s)", fi.Mode().Perm(), ownerNote(fi)),
			Fix: allowReadWrite(side)}
		if !ownedByMe(fi) {
			e.Fix = "ask its owner: sudo chown \"$(id -un)\" " + shellQuote(side)
		}
		return e
	}
	return nil
}

// fixMode is the command that lets this user write the file.
func fixMode(path string, fi fs.FileInfo) string {
	if ownedByMe(fi) {
		return allowWrite(path) + " (or leave it read-only: commands that only read still work)"
	}
	return "ask its owner, or copy it: cp " + shellQuote(path) + " ~/carryover.db and use --db ~/carryover.db"
}

// repairSideFiles gives the store's -wal and -shm back their mode 0600
// when this user owns them but cannot write them (left by a process that
// opened a read-only store, or changed by hand), or cannot even read them
// (mode 0000): SQLite would otherwise keep the store read-only for good,
// or not open it at all. Another user's files and symbolic links are left
// alone. Only called once the store is known to be carryover's (its
// header's marker, or its schema). It reports whether it changed anything.
func repairSideFiles(abs string) bool {
	repaired := false
	for _, side := range []string{abs + "-wal", abs + "-shm"} {
		fi, err := os.Lstat(side)
		if err != nil || !fi.Mode().IsRegular() || writable(side) && readable(side) || !ownedByMe(fi) {
			continue
		}
		if chmodOwn(side, 0o600) == nil {
			repaired = true
		}
	}
	return repaired
}

// readMode is how a read-only connection opens the store: immutable when
// this process cannot write it and its log holds nothing, so that SQLite
// creates no -wal or -shm (it could not remove them, and they would stay
// read-only) and needs no writable directory.
func readMode(abs string) string {
	if CheckWrite(abs) == nil {
		return ""
	}
	if fi, err := os.Lstat(abs + "-wal"); err == nil && fi.Size() > 0 {
		return ""
	}
	return "immutable"
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+./:@%,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
