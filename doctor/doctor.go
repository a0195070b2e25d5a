// Package doctor checks an installation: the settings files of every
// scope and the carryover hooks in them, the MCP server registrations, the
// configuration, the store, and each installed hook run end to end the way
// Claude Code runs it. The checks are data; the CLI prints them.
package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/carryover-dev/carryover/claudesettings"
	conf "github.com/carryover-dev/carryover/config"
	"github.com/carryover-dev/carryover/demo"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/install"
	"github.com/carryover-dev/carryover/storeopen"
	"github.com/carryover-dev/carryover/transcript"
)

// Status is the outcome of a check.
type Status int

const (
	Pass Status = iota
	Warn        // reported, does not fail the run
	Fail
)

func (s Status) String() string {
	switch s {
	case Pass:
		return "PASS"
	case Warn:
		return "WARN"
	}
	return "FAIL"
}

// Check is one line of doctor's report.
type Check struct {
	Name   string
	Status Status
	Detail string
	Fix    string // what to do about a failure or a warning
}

type doctor struct {
	in      *install.Installer
	project string // absolute, or "" run from ~ or /; nothing in it is run
	checks  []Check
	// own are carryover binaries doctor may run for project and local
	// settings: itself, the carryover on PATH and those the user's own
	// settings run (the absolute paths install wrote), all outside the
	// project.
	own   []string
	cc    install.ClaudeCode // the Claude Code found, if ccErr is nil
	ccErr error
}

func (d *doctor) pass(name, info string) {
	d.checks = append(d.checks, Check{Name: name, Status: Pass, Detail: info})
}
func (d *doctor) fail(name, info, hint string) {
	d.checks = append(d.checks, Check{Name: name, Status: Fail, Detail: info, Fix: hint})
}
func (d *doctor) warnf(name, info, hint string) {
	d.checks = append(d.checks, Check{Name: name, Status: Warn, Detail: info, Fix: hint})
}

// installedHook is a carryover hook found in a settings file.
type installedHook struct {
	claudesettings.Hook
	scope string
	// argv is what doctor runs for it, without a shell: carryover's own
	// binary, resolved, and 'hook <event>'; nil when it runs nothing.
	argv []string
}

// Options say what doctor checks.
type Options struct {
	Installer *install.Installer // finds the settings files
	Project   string             // the project directory ("" for the current one)
	// Config is the configuration a hook uses in the project, and
	// ConfigErr the error reading it.
	Config    conf.Config
	ConfigErr error
	Sample    []byte // the session the installed hooks are run on
}

// Run runs every check. Its error is one that stops the checks (a
// scope that names no settings file), not a failed check.
func Run(ctx context.Context, opt Options) ([]Check, error) {
	d := &doctor{in: opt.Installer}
	var found []installedHook
	plugin := false
	for _, scope := range []string{"user", "project", "local"} {
		path, proj, err := d.in.Target(scope, opt.Project)
		if err != nil {
			return nil, err
		}
		d.project = d.in.RepoDir(proj)
		f, err := claudesettings.Load(path)
		name := "settings " + scope
		switch {
		case err != nil:
			d.fail(name, fmt.Sprintf("%s: %v", path, err), "fix or restore the file (carryover keeps a backup of the version before its last edit: "+d.in.BackupPath(path)+")")
			continue
		case !f.Exists():
			continue
		}
		plugin = plugin || pluginEnabled(f.Bytes())
		others, warnings := foreignHooks(scope, path, f.Others())
		ours := f.Ours()
		d.pass(name, fmt.Sprintf("%s: parses, %d carryover hooks%s", path, len(ours), others))
		d.checks = append(d.checks, warnings...)
		for _, h := range ours {
			found = append(found, installedHook{Hook: h, scope: scope})
		}
	}
	d.cc, d.ccErr = install.FindClaudeCode(ctx, d.in.Getenv, d.project)
	d.checkClaudeCode()
	d.checkOnPath(plugin)
	switch {
	case len(found) > 0:
		d.checkHooks(found)
	case plugin:
		d.pass("hooks installed", "none in user, project or local settings; the carryover plugin's hooks run")
	default:
		d.fail("hooks installed", "no carryover hooks in user, project or local settings", "run: carryover install")
	}
	if err := d.checkMCP(opt.Project); err != nil {
		return nil, err
	}
	// The config's problems and refused keys are checks.
	for _, p := range opt.Config.Problems {
		hint := "see the Configuration section of the README"
		if p.Refused {
			hint = ""
		}
		d.warnf("config", p.String(), hint)
	}
	if opt.ConfigErr != nil {
		d.fail("config", opt.ConfigErr.Error(), "")
	} else {
		d.checkStore(ctx, opt.Config)
		if opt.Config.DatabaseURL != "" {
			d.checkServer(ctx, opt.Config)
		}
	}
	if len(found) > 0 {
		d.runHooks(ctx, found, opt.Sample)
	}
	return d.checks, nil
}

