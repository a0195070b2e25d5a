package hook

import (
	"context"
	"errors"
	"fmt"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/projectdir"
	"github.com/carryover-dev/carryover/retrieve"
)

// UserPromptSubmit runs on every prompt the user sends. It searches this
// session's earlier context windows, then the project's other sessions,
// for the prompt, and injects the few chunks that clear the relevance
// threshold and were not injected in this window yet. Usually it injects
// nothing.
func (r *run) userPrompt(ctx context.Context) error {
	in, cfg := r.in, r.h.Config
	if !cfg.Recall {
		return nil
	}
	sess, prev, err := carryover.ReadSessionAndInjections(ctx, r.st, in.SessionID, 200)
	fresh := errors.Is(err, carryover.ErrNotFound)
	if fresh {
		// Nothing archived of this session yet (its first prompt, or the
		// first after /clear): the project's other sessions may still know.
		sess = carryover.Session{ID: in.SessionID, Project: projectdir.Root(in.Cwd)}
	} else if err != nil {
		return fmt.Errorf("session: %w", err)
	} else {
		r.knowProject(sess.Project)
	}
	exclude := map[int64]bool{}
	for _, p := range prev {
		if p.Window == sess.Windows {
			for _, id := range p.ChunkIDs {
				exclude[id] = true
			}
		}
	}
	blk, err := retrieve.Recall(ctx, r.st, retrieve.RecallRequest{
		SessionID: in.SessionID, Project: sess.Project, Prompt: in.Prompt, Window: sess.Windows,
		Budget: min(cfg.RecallBudget, composeMax), Exclude: exclude,
		MinScore: cfg.RecallThresholds.MinScore, MinCoverage: cfg.RecallThresholds.MinCoverage,
		NewSession: &fresh, // looked up above: the recall need not ask again
	})
	if err != nil {
		return fmt.Errorf("recall: %w", err)
	}
	return r.inject(ctx, "UserPromptSubmit", sess.Project, sess.Windows, blk)
}
