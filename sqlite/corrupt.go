package sqlite

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// corruptSuffix precedes the UTC time a damaged store was moved aside:
// carryover.db.corrupt-20261122T101500.
const corruptSuffix = ".corrupt-"

// MoveAside renames the store file at path, with its write-ahead log,
// shared-memory index and journals (see runs.go), to path.corrupt-<UTC
// time> (and its -wal, -shm, .runs and .journal) so that a fresh store can
// be created in its place. Nothing is deleted:
// the moved files can still be inspected or salvaged. It returns the new
// path of the store file.
//
// A file that does not look like a SQLite database at all (no SQLite header
// and a size that is not a whole number of pages) is not a damaged store
// but a wrong path: it is left alone and ErrNotStore returned.
func MoveAside(path string, now time.Time) (string, error) {
	if ok, err := looksLikeStore(path); err != nil {
		return "", fmt.Errorf("move damaged store aside: %w", err)
	} else if !ok {
		return "", fmt.Errorf("%s: %w", path, ErrNotStore)
	}
	base := path + corruptSuffix + now.UTC().Format("20060102T150405")
	dst := base
	for i := 1; ; i++ {
		if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dst = fmt.Sprintf("%s-%d", base, i)
	}
	// The log holds committed transactions of the old file: it goes with
	// it, or SQLite would replay it into the fresh store; so does the
	// journal, whose injections and kept matches name the old file's rows.
	// The side files go first and nothing is removed by name: once the
	// store file has moved, a process opening the path may create a fresh
	// store there, and these names would be its log and index. A journal
	// that is not a regular file is not carryover's, and stays.
	var moved []string
	for _, side := range append([]string{"-wal", "-shm"}, journalSuffixes...) {
		if slices.Contains(journalSuffixes, side) {
			if fi, err := journalFile(path + side); fi == nil || err != nil {
				continue
			}
		}
		err := os.Rename(path+side, dst+side)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", errors.Join(fmt.Errorf("move damaged store's %s aside: %w", side, err), putBack(path, dst, moved))
		}
		moved = append(moved, side)
	}
	if err := os.Rename(path, dst); err != nil {
		return "", errors.Join(fmt.Errorf("move damaged store aside: %w", err), putBack(path, dst, moved))
	}
	return dst, nil
}

// putBack returns the side files MoveAside moved to dst when the store
// file could not follow them: the store is left as it was found.
func putBack(path, dst string, sides []string) error {
	var errs []error
	for _, side := range sides {
		if err := os.Rename(dst+side, path+side); err != nil {
			errs = append(errs, fmt.Errorf("put the store's %s back: %w", side, err))
		}
	}
	return errors.Join(errs...)
}

// MoveAsideOnce moves the damaged store at path aside as MoveAside does,
// unless another process did already: the file there is no longer the one
// this process found damaged (opened, nil when there was none). Hooks that
// find the store damaged at once take turns, holding a lock on the store's
// directory from the check to the move: otherwise one of them could move
// the fresh store another has just made in the damaged one's place, its
// writes with it, or replace a copy moved aside in the same second. It
// returns the new name, or "" when there was nothing to move.
func MoveAsideOnce(path string, opened fs.FileInfo, now time.Time) (string, error) {
	unlock, err := lockDir(filepath.Dir(path))
	if err != nil {
		return "", fmt.Errorf("move damaged store aside: %w", err)
	}
	defer unlock()
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if opened != nil && !os.SameFile(opened, fi) {
		return "", nil
	}
	return MoveAside(path, now)
}

// ErrNotStore means a file is not a (damaged) SQLite database.
var ErrNotStore = errors.New("not a carryover store: left as is")

// looksLikeStore reports whether the file at path starts with SQLite's
// header or is a whole number of pages long (page sizes are multiples of
// 512), as a database whose header was damaged still is. A database that
// another application marked as its own is not.
func looksLikeStore(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	head := make([]byte, 72)
	n, _ := io.ReadFull(f, head)
	if n == len(head) && string(head[:16]) == sqliteMagic {
		if id := binary.BigEndian.Uint32(head[68:]); id != 0 && id != ApplicationID {
			return false, nil
		}
	}
	return n >= 16 && string(head[:16]) == sqliteMagic || fi.Size() > 0 && fi.Size()%512 == 0, nil
}

// MovedAside lists the store files MoveAside left next to path, oldest
// first.
func MovedAside(path string) ([]string, error) {
	matches, err := filepath.Glob(globEscape(path) + corruptSuffix + "*")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range matches {
		if !slices.ContainsFunc(append([]string{"-wal", "-shm"}, journalSuffixes...), func(side string) bool { return strings.HasSuffix(m, side) }) {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out, nil
}

// globEscape quotes the glob metacharacters of a literal path.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
