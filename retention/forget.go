package retention

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/internal/replace"
	"github.com/carryover-dev/carryover/logfile"
	"github.com/carryover-dev/carryover/spool"
)

// Forgetter removes one session everywhere carryover keeps it: its rows
// (chunks with their full-text and vector rows, items, compactions, audit
// records, notes, hook runs), the older copies deletion leaves in the
// store's files (see sqlite.Store.Compact), its pending mark and recall
// index, and the log lines that name it. carryover keeps no other copy:
// the transcript is Claude Code's file. The store records the session as
// forgotten, so that its next hook, an ingest, an import or a sync does
// not archive it again; Unforget removes the record.
type Forgetter struct {
	Store carryover.Store
	DB    string // the local store, beside which the marks and indexes are
	Log   string // the log ("" for none)
	Out   io.Writer
	// Text shows archived text (titles) on Out: termsafe.Line on a
	// terminal.
	Text func(string) string
}

// MinPrefix is the shortest prefix of a session id forget takes: a
// character or two matches some session in most archives, by accident.
const MinPrefix = 4

// ErrCancelled is the answer to a confirmation that was not yes.
var ErrCancelled = errors.New("forget cancelled: nothing was removed")

// Label names a session for a confirmation: its id, project, title and
// subagents, its archived text through text.
func Label(s carryover.Session, text func(string) string) string {
	what := s.ID
	if s.Project != "" {
		what += fmt.Sprintf(" (%s: %s)", text(s.Project), text(truncate(s.Title, 60)))
	}
	if s.Subagents > 0 {
		what += " with its " + plural(s.Subagents, "subagent")
	}
	return what
}

// Forget removes the session and reports what it removed.
func (f *Forgetter) Forget(ctx context.Context, sess carryover.Session) error {
	st, out := f.Store, f.Out
	before, err := st.Size(ctx)
	if err != nil {
		return err
	}
	rep, err := st.Prune(ctx, carryover.PruneFilter{SessionID: sess.ID, Forget: true})
	if err != nil {
		return fmt.Errorf("forget %s: %w", sess.ID, err)
	}
	fmt.Fprintf(out, "forgot session %s", sess.ID)
	if sess.Project != "" {
		fmt.Fprintf(out, " (%s: %s)", f.Text(sess.Project), f.Text(truncate(sess.Title, 60)))
	}
	fmt.Fprintln(out)
	if n := len(rep.Sessions) - 1; n > 0 {
		fmt.Fprintf(out, "with its %s\n", plural(n, "subagent"))
	}
	fmt.Fprintf(out, "removed %s (with their full-text and vector rows), %s, %s, %s, %s, and its hook runs%s\n",
		plural(rep.Chunks, "chunk"), plural(rep.Items, "item"), plural(rep.Compactions, "compaction"),
		plural(rep.Injections, "injection"), plural(rep.Notes, "note"), keptShared(rep))
	fmt.Fprintf(out, "it will not be archived again (its hooks, 'carryover ingest', import and sync skip it); "+
		"undo with 'carryover forget --undo %s'\n", sess.ID)
	// A mark left by a hook that wrote offline names the session.
	if err := os.Remove(filepath.Join(spool.Dir(f.DB), sess.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the session's pending mark: %w", err)
	}
	// So does its recall index, by a hash: no trace of the session stays.
	if err := hook.RemoveRecallIndex(f.DB, sess.ID); err != nil {
		return fmt.Errorf("remove the session's recall index: %w", err)
	}

	if comp, ok := st.(compacter); ok {
		if err := comp.Compact(ctx); err != nil {
			return &carryover.HintError{Err: fmt.Errorf("erase the removed text from the store's files (the rows are already removed): %w", err),
				Hint: "run 'carryover forget' again when no Claude Code session is writing: it compacts the store again"}
		}
		after, err := st.Size(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "erased its text from the store's files (index merged, store rebuilt, WAL truncated): %s -> %s\n",
			FormatSize(before), FormatSize(after))
	}

	n := 0
	for _, id := range append([]string{sess.ID}, rep.Sessions...) {
		// A subagent's id of the subagents/ layout holds its parent's:
		// the parent's lines cover it.
		if id != sess.ID && strings.HasPrefix(id, sess.ID+"/") {
			continue
		}
		k, err := scrubLog(f.Log, id)
		if err != nil {
			return fmt.Errorf("remove the session from the log: %w", err)
		}
		n += k
	}
	if n > 0 {
		fmt.Fprintf(out, "removed %s naming it from the log\n", plural(n, "line"))
	}
	if sess.TranscriptPath != "" {
		if _, err := os.Stat(sess.TranscriptPath); err == nil {
			fmt.Fprintf(out, "its transcript %s is Claude Code's file and was left alone\n", sess.TranscriptPath)
		}
	}
	return nil
}

// Unarchived is the session of exact id id when it was never archived
// but notes or audit records name it, which forget removes too; ok is
// false when nothing names it.
func (f *Forgetter) Unarchived(ctx context.Context, id string) (s carryover.Session, ok bool, err error) {
	if carryover.ValidArchivedID(id) != nil {
		return s, false, nil
	}
	dry, err := f.Store.Prune(ctx, carryover.PruneFilter{SessionID: id, DryRun: true})
	if err != nil {
		return s, false, err
	}
	return carryover.Session{ID: id}, dry.Injections+dry.Notes > 0, nil
}

// Unforget removes the forgotten record of the session with exact id id.
func (f *Forgetter) Unforget(ctx context.Context, id string) error {
	if err := f.Store.Unforget(ctx, id); errors.Is(err, carryover.ErrNotFound) {
		return &carryover.HintError{Err: fmt.Errorf("session %s is not forgotten", id), Hint: "give the exact session id that 'carryover forget' printed"}
	} else if err != nil {
		return fmt.Errorf("forget --undo %s: %w", id, err)
	}
	fmt.Fprintf(f.Out, "session %s may be archived again: its next hook or 'carryover ingest' archives its transcript\n", id)
	return nil
}

// truncate shortens s, on one line, to n runes.
func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// scrubLog drops the lines that contain needle from the log and its rotated
// copy, and returns how many it dropped. A log that is not a regular file
// is left alone (carryover never writes through a symlink).
func scrubLog(path, needle string) (int, error) {
	if path == "" { // no log (no place for one)
		return 0, nil
	}
	total := 0
	for _, p := range []string{path, path + ".1"} {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return total, err
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return total, err
		}
		if !logfile.Own(data) {
			continue // CARRYOVER_LOG may name any file: only carryover's log is rewritten
		}
		var kept bytes.Buffer
		n := 0
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 64*1024), len(data)+1)
		for sc.Scan() {
			if bytes.Contains(sc.Bytes(), []byte(needle)) {
				n++
				continue
			}
			kept.Write(sc.Bytes())
			kept.WriteByte('\n')
		}
		if err := sc.Err(); err != nil {
			return total, err
		}
		if n == 0 {
			continue
		}
		tmp, err := os.CreateTemp(filepath.Dir(p), ".carryover-log-*")
		if err != nil {
			return total, err
		}
		_, werr := tmp.Write(kept.Bytes())
		if cerr := tmp.Close(); werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = replace.File(tmp.Name(), p)
		}
		if werr != nil {
			os.Remove(tmp.Name())
			return total, werr
		}
		total += n
	}
	return total, nil
}
