package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/url"
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

// lookPath finds the executable file name in the absolute directories of
// $PATH, as a shell would.
func lookPath(getenv func(string) string, name string) (string, bool) {
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if isExecutable(p) {
			return p, true
		}
	}
	return "", false
}

// resolveCommand is the executable a settings file's command runs: the
// path itself, or for a bare name (a portable install) what $PATH finds.
func resolveCommand(getenv func(string) string, prog string) (string, bool) {
	if strings.ContainsRune(prog, filepath.Separator) {
		return prog, isExecutable(prog)
	}
	return lookPath(getenv, prog)
}

// portableName is the command project settings run: they are committed
// and run on teammates' machines, where this binary's path means nothing.
const portableName = "carryover"

// hookCommand is the program the settings of scope run: this binary's
// absolute path, except in project scope, where it is portableName when
// that resolves on PATH to this binary. Otherwise project scope is
// refused, unless force writes the absolute path anyway.
func (a *app) hookCommand(scope, exe string, force bool) (string, error) {
	if scope != "project" {
		return exe, nil
	}
	found, ok := lookPath(a.getenv, portableName)
	if ok && sameFile(found, exe) {
		return portableName, nil
	}
	why := "carryover is not on PATH"
	if ok {
		why = fmt.Sprintf("carryover on PATH is %s, not %s", found, exe)
	}
	if force {
		fmt.Fprintf(a.stderr, "carryover: warning: %s: the project settings get the absolute path %s (--force), which works only where the binary is at that path\n", why, exe)
		return exe, nil
	}
	return "", hintErr{fmt.Errorf("project settings are committed and run on other machines, so their hooks run 'carryover' from PATH, but %s", why),
		fmt.Sprintf("put this binary on PATH (go install github.com/carryover-dev/carryover/cmd/carryover@latest, or ln -s %s ~/bin/carryover) and install again;"+
			" or install for this machine only with --scope local; --force writes the absolute path anyway", exe)}
}

// sameFile reports whether two paths name the same file (links followed).
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// installedElsewhere returns the other scopes whose settings, which Claude
// Code merges with scope's for the project, already hold carryover's
// hooks, with their paths: the hooks would run twice.
func (a *app) installedElsewhere(scope, project string) ([][2]string, error) {
	var found [][2]string
	for _, other := range []string{"user", "project", "local"} {
		if other == scope {
			continue
		}
		path, _, err := a.installTarget(other, project)
		if err != nil {
			return nil, err
		}
		if f, err := claudesettings.Load(path); err == nil && len(f.Ours()) > 0 {
			found = append(found, [2]string{other, path})
		}
	}
	return found, nil
}

// duplicateErr refuses an install into scope while other scopes hold
// carryover's hooks, or with force only warns.
func (a *app) duplicateErr(scope, project string, others [][2]string, force bool) error {
	if len(others) == 0 {
		return nil
	}
	var where, fix []string
	for _, o := range others {
		where = append(where, fmt.Sprintf("%s settings (%s)", o[0], o[1]))
		cmd := "carryover uninstall --scope " + o[0]
		if o[0] != "user" && project != "" {
			cmd += " --project " + project
		}
		fix = append(fix, cmd)
	}
	msg := fmt.Sprintf("carryover's hooks are already installed in the %s: with them in the %s settings too, Claude Code runs every hook twice",
		strings.Join(where, " and "), scope)
	if force {
		fmt.Fprintf(a.stderr, "carryover: warning: %s (--force; carryover doctor reports it)\n", msg)
		return nil
	}
	return hintErr{errors.New(msg), "keep one install: run " + strings.Join(fix, ", then ") + ", and install again; or install anyway with --force"}
}

// backupPath is where carryover keeps its one backup of a settings file:
// in its state directory, never in the project, where a backup of
// personal settings could be committed. It is "" when there is no state
// directory (no absolute HOME or XDG_STATE_HOME).
func (a *app) backupPath(path string) string {
	state := a.configEnv().Dirs().State
	if state == "" {
		return ""
	}
	name := url.PathEscape(path)
	if len(name) > 200 {
		sum := sha256.Sum256([]byte(path))
		name = fmt.Sprintf("%x-%s", sum[:8], filepath.Base(path))
	}
	return filepath.Join(state, "backups", name)
}

