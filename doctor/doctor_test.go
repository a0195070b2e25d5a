package doctor

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/claudesettings"
	conf "github.com/carryover-dev/carryover/config"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/install"
	"github.com/carryover-dev/carryover/storeopen"
	"github.com/carryover-dev/carryover/storetest"
)

func TestCheckHooks(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "carryover")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "PATH" {
			return dir
		}
		return ""
	}
	h := func(scope, event, command string, timeout int) installedHook {
		return installedHook{Hook: claudesettings.Hook{Event: event, Command: command, Timeout: timeout}, scope: scope}
	}
	cases := []struct {
		hook   installedHook
		status Status
		detail string
	}{
		{h("user", "PreCompact", exe+" hook pre-compact", 30), Pass, "user settings, timeout 30 s"},
		{h("project", "Stop", "carryover hook stop", 30), Pass, "project settings"},
		{h("user", "SessionEnd", "missing-carryover hook session-end", 30), Fail, "not on PATH"},
		{h("user", "PostCompact", filepath.Join(dir, "gone")+" hook post-compact", 30), Fail, "no such file"},
		{h("user", "UserPromptSubmit", plain+" hook user-prompt-submit", 30), Fail, "not executable"},
		{h("user", "PostToolUse", exe+" hook stop", 30), Fail, "does not run 'hook post-tool-use'"},
		{h("user", "SessionStart", exe+" hook session-start; exit 2", 30), Fail, "shell operators"},
		{installedHook{Hook: claudesettings.Hook{Event: "PostToolUse", Matcher: "Read", Command: exe + " hook post-tool-use || exit 2", Timeout: 30}, scope: "user"}, Fail, "shell operators"},
		{h("user", "PostToolUseFailure", exe+" hook post-tool-use-failure", 0), Warn, "no timeout"},
		{h("local", "PreCompact", exe+" hook pre-compact", 30), Fail, "installed twice (user and local settings)"},
	}
	d := &doctor{in: &install.Installer{Getenv: getenv}}
	var found []installedHook
	for _, c := range cases {
		found = append(found, c.hook)
	}
	d.checkHooks(found)
	if len(d.checks) != len(cases) {
		t.Fatalf("%d checks for %d hooks: %+v", len(d.checks), len(cases), d.checks)
	}
	for i, c := range cases {
		got := d.checks[i]
		if got.Status != c.status || !strings.Contains(got.Detail, c.detail) {
			t.Errorf("%s: got %s %q, want %s with %q", c.hook.Command, got.Status, got.Detail, c.status, c.detail)
		}
		if got.Status != Pass && got.Fix == "" {
			t.Errorf("%s: %s without a fix", c.hook.Command, got.Status)
		}
	}
}

func TestValidateHookOutput(t *testing.T) {
	ok := `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x"}}`
	cases := []struct {
		ev   hook.Event
		out  string
		want bool
		bad  string // "" when the output is right
	}{
		{hook.Stop, "", false, ""},
		{hook.SessionStart, "", true, "printed nothing"},
		{hook.SessionStart, ok, true, ""},
		{hook.SessionStart, ok + ok, true, "not one JSON object"},
		{hook.UserPromptSubmit, ok, false, "wrong shape"},
		{hook.PreCompact, "keep the paths", true, ""},
		{hook.PreCompact, `{"x":1}`, true, "printed JSON"},
		{hook.Stop, "hello", false, "where nothing is expected"},
	}
	for _, c := range cases {
		got := validateHookOutput(c.ev, c.out, c.want)
		if (c.bad == "") != (got == "") || !strings.Contains(got, c.bad) {
			t.Errorf("%s %q: got %q, want %q", c.ev, c.out, got, c.bad)
		}
	}
}

func TestStatusString(t *testing.T) {
	for s, want := range map[Status]string{Pass: "PASS", Warn: "WARN", Fail: "FAIL"} {
		if s.String() != want {
			t.Errorf("%d: %s, want %s", s, s, want)
		}
	}
}

