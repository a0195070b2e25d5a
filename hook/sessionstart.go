package hook

import (
	"context"
	"fmt"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/projectdir"
	"github.com/carryover-dev/carryover/retrieve"
)

// SessionStart runs when a session starts, resumes, or continues after a
// compaction. After a compaction (source "compact") it archives the
// boundary and the summary Claude Code just wrote and injects the restore:
// what the summary most likely lost, within the budget. On a resume it
// injects the restore of the current window unless the transcript already
// holds it (Claude Code re-sends it). On startup, when enabled, it injects
// a brief of the project's last session. After a compaction it also
// writes the session's recall index, which PostToolUse reads.
func (r *run) sessionStart(ctx context.Context) error {
	in, cfg := r.in, r.h.Config
	if in.Source == "startup" && cfg.StartupBrief {
		project := projectdir.Root(in.Cwd)
		blk, err := retrieve.StartupBrief(ctx, r.st, retrieve.BriefRequest{Project: project, SessionID: in.SessionID})
		if err != nil {
			return fmt.Errorf("startup brief: %w", err)
		}
		return r.inject(ctx, "SessionStart:startup", project, 0, blk)
	}
	if in.Source != "compact" && in.Source != "resume" {
		return nil
	}
	// The compaction's boundary and summary are in the transcript by now.
	rep, err := r.archiveLogged(ctx)
	if err != nil {
		return err
	}
	// The archive read the session and knows what it wrote: read again
	// only when it could not tell (one round trip less on a server).
	sess := rep.Session
	if sess.ID != in.SessionID || in.SessionID == "" {
		if sess, err = carryover.SessionWithoutCounts(ctx, r.st, in.SessionID); err != nil {
			return fmt.Errorf("session: %w", err)
		}
	}
	r.knowProject(sess.Project)
	window := sess.Windows
	if in.Source == "compact" && window == 0 {
		window = 1 // the boundary is not written yet: everything archived is before it
	}
	if window == 0 {
		return nil // a resume of a session that never compacted
	}
	if in.Source == "resume" {
		if _, ok := readRecallIndex(r.h.Config.DB, in.SessionID); !ok {
			// What PostToolUse's file recall may be asked about in this window.
			if err := r.updateRecallIndex(ctx, sess, window, nil); err != nil {
				r.h.log().Warn("recall index", "session", in.SessionID, "err", err)
			}
		}
		// The restore of this window is in the transcript already and is
		// re-sent on resume.
		prev, err := carryover.ReadInjectionsWithoutText(ctx, r.st, in.SessionID, 50)
		if err != nil {
			return err
		}
		for _, p := range prev {
			if strings.HasPrefix(p.Event, "SessionStart") && p.Window == window {
				return nil
			}
		}
	}
	// The summary of the compaction that just ran, when the archive above
	// read it (an empty one does not replace a stored one); else the
	// restore reads the stored one.
	summary, kept := "", ""
	for _, c := range rep.Compactions {
		if c.Window == window && c.Summary != "" {
			summary = c.Summary
		}
	}
	if in.Source == "compact" {
		// What the compaction kept verbatim is in the model's context, like
		// the summary: the restore spends nothing on it.
		kept = preservedText(in.TranscriptPath)
	}
	// After a compaction the recall index is written from the items the
	// restore reads rather than read again.
	st := &itemsRead{Store: r.st}
	blk, err := retrieve.Restore(ctx, st, retrieve.RestoreRequest{
		SessionID: in.SessionID, Project: sess.Project, Root: worktreeRoot(in.Cwd), Window: window, Summary: summary, Kept: kept,
		Budget: min(cfg.Budget, composeMax), Shares: cfg.RestoreShares,
	})
	if in.Source == "compact" {
		if err := r.updateRecallIndex(ctx, sess, window, st.recallItems(window)); err != nil {
			r.h.log().Warn("recall index", "session", in.SessionID, "err", err)
		}
	}
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	return r.inject(ctx, "SessionStart:"+in.Source, sess.Project, window, blk)
}

// worktreeRoot is the root of the linked worktree cwd is in, or "" when it
// is in none: a session there is its repository's project, but its files
// are under the worktree, and paths shown relative to the main worktree
// would be written out in full.
func worktreeRoot(cwd string) string {
	if project, work := projectdir.Roots(cwd); work != project {
		return work
	}
	return ""
}
