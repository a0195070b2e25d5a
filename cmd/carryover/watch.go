package main

import (
	"context"
	"fmt"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/carryover-dev/carryover/dashboard"
	"github.com/carryover-dev/carryover/internal/progress"
)

func (a *app) cmdWatch(ctx context.Context, args []string) error {
	fl := a.newFlags("watch")
	interval := fl.Duration("interval", 0, "refresh period (default 2s on a terminal; when not a terminal, print a line every period instead of one snapshot)")
	project := fl.String("project", "", "only this project directory")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	if *interval < 0 || *interval > 0 && *interval < 100*time.Millisecond {
		return usageErr{"watch: --interval must be at least 100ms"}
	}
	cfg, st, err := a.readStore(ctx, "", true)
	if err != nil {
		return err
	}
	defer st.Close()
	r := dashboard.Reader{Store: st, Project: *project, DB: cfg.DB}
	if *project != "" { // "." or a subdirectory names its project, as elsewhere
		if r.Project, err = projectDir(*project, a.getenv); err == nil {
			r.Project, _, err = projectOrRoot(ctx, st, r.Project)
		}
		if err != nil {
			return err
		}
	}
	if !progress.IsTerminal(a.stdout) || !progress.IsTerminal(a.stdin) {
		return watchPlain(ctx, r, a.stdout, *interval)
	}
	every := *interval
	if every == 0 {
		every = 2 * time.Second
	}
	p := tea.NewProgram(dashboard.NewModel(ctx, r, every), tea.WithContext(ctx), tea.WithInput(a.stdin), tea.WithOutput(a.stdout))
	if _, err := p.Run(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("watch: %w", err)
	}
	return nil
}

// watchPlain prints one snapshot, or with a period a summary line each
// period until ctx ends: for pipes, logs and dumb terminals.
func watchPlain(ctx context.Context, r dashboard.Reader, out io.Writer, every time.Duration) error {
	if every == 0 {
		s := r.Read(ctx)
		if s.Err != nil {
			return fmt.Errorf("watch: %w", s.Err)
		}
		_, err := io.WriteString(out, s.Render(r.DB, dashboard.Plain(), 0)+"\n")
		return err
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		s := r.Read(ctx)
		if s.Err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("watch: %w", s.Err)
		}
		if _, err := fmt.Fprintln(out, s.Line()); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
