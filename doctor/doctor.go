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
	in     *install.Installer
	checks []Check
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
	for _, scope := range []string{"user", "project", "local"} {
		path, _, err := d.in.Target(scope, opt.Project)
		if err != nil {
			return nil, err
		}
		f, err := claudesettings.Load(path)
		name := "settings " + scope
		switch {
		case err != nil:
			d.fail(name, fmt.Sprintf("%s: %v", path, err), "fix or restore the file (carryover keeps a backup of the version before its last edit: "+d.in.BackupPath(path)+")")
			continue
		case !f.Exists():
			continue
		}
		ours := f.Ours()
		if len(ours) == 0 {
			d.pass(name, path+": parses, no carryover hooks")
			continue
		}
		d.pass(name, fmt.Sprintf("%s: parses, %d carryover hooks", path, len(ours)))
		for _, h := range ours {
			found = append(found, installedHook{h, scope})
		}
	}
	if len(found) == 0 {
		d.fail("hooks installed", "no carryover hooks in user, project or local settings", "run: carryover install")
	} else {
		d.checkHooks(found)
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
	}
	if len(found) > 0 {
		d.runHooks(ctx, found, opt.Sample)
	}
	return d.checks, nil
}

// checkHooks checks each installed hook's shape: once per event and
// matcher, a runnable binary, the right event, a sane timeout, nothing that
// could turn its exit code into 2.
func (d *doctor) checkHooks(found []installedHook) {
	seen := map[string]string{}
	for _, h := range found {
		name := fmt.Sprintf("hook %s[%s]", h.Event, h.Matcher)
		key := h.Event + "\x00" + h.Matcher
		if prev, ok := seen[key]; ok {
			d.fail(name, fmt.Sprintf("installed twice (%s and %s settings): it runs twice", prev, h.scope), "run: carryover uninstall --scope "+h.scope)
			continue
		}
		seen[key] = h.scope
		prog, rest := install.SplitCommand(h.Command)
		if !strings.ContainsRune(prog, filepath.Separator) {
			// A portable install (project settings): Claude Code's shell
			// finds it on PATH, as doctor's does.
			if _, ok := install.LookPath(d.in.Getenv, prog); !ok {
				d.fail(name, fmt.Sprintf("%s settings run %q, which is not on PATH: the hook cannot run", h.scope, prog),
					"put the carryover binary on PATH (CGO_ENABLED=0 go install github.com/carryover-dev/carryover/cmd/carryover@latest), or install for this machine with --scope local")
				continue
			}
		} else if fi, err := os.Stat(prog); err != nil {
			d.fail(name, fmt.Sprintf("%s: %v", prog, err), "the binary moved or was deleted: reinstall with the binary you use (carryover install)")
			continue
		} else if fi.IsDir() || fi.Mode()&0o111 == 0 {
			d.fail(name, prog+" is not executable", "chmod +x it, or reinstall")
			continue
		}
		// Before the event: "hook pre-compact; exit 2" names no event.
		if strings.ContainsAny(rest, ";|&><`$") {
			d.fail(name, fmt.Sprintf("command %q has shell operators that can change its exit code (exit 2 blocks compaction)", h.Command), "reinstall: carryover install")
			continue
		}
		ev, ok := hook.ParseEvent(strings.TrimPrefix(strings.TrimSpace(rest), "hook "))
		if !strings.HasPrefix(strings.TrimSpace(rest), "hook ") || !ok || string(ev) != h.Event {
			d.fail(name, fmt.Sprintf("command %q does not run 'hook %s'", h.Command, hook.Event(h.Event).Arg()), "reinstall: carryover install")
			continue
		}
		switch {
		case h.Timeout <= 0:
			d.warnf(name, "no timeout: Claude Code's default is 600 s", "reinstall to get carryover's timeouts")
		case h.Timeout > 600 || (h.Event == string(hook.SessionEnd) && h.Timeout > 60):
			d.warnf(name, fmt.Sprintf("timeout %d s is longer than useful", h.Timeout), "reinstall to get carryover's timeouts")
		default:
			d.pass(name, fmt.Sprintf("%s settings, timeout %d s", h.scope, h.Timeout))
		}
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
}

// runHooks runs every installed hook command the way Claude Code does (a
// shell, the payload on stdin) against a scratch store and a sample
// session, and checks what it prints.
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

	byEvent := map[string]installedHook{}
	for _, h := range found {
		if _, ok := byEvent[h.Event]; !ok {
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
		cmd := exec.CommandContext(cctx, "/bin/sh", "-c", h.Command)
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
