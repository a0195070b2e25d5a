// Package install plans and applies carryover's changes to Claude Code's
// configuration: the hooks in a scope's settings.json, the MCP server in
// ~/.claude.json or .mcp.json, the status line and CLAUDE.md, and undoes
// them (uninstall), with the archive too (purge). Every edit refuses
// read-only files, symlinks and files Claude Code is writing, keeps one
// backup per file in carryover's state directory, and refuses an install
// that another scope would duplicate. package claudesettings edits the
// files underneath.
package install

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/claudesettings"
	conf "github.com/carryover-dev/carryover/config"
)

// Installer edits the Claude Code configuration of the user whose
// environment Getenv reads. Stdout gets the report of what changed (or
// with a dry run, what would), Stderr warnings and questions, Stdin the
// answers.
type Installer struct {
	Getenv         func(string) string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// ScopeError is a scope, or a missing home or project directory, that
// names no settings file: a mistake in how carryover was called.
type ScopeError struct{ Err error }

func (e *ScopeError) Error() string { return e.Err.Error() }
func (e *ScopeError) Unwrap() error { return e.Err }

func hint(err error, hint string) error { return &carryover.HintError{Err: err, Hint: hint} }

func (in *Installer) home() string { return conf.Env{Getenv: in.Getenv}.Home() }

// Target resolves the settings file of a scope, and the absolute project
// directory ("" for the current one).
func (in *Installer) Target(scope, project string) (string, string, error) {
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
	path, err := claudesettings.Path(scope, in.home(), project)
	if err != nil {
		return "", "", &ScopeError{err}
	}
	return path, project, nil
}

// MCPTarget is where Claude Code reads a scope's MCP servers.
func (in *Installer) MCPTarget(scope, project string) (claudesettings.MCPTarget, error) {
	t, err := claudesettings.MCPLocation(scope, in.home(), in.Getenv("CLAUDE_CONFIG_DIR"), project)
	if err != nil {
		return t, &ScopeError{err}
	}
	return t, nil
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
		return "", hint(fmt.Errorf("this carryover is a temporary 'go run' build (%s)", exe),
			"install a real binary first: CGO_ENABLED=0 go install ./cmd/carryover (or CGO_ENABLED=0 go build -o ~/bin/carryover ./cmd/carryover), then run that binary's install")
	}
	return exe, nil
}

// LookPath finds the executable file name in the absolute directories of
// $PATH, as a shell would.
func LookPath(getenv func(string) string, name string) (string, bool) {
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue
		}
		for _, p := range pathCandidates(runtime.GOOS, filepath.Join(dir, name), getenv("PATHEXT")) {
			if IsExecutable(p) {
				return p, true
			}
		}
	}
	return "", false
}

// pathCandidates are the files a lookup of p tries: p itself, or on
// Windows, for a name without an extension, p with each of PATHEXT's
// (carryover.exe), as the Windows shell finds programs.
func pathCandidates(goos, p, pathext string) []string {
	if goos != "windows" || filepath.Ext(p) != "" {
		return []string{p}
	}
	if pathext == "" {
		pathext = ".COM;.EXE;.BAT;.CMD"
	}
	var out []string
	for _, e := range strings.Split(pathext, ";") {
		if e != "" {
			out = append(out, p+strings.ToLower(e))
		}
	}
	return out
}

// ResolveCommand is the executable a settings file's command runs: the
// path itself, or for a bare name (a portable install) what $PATH finds.
func ResolveCommand(getenv func(string) string, prog string) (string, bool) {
	if strings.ContainsRune(prog, filepath.Separator) {
		return prog, IsExecutable(prog)
	}
	return LookPath(getenv, prog)
}

// IsExecutable reports whether path is an executable file. Windows has
// no execute bits: there the extension decides (pathCandidates).
func IsExecutable(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() {
		return false
	}
	return runtime.GOOS == "windows" || fi.Mode()&0o111 != 0
}

// portableName is the command project settings run: they are committed
// and run on teammates' machines, where this binary's path means nothing.
const portableName = "carryover"