func TestDescribeConfig(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, ".carryover.toml")
	if err := os.WriteFile(project, []byte("budget = 3000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		return map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config")}[k]
	}
	cfg, err := conf.Load(conf.Options{Env: conf.Env{Getenv: getenv}, ProjectDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	r := DescribeConfig(cfg)
	if !strings.HasSuffix(r.UserFile, "(absent)") && r.UserFile != "(none)" {
		t.Errorf("user file: %q", r.UserFile)
	}
	if r.ProjectFile != project+" (not in trusted_projects: only "+strings.Join(conf.ProjectKeys(), ", ")+" apply)" {
		t.Errorf("project file %q does not say which keys apply", r.ProjectFile)
	}
	found := false
	for _, s := range r.Settings {
		if s.Key == "db" {
			found = s.Value != ""
		}
	}
	if !found || len(r.Settings) != len(cfg.Settings()) {
		t.Errorf("settings: %+v", r.Settings)
	}
}

// TestCorruptHintMovesSideFiles runs the shell command the damaged-store
// hint gives: the log and index must move with the store, beside it.
func TestCorruptHintMovesSideFiles(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("no sh to run the hint with: %v", err)
	}
	db := filepath.Join(t.TempDir(), "my store", "carryover.db")
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"", "-wal", "-shm"} {
		if err := os.WriteFile(db+s, []byte("x"+s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	hint := corruptHint(db)
	_, cmd, ok := strings.Cut(hint, "(")
	cmd, _, ok2 := strings.Cut(cmd, "; a hook")
	if !ok || !ok2 {
		t.Fatalf("no command in the hint: %s", hint)
	}
	if out, err := exec.Command(sh, "-c", cmd).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	moved, err := filepath.Glob(filepath.Join(filepath.Dir(db), "carryover.db.corrupt-*"))
	if err != nil || len(moved) != 3 {
		t.Fatalf("moved aside: %v (%v), want the store, its -wal and its -shm", moved, err)
	}
	for _, s := range []string{"", "-wal", "-shm"} {
		if _, err := os.Stat(db + s); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", db+s, err)
		}
	}
}

func TestHookArgs(t *testing.T) {
	cases := []struct {
		ev   hook.Event
		args []string
		want bool
	}{
		{hook.Stop, []string{"hook", "stop"}, true},
		{hook.PostToolUse, []string{"hook", "post-tool-use", "--archive"}, true},
		{hook.Stop, []string{"hook", "stop", "--archive"}, false},
		{hook.Stop, []string{"hook", "session-end"}, false},
		{hook.Stop, []string{"hook"}, false},
		{hook.Stop, []string{"mcp"}, false},
		{hook.PostToolUseFailure, []string{"hook", "post-tool-use-failure", "--db", "/x"}, false},
	}
	for _, c := range cases {
		if got := hookArgs(c.ev, c.args); got != c.want {
			t.Errorf("hookArgs(%s, %q) = %v, want %v", c.ev, c.args, got, c.want)
		}
	}
}

// TestCheckExecForm: an exec-form entry passes with a Claude Code that runs
// it, fails with an older one; an async entry warns; each gets an argv
// only when it passes the checks doctor runs by.
func TestCheckExecForm(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "carryover")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string { return map[string]string{"PATH": dir}[k] }
	for _, c := range []struct {
		version install.Version
		async   bool
		status  Status
		detail  string
	}{
		{install.Version{2, 1, 197}, false, Pass, "exec form"},
		{install.Version{2, 1, 100}, false, Fail, "does not run"},
		{install.Version{2, 1, 197}, true, Warn, "async"},
	} {
		d := &doctor{in: &install.Installer{Getenv: getenv}, cc: install.ClaudeCode{Version: c.version}}
		found := []installedHook{{Hook: claudesettings.Hook{Event: "Stop", Command: exe, Args: []string{"hook", "stop"}, Timeout: 15, Async: c.async}, scope: "user"}}
		d.checkHooks(found)
		if len(d.checks) != 1 || d.checks[0].Status != c.status || !strings.Contains(d.checks[0].Detail, c.detail) {
			t.Errorf("Claude Code %s, async %v: %+v, want %s with %q", c.version, c.async, d.checks, c.status, c.detail)
		}
		if (found[0].argv != nil) != (c.status != Fail) {
			t.Errorf("Claude Code %s, async %v: argv %q", c.version, c.async, found[0].argv)
		}
	}
}

