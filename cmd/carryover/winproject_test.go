package main

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
)

// TestProjectWindowsPaths: --project selects a project archived on Windows
// from any system, by its path in either separator and either drive
// letter case, by a directory inside it, or by the name of the folder
// Claude Code keeps its transcripts in.
func TestProjectWindowsPaths(t *testing.T) {
	h := newHookEnv(t)
	const win, posix = "aaaaaaaa-1111-4111-8111-111111111111", "bbbbbbbb-2222-4222-8222-222222222222"
	st, err := sqlite.Open(context.Background(), h.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	winBatch := storetest.Batch(win, `X:\03_ACG\Odoo_Docs`, 0, 2)
	winBatch.Session.Cwd = `x:\03_ACG\Odoo_Docs\addons`
	winBatch.Session.TranscriptPath = `C:\Users\me\.claude\projects\x--03-ACG-Odoo-Docs-addons\` + win + ".jsonl"
	for _, b := range []carryover.Batch{winBatch, storetest.Batch(posix, "/home/me/app", 0, 2)} {
		if err := st.Apply(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	for _, arg := range []string{
		`X:\03_ACG\Odoo_Docs`, `x:\03_ACG\Odoo_Docs`, `x:/03_ACG/Odoo_Docs/`, `X:\03_ACG\Odoo_Docs\addons\web`,
		"X--03-ACG-Odoo-Docs", "x--03-ACG-Odoo-Docs-addons", "X--03-ACG-Odoo-Docs-addons", h.dir + "/.claude/projects/x--03-ACG-Odoo-Docs-addons",
	} {
		out, errOut, code := h.runCLI(t, "sessions", "--project", arg)
		if code != 0 || !strings.Contains(out, win[:8]) || strings.Contains(out, posix[:8]) {
			t.Errorf("--project %s: exit %d, stdout:\n%s\nstderr: %s", arg, code, out, errOut)
		}
	}
	for _, arg := range []string{`Y:\03_ACG\Odoo_Docs`, "Y--03-ACG-Odoo-Docs"} {
		if _, errOut, code := h.runCLI(t, "sessions", "--project", arg); code != 1 || !strings.Contains(errOut, "no archived sessions") {
			t.Errorf("--project %s: exit %d, stderr %q; want none archived", arg, code, errOut)
		}
	}
}

// TestHookWindowsProject: sessions that Claude Code started in one Windows
// directory, reported with either drive letter case and separator, are
// archived by the hooks as one project, on any system.
func TestHookWindowsProject(t *testing.T) {
	h := newHookEnv(t)
	const other = "cccccccc-3333-4333-8333-333333333333"
	second := filepath.Join(h.dir, other+".jsonl")
	if err := os.WriteFile(second, bytes.ReplaceAll(demoSession, []byte(demoID), []byte(other)), 0o600); err != nil {
		t.Fatal(err)
	}
	h.run(t, "stop", h.payload("Stop", map[string]any{"cwd": `c:\src\shop`}))
	h.run(t, "stop", h.payload("Stop", map[string]any{"cwd": `C:/src/shop/`, "session_id": other, "transcript_path": second}))
	st, err := sqlite.Open(context.Background(), h.db, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	all, err := st.Sessions(context.Background(), carryover.SessionFilter{TopLevel: true})
	if err != nil {
		t.Fatal(err)
	}
	projects := map[string]int{}
	for _, s := range all {
		projects[s.Project]++
	}
	if want := map[string]int{`C:\src\shop`: 2}; !maps.Equal(projects, want) {
		t.Errorf("projects %v, want %v", projects, want)
	}
}
