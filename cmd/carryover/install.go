package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/carryover-dev/carryover/claudesettings"
)

// installTarget resolves the settings file of a scope.
func (a *app) installTarget(scope, project string) (string, string, error) {
	if project == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", "", err
		}
		project = wd
	}
	project, err := filepath.Abs(project)
	if err != nil {
		return "", "", err
	}
	path, err := claudesettings.Path(scope, homeDir(a.getenv), project)
	if err != nil {
		return "", "", usageErr{err.Error()}
	}
	return path, project, nil
}

// installedBinary is the absolute path hooks will run: this binary, unless
// it is a temporary build (go run), which would vanish.
func installedBinary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "", hintErr{fmt.Errorf("this carryover is a temporary 'go run' build (%s)", exe),
			"install a real binary first: go install ./cmd/carryover (or go build -o ~/bin/carryover ./cmd/carryover), then run that binary's install"}
	}
	return exe, nil
}

func (a *app) cmdInstall(ctx context.Context, args []string) error {
	fl := a.newFlags("install")
	scope := fl.String("scope", "user", "where to install: user (~/.claude/settings.json), project (.claude/settings.json) or local (.claude/settings.local.json)")
	project := fl.String("project", "", "project directory for --scope project|local and --claude-md (default: current directory)")
	dryRun := fl.Bool("dry-run", false, "print the change as a diff and write nothing")
	claudeMD := fl.Bool("claude-md", false, "also add a Compact Instructions section to the project's CLAUDE.md")
	startup := fl.Bool("startup", false, "also run on SessionStart(startup)")
	postTool := fl.Bool("post-tool-use", false, "also archive after every tool call (PostToolUse; costs a process per tool call)")
	binary := fl.String("binary", "", "the carryover binary the hooks and the MCP server run (default: this one)")
	noMCP := fl.Bool("no-mcp", false, "do not register carryover's MCP server (carryover mcp) with Claude Code")
	statusLine := fl.Bool("statusline", false, "also show carryover's status line (an existing statusLine command is kept and wrapped)")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	path, proj, err := a.installTarget(*scope, *project)
	if err != nil {
		return err
	}
	exe := *binary
	if exe == "" {
		if exe, err = installedBinary(); err != nil {
			return err
		}
	} else if exe, err = filepath.Abs(exe); err != nil {
		return err
	}
	if fi, err := os.Stat(exe); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", exe)
	}
	f, err := claudesettings.Load(path)
	if err != nil {
		return settingsErr(path, err)
	}
	var legacy string
	if *scope == "user" {
		legacy = filepath.Join(homeDir(a.getenv), ".claude", "hooks.json")
		if _, err := os.Lstat(legacy); err != nil {
			legacy = ""
		} else if _, err := claudesettings.MigrateLegacy(legacy, f); err != nil {
			return fmt.Errorf("migrate %s: %w", legacy, err)
		}
	}
	hooks := claudesettings.DefaultHooks(exe, claudesettings.HookOptions{Startup: *startup, PostToolUse: *postTool})
	changed, err := f.Install(hooks)
	if err != nil {
		return fmt.Errorf("install into %s: %w", path, err)
	}
	if *statusLine {
		slChanged, err := f.InstallStatusLine(exe)
		if err != nil {
			return settingsErr(path, fmt.Errorf("status line: %w", err))
		}
		changed = changed || slChanged
	}
	var mcp *mcpEdit
	if !*noMCP {
		if mcp, err = a.editMCP(*scope, proj, func(f *claudesettings.File, at []string) (bool, error) {
			return f.InstallMCP(at, claudesettings.MCPName, claudesettings.CarryoverMCP(exe))
		}); err != nil {
			return err
		}
	}
	mdPath := filepath.Join(proj, "CLAUDE.md")
	if *dryRun {
		if d := f.Diff(); d != "" {
			fmt.Fprint(a.stdout, d)
		} else {
			fmt.Fprintf(a.stdout, "%s: carryover's hooks are already installed; nothing to change\n", path)
		}
		if mcp != nil {
			if d := mcp.file.Diff(); d != "" {
				fmt.Fprint(a.stdout, d)
			} else {
				fmt.Fprintf(a.stdout, "%s: carryover's MCP server is already registered; nothing to change\n", mcp.target.Path)
			}
		}
		if legacy != "" {
			fmt.Fprintf(a.stdout, "would migrate %s and rename it to %s.migrated\n", legacy, legacy)
		}
		if *claudeMD {
			fmt.Fprintf(a.stdout, "would add a Compact Instructions section to %s\n", mdPath)
		}
		return nil
	}
	if changed {
		backup, err := f.Save()
		if err != nil {
			return fmt.Errorf("save %s: %w", path, err)
		}
		fmt.Fprintf(a.stdout, "installed %d carryover hooks into %s\n", len(hooks), path)
		if backup != "" {
			fmt.Fprintf(a.stdout, "backup of the previous file: %s\n", backup)
		}
	} else {
		fmt.Fprintf(a.stdout, "%s: carryover's hooks are already installed; nothing changed\n", path)
	}
	if mcp != nil {
		switch changed, err := mcp.save(); {
		case err != nil:
			return err
		case changed:
			fmt.Fprintf(a.stdout, "registered carryover's MCP server (%s mcp, %s scope) in %s\n", exe, *scope, mcp.target.Path)
		default:
			fmt.Fprintf(a.stdout, "%s: carryover's MCP server is already registered; nothing changed\n", mcp.target.Path)
		}
	}
	if legacy != "" {
		if err := claudesettings.RenameMigrated(legacy); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "migrated %s (kept as %s.migrated)\n", legacy, legacy)
	}
	if *claudeMD {
		changed, err := claudesettings.ClaudeMD(mdPath, true, claudesettings.DefaultClaudeMDText)
		if err != nil {
			return fmt.Errorf("CLAUDE.md: %w", err)
		}
		if changed {
			fmt.Fprintf(a.stdout, "added a Compact Instructions section to %s\n", mdPath)
		}
	}
	if cmd, ok := f.StatusLine(); *statusLine && ok {
		fmt.Fprintf(a.stdout, "status line: %s\n", cmd)
	}
	fmt.Fprintf(a.stdout, "hooks run %s; check them with: carryover doctor\n", exe)
	if mcp != nil && *scope == "project" {
		fmt.Fprintln(a.stdout, "Claude Code asks once per project before it starts a server from .mcp.json")
	}
	return nil
}

