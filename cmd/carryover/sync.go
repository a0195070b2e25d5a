package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/carryover-dev/carryover/internal/progress"
	"github.com/carryover-dev/carryover/replicate"
	"github.com/carryover-dev/carryover/spool"
	"github.com/carryover-dev/carryover/storeopen"
)

// cmdSync pushes what hooks wrote to the local store while the server was
// unreachable: the pending sessions, or with --all the whole local archive.
func (a *app) cmdSync(ctx context.Context, args []string) error {
	fs := a.newFlags("sync")
	all := fs.Bool("all", false, "push the whole local archive, not only the pending sessions")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr{"sync takes no arguments"}
	}
	cfg, err := a.loadConfig(cwd())
	if err != nil {
		return err
	}
	if cfg.DatabaseURL == "" {
		return hintErr{errors.New("no server configured: there is nothing to sync to"),
			"set database_url in the config file or CARRYOVER_DATABASE_URL (see docs/sync.md)"}
	}
	if err := checkURL(cfg.DatabaseURL); err != nil {
		return err
	}
	marks, err := spool.Pending(cfg.DB)
	if err != nil {
		return fmt.Errorf("pending sessions: %w", err)
	}
	if _, err := os.Stat(cfg.DB); errors.Is(err, os.ErrNotExist) || len(marks) == 0 && !*all {
		fmt.Fprintln(a.stdout, "carryover: nothing to sync: no session is pending")
		return nil
	}
	server, err := openServer(ctx, cfg, cfg.DatabaseURL, cliConnectTimeout)
	if err != nil {
		return hintErr{err, serverHint(cfg.DatabaseURL)}
	}
	defer server.Close()
	bar := progress.New(a.stderr, 0, "sync")
	var rep replicate.Report
	if *all {
		local, err := a.openLocal(ctx, cfg.DB, true)
		if err != nil {
			return err
		}
		defer local.Close()
		rep, err = replicate.Copy(ctx, server, local, replicate.Options{Progress: copyProgress(bar)})
		bar.Done()
		if err != nil {
			return hintErr{fmt.Errorf("sync: %w", err), resumeHint}
		}
		for _, m := range marks {
			if err := m.Clear(); err != nil {
				return fmt.Errorf("clear pending mark: %w", err)
			}
		}
	} else {
		var left []spool.Mark
		left, rep, err = spool.Push(ctx, server, cfg.DB, marks, spool.PushOptions{Progress: copyProgress(bar), Log: a.log})
		bar.Done()
		if err != nil {
			return hintErr{fmt.Errorf("sync: %w (%s still pending)", err, plural(len(left), "session")), resumeHint}
		}
	}
	fmt.Fprintf(a.stdout, "carryover: synced %s to %s\n", rep.Summary(), storeopen.RedactURL(cfg.DatabaseURL))
	return nil
}

const resumeHint = "run the same command again to finish: what was copied is kept and nothing is copied twice"

func cwd() string {
	d, _ := os.Getwd()
	return d
}

// copyProgress shows a copy's progress in sessions on bar (a terminal's).
func copyProgress(bar *progress.Bar) func(replicate.Progress) {
	return func(r replicate.Progress) { bar.Reach(int64(r.SessionsDone), int64(r.SessionsTotal)) }
}