// checkHooks checks each installed hook's shape: once per event and
// matcher, carryover's own binary run directly with 'hook <event>', the
// right event, a sane timeout, nothing that could turn its exit code into
// 2. It sets the argv of each hook doctor may run.
func (d *doctor) checkHooks(found []installedHook) {
	d.own = d.ownBinaries(found)
	seen := map[string]string{}
	for i := range found {
		h := &found[i]
		name := fmt.Sprintf("hook %s[%s]", h.Event, h.Matcher)
		key := h.Event + "\x00" + h.Matcher
		if prev, ok := seen[key]; ok {
			d.fail(name, fmt.Sprintf("installed twice (%s and %s settings): it runs twice", prev, h.scope), "run: carryover uninstall --scope "+h.scope)
			continue
		}
		seen[key] = h.scope
		argv, ok := h.Argv()
		if !ok {
			d.fail(name, fmt.Sprintf("command %q has shell operators or expansions that can change what runs and its exit code (exit 2 blocks compaction); doctor did not run it", h.Command), "reinstall: carryover install")
			continue
		}
		if !hookArgs(hook.Event(h.Event), argv[1:]) {
			d.fail(name, fmt.Sprintf("command %q does not run 'hook %s'; doctor did not run it", strings.Join(argv, " "), hook.Event(h.Event).Arg()), "reinstall: carryover install")
			continue
		}
		path, msg, fix := d.resolveOwn(h.scope, argv[0])
		if msg != "" {
			d.fail(name, msg, fix)
			continue
		}
		if h.Exec() && d.ccErr == nil && !d.cc.ExecForm() {
			d.fail(name, fmt.Sprintf("exec form (command and args), which Claude Code %s does not run: %s or later does", d.cc.Version, install.ExecFormSince), "reinstall to get the shell form: carryover install")
			continue
		}
		h.argv = append([]string{path}, argv[1:]...)
		if h.Async {
			why := "Claude Code does not use its output"
			if h.Event == string(hook.Stop) || h.Event == string(hook.SessionEnd) {
				why = "in claude -p Claude Code ends it with the session, before it has archived"
			}
			d.warnf(name, "async: "+why, "reinstall: carryover install")
			continue
		}
		form := ""
		if h.Exec() {
			form = ", exec form"
		}
		switch {
		case h.Timeout <= 0:
			d.warnf(name, "no timeout: Claude Code's default is 600 s", "reinstall to get carryover's timeouts")
		case h.Timeout > 600 || (h.Event == string(hook.SessionEnd) && h.Timeout > 60):
			d.warnf(name, fmt.Sprintf("timeout %d s is longer than useful", h.Timeout), "reinstall to get carryover's timeouts")
		default:
			d.pass(name, fmt.Sprintf("%s settings, timeout %d s%s", h.scope, h.Timeout, form))
		}
	}
}

// hookArgs reports whether args are exactly what carryover's hook for ev
// takes: 'hook <event>', and --archive for PostToolUse.
func hookArgs(ev hook.Event, args []string) bool {
	if len(args) < 2 || args[0] != "hook" {
		return false
	}
	if e, ok := hook.ParseEvent(args[1]); !ok || e != ev {
		return false
	}
	rest := args[2:]
	return len(rest) == 0 || ev == hook.PostToolUse && len(rest) == 1 && rest[0] == "--archive"
}

