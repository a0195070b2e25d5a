package main

import (
	"context"
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
