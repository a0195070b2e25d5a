package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/internal/progress"
	"github.com/carryover-dev/carryover/retention"
	"github.com/carryover-dev/carryover/termsafe"
)

func (a *app) cmdPrune(ctx context.Context, args []string) error {
	fl := a.newFlags("prune")
	olderThan := fl.String("older-than", "", "sessions last updated longer ago than this age (90d, 2w, 36h)")
	maxSize := fl.String("max-size", "", "remove the oldest sessions until the store is under this size (2GB, 500MiB)")
	project := fl.String("project", "", "only sessions of this project: its directory, or any path inside it (\".\" for the current one)")
	session := fl.String("session", "", "only this session, with its subagents (id or unique prefix)")
	yes := fl.Bool("yes", false, "remove them (without it, only show what would go)")
	dryRun := fl.Bool("dry-run", false, "only show what would go (what prune does without --yes)")
	noCompact := fl.Bool("no-compact", false, "do not rebuild the store afterwards: freed space is reused, the file does not shrink")
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr{fmt.Sprintf("prune: unexpected argument %q (give --older-than, --max-size, --project or --session)", pos[0])}
	}
	if *dryRun && *yes {
		return usageErr{"prune: --dry-run and --yes contradict each other: give one"}
	}
	if *olderThan == "" && *maxSize == "" && *project == "" && *session == "" {
		return usageErr{"prune: say what to remove: --older-than AGE, --max-size SIZE, --project DIR or --session ID"}
	}
	c := retention.Criteria{MaxSize: -1}
	if *olderThan != "" {
		age, err := retention.ParseAge(*olderThan)
		if err != nil {
			return usageErr{"prune: --older-than: " + err.Error()}
		}
		c.Before = time.Now().Add(-age)
	}
	if *maxSize != "" {
		if c.MaxSize, err = retention.ParseSize(*maxSize); err != nil {
			return usageErr{"prune: --max-size: " + err.Error()}
		}
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
	if *project != "" {
		if c.Project, err = resolveProject(ctx, st, *project); err != nil {
			return err
		}
	}
	sh, err := shortener(ctx, st)
	if err != nil {
		return err
	}
	if *session != "" {
		s, err := findSession(ctx, st, *session)
		if err != nil {
			return err
		}
		c.Session = &s
	}
	plan, err := retention.Select(ctx, st, c)
	if err != nil {
		return err
	}
	if len(plan.Sessions) == 0 {
		fmt.Fprintf(a.stdout, "nothing to prune (store %s, %s)\n", retention.FormatSize(plan.Size), plural(plan.Total, "session"))
		return nil
	}
	text := a.archivedText(a.stdout)
	bar := progress.New(a.stderr, int64(len(plan.Sessions)), "prune")
	out := bar.Writer(a.stdout)
	total, err := plan.Prune(ctx, st, !*yes, func(s carryover.Session, rep carryover.PruneReport) {
		fmt.Fprintf(out, "  %s  %s  %s  ~%s  %s  %s\n", sh.Short(s.ID), s.Updated.Local().Format("2006-01-02"),
			plural(rep.Chunks, "chunk"), retention.FormatSize(plan.Bytes(s)), text(s.Project), text(truncate(s.Title, 50)))
		bar.Add(1)
	})
	bar.Done()
	if err != nil {
		return err
	}
	fmt.Fprint(a.stdout, plan.Summary(total, !*yes))
	if !*yes {
		return nil
	}
	return cliErr(retention.AfterDelete(ctx, a.stdout, st, plan.Size, *noCompact, func() {
		if progress.IsTerminal(a.stderr) {
			fmt.Fprintln(a.stderr, "compacting the store…")
		}
	}))
}

// archivedText is how archived text (titles, prompts, chunks) is shown on
// w: escaped on a terminal, where an escape sequence in it would act.
func (a *app) archivedText(w io.Writer) func(string) string {
	if progress.IsTerminal(w) {
		return termsafe.Line
	}
	return func(s string) string { return s }
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
