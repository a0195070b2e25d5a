package main

import (
	"context"
	"errors"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/claudesettings"
	"github.com/carryover-dev/carryover/install"
)

// installer edits the Claude Code configuration of this invocation's user.
func (a *app) installer() *install.Installer {
	return &install.Installer{Getenv: a.getenv, Stdin: a.stdin, Stdout: a.stdout, Stderr: a.stderr}
}

// cliErr turns the errors of the packages the commands drive into the
// CLI's: a bad scope is a usage error (exit 2), a hint is printed.
func cliErr(err error) error {
	var se *install.ScopeError
	if errors.As(err, &se) {
		return usageErr{se.Error()}
	}
	var he *carryover.HintError
	if errors.As(err, &he) {
		return hintErr{err, he.Hint}
	}
	return err
}

// installTarget resolves the settings file of a scope, and the project.
func (a *app) installTarget(scope, project string) (string, string, error) {
	path, proj, err := a.installer().Target(scope, project)
	return path, proj, cliErr(err)
}

// mcpTarget is where Claude Code reads a scope's MCP servers.
func (a *app) mcpTarget(scope, project string) (claudesettings.MCPTarget, error) {
	t, err := a.installer().MCPTarget(scope, project)
	return t, cliErr(err)
}

func (a *app) cmdInstall(ctx context.Context, args []string) error {
	fl := a.newFlags("install")
	var opt install.Options
	fl.StringVar(&opt.Scope, "scope", "user", "where to install: user (~/.claude/settings.json), project (.claude/settings.json) or local (.claude/settings.local.json)")
	fl.StringVar(&opt.Project, "project", "", "project directory for --scope project|local and --claude-md (default: current directory)")
	fl.BoolVar(&opt.DryRun, "dry-run", false, "print the change as a diff and write nothing")
	fl.BoolVar(&opt.ClaudeMD, "claude-md", false, "also add a Compact Instructions section to the project's CLAUDE.md")
	fl.BoolVar(&opt.Startup, "startup", false, "also run on SessionStart(startup)")
	fl.BoolVar(&opt.PostToolUse, "post-tool-use", false, "also archive after every tool call (PostToolUse; costs a process per tool call)")
	fl.StringVar(&opt.Binary, "binary", "", "the carryover binary the hooks and the MCP server run (default: this one)")
	fl.BoolVar(&opt.NoMCP, "no-mcp", false, "do not register carryover's MCP server (carryover mcp) with Claude Code")
	fl.BoolVar(&opt.StatusLine, "statusline", false, "also show carryover's status line (an existing statusLine command is kept and wrapped)")
	fl.BoolVar(&opt.Force, "force", false, "install even when another scope already has carryover's hooks (they would run twice),"+
		" or into project settings with the binary's absolute path when carryover is not on PATH")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	return cliErr(a.installer().Install(opt))
}

func (a *app) cmdUninstall(ctx context.Context, args []string) error {
	fl := a.newFlags("uninstall")
	var opt install.UninstallOptions
	fl.StringVar(&opt.Scope, "scope", "user", "user, project or local")
	fl.StringVar(&opt.Project, "project", "", "project directory for --scope project|local and --claude-md (default: current directory)")
	fl.BoolVar(&opt.DryRun, "dry-run", false, "print the change as a diff and write nothing")
	fl.BoolVar(&opt.ClaudeMD, "claude-md", false, "also remove carryover's section from the project's CLAUDE.md")
	fl.BoolVar(&opt.NoMCP, "no-mcp", false, "leave the file holding the scope's MCP servers (~/.claude.json, .mcp.json) alone")
	purge := fl.Bool("purge", false, "also delete the archive: carryover's store, its moved-aside copies and pending marks, and the log (asks for confirmation)")
	fl.BoolVar(&opt.Yes, "yes", false, "with --purge: do not ask")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	if *purge {
		opt.Purge = func() (install.Archive, error) {
			cfg, err := a.loadConfig("")
			return install.Archive{DB: cfg.DB, Log: logPath(a.getenv), CustomLog: a.getenv("CARRYOVER_LOG") != ""}, err
		}
	}
	return cliErr(a.installer().Uninstall(ctx, opt))
}