// hookCommand is the program the settings of scope run: this binary's
// absolute path, except in project scope, where it is portableName when
// that resolves on PATH to this binary. Otherwise project scope is
// refused, unless force writes the absolute path anyway.
func (in *Installer) hookCommand(scope, exe string, force bool) (string, error) {
	if scope != "project" {
		return exe, nil
	}
	found, ok := LookPath(in.Getenv, portableName)
	if ok && SameFile(found, exe) {
		return portableName, nil
	}
	why := "carryover is not on PATH"
	if ok {
		why = fmt.Sprintf("carryover on PATH is %s, not %s", found, exe)
	}
	if force {
		fmt.Fprintf(in.Stderr, "carryover: warning: %s: the project settings get the absolute path %s (--force), which works only where the binary is at that path\n", why, exe)
		return exe, nil
	}
	return "", hint(fmt.Errorf("project settings are committed and run on other machines, so their hooks run 'carryover' from PATH, but %s", why),
		fmt.Sprintf("put this binary on PATH (CGO_ENABLED=0 go install github.com/carryover-dev/carryover/cmd/carryover@latest, or ln -s %s ~/bin/carryover) and install again;"+
			" or install for this machine only with --scope local; --force writes the absolute path anyway", exe))
}

// SameFile reports whether two paths name the same file (links followed).
func SameFile(a, b string) bool {
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
func (in *Installer) installedElsewhere(scope, project string) ([][2]string, error) {
	var found [][2]string
	for _, other := range []string{"user", "project", "local"} {
		if other == scope {
			continue
		}
		path, _, err := in.Target(other, project)
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
func (in *Installer) duplicateErr(scope, project string, others [][2]string, force bool) error {
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
		fmt.Fprintf(in.Stderr, "carryover: warning: %s (--force; carryover doctor reports it)\n", msg)
		return nil
	}
	return hint(errors.New(msg), "keep one install: run "+strings.Join(fix, ", then ")+", and install again; or install anyway with --force")
}

// BackupPath is where carryover keeps its one backup of a settings file:
// in its state directory, never in the project, where a backup of
// personal settings could be committed. It is "" when there is no state
// directory (no absolute HOME or XDG_STATE_HOME).
func (in *Installer) BackupPath(path string) string {
	state := conf.Env{Getenv: in.Getenv}.Dirs().State
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

// linkedClaudeDir refuses a project's .claude that is a symlink: the
// repository chose it, and it may point out of the project, at the user's
// own ~/.claude or anywhere else. The user's ~/.claude may be a link
// (dotfiles): the user made it.
func linkedClaudeDir(scope, path string) error {
	if scope == "user" {
		return nil
	}
	dir := filepath.Dir(path)
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return hint(fmt.Errorf("%s: %w", dir, claudesettings.ErrSymlink),
			"the project's .claude points elsewhere, so carryover changes nothing through it; edit the settings by hand, or replace the link with a directory")
	}
	return nil
}

// loadSettings loads the settings file at path to edit it, keeping its
// one backup in carryover's state directory; without one, editing is
// refused rather than leaving backups beside the file, which may be inside
// a project.
func (in *Installer) loadSettings(path string) (*claudesettings.File, error) {
	f, err := claudesettings.Load(path)
	if err != nil {
		return nil, settingsErr(path, err)
	}
	b := in.BackupPath(path)
	if b == "" {
		return nil, errors.New("no place for the backup of " + path + ": set HOME or XDG_STATE_HOME to an absolute path")
	}
	f.SetBackup(b)
	return f, nil
}

// checkWritable refuses, before anything is saved, when a file to be
// changed is read-only or another's: then nothing changes. A file already
// as it should be is left alone, whatever its mode or owner.
func checkWritable(path string, f *claudesettings.File, changed bool, mcp *mcpEdit) error {
	if changed {
		if err := f.CheckWritable(); err != nil {
			return settingsErr(path, err)
		}
	}
	if mcp != nil && mcp.changed {
		if err := mcp.file.CheckWritable(); err != nil {
			return mcpFileErr(mcp.target.Path, err)
		}
	}
	return nil
}

// hookForm says whether the hooks of scope are written in exec form (no
// shell) and why: only for the Claude Code found here, and only when it
// runs them; project settings run on teammates' machines, whose Claude
// Code may be older, so they keep the shell form every release runs.
func (in *Installer) hookForm(scope, project string) (bool, string) {
	const shell = "hooks run through a shell"
	if scope == "project" {
		return false, shell + ": project settings run on every teammate's Claude Code, old ones too"
	}
	cc, err := FindClaudeCode(context.Background(), in.Getenv, in.RepoDir(project))
	switch {
	case err != nil:
		return false, fmt.Sprintf("%s: %v (exec form needs Claude Code %s or later)", shell, err, ExecFormSince)
	case !cc.ExecForm():
		return false, fmt.Sprintf("%s: Claude Code %s (%s) predates exec form (%s)", shell, cc.Version, cc.Path, ExecFormSince)
	}
	return true, fmt.Sprintf("hooks in exec form, run without a shell: Claude Code %s (%s) supports it", cc.Version, cc.Path)
}

// Options are what 'carryover install' asks for.
type Options struct {
	Scope   string // user, project or local
	Project string // the project directory ("" for the current one)
	DryRun  bool   // print the change as a diff, write nothing
	// ClaudeMD adds a Compact Instructions section to the project's CLAUDE.md.
	ClaudeMD    bool
	Startup     bool   // run on SessionStart(startup) too
	PostToolUse bool   // archive after every tool call
	Binary      string // the binary hooks and the MCP server run ("" for this one)
	NoMCP       bool   // do not register the MCP server
	StatusLine  bool   // show carryover's status line
	// Force installs even when another scope has the hooks, or into
	// project settings with an absolute path.
	Force bool
}

// Install adds carryover's hooks (and MCP server, status line, CLAUDE.md
// section) to the settings of opt.Scope, and reports what it did.
func (in *Installer) Install(opt Options) error {
	path, proj, err := in.Target(opt.Scope, opt.Project)
	if err != nil {
		return err
	}
	if err := linkedClaudeDir(opt.Scope, path); err != nil {
		return err
	}
	exe := opt.Binary
	if exe == "" {
		if exe, err = installedBinary(); err != nil {
			return err
		}
	} else if exe, err = filepath.Abs(exe); err != nil {
		return err
	}
	if !IsExecutable(exe) {
		return fmt.Errorf("%s is not an executable file", exe)
	}
	others, err := in.installedElsewhere(opt.Scope, opt.Project)
	if err != nil {
		return err
	}
	if err := in.duplicateErr(opt.Scope, opt.Project, others, opt.Force); err != nil {
		return err
	}
	cmd, err := in.hookCommand(opt.Scope, exe, opt.Force)
	if err != nil {
		return err
	}
	f, err := in.loadSettings(path)
	if err != nil {
		return err
	}
	var legacy string
	if opt.Scope == "user" {
		legacy = filepath.Join(in.home(), ".claude", "hooks.json")
		if _, err := os.Lstat(legacy); err != nil {
			legacy = ""
		} else if _, err := claudesettings.MigrateLegacy(legacy, f); err != nil {
			return fmt.Errorf("migrate %s: %w", legacy, err)
		}
	}
	execForm, formNote := in.hookForm(opt.Scope, proj)
	hooks := claudesettings.DefaultHooks(cmd, claudesettings.HookOptions{Startup: opt.Startup, PostToolUse: opt.PostToolUse, Exec: execForm})
	changed, err := f.Install(hooks)
	if err != nil {
		return fmt.Errorf("install into %s: %w", path, err)
	}
	if opt.StatusLine {
		slChanged, err := f.InstallStatusLine(cmd)
		if err != nil {
			return settingsErr(path, fmt.Errorf("status line: %w", err))
		}
		changed = changed || slChanged
	}
	var mcp *mcpEdit
	if !opt.NoMCP {
		if mcp, err = in.editMCP(opt.Scope, proj, func(f *claudesettings.File, at []string) (bool, error) {
			return f.InstallMCP(at, claudesettings.MCPName, claudesettings.CarryoverMCP(cmd))
		}); err != nil {
			return err
		}
	}
	mdPath := filepath.Join(proj, "CLAUDE.md")
	writable := checkWritable(path, f, changed, mcp)
	if writable == nil && opt.ClaudeMD {
		if err := claudesettings.CheckClaudeMD(mdPath, true, claudesettings.DefaultClaudeMDText); err != nil {
			writable = fmt.Errorf("CLAUDE.md: %w; nothing changed", err)
		}
	}
	out := in.Stdout
	fmt.Fprintln(out, formNote)
	if opt.DryRun {
		printDiffs(out, "install", writable, path, f, mcp,
			"carryover's hooks are already installed", "carryover's MCP server is already registered")
		if legacy != "" {
			fmt.Fprintf(out, "would migrate %s and rename it to %s.migrated\n", legacy, legacy)
		}
		if opt.ClaudeMD {
			fmt.Fprintf(out, "would add a Compact Instructions section to %s\n", mdPath)
		}
		return nil
	}
	if writable != nil {
		return writable
	}
	if err := saveSettings(out, path, f, changed, "carryover's hooks are already installed",
		fmt.Sprintf("installed %d carryover hooks into %s", len(hooks), path)); err != nil {
		return err
	}
	if mcp != nil {
		if err := mcp.saveReport(out, "carryover's MCP server is already registered",
			fmt.Sprintf("registered carryover's MCP server (%s mcp, %s scope) in %s", cmd, opt.Scope, mcp.target.Path)); err != nil {
			return err
		}
	}
	if legacy != "" {
		if err := claudesettings.RenameMigrated(legacy); err != nil {
			return err
		}
		fmt.Fprintf(out, "migrated %s (kept as %s.migrated)\n", legacy, legacy)
	}
	if opt.ClaudeMD {
		changed, err := claudesettings.ClaudeMD(mdPath, true, claudesettings.DefaultClaudeMDText)
		if err != nil {
			return fmt.Errorf("CLAUDE.md: %w", err)
		}
		if changed {
			fmt.Fprintf(out, "added a Compact Instructions section to %s\n", mdPath)
		}
	}
	if cmd, ok := f.StatusLine(); opt.StatusLine && ok {
		fmt.Fprintf(out, "status line: %s\n", cmd)
	}
	if cmd != exe {
		fmt.Fprintf(out, "hooks run %s from PATH (here %s), so the project's settings work on every machine that has carryover on PATH; check them with: carryover doctor\n", cmd, exe)
	} else {
		fmt.Fprintf(out, "hooks run %s; check them with: carryover doctor\n", exe)
	}
	if mcp != nil && opt.Scope == "project" {
		fmt.Fprintln(out, "Claude Code asks once per project before it starts a server from .mcp.json")
	}
	return nil
}

// UninstallOptions are what 'carryover uninstall' asks for.
type UninstallOptions struct {
	Scope, Project string
	DryRun         bool
	ClaudeMD       bool // remove carryover's section from CLAUDE.md
	NoMCP          bool // leave the MCP servers' file alone
	// Purge, when set, also deletes the archive: it says where the
	// archive is (it is called after the settings are read, before
	// anything changes), and the deletion asks first unless Yes.
	Purge func() (Archive, error)
	Yes   bool
}

// Uninstall removes carryover's hooks, status line and MCP server from
// the settings of opt.Scope, and with opt.Purge the archive, reporting
// what it did.
func (in *Installer) Uninstall(ctx context.Context, opt UninstallOptions) error {
	path, proj, err := in.Target(opt.Scope, opt.Project)
	if err != nil {
		return err
	}
	if err := linkedClaudeDir(opt.Scope, path); err != nil {
		return err
	}
	f, err := in.loadSettings(path)
	if err != nil {
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
	if !opt.NoMCP {
		if mcp, err = in.editMCP(opt.Scope, proj, func(f *claudesettings.File, at []string) (bool, error) {
			return f.UninstallMCP(at, claudesettings.MCPName)
		}); err != nil {
			return err
		}
	}
	var purged *purgeList
	if opt.Purge != nil {
		// Checked before anything changes: a store that is not carryover's
		// stops the whole uninstall.
		a, err := opt.Purge()
		if err != nil {
			return err
		}
		if purged, err = a.list(ctx); err != nil {
			return err
		}
	}
	writable := checkWritable(path, f, changed, mcp)
	if writable == nil && opt.ClaudeMD {
		if err := claudesettings.CheckClaudeMD(filepath.Join(proj, "CLAUDE.md"), false, ""); err != nil {
			writable = fmt.Errorf("CLAUDE.md: %w; nothing changed (without --claude-md the rest is removed)", err)
		}
	}
	out := in.Stdout
	if opt.DryRun {
		printDiffs(out, "uninstall", writable, path, f, mcp,
			"no carryover hooks", "carryover's MCP server is not registered")
		if purged != nil {
			for _, p := range purged.paths() {
				fmt.Fprintf(out, "would delete %s\n", p)
			}
		}
		return nil
	}
	if writable != nil {
		return writable
	}
	done := []string{"removed carryover's hooks from " + path}
	if slChanged {
		done = append(done, "removed carryover's status line (a wrapped one is back as it was)")
	}
	if err := saveSettings(out, path, f, changed, "no carryover hooks", done...); err != nil {
		return err
	}
	if mcp != nil {
		if err := mcp.saveReport(out, "carryover's MCP server is not registered",
			"removed carryover's MCP server from "+mcp.target.Path); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(out, "left the MCP server registration as it is (--no-mcp)")
	}
	if opt.ClaudeMD {
		mdPath := filepath.Join(proj, "CLAUDE.md")
		changed, err := claudesettings.ClaudeMD(mdPath, false, "")
		if err != nil {
			return fmt.Errorf("CLAUDE.md: %w", err)
		}
		if changed {
			fmt.Fprintf(out, "removed carryover's section from %s\n", mdPath)
		}
	}
	if purged != nil {
		return in.purge(purged, opt.Yes)
	}
	return nil
}

// saveSettings saves the settings file f at path when changed and reports
// it (the done lines, then where the backup is), or why nothing changed
// (same: the state that makes it unchanged).
func saveSettings(out io.Writer, path string, f *claudesettings.File, changed bool, same string, done ...string) error {
	if !changed {
		fmt.Fprintf(out, "%s: %s; nothing changed\n", path, same)
		return nil
	}
	backup, err := f.Save()
	if err != nil {
		return settingsErr(path, fmt.Errorf("save: %w", err))
	}
	for _, l := range done {
		fmt.Fprintln(out, l)
	}
	if backup != "" {
		fmt.Fprintf(out, "backup of the previous file: %s\n", backup)
	}
	return nil
}

// saveReport saves the MCP file's pending change and reports it (done),
// or why nothing changed (same).
func (m *mcpEdit) saveReport(out io.Writer, same, done string) error {
	switch changed, err := m.save(); {
	case err != nil:
		return err
	case changed:
		fmt.Fprintln(out, done)
	default:
		fmt.Fprintf(out, "%s: %s; nothing changed\n", m.target.Path, same)
	}
	return nil
}

// printDiffs prints what a dry run of cmd would change in the settings
// file at path and in the MCP file (when mcp is set), or, for a file it
// would not change, why (same: the state that makes it unchanged).
func printDiffs(out io.Writer, cmd string, writable error, path string, f *claudesettings.File, mcp *mcpEdit, sameHooks, sameMCP string) {
	if writable != nil {
		fmt.Fprintf(out, "note: %v: %s would refuse to change it\n", writable, cmd)
	}
	if d := f.Diff(); d != "" {
		fmt.Fprint(out, d)
	} else {
		fmt.Fprintf(out, "%s: %s; nothing to change\n", path, sameHooks)
	}
	if mcp == nil {
		return
	}
	if d := mcp.file.Diff(); d != "" {
		fmt.Fprint(out, d)
	} else {
		fmt.Fprintf(out, "%s: %s; nothing to change\n", mcp.target.Path, sameMCP)
	}
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
func (in *Installer) editMCP(scope, project string, edit func(*claudesettings.File, []string) (bool, error)) (*mcpEdit, error) {
	t, err := in.MCPTarget(scope, project)
	if err != nil {
		return nil, err
	}
	m := &mcpEdit{target: t, edit: edit, backup: in.BackupPath(t.Path)}
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
	var he *carryover.HintError
	if errors.As(e, &he) {
		return hint(he.Err, he.Hint+"; "+skip)
	}
	return hint(e, skip)
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
		return hint(fmt.Errorf("%s: %w", path, err), "carryover never writes through a symlink; edit the file it points to by hand, or replace the link with a copy")
	case errors.Is(err, claudesettings.ErrLocked):
		return hint(fmt.Errorf("%s: %w", path, err), "a running Claude Code is writing it; try again in a moment")
	case errors.Is(err, claudesettings.ErrParse):
		return hint(fmt.Errorf("%s: %w", path, err), "fix the JSON by hand first; nothing was changed")
	case errors.Is(err, claudesettings.ErrReadOnly):
		return hint(fmt.Errorf("%s: %w", path, err), fmt.Sprintf("someone made it read-only, so carryover changes nothing (in it or elsewhere);"+
			" make it writable (chmod u+w %s) and run this again, or edit it by hand (--dry-run prints the change)", path))
	}
	return fmt.Errorf("%s: %w", path, err)
}

// SplitCommand returns the program of a hook command (unquoted) and the
// rest of the line.
func SplitCommand(cmd string) (string, string) {
	cmd = strings.TrimSpace(cmd)
	for _, q := range []string{`"`, `'`} {
		if strings.HasPrefix(cmd, q) {
			if end := strings.Index(cmd[1:], q); end >= 0 {
				return cmd[1 : end+1], cmd[end+2:]
			}
		}
	}
	prog, rest, _ := strings.Cut(cmd, " ")
	return prog, rest
}

// RegisteredMCP reads carryover's server entry of an MCP target; ok is
// false when the file or the entry is missing, or the entry is not
// carryover's.
func RegisteredMCP(t claudesettings.MCPTarget) (srv claudesettings.MCPServer, ok bool, err error) {
	f, err := claudesettings.LoadMCP(t)
	if err != nil {
		return srv, false, err
	}
	srv, ok, err = f.MCP(t.At, claudesettings.MCPName)
	return srv, ok && claudesettings.IsOurMCP(srv), err
}
