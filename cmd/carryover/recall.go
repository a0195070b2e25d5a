package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/retrieve"
	"github.com/carryover-dev/carryover/termsafe"
)

// cmdRecall shows what UserPromptSubmit would inject for a prompt, in a
// session or as the first prompt of a new session of a project. --explain
// adds every candidate the search found, its scores and the thresholds.
func (a *app) cmdRecall(ctx context.Context, args []string) error {
	fl := a.newFlags("recall")
	session := fl.String("session", "", "as a prompt of this session (id or unique prefix); default: the first prompt of a new session")
	project := fl.String("project", "", "the project (default: the session's, else $CLAUDE_PROJECT_DIR, else the current directory)")
	explain := fl.Bool("explain", false, "show every candidate with its scores, the thresholds, and why each was injected or left out")
	words, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	prompt := strings.TrimSpace(strings.Join(words, " "))
	if prompt == "" {
		return usageErr{"recall: give a prompt"}
	}
	dir, err := projectDir(*project, a.getenv)
	if err != nil {
		return err
	}
	cfg, err := a.loadConfig(dir)
	if err != nil {
		return err
	}
	if err := a.checkArchived(cfg); err != nil {
		return err
	}
	// A recall reads as the hook does.
	st, err := a.openSearchStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	req := retrieve.RecallRequest{Project: dir, Prompt: prompt, Budget: cfg.RecallBudget}
	where := "a new session of " + dir
	if *session != "" {
		s, err := findSession(ctx, st, *session)
		if err != nil {
			return err
		}
		// As the hook: the session's project, its current window, and
		// nothing injected in that window again.
		req.SessionID, req.Window = s.ID, s.Windows
		if *project == "" && s.Project != "" {
			req.Project = s.Project
		}
		if req.Exclude, err = injectedIn(ctx, st, s.ID, s.Windows); err != nil {
			return err
		}
		where = fmt.Sprintf("session %s (window %d) of %s", carryover.ShortID(s.ID), s.Windows, req.Project)
	}
	ex, err := retrieve.ExplainRecall(ctx, st, req)
	if err != nil {
		return err
	}
	w := a.stdout
	fmt.Fprintf(w, "recall for %s\n", termsafe.Line(where))
	if !cfg.Recall {
		fmt.Fprintln(w, "recall is off in this configuration (recall = false): the hook injects nothing; with it on:")
	}
	if *explain {
		explainRecall(w, ex, len(req.Exclude))
	}
	if ex.Block.Text == "" {
		fmt.Fprintln(w, "nothing would be injected")
		return nil
	}
	fmt.Fprintf(w, "would inject %d chars, %s:\n", len(ex.Block.Text), plural(len(ex.Block.ChunkIDs), "chunk"))
	for line := range strings.Lines(ex.Block.Text) {
		fmt.Fprintf(w, "| %s\n", termsafe.Line(strings.TrimRight(line, "\n")))
	}
	return nil
}

// injectedIn returns the chunks already injected into a session's window,
// which a recall there does not inject again.
func injectedIn(ctx context.Context, st carryover.Store, sessionID string, window int) (map[int64]bool, error) {
	// The hook reads the same 200 newest records.
	prev, err := st.Injections(ctx, sessionID, 200)
	if err != nil {
		return nil, err
	}
	ids := map[int64]bool{}
	for _, p := range prev {
		if p.Window == window {
			for _, id := range p.ChunkIDs {
				ids[id] = true
			}
		}
	}
	return ids, nil
}

// explainRecall prints the signals and thresholds of a recall and what
// became of each candidate.
func explainRecall(w io.Writer, ex retrieve.RecallExplanation, excluded int) {
	if ex.Skipped != "" {
		fmt.Fprintf(w, "not searched: %s\n", ex.Skipped)
		return
	}
	fmt.Fprintf(w, "searched for: %s (intent: %s)\n", termsafe.Line(ex.Query), ex.Intent)
	fmt.Fprintf(w, "thresholds: BM25 ≥ %g, coverage ≥ %g of the prompt's informative words (weighted), at least %d of them or one identifier; at most %d hits; %d chunks already injected in this window are skipped\n",
		ex.MinScore, ex.MinCoverage, retrieve.RecallMinTerms, retrieve.RecallMaxHits, excluded)
	if len(ex.Candidates) == 0 {
		fmt.Fprintln(w, "no candidates: no chunk holds a searched word")
		return
	}
	for _, injected := range []bool{true, false} {
		var rows []retrieve.RecallCandidate
		for _, c := range ex.Candidates {
			if c.Injected == injected {
				rows = append(rows, c)
			}
		}
		if len(rows) == 0 {
			continue
		}
		if injected {
			fmt.Fprintf(w, "injected (%d):\n", len(rows))
		} else {
			fmt.Fprintf(w, "left out (%d):\n", len(rows))
		}
		for _, c := range rows {
			ch := c.Hit.Chunk
			fmt.Fprintf(w, "  chunk %d  session %s turn %d window %d L%d-%d  score %.2f  BM25 %.2f  words %d/%d  coverage %.2f\n",
				ch.ID, termsafe.Line(carryover.ShortID(ch.SessionID)), ch.Turn, ch.Window, ch.FirstLine, ch.LastLine,
				c.Hit.Score, c.Hit.BM25, c.Words, c.Of, c.Coverage)
			if !injected {
				fmt.Fprintf(w, "    why: %s\n", termsafe.Line(c.Why))
			}
			fmt.Fprintf(w, "    %s\n", termsafe.Line(truncate(ch.Text, 120)))
		}
	}
}
