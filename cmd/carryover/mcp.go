package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/carryover-dev/carryover/mcpserver"
)

// cmdMCP serves carryover's MCP tools on stdin and stdout until the client
// closes stdin. Nothing but protocol messages may reach stdout: logs go to
// the log file.
func (a *app) cmdMCP(ctx context.Context, args []string) error {
	fl := a.newFlags("mcp")
	project := fl.String("project", "", "project directory the tools are scoped to (default: $CLAUDE_PROJECT_DIR, else the current directory)")
	session := fl.String("session", "", "current session id (default: $CLAUDE_CODE_SESSION_ID, else the project's latest session)")
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr{"mcp: takes no arguments"}
	}
	dir, err := projectDir(*project, a.getenv)
	if err != nil {
		return err
	}
	sid := strings.TrimSpace(*session)
	if sid == "" {
		sid = strings.TrimSpace(a.getenv("CLAUDE_CODE_SESSION_ID"))
	}
	cfg, st, err := a.readStore(ctx, dir, true)
	if err != nil {
		return err
	}
	defer st.Close()
	// Scoped to the project the directory belongs to, as its sessions are
	// archived: a subdirectory or a worktree finds the repository's.
	if dir, _, err = projectOrRoot(ctx, st, dir); err != nil {
		return err
	}
	log := a.log.With("cmd", "mcp")
	log.Info("mcp server start", "project", dir, "session", sid, "db", cfg.DB)
	srv := mcpserver.New(st, mcpserver.Options{Project: dir, SessionID: sid, Version: versionString(), Logger: log, Redactor: a.redactor})
	err = srv.Serve(ctx, a.stdin, a.stdout)
	log.Info("mcp server stop", "err", err)
	if err == nil || errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("mcp: %w", err)
}