func (a *app) cmdUninstall(ctx context.Context, args []string) error {
	fl := a.newFlags("uninstall")
	scope := fl.String("scope", "user", "user, project or local")
	project := fl.String("project", "", "project directory for --scope project|local and --claude-md (default: current directory)")
	dryRun := fl.Bool("dry-run", false, "print the change as a diff and write nothing")
	claudeMD := fl.Bool("claude-md", false, "also remove carryover's section from the project's CLAUDE.md")
	purge := fl.Bool("purge", false, "also delete the archive (asks for confirmation)")
	yes := fl.Bool("yes", false, "with --purge: do not ask")
	if _, err := parseInterspersed(fl, args); err != nil {
		return err
	}
	path, proj, err := a.installTarget(*scope, *project)
	if err != nil {
		return err
	}
	f, err := claudesettings.Load(path)
	if err != nil {
		return settingsErr(path, err)
	}
	changed, err := f.Uninstall()
	if err != nil {
		return err
	}
	slChanged, err := f.UninstallStatusLine()
	if err != nil {
		return settingsErr(path, err)
	}
	changed = changed || slChanged
	mcp, err := a.editMCP(*scope, proj, func(f *claudesettings.File, at []string) (bool, error) {
		return f.UninstallMCP(at, claudesettings.MCPName)
	})
	if err != nil {
		return err
	}
	if *dryRun {
		if d := f.Diff(); d != "" {
			fmt.Fprint(a.stdout, d)
		} else {
			fmt.Fprintf(a.stdout, "%s: no carryover hooks; nothing to change\n", path)
		}
		if d := mcp.file.Diff(); d != "" {
			fmt.Fprint(a.stdout, d)
		} else {
			fmt.Fprintf(a.stdout, "%s: carryover's MCP server is not registered; nothing to change\n", mcp.target.Path)
		}
		return nil
	}
	if changed {
		backup, err := f.Save()
		if err != nil {
			return fmt.Errorf("save %s: %w", path, err)
		}
		fmt.Fprintf(a.stdout, "removed carryover's hooks from %s\n", path)
		if slChanged {
			fmt.Fprintln(a.stdout, "removed carryover's status line (a wrapped one is back as it was)")
		}
		if backup != "" {
			fmt.Fprintf(a.stdout, "backup of the previous file: %s\n", backup)
		}
	} else {
		fmt.Fprintf(a.stdout, "%s: no carryover hooks; nothing changed\n", path)
	}
	switch changed, err := mcp.save(); {
	case err != nil:
		return err
	case changed:
		fmt.Fprintf(a.stdout, "removed carryover's MCP server from %s\n", mcp.target.Path)
	default:
		fmt.Fprintf(a.stdout, "%s: carryover's MCP server is not registered; nothing changed\n", mcp.target.Path)
	}
	if *claudeMD {
		mdPath := filepath.Join(proj, "CLAUDE.md")
		changed, err := claudesettings.ClaudeMD(mdPath, false, "")
		if err != nil {
			return fmt.Errorf("CLAUDE.md: %w", err)
		}
		if changed {
			fmt.Fprintf(a.stdout, "removed carryover's section from %s\n", mdPath)
		}
	}
	if *purge {
		cfg, err := a.loadConfig("")
		if err != nil {
			return err
		}
		if !*yes {
			fmt.Fprintf(a.stderr, "delete the archive %s and everything in it? type yes: ", cfg.DB)
			line, _ := bufio.NewReader(a.stdin).ReadString('\n')
			if strings.TrimSpace(line) != "yes" {
				return errors.New("purge cancelled: the archive is kept")
			}
		}
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Remove(cfg.DB + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("purge: %w", err)
			}
		}
		fmt.Fprintf(a.stdout, "deleted the archive %s\n", cfg.DB)
	}
	return nil
}