// resolveOwn finds the binary a hook's program names and checks that it is
// carryover's own: a program called carryover, found on PATH or at an
// absolute path, outside the project (or the running carryover itself);
// for project and local settings, which come with a repository, also one
// of d.own. It returns the path, or
// why doctor does not run it and what to do.
func (d *doctor) resolveOwn(scope, prog string) (path, msg, fix string) {
	const notRun = "; doctor did not run it"
	var err error
	switch {
	case !strings.ContainsAny(prog, `/\`):
		var ok bool
		if path, ok = install.LookPath(d.in.Getenv, prog); !ok {
			return "", fmt.Sprintf("%s settings run %q, which is not on PATH: the hook cannot run", scope, prog),
				"put the carryover binary on PATH (CGO_ENABLED=0 go install github.com/carryover-dev/carryover/cmd/carryover@latest), or install for this machine with --scope local"
		}
	case !filepath.IsAbs(prog):
		return "", fmt.Sprintf("%q is a relative path: the hook's working directory, the project, decides what it runs"+notRun, prog), "reinstall: carryover install"
	default:
		path = prog
	}
	_, err = os.Stat(path)
	switch {
	case err != nil:
		return "", fmt.Sprintf("%s: %v", path, err), "the binary moved or was deleted: reinstall with the binary you use (carryover install)"
	case !install.IsExecutable(path):
		return "", path + " is not executable", "chmod +x it, or reinstall"
	case !claudesettings.IsCarryoverProgram(prog):
		return "", fmt.Sprintf("%s is not carryover"+notRun, prog), "reinstall: carryover install"
	case install.Inside(d.project, path) && !d.isSelf(path):
		return "", fmt.Sprintf("%s is inside the project %s: a repository's file, not carryover's own binary"+notRun, path, d.project),
			"install carryover outside the project and reinstall (carryover install)"
	}
	if scope != "user" && !slices.ContainsFunc(d.own, func(o string) bool { return install.SameFile(o, path) }) {
		return "", fmt.Sprintf("%s settings run %s, which is not this carryover, the one on PATH or the one your user settings run"+notRun, scope, path),
			"reinstall with the binary you use: carryover install --scope " + scope
	}
	return path, "", ""
}

// isSelf reports whether path is the running carryover: running it again
// runs nothing new, wherever it is.
func (d *doctor) isSelf(path string) bool {
	exe, err := os.Executable()
	return err == nil && install.SameFile(exe, path)
}

// ownBinaries lists the carryover binaries doctor trusts for project and
// local settings: itself, the carryover on PATH and the absolute programs
// of the user's own settings, each outside the project.
func (d *doctor) ownBinaries(found []installedHook) []string {
	var own []string
	add := func(p string) {
		if p != "" && filepath.IsAbs(p) && !install.Inside(d.project, p) {
			own = append(own, p)
		}
	}
	if exe, err := os.Executable(); err == nil {
		own = append(own, exe)
	}
	if p, ok := install.LookPath(d.in.Getenv, "carryover"); ok {
		add(p)
	}
	for _, h := range found {
		if argv, ok := h.Argv(); ok && h.scope == "user" && claudesettings.IsCarryoverProgram(argv[0]) {
			add(argv[0])
		}
	}
	return own
}

// foreignHooks reports the command hooks of a settings file that are not
// carryover's: doctor never runs them. One that runs carryover through
// something else (sh -c, a wrapper) is a warning; the others are counted
// in the settings line this returns a suffix for.
func foreignHooks(scope, path string, others []claudesettings.Hook) (suffix string, warnings []Check) {
	n := 0
	for _, h := range others {
		line := strings.Join(append([]string{h.Command}, h.Args...), " ")
		if strings.Contains(line, "carryover") {
			warnings = append(warnings, Check{Name: fmt.Sprintf("hook %s[%s]", h.Event, h.Matcher), Status: Warn,
				Detail: fmt.Sprintf("%s settings run carryover through another command, %.120q; doctor did not run it", scope, line),
				Fix:    "if it is meant to be carryover's, replace it: carryover uninstall --scope " + scope + ", then carryover install (in " + path + ")"})
			continue
		}
		n++
	}
	if n > 0 {
		suffix = fmt.Sprintf(", %d other hooks (not carryover's: doctor does not run them)", n)
	}
	return suffix, warnings
}

// pluginEnabled reports whether settings enable a plugin named carryover.
func pluginEnabled(settings []byte) bool {
	var v struct {
		EnabledPlugins map[string]any `json:"enabledPlugins"`
	}
	if json.Unmarshal(settings, &v) != nil {
		return false
	}
	for k, on := range v.EnabledPlugins {
		if strings.HasPrefix(k, "carryover@") && on == true {
			return true
		}
	}
	return false
}

// checkClaudeCode says which Claude Code runs the hooks: without one,
// nothing runs them.
func (d *doctor) checkClaudeCode() {
	switch {
	case errors.Is(d.ccErr, install.ErrNoClaudeCode):
		d.warnf("claude code", d.ccErr.Error()+": nothing runs carryover's hooks",
			"install Claude Code (https://docs.anthropic.com/en/docs/claude-code), or put its claude on PATH; an IDE's own copy of Claude Code runs the hooks too")
	case d.ccErr != nil:
		d.warnf("claude code", d.ccErr.Error(), "check the Claude Code installation: claude --version")
	default:
		form := fmt.Sprintf("runs exec-form hooks (no shell) since %s", install.ExecFormSince)
		if !d.cc.ExecForm() {
			form = fmt.Sprintf("runs hooks through a shell only (exec form needs %s)", install.ExecFormSince)
		}
		d.pass("claude code", fmt.Sprintf("%s (%s): %s", d.cc.Version, d.cc.Path, form))
	}
}

// checkOnPath says whether carryover is on PATH: the plugin's hooks and
// project settings run it from there. Missing is a failure with the
// plugin enabled, a warning otherwise.
func (d *doctor) checkOnPath(plugin bool) {
	const name = "carryover on PATH"
	path, ok := install.LookPath(d.in.Getenv, "carryover")
	switch {
	case !ok:
		msg := "carryover is not on PATH: the carryover plugin's hooks and project settings run it from there"
		fix := "put the binary on PATH: CGO_ENABLED=0 go install github.com/carryover-dev/carryover/cmd/carryover@latest (and $(go env GOPATH)/bin on PATH)"
		if plugin {
			d.fail(name, msg+", and the plugin is enabled: its hooks cannot run", fix)
		} else {
			d.warnf(name, msg, fix)
		}
	case install.Inside(d.project, path) && !d.isSelf(path):
		d.warnf(name, fmt.Sprintf("%s is inside the project: hooks that run carryover from PATH would run the repository's file; doctor does not run it", path),
			"take the project's directory off PATH")
	default:
		d.pass(name, path)
	}
}

// checkMCP checks where carryover's MCP server is registered and that its
// binary is there. Not registering it (install --no-mcp) only warns.
func (d *doctor) checkMCP(project string) error {
	found := 0
	for _, scope := range []string{"user", "project", "local"} {
		_, proj, err := d.in.Target(scope, project)
		if err != nil {
			return err
		}
		t, err := d.in.MCPTarget(scope, proj)
		if err != nil {
			return err
		}
		name := "mcp server " + scope
		srv, ok, err := install.RegisteredMCP(t)
		switch {
		case err != nil:
			d.fail(name, fmt.Sprintf("%s: %v", t.Path, err), "fix or restore the file (carryover keeps a backup of the version before its last edit: "+d.in.BackupPath(t.Path)+")")
			continue
		case !ok:
			continue
		}
		found++
		if _, ok := install.ResolveCommand(d.in.Getenv, srv.Command); !ok {
			d.fail(name, fmt.Sprintf("%s: %s is missing, not executable or not on PATH", t.Path, srv.Command), "reinstall with the binary you use: carryover install --scope "+scope)
			continue
		}
		d.pass(name, fmt.Sprintf("%s: %s %s", t.Path, srv.Command, strings.Join(srv.Args, " ")))
	}
	if found == 0 {
		d.warnf("mcp server", "carryover's MCP server is not registered: Claude Code cannot search the archive itself", "run: carryover install")
	}
	return nil
}

// corruptHint says how to recover from a damaged store at path.
func corruptHint(path string) string {
	// The log and index move with the store, first: left behind, SQLite
	// would take them for the fresh store's, or delete them.
	dst := path + ".corrupt-" + time.Now().UTC().Format("20060102T150405")
	return fmt.Sprintf("move it aside with its -wal and -shm files, those first (for s in -wal -shm ''; do [ -e '%[1]s'\"$s\" ] && mv '%[1]s'\"$s\" '%[2]s'\"$s\"; done;"+
		" a hook that runs into the damage does so itself), then 'carryover ingest --all' rebuilds the archive from the transcripts"+
		" in ~/.claude/projects", path, dst)
}

func (d *doctor) checkStore(ctx context.Context, cfg conf.Config) {
	if moved, err := storeopen.MovedAside(cfg.DB); err == nil {
		for _, m := range moved {
			info := m + ": a damaged store, moved aside"
			if fi, err := os.Stat(m); err == nil {
				info += fmt.Sprintf(" (%.1f MB, %s)", float64(fi.Size())/(1<<20), fi.ModTime().Format("2006-01-02 15:04"))
			}
			d.warnf("damaged store", info, "run 'carryover ingest --all' to re-archive the transcripts Claude Code still keeps"+
				" (sessions whose transcripts are gone are only in this file); delete it once done")
		}
	}
	var nw *storeopen.NotWritableError
	if err := storeopen.CheckWrite(cfg.DB); errors.As(err, &nw) {
		d.fail("store", fmt.Sprintf("%s: cannot be written: %v", cfg.DB, err), nw.Fix)
		return
	}
	st, err := storeopen.Local(ctx, cfg.DB, storeopen.LocalOptions{BusyTimeout: 2 * time.Second})
	if err != nil {
		hint := "check the path and its permissions (--db, CARRYOVER_DB)"
		switch {
		case errors.Is(err, storeopen.ErrNotStore):
			hint = "carryover uses only a store it created and left this file as it is: point --db, CARRYOVER_DB or the db setting at carryover's store"
		case errors.Is(err, storeopen.ErrCorrupt):
			hint = corruptHint(cfg.DB)
		}
		d.fail("store", err.Error(), hint)
		return
	}
	defer st.Close()
	h, err := st.Check(ctx)
	if err != nil {
		hint := "check the file's permissions and free disk space"
		if errors.Is(err, storeopen.ErrCorrupt) {
			hint = corruptHint(cfg.DB)
		}
		d.fail("store", fmt.Sprintf("%s: %v", cfg.DB, err), hint)
		return
	}
	d.pass("store", fmt.Sprintf("%s: schema %d, integrity ok, full-text search ok, writable; %d sessions, %d chunks, %.1f MB",
		cfg.DB, h.SchemaVersion, h.Sessions, h.Chunks, float64(h.Bytes)/(1<<20)))
	if h.SpansDropped > 0 {
		d.warnf("chunk spans", fmt.Sprintf("%d chunks or spans disagreed with the spans that tell a search a chunk's project: they were dropped", h.SpansDropped),
			"nothing to do: the next hooks build them again, and searches use the project index meanwhile")
	}
	err = storeopen.CheckJournal(cfg.DB)
	var je *storeopen.JournalError
	records := errors.As(err, &je) && je.Records
	const fold = "a hook that writes the store (Stop, PreCompact, SessionEnd) folds it in: check that they are installed ('carryover install')"
	switch {
	case err == nil:
	case records && errors.Is(err, storeopen.ErrJournalForeign):
		d.fail("injections journal", err.Error()+": the hooks write what they inject to the store instead, and searches keep no common word's reach",
			"carryover did not make it and leaves it alone: move it away, and the next hook starts a new journal")
	case records && errors.Is(err, storeopen.ErrJournalFull):
		d.warnf("injections journal", err.Error()+": the hooks write what they inject to the store instead, and common words' reaches are dropped", fold)
	case errors.Is(err, storeopen.ErrJournalForeign):
		d.fail("hook runs journal", err.Error()+": the hooks cannot record their runs, and stats cannot read them",
			"carryover did not make it and leaves it alone: move it away, and the next hook starts a new journal")
	case errors.Is(err, storeopen.ErrJournalFull):
		d.warnf("hook runs journal", err.Error()+": the runs of the hooks that only read are being dropped", fold)
	case records:
		d.warnf("injections journal", err.Error(), "")
	default:
		d.warnf("hook runs journal", err.Error(), "")
	}
}

// fullTextIndexer is a server store that says whether its searches can
// use the full-text index (postgres.Store).
type fullTextIndexer interface {
	FullTextIndex(ctx context.Context) (usable, rowSecurity bool, err error)
}

// checkServer connects to the team server and checks that its searches
// can use the full-text index: under row security they cannot until an
// administrator allows it, and a hook's search then outlasts its deadline
// on a large archive.
func (d *doctor) checkServer(ctx context.Context, cfg conf.Config) {
	name, where := "team server", storeopen.RedactURL(cfg.DatabaseURL)
	st, err := storeopen.Server(ctx, cfg.DatabaseURL, storeopen.ServerOptions{ConnectTimeout: 3 * time.Second, Owner: cfg.Owner, Team: cfg.Team})
	if err != nil {
		d.warnf(name, err.Error(), "the hooks archive to the local store meanwhile; 'carryover sync' pushes it once the server answers")
		return
	}
	defer st.Close()
	ix, ok := st.(fullTextIndexer)
	if !ok {
		d.pass(name, where+": connected")
		return
	}
	usable, rowSecurity, err := ix.FullTextIndex(ctx)
	if err != nil {
		d.warnf(name, fmt.Sprintf("%s: connected, but %v", where, err), "")
		return
	}
	d.fullTextCheck(name, where, usable, rowSecurity)
}

// fullTextCheck reports what FullTextIndex said.
func (d *doctor) fullTextCheck(name, where string, usable, rowSecurity bool) {
	switch {
	case !usable:
		d.warnf(name, where+": connected as a role under row security, whose searches cannot use the full-text index:"+
			" each reads every row the role may see (at 100k chunks 1.7 s instead of 36 ms), and on a large archive a"+
			" hook's recall gives up on the server and answers from the local store",
			"a superuser of the server may run, in that database: ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF"+
				" (what it promises: docs/postgres.md, \"A role's search and the full-text index\")")
	case rowSecurity:
		d.pass(name, where+": connected under row security; searches use the full-text index (ts_match_vq is leakproof)")
	default:
		d.pass(name, where+": connected as a role row security does not apply to (the schema's owner or a superuser);"+
			" searches use the full-text index")
	}
}

// runHooks runs carryover's own installed hooks the way Claude Code runs
// exec-form hooks (the binary spawned directly, the payload on stdin)
// against a scratch store and a sample session, and checks what they
// print. Nothing goes through a shell; a hook checkHooks did not accept
// is not run.
func (d *doctor) runHooks(ctx context.Context, found []installedHook, sample []byte) {
	tmp, err := os.MkdirTemp("", "carryover-doctor-")
	if err != nil {
		d.fail("hook runs", err.Error(), "")
		return
	}
	defer os.RemoveAll(tmp)
	sid := "d0c70000-0000-4000-8000-000000000001"
	tpath := filepath.Join(tmp, sid+".jsonl")
	lines := transcript.SplitLines(sample)
	cut, summaryEnd, _ := demo.CompactionPoint(lines)

	// Only hooks checkHooks found to be carryover's own binary, run
	// without a shell.
	byEvent := map[string]installedHook{}
	for _, h := range found {
		if _, ok := byEvent[h.Event]; !ok && h.argv != nil {
			byEvent[h.Event] = h
		}
	}
	// The order of a real session: archive, compact, restore, prompt, end.
	steps := []struct {
		ev      hook.Event
		lines   int
		extra   map[string]any
		wantOut bool
	}{
		{hook.Stop, cut, nil, false},
		{hook.PreCompact, cut, map[string]any{"trigger": "auto", "custom_instructions": nil}, true},
		{hook.SessionStart, summaryEnd, map[string]any{"source": "compact"}, true},
		// The sample's test failure comes back, and its fix with it; the
		// file fixed before the compaction is read again, and what was
		// done to it comes back.
		{hook.PostToolUseFailure, summaryEnd, map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_doctor_1",
			"tool_input": map[string]any{"command": "go test -race ./internal/pdf/...", "description": "Run the tests"},
			"error":      "Exit code 1\ninternal/pdf/render.go:42:14: undefined: fpdf.NewA4\nFAIL\texample.com/invoicer/internal/pdf [build failed]\nFAIL", "is_interrupt": false}, true},
		{hook.PostToolUse, summaryEnd, map[string]any{"tool_name": "Read", "tool_use_id": "toolu_doctor_2",
			"tool_input":    map[string]any{"file_path": "/home/dev/projects/invoicer/internal/pdf/render.go"},
			"tool_response": map[string]any{"type": "text"}}, true},
		{hook.PostCompact, summaryEnd, map[string]any{"trigger": "auto", "compact_summary": "summary"}, false},
		{hook.UserPromptSubmit, len(lines), map[string]any{"prompt": "which error did fpdf.NewA4 cause in internal/pdf/render.go?"}, false},
		{hook.SessionEnd, len(lines), map[string]any{"reason": "other"}, false},
	}
	for _, s := range steps {
		h, ok := byEvent[string(s.ev)]
		if !ok {
			continue
		}
		name := "run " + string(s.ev)
		if err := os.WriteFile(tpath, bytes.Join(lines[:s.lines], nil), 0o600); err != nil {
			d.fail(name, err.Error(), "")
			return
		}
		payload := map[string]any{"session_id": sid, "transcript_path": tpath, "cwd": tmp, "hook_event_name": string(s.ev)}
		for k, v := range s.extra {
			payload[k] = v
		}
		in, _ := json.Marshal(payload)
		timeout := time.Duration(max(h.Timeout, 1)) * time.Second
		cctx, cancel := context.WithTimeout(ctx, timeout+time.Second)
		cmd := exec.CommandContext(cctx, h.argv[0], h.argv[1:]...)
		cmd.Dir = tmp
		cmd.Stdin = bytes.NewReader(in)
		cmd.Env = append(os.Environ(), "CARRYOVER_DB="+filepath.Join(tmp, "doctor.db"), "CARRYOVER_LOG="+filepath.Join(tmp, "doctor.log"), "CLAUDE_PROJECT_DIR="+tmp)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		start := time.Now()
		err := cmd.Run()
		took := time.Since(start)
		cancel()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee) && ee.ExitCode() == 2:
			d.fail(name, "exited 2: Claude Code would block the compaction", "reinstall: carryover install")
			continue
		case err != nil:
			d.fail(name, fmt.Sprintf("%v %s", err, strings.TrimSpace(errOut.String())), "run the command by hand with a payload on stdin to see why")
			continue
		case took > timeout:
			d.fail(name, fmt.Sprintf("took %v, more than its %v timeout", took.Round(time.Millisecond), timeout), "a slow disk or a huge store: see 'carryover bench latency'")
			continue
		}
		if msg := validateHookOutput(s.ev, out.String(), s.wantOut); msg != "" {
			d.fail(name, msg, "carryover's output must be empty or exactly what Claude Code expects; please report this")
			continue
		}
		d.pass(name, fmt.Sprintf("exit 0 in %v, output ok (%d bytes)", took.Round(time.Millisecond), out.Len()))
	}
}

// validateHookOutput checks stdout against what Claude Code expects for the
// event and returns what is wrong, or "".
func validateHookOutput(ev hook.Event, out string, want bool) string {
	if out == "" {
		if want {
			return "printed nothing where carryover should have"
		}
		return ""
	}
	switch ev {
	case hook.PreCompact:
		if strings.HasPrefix(strings.TrimSpace(out), "{") {
			return "printed JSON: Claude Code would paste it into the summariser's prompt"
		}
		return ""
	case hook.SessionStart, hook.UserPromptSubmit, hook.PostToolUse, hook.PostToolUseFailure:
		var v struct {
			HookSpecificOutput *struct {
				HookEventName     string `json:"hookEventName"`
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		dec := json.NewDecoder(strings.NewReader(out))
		if err := dec.Decode(&v); err != nil || dec.More() {
			return fmt.Sprintf("stdout is not one JSON object (Claude Code would paste it as text): %.80q", out)
		}
		if v.HookSpecificOutput == nil || v.HookSpecificOutput.HookEventName != string(ev) || v.HookSpecificOutput.AdditionalContext == "" {
			return fmt.Sprintf("JSON of the wrong shape: %.80q", out)
		}
		return ""
	}
	return fmt.Sprintf("printed %.60q where nothing is expected", out)
}

// ConfigReport describes the configuration a hook uses: its files, and
// each setting's value and where it came from.
type ConfigReport struct {
	// UserFile and ProjectFile are paths, "(none)", or marked (absent);
	// the project file says which of its keys apply.
	UserFile, ProjectFile string
	Settings              []Setting
}

// Setting is one configuration value and its sources, in order.
type Setting struct{ Key, Value, From string }

// DescribeConfig describes cfg.
func DescribeConfig(cfg conf.Config) ConfigReport {
	exists := func(path string) (string, bool) {
		if path == "" {
			return "(none)", false
		}
		if _, err := os.Stat(path); err != nil {
			return path + " (absent)", false
		}
		return path, true
	}
	var r ConfigReport
	r.UserFile, _ = exists(cfg.UserFile)
	project, ok := exists(cfg.ProjectFile)
	switch {
	case ok && cfg.ProjectTrusted:
		project += " (in trusted_projects: every key applies)"
	case ok:
		project += " (not in trusted_projects: only " + strings.Join(conf.ProjectKeys(), ", ") + " apply)"
	}
	r.ProjectFile = project
	for _, s := range cfg.Settings() {
		var from []string
		for _, src := range s.Sources {
			from = append(from, src.String())
		}
		r.Settings = append(r.Settings, Setting{s.Key, s.Value, strings.Join(from, ", ")})
	}
	return r
}