// setBackup makes f keep its one backup in carryover's state directory;
// without one, editing is refused rather than leaving backups beside the
// file, which may be inside a project.
func (a *app) setBackup(f *claudesettings.File, path string) error {
	b := a.backupPath(path)
	if b == "" {
		return errors.New("no place for the backup of " + path + ": set HOME or XDG_STATE_HOME to an absolute path")
	}
	f.SetBackup(b)
	return nil
}

// checkWritable refuses, before anything is saved, when a file to be
// edited is read-only: then nothing changes.
func checkWritable(path string, f *claudesettings.File, mcp *mcpEdit) error {
	if err := f.CheckWritable(); err != nil {
		return settingsErr(path, err)
	}
	if mcp != nil {
		if err := mcp.file.CheckWritable(); err != nil {
			return mcpFileErr(mcp.target.Path, err)
		}
	}
	return nil
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
	force := fl.Bool("force", false, "install even when another scope already has carryover's hooks (they would run twice),"+
		" or into project settings with the binary's absolute path when carryover is not on PATH")
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
	others, err := a.installedElsewhere(*scope, *project)
	if err != nil {
		return err
	}
	if err := a.duplicateErr(*scope, *project, others, *force); err != nil {
		return err
	}
	cmd, err := a.hookCommand(*scope, exe, *force)
	if err != nil {
		return err
	}
	f, err := claudesettings.Load(path)
	if err != nil {
		return settingsErr(path, err)
	}
	if err := a.setBackup(f, path); err != nil {
		return err
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
	hooks := claudesettings.DefaultHooks(cmd, claudesettings.HookOptions{Startup: *startup, PostToolUse: *postTool})
	changed, err := f.Install(hooks)
	if err != nil {
		return fmt.Errorf("install into %s: %w", path, err)
	}
	if *statusLine {
		slChanged, err := f.InstallStatusLine(cmd)
		if err != nil {
			return settingsErr(path, fmt.Errorf("status line: %w", err))
		}
		changed = changed || slChanged
	}
	var mcp *mcpEdit
	if !*noMCP {
		if mcp, err = a.editMCP(*scope, proj, func(f *claudesettings.File, at []string) (bool, error) {
			return f.InstallMCP(at, claudesettings.MCPName, claudesettings.CarryoverMCP(cmd))
		}); err != nil {
			return err
		}
	}
	mdPath := filepath.Join(proj, "CLAUDE.md")
	writable := checkWritable(path, f, mcp)
	if *dryRun {
		if writable != nil {
			fmt.Fprintf(a.stdout, "note: %v: install would refuse to change it\n", writable)
		}
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
	if writable != nil {
		return writable
	}
	if changed {
		backup, err := f.Save()
		if err != nil {
			return settingsErr(path, fmt.Errorf("save: %w", err))
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
			fmt.Fprintf(a.stdout, "registered carryover's MCP server (%s mcp, %s scope) in %s\n", cmd, *scope, mcp.target.Path)
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
	if cmd != exe {
		fmt.Fprintf(a.stdout, "hooks run %s from PATH (here %s), so the project's settings work on every machine that has carryover on PATH; check them with: carryover doctor\n", cmd, exe)
	} else {
		fmt.Fprintf(a.stdout, "hooks run %s; check them with: carryover doctor\n", exe)
	}
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
	noMCP := fl.Bool("no-mcp", false, "leave the file holding the scope's MCP servers (~/.claude.json, .mcp.json) alone")
	purge := fl.Bool("purge", false, "also delete the archive: carryover's store, its moved-aside copies and pending marks, and the log (asks for confirmation)")
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
	if err := a.setBackup(f, path); err != nil {
		return err
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
	var mcp *mcpEdit
	if !*noMCP {
		if mcp, err = a.editMCP(*scope, proj, func(f *claudesettings.File, at []string) (bool, error) {
			return f.UninstallMCP(at, claudesettings.MCPName)
		}); err != nil {
			return err
		}
	}
	var purged *purgeList
	if *purge {
		// Checked before anything changes: a store that is not carryover's
		// stops the whole uninstall.
		if purged, err = a.purgeList(ctx); err != nil {
			return err
		}
	}
	writable := checkWritable(path, f, mcp)
	if *dryRun {
		if writable != nil {
			fmt.Fprintf(a.stdout, "note: %v: uninstall would refuse to change it\n", writable)
		}
		if d := f.Diff(); d != "" {
			fmt.Fprint(a.stdout, d)
		} else {
			fmt.Fprintf(a.stdout, "%s: no carryover hooks; nothing to change\n", path)
		}
		if mcp != nil {
			if d := mcp.file.Diff(); d != "" {
				fmt.Fprint(a.stdout, d)
			} else {
				fmt.Fprintf(a.stdout, "%s: carryover's MCP server is not registered; nothing to change\n", mcp.target.Path)
			}
		}
		if purged != nil {
			for _, p := range purged.paths() {
				fmt.Fprintf(a.stdout, "would delete %s\n", p)
			}
		}
		return nil
	}
	if writable != nil {
		return writable
	}
	if changed {
		backup, err := f.Save()
		if err != nil {
			return settingsErr(path, fmt.Errorf("save: %w", err))
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
	if mcp != nil {
		switch changed, err := mcp.save(); {
		case err != nil:
			return err
		case changed:
			fmt.Fprintf(a.stdout, "removed carryover's MCP server from %s\n", mcp.target.Path)
		default:
			fmt.Fprintf(a.stdout, "%s: carryover's MCP server is not registered; nothing changed\n", mcp.target.Path)
		}
	} else {
		fmt.Fprintln(a.stdout, "left the MCP server registration as it is (--no-mcp)")
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
	if purged != nil {
		return a.purge(purged, *yes)
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
	backup  string
	changed bool
	edit    func(*claudesettings.File, []string) (bool, error)
}

// editMCP loads the MCP file of scope and applies edit to it in memory.
func (a *app) editMCP(scope, project string, edit func(*claudesettings.File, []string) (bool, error)) (*mcpEdit, error) {
	t, err := a.mcpTarget(scope, project)
	if err != nil {
		return nil, err
	}
	m := &mcpEdit{target: t, edit: edit, backup: a.backupPath(t.Path)}
	if m.backup == "" {
		return nil, errors.New("no place for the backup of " + t.Path + ": set HOME or XDG_STATE_HOME to an absolute path")
	}
	return m, m.load()
}

func (m *mcpEdit) load() (err error) {
	if m.file, err = claudesettings.LoadMCP(m.target); err != nil {
		return mcpFileErr(m.target.Path, err)
	}
	m.file.SetBackup(m.backup)
	if m.changed, err = m.edit(m.file, m.target.At); err != nil {
		return mcpFileErr(m.target.Path, err)
	}
	return nil
}

// mcpFileErr is settingsErr for the file holding MCP servers, which
// carryover can be told to leave alone.
func mcpFileErr(path string, err error) error {
	const skip = "or leave carryover's MCP server out of it with --no-mcp"
	e := settingsErr(path, err)
	var he hintErr
	if errors.As(e, &he) {
		return hintErr{he.err, he.hint + "; " + skip}
	}
	return hintErr{e, skip}
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
	case errors.Is(err, claudesettings.ErrReadOnly):
		return hintErr{fmt.Errorf("%s: %w", path, err), fmt.Sprintf("someone made it read-only, so carryover changes nothing (in it or elsewhere);"+
			" make it writable (chmod u+w %s) and run this again, or edit it by hand (--dry-run prints the change)", path)}
	}
	return fmt.Errorf("%s: %w", path, err)
}