// TestCheckStoreJournal: a journal that is not a regular file fails the
// check, with what to do; a healthy one says nothing.
func TestCheckStoreJournal(t *testing.T) {
	db := filepath.Join(t.TempDir(), "carryover.db")
	check := func() []Check {
		d := &doctor{}
		d.checkStore(context.Background(), conf.Config{DB: db})
		var out []Check
		for _, c := range d.checks {
			if strings.HasSuffix(c.Name, "journal") {
				out = append(out, c)
			}
		}
		return out
	}
	if got := check(); len(got) != 0 {
		t.Fatalf("a store without a journal: %+v", got)
	}
	journal := storeopen.JournalFiles(db)[0]
	if err := os.WriteFile(journal, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := check(); len(got) != 0 {
		t.Fatalf("a journal that is fine: %+v", got)
	}
	if err := os.WriteFile(journal, make([]byte, 4<<20-1000), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := check(); len(got) != 1 || got[0].Status != Warn || !strings.Contains(got[0].Detail, "dropped") {
		t.Fatalf("a journal that is nearly full: %+v", got)
	}
	if err := os.Remove(journal); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(journal, 0o700); err != nil {
		t.Fatal(err)
	}
	got := check()
	if len(got) != 1 || got[0].Status != Fail || !strings.Contains(got[0].Detail, journal) || !strings.Contains(got[0].Fix, "move it away") {
		t.Fatalf("a journal that is a directory: %+v", got)
	}
	// The journal of injections and reaches says what its loss costs.
	if err := os.Remove(journal); err != nil {
		t.Fatal(err)
	}
	records := storeopen.JournalFiles(db)[2]
	if err := os.Mkdir(records, 0o700); err != nil {
		t.Fatal(err)
	}
	got = check()
	if len(got) != 1 || got[0].Name != "injections journal" || got[0].Status != Fail || !strings.Contains(got[0].Detail, records) ||
		!strings.Contains(got[0].Detail, "to the store instead") {
		t.Fatalf("an injections journal that is a directory: %+v", got)
	}
}

// TestCheckServer: an unreachable team server is a warning that says the
// hooks go on locally; a reachable one says whether its searches can use
// the full-text index, and how to let them when they cannot.
func TestCheckServer(t *testing.T) {
	ctx := context.Background()
	// A port nothing listens on: take one, then close it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	d := &doctor{}
	d.checkServer(ctx, conf.Config{DatabaseURL: "postgres://u:secretpw@" + addr + "/db"})
	if len(d.checks) != 1 || d.checks[0].Status != Warn || !strings.Contains(d.checks[0].Fix, "local store") ||
		strings.Contains(d.checks[0].Detail, "secretpw") {
		t.Fatalf("unreachable server: %+v", d.checks)
	}

	for _, tt := range []struct {
		usable, rls bool
		status      Status
		want        string
	}{
		{false, true, Warn, "ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF"},
		{true, true, Pass, "leakproof"},
		{true, false, Pass, "row security does not apply"},
	} {
		d := &doctor{}
		d.fullTextCheck("team server", "postgres://u@h/db", tt.usable, tt.rls)
		if c := d.checks[0]; c.Status != tt.status || !strings.Contains(c.Detail+c.Fix, tt.want) {
			t.Errorf("usable %v, row security %v: %+v", tt.usable, tt.rls, c)
		}
	}

	// A database of its own on the test server (skipped without one).
	dsn := storetest.PostgresDatabase(t)
	d = &doctor{}
	d.checkServer(ctx, conf.Config{DatabaseURL: dsn})
	if len(d.checks) != 1 || d.checks[0].Status != Pass || !strings.Contains(d.checks[0].Detail, "full-text index") {
		t.Fatalf("the test server, as its superuser: %+v", d.checks)
	}
}