// mcpTarget is where Claude Code reads a scope's MCP servers.
func (a *app) mcpTarget(scope, project string) (claudesettings.MCPTarget, error) {
	t, err := claudesettings.MCPLocation(scope, homeDir(a.getenv), a.getenv("CLAUDE_CONFIG_DIR"), project)
	if err != nil {
		return t, usageErr{err.Error()}
	}
	return t, nil
}

// mcpEdit is a pending change to the file holding a scope's MCP servers.
type mcpEdit struct {
	target  claudesettings.MCPTarget
	file    *claudesettings.File
	changed bool
	edit    func(*claudesettings.File, []string) (bool, error)
}

// editMCP loads the MCP file of scope and applies edit to it in memory.
func (a *app) editMCP(scope, project string, edit func(*claudesettings.File, []string) (bool, error)) (*mcpEdit, error) {
	t, err := a.mcpTarget(scope, project)
	if err != nil {
		return nil, err
	}
	m := &mcpEdit{target: t, edit: edit}
	return m, m.load()
}

func (m *mcpEdit) load() (err error) {
	if m.file, err = claudesettings.LoadMCP(m.target); err != nil {
		return settingsErr(m.target.Path, err)
	}
	if m.changed, err = m.edit(m.file, m.target.At); err != nil {
		return settingsErr(m.target.Path, err)
	}
	return nil
}

// save writes the change, if any. Claude Code rewrites ~/.claude.json at
// any time: when it did since the load, the edit is made again on what it
// wrote.
func (m *mcpEdit) save() (changed bool, err error) {
	for attempt := 1; m.changed; attempt++ {
		_, err := m.file.Save()
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, claudesettings.ErrChanged) || attempt == 5 {
			return false, fmt.Errorf("save %s: %w", m.target.Path, err)
		}
		if err := m.load(); err != nil {
			return false, err
		}
	}
	return false, nil
}

// settingsErr explains why a settings file cannot be edited.
func settingsErr(path string, err error) error {
	switch {
	case errors.Is(err, claudesettings.ErrSymlink):
		return hintErr{fmt.Errorf("%s: %w", path, err), "carryover never writes through a symlink; edit the file it points to by hand, or replace the link with a copy"}
	case errors.Is(err, claudesettings.ErrLocked):
		return hintErr{fmt.Errorf("%s: %w", path, err), "a running Claude Code is writing it; try again in a moment"}
	case errors.Is(err, claudesettings.ErrParse):
		return hintErr{fmt.Errorf("%s: %w", path, err), "fix the JSON by hand first; nothing was changed"}
	}
	return fmt.Errorf("%s: %w", path, err)
}
