package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/spool"
)

// cmdForget removes one session everywhere carryover keeps it: its rows
// (chunks with their full-text and vector rows, items, compactions, audit
// records, notes, hook runs), the older copies deletion leaves in the
// store's files (see sqlite.Store.Compact), and the log lines that name it.
// carryover keeps no other copy: the transcript is Claude Code's file. The
// store records the session as forgotten, so that its next hook, an ingest,
// an import or a sync does not archive it again; --undo removes the record.
func (a *app) cmdForget(ctx context.Context, args []string) error {
	fl := a.newFlags("forget")
	undo := fl.Bool("undo", false, "let a forgotten session be archived again (give its exact id)")
	yes := fl.Bool("yes", false, "do not ask before forgetting a session given by a prefix of its id")
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr{fmt.Sprintf("forget: give one session id (or a unique prefix of at least %d characters)", minForgetPrefix)}
	}
	cfg, err := a.loadConfig("")
	if err != nil {
		return err
	}
	st, err := a.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	if *undo {
		return a.unforget(ctx, st, pos[0])
	}

	sess, err := a.forgetTarget(ctx, st, pos[0], *yes)
	if errors.Is(err, errCancelled) {
		return err
	}
	if err != nil {
		// Notes and audit records may name a session that was never
		// archived: an exact id still finds them.
		if carryover.ValidArchivedID(pos[0]) != nil {
			return err
		}
		dry, derr := st.Prune(ctx, carryover.PruneFilter{SessionID: pos[0], DryRun: true})
		if derr != nil {
			return derr
		}
		if dry.Injections+dry.Notes == 0 {
			return err
		}
		sess = carryover.Session{ID: pos[0]}
	}
	before, err := st.Size(ctx)
	if err != nil {
		return err
	}
	rep, err := st.Prune(ctx, carryover.PruneFilter{SessionID: sess.ID, Forget: true})
	if err != nil {
		return fmt.Errorf("forget %s: %w", sess.ID, err)
	}
	fmt.Fprintf(a.stdout, "forgot session %s", sess.ID)
	if sess.Project != "" {
		fmt.Fprintf(a.stdout, " (%s: %s)", sess.Project, truncate(sess.Title, 60))
	}
	fmt.Fprintln(a.stdout)
	if n := len(rep.Sessions) - 1; n > 0 {
		fmt.Fprintf(a.stdout, "with its %s\n", plural(n, "subagent"))
	}
	fmt.Fprintf(a.stdout, "removed %d chunks (with their full-text and vector rows), %d items, %d compactions, %d injections, %d notes, and its hook runs\n",
		rep.Chunks, rep.Items, rep.Compactions, rep.Injections, rep.Notes)
	fmt.Fprintf(a.stdout, "it will not be archived again (its hooks, 'carryover ingest', import and sync skip it); "+
		"undo with 'carryover forget --undo %s'\n", sess.ID)
	// A mark left by a hook that wrote offline names the session.
	if err := os.Remove(filepath.Join(spool.Dir(cfg.DB), sess.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the session's pending mark: %w", err)
	}
	// So does its recall index, by a hash: no trace of the session stays.
	if err := hook.RemoveRecallIndex(cfg.DB, sess.ID); err != nil {
		return fmt.Errorf("remove the session's recall index: %w", err)
	}

	if comp, ok := st.(compacter); ok {
		if err := comp.Compact(ctx); err != nil {
			return hintErr{fmt.Errorf("erase the removed text from the store's files (the rows are already removed): %w", err),
				"run 'carryover forget' again when no Claude Code session is writing: it compacts the store again"}
		}
		after, err := st.Size(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "erased its text from the store's files (index merged, store rebuilt, WAL truncated): %s -> %s\n",
			formatSize(before), formatSize(after))
	}

	n := 0
	for _, id := range append([]string{sess.ID}, rep.Sessions...) {
		// A subagent's id of the subagents/ layout holds its parent's:
		// the parent's lines cover it.
		if id != sess.ID && strings.HasPrefix(id, sess.ID+"/") {
			continue
		}
		k, err := scrubLog(logPath(a.getenv), id)
		if err != nil {
			return fmt.Errorf("remove the session from the log: %w", err)
		}
		n += k
	}
	if n > 0 {
		fmt.Fprintf(a.stdout, "removed %s naming it from the log\n", plural(n, "line"))
	}
	if sess.TranscriptPath != "" {
		if _, err := os.Stat(sess.TranscriptPath); err == nil {
			fmt.Fprintf(a.stdout, "its transcript %s is Claude Code's file and was left alone\n", sess.TranscriptPath)
		}
	}
	return nil
}

// minForgetPrefix is the shortest prefix of a session id forget takes: a
// character or two matches some session in most archives, by accident.
const minForgetPrefix = 4

var errCancelled = errors.New("forget cancelled: nothing was removed")

// forgetTarget finds the session forget removes: the session with the
// exact id, or the one session whose id starts with a prefix of at least
// minForgetPrefix characters, once the user confirmed it (unless yes).
func (a *app) forgetTarget(ctx context.Context, st carryover.Store, id string, yes bool) (carryover.Session, error) {
	if s, err := st.Session(ctx, id); err == nil {
		return s, nil
	}
	if len(id) < minForgetPrefix {
		return carryover.Session{}, usageErr{fmt.Sprintf("forget: %q is too short to name a session: give its exact id or at least %d characters of it ('carryover sessions' lists them)",
			id, minForgetPrefix)}
	}
	sess, err := findSession(ctx, st, id)
	if err != nil || yes {
		return sess, err
	}
	what := sess.ID
	if sess.Project != "" {
		what += fmt.Sprintf(" (%s: %s)", sess.Project, truncate(sess.Title, 60))
	}
	if sess.Subagents > 0 {
		what += " with its " + plural(sess.Subagents, "subagent")
	}
	fmt.Fprintf(a.stderr, "%q matches session %s.\nforget it everywhere, for good? type yes: ", id, what)
	line, _ := bufio.NewReader(a.stdin).ReadString('\n')
	if strings.TrimSpace(line) != "yes" {
		return carryover.Session{}, errCancelled
	}
	return sess, nil
}

// unforget removes the forgotten record of the session with exact id id.
func (a *app) unforget(ctx context.Context, st carryover.Store, id string) error {
	if err := carryover.ValidArchivedID(id); err != nil {
		return usageErr{"forget --undo: " + err.Error()}
	}
	if err := st.Unforget(ctx, id); errors.Is(err, carryover.ErrNotFound) {
		return hintErr{fmt.Errorf("session %s is not forgotten", id), "give the exact session id that 'carryover forget' printed"}
	} else if err != nil {
		return fmt.Errorf("forget --undo %s: %w", id, err)
	}
	fmt.Fprintf(a.stdout, "session %s may be archived again: its next hook or 'carryover ingest' archives its transcript\n", id)
	return nil
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
			werr = os.Rename(tmp.Name(), p)
		}
		if werr != nil {
			os.Remove(tmp.Name())
			return total, werr
		}
		total += n
	}
	return total, nil
}
