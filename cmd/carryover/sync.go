package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/carryover-dev/carryover/internal/progress"
	"github.com/carryover-dev/carryover/postgres"
	"github.com/carryover-dev/carryover/replicate"
	"github.com/carryover-dev/carryover/spool"
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
	pr := newProgress(a.stderr, "sync")
	var rep replicate.Report
	if *all {
		local, err := a.openLocal(ctx, cfg.DB, true)
		if err != nil {
			return err
		}
		defer local.Close()
		rep, err = replicate.Copy(ctx, server, local, replicate.Options{Progress: pr.update})
		pr.finish()
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
		left, rep, err = spool.Push(ctx, server, cfg.DB, marks, spool.PushOptions{Progress: pr.update, Log: a.log})
		pr.finish()
		if err != nil {
			return hintErr{fmt.Errorf("sync: %w (%d sessions still pending)", err, len(left)), resumeHint}
		}
	}
	fmt.Fprintf(a.stdout, "carryover: synced %s to %s\n", summary(rep), postgres.RedactURL(cfg.DatabaseURL))
	return nil
}

const resumeHint = "run the same command again to finish: what was copied is kept and nothing is copied twice"

// summary renders a copy's report.
func summary(r replicate.Report) string {
	s := fmt.Sprintf("%d sessions: %d new chunks, %d items, %d compactions, %d notes, %d injections, %d hook runs",
		r.Sessions, r.Chunks, r.Items, r.Compactions, r.Notes, r.Injections, r.HookRuns)
	if r.Forgotten > 0 {
		s += fmt.Sprintf(" (%s forgotten there skipped)", plural(r.Forgotten, "session"))
	}
	if r.Unmapped > 0 {
		s += fmt.Sprintf(" (%d audit references without a counterpart left out)", r.Unmapped)
	}
	return s
}

func cwd() string {
	d, _ := os.Getwd()
	return d
}

// copyProgress shows a copy's progress in sessions on a terminal bar, and
// nothing when w is not a terminal.
type copyProgress struct {
	bar  *progress.Bar
	done int
}

func newProgress(w io.Writer, what string) *copyProgress {
	return &copyProgress{bar: progress.New(w, 0, what)}
}

func (p *copyProgress) update(r replicate.Progress) {
	p.bar.SetTotal(int64(r.SessionsTotal))
	if r.SessionsDone > p.done {
		p.bar.Add(int64(r.SessionsDone - p.done))
		p.done = r.SessionsDone
	}
}

func (p *copyProgress) finish() { p.bar.Done() }
