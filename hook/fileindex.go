package hook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/replace"
	"github.com/carryover-dev/carryover/internal/smallfile"
)

// The recall index lets PostToolUse, which runs after every file tool
// call, answer "nothing to recall" without opening the store: after a
// compaction SessionStart writes, per session, the files file recall may
// have something to say about (changed before the compaction, or named by
// an error still open then). A session without an index never compacted
// (or compacted before carryover was installed): nothing to recall.
//
// The index holds hashes of paths under a hash of the session id, so it
// names neither; `carryover forget` removes it with the session and
// indexes idle for recallIndexAge are removed when a session ends.

// recallIndexAge is how long an untouched index is kept.
const recallIndexAge = 30 * 24 * time.Hour

// RecallIndexDir is the directory of the recall indexes of the store db.
func RecallIndexDir(db string) string { return db + ".recall" }

// recallIndexPath is the index file of a session.
func recallIndexPath(db, session string) string {
	return filepath.Join(RecallIndexDir(db), carryover.ForgottenKey(session)[:32]+".json")
}

// RemoveRecallIndex removes a session's recall index (forget).
func RemoveRecallIndex(db, session string) error {
	if db == "" {
		return nil
	}
	err := os.Remove(recallIndexPath(db, session))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// IsRecallIndexFile reports whether a name in RecallIndexDir is one
// carryover writes: an index, or a temporary file of one being written.
func IsRecallIndexFile(name string) bool {
	if strings.HasPrefix(name, ".index-") {
		return true
	}
	stem, ok := strings.CutSuffix(name, ".json")
	if !ok || len(stem) != 32 {
		return false
	}
	_, err := hex.DecodeString(stem)
	return err == nil
}

// recallIndex is what the index file holds.
type recallIndex struct {
	Window int      `json:"window"` // the context window it was written for
	Files  []string `json:"files"`  // pathHash of each file, sorted
}

// pathHash is the hash an index keeps of an absolute, clean path.
func pathHash(abs string) string {
	h := sha256.Sum256([]byte(filepath.Clean(abs)))
	return hex.EncodeToString(h[:8])
}

// absPath makes a path from a payload or an archive absolute: relative
// ones are taken from root.
func absPath(p, root string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		if root == "" {
			return ""
		}
		p = filepath.Join(root, p)
	}
	return filepath.Clean(p)
}

// maxRecallIndex bounds a recall index file read back, in bytes.
const maxRecallIndex = 1 << 20

// readRecallIndex reads a session's index; ok is false when there is none
// or it cannot be read (then there is nothing to recall from it).
func readRecallIndex(db, session string) (recallIndex, bool) {
	var ix recallIndex
	if db == "" {
		return ix, false
	}
	// Whatever the file has become (a huge or endless one, a FIFO), the
	// hook that runs after every file tool call reads no more than the
	// largest index, and never waits.
	data, truncated, err := smallfile.Read(recallIndexPath(db, session), maxRecallIndex)
	if err != nil || truncated || json.Unmarshal(data, &ix) != nil {
		return recallIndex{}, false
	}
	return ix, true
}

// has reports whether the index lists the file.
func (ix recallIndex) has(abs string) bool {
	_, ok := slices.BinarySearch(ix.Files, pathHash(abs))
	return ok
}

// writeRecallIndex replaces a session's index atomically: a concurrent
// reader sees the old one or the new one.
func writeRecallIndex(db, session string, ix recallIndex) error {
	if db == "" {
		return nil
	}
	slices.Sort(ix.Files)
	ix.Files = slices.Compact(ix.Files)
	dir := RecallIndexDir(db)
	data, err := json.Marshal(ix)
	if err != nil {
		return err
	}
	// The directory is there but for the first index: made then.
	tmp, err := os.CreateTemp(dir, ".index-*")
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("recall index: %w", err)
		}
		tmp, err = os.CreateTemp(dir, ".index-*")
	}
	if err != nil {
		return fmt.Errorf("recall index: %w", err)
	}
	_, werr := tmp.Write(data)
	if err := errors.Join(werr, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("recall index: %w", err)
	}
	if err := replace.File(tmp.Name(), recallIndexPath(db, session)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("recall index: %w", err)
	}
	return nil
}

// dropFromRecallIndex removes one file from a session's index once its
// recall for the window is settled, so that the next call on it returns
// without opening the store. A concurrent writer may put it back; the
// audit log still keeps the recall to once per window.
func dropFromRecallIndex(db, session, abs string) error {
	ix, ok := readRecallIndex(db, session)
	if !ok {
		return nil
	}
	i, found := slices.BinarySearch(ix.Files, pathHash(abs))
	if !found {
		return nil
	}
	ix.Files = slices.Delete(ix.Files, i, i+1)
	return writeRecallIndex(db, session, ix)
}

// pruneRecallIndexes removes indexes not written for recallIndexAge.
func pruneRecallIndexes(db string) {
	ents, err := os.ReadDir(RecallIndexDir(db))
	if err != nil {
		return
	}
	for _, e := range ents {
		if !IsRecallIndexFile(e.Name()) {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > recallIndexAge {
			os.Remove(filepath.Join(RecallIndexDir(db), e.Name()))
		}
	}
}

// itemsRead is a store that remembers the item groups a restore read
// through it (ReadRestore): the session's file edits and errors before the
// window, which is what the recall index after a compaction lists.
type itemsRead struct {
	carryover.Store
	f      carryover.ItemFilter
	groups []carryover.ItemGroup
	got    [][]carryover.Item
}

// ReadRestore reads what a restore reads from the store it wraps, at once
// when that store can (carryover.RestoreReader), and remembers the item
// groups.
func (s *itemsRead) ReadRestore(ctx context.Context, r carryover.RestoreReads) (carryover.RestoreRead, error) {
	got, err := carryover.ReadForRestore(ctx, s.Store, r)
	if err == nil {
		s.f, s.groups, s.got = r.Items, r.Groups, got.Groups
	}
	return got, err
}

// recallItems returns the file edits and errors of the session read
// through s when they are all of them (else nil): read for the session
// before window, and no group that holds them at its limit. Right
// after a compaction that is every one the session has: the new window
// holds no tool call yet, and only tool calls make file edits and errors.
func (s *itemsRead) recallItems(window int) []carryover.Item {
	if s.got == nil || s.f.SessionID == "" || s.f.Project != "" || s.f.BeforeWindow != window || window <= 0 {
		return nil
	}
	var edits, errs bool
	out := []carryover.Item{}
	for g, gr := range s.groups {
		has := false
		for _, k := range gr.Kinds {
			edits = edits || k == carryover.KindFileEdit
			errs = errs || k == carryover.KindError
			has = has || k == carryover.KindFileEdit || k == carryover.KindError
		}
		if !has {
			continue
		}
		if gr.Limit > 0 && len(s.got[g]) >= gr.Limit || gr.LastWindow {
			return nil // there may be more
		}
		for _, it := range s.got[g] {
			if it.Kind == carryover.KindFileEdit || it.Kind == carryover.KindError {
				out = append(out, it)
			}
		}
	}
	if !edits || !errs {
		return nil
	}
	return out
}
