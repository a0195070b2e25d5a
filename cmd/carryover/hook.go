package main

import (
	"context"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/carryover-dev/carryover/hook"
)

// cmdHook runs one hook event (package hook does the work). Whatever
// happens it exits 0: exit 2 would block a compaction. Failures go to the
// log.
func (a *app) cmdHook(ctx context.Context, args []string) int {
	// A reader that goes away (Claude Code cancelled, or a shell's
	// '| head') must not kill the hook with SIGPIPE (exit 141): the write
	// fails, the failure is logged, and the hook exits 0.
	signal.Ignore(syscall.SIGPIPE)
	a.openLog()
	// post-tool-use takes --archive: install --post-tool-use runs it for
	// every tool to archive after each call.
	archive := len(args) == 2 && args[1] == "--archive"
	if len(args) != 1 && !archive {
		a.log.Error("hook: want exactly one event argument", "args", args)
		return 0
	}
	ev, ok := hook.ParseEvent(args[0])
	if !ok || archive && ev != hook.PostToolUse {
		a.log.Error("hook: unknown event", "args", args)
		return 0
	}
	cfg, err := a.loadConfig(a.getenv("CLAUDE_PROJECT_DIR"))
	if err != nil {
		// No absolute place for the store: doing nothing beats a store in the project.
		a.log.Error("hook: nothing done", "event", ev, "err", err)
		return 0
	}
	if hook.ReadsMostly(ev, archive) {
		// Collecting half as often saves a tenth of a restore; the archiving
		// hooks keep the default (a larger heap costs them page faults).
		debug.SetGCPercent(200)
	}
	h := a.hookHandler(cfg)
	h.Config.PostToolUseArchive, h.OneShot = archive, true
	h.Run(ctx, ev, a.stdin, a.stdout)
	return 0
}

// hookHandler is the handler of the hooks for a configuration.
func (a *app) hookHandler(cfg config) *hook.Handler {
	return &hook.Handler{
		Config: hook.Config{
			DB: cfg.DB, DatabaseURL: cfg.DatabaseURL, Owner: cfg.Owner, Team: cfg.Team,
			Budget: cfg.Budget, RecallBudget: cfg.RecallBudget, Recall: cfg.Recall, StartupBrief: cfg.StartupBrief,
			CompactInstructions: cfg.CompactInstructions,
			Timeout:             cfg.HookTimeout, SessionEndTimeout: cfg.SessionEndTimeout,
		},
		Redactor: cfg.Redactor,
		Log:      a.log,
		Start:    a.start,
	}
}
