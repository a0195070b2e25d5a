package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/carryover-dev/carryover/internal/cmdhelp"
	"github.com/carryover-dev/carryover/statusline"
)

// cmdStatusline prints the status line (package statusline). Whatever
// happens it exits 0 with a line (possibly only the wrapped command's):
// Claude Code shows stdout.
func (a *app) cmdStatusline(ctx context.Context, args []string) int {
	signal.Ignore(syscall.SIGPIPE) // as for hooks: a closed stdout is no reason to die
	fl := a.newFlags("statusline")
	wrap := fl.String("wrap", "", "a status line command to run first (same stdin); its output is kept before carryover's")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return a.fail(err) // prints the help, exits 0
		}
		return a.usageError(cmdhelp.FlagHint(fl, err.Error()))
	}
	data, err := io.ReadAll(io.LimitReader(a.stdin, statusline.MaxInput))
	if err != nil {
		a.logger().Error("statusline: read stdin", "err", err)
	}
	l := &statusline.Line{
		Load: func(dir string) (statusline.Config, error) {
			cfg, err := a.loadConfig(dir)
			if err != nil {
				return statusline.Config{}, err
			}
			state := ""
			if cfg.Dirs.State != "" {
				state = filepath.Join(cfg.Dirs.State, "statusline")
			}
			return statusline.Config{DB: cfg.DB, Timeout: cfg.HookTimeout, Redactor: cfg.Redactor, StateDir: state}, nil
		},
		Log: a.logger,
	}
	if line := l.Render(ctx, data, *wrap); line != "" {
		fmt.Fprintln(a.stdout, line)
	}
	return 0
}

// logger opens the log on first use: the status line's usual path writes
// none.
func (a *app) logger() *slog.Logger {
	a.logMu.Lock()
	defer a.logMu.Unlock()
	if !a.log.Enabled(context.Background(), slog.LevelError) {
		a.openLog()
	}
	return a.log
}
