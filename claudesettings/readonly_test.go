package claudesettings

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadOnlyRefused: a settings file made read-only (0444) is not
// replaced, even by a user the mode does not stop (root): CheckWritable and
// Save say ErrReadOnly, and the file, its mode and its directory stay as
// they were.
func TestReadOnlyRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	const orig = "{\n  \"theme\": \"dark\"\n}\n"
	writeFile(t, path, orig, 0o444)
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	f := mustLoad(t, path)
	if err := f.CheckWritable(); !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "0444") {
		t.Errorf("CheckWritable = %v, want ErrReadOnly with the mode", err)
	}
	if _, err := f.Install(DefaultHooks(testExe, HookOptions{})); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Save(); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Save = %v, want ErrReadOnly", err)
	}
	if got, _ := os.ReadFile(path); string(got) != orig {
		t.Errorf("read-only file rewritten:\n%s", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o444 {
		t.Errorf("mode changed to %v", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files beside it: %v", entries)
	}
	// A writable file, or one that does not exist yet, passes.
	if err := mustLoad(t, filepath.Join(dir, "new.json")).CheckWritable(); err != nil {
		t.Errorf("missing file: %v", err)
	}
}

// TestSetBackup: with a backup path, each save replaces the one backup
// there with the content it replaced, private, and leaves nothing beside
// the settings file.
func TestSetBackup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "proj", ".claude", "settings.json")
	const orig = "{\"theme\": \"dark\"}\n"
	writeFile(t, path, orig, 0o644)
	backup := filepath.Join(dir, "state", "backups", "settings.json")
	f := mustLoad(t, path)
	f.SetBackup(backup)
	if _, err := f.Install(DefaultHooks(testExe, HookOptions{})); err != nil {
		t.Fatal(err)
	}
	got, err := f.Save()
	if err != nil || got != backup {
		t.Fatalf("Save = %q, %v; want the backup at %s", got, err, backup)
	}
	if data, _ := os.ReadFile(backup); string(data) != orig {
		t.Errorf("backup holds %q, want the original", data)
	}
	installed, _ := os.ReadFile(path)
	if _, err := f.Install(DefaultHooks(testExe, HookOptions{Startup: true})); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Save(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(backup); string(data) != string(installed) {
		t.Errorf("second backup holds %q, want the content the second save replaced", data)
	}
	entries, _ := os.ReadDir(filepath.Dir(backup))
	if len(entries) != 1 {
		t.Errorf("backup directory holds %d files, want 1: %v", len(entries), entries)
	}
	if fi, err := os.Stat(backup); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("backup mode %v, %v; want 0600", fi.Mode(), err)
	}
	beside, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range beside {
		if e.Name() != "settings.json" && e.Name() != "settings.json.carryover-state" {
			t.Errorf("left beside the settings file: %s", e.Name())
		}
	}
}

// TestCheckClaudeMDReadOnly: a read-only CLAUDE.md is refused only when
// it must be rewritten, by CheckClaudeMD and ClaudeMD alike; one that
// already says what install would add, or has nothing to remove, passes,
// so that a repeated install or an uninstall is not refused for a file it
// leaves as it is.
func TestCheckClaudeMDReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "CLAUDE.md")
	writeFile(t, path, "# Project\n", 0o644)
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := CheckClaudeMD(path, false, ""); err != nil {
		t.Errorf("uninstall, no block to remove: %v", err)
	}
	if err := CheckClaudeMD(path, true, DefaultClaudeMDText); !errors.Is(err, ErrReadOnly) {
		t.Errorf("install into a read-only file: %v, want ErrReadOnly", err)
	}
	if _, err := ClaudeMD(path, true, DefaultClaudeMDText); !errors.Is(err, ErrReadOnly) {
		t.Errorf("ClaudeMD into a read-only file: %v, want ErrReadOnly, as CheckClaudeMD said", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "# Project\n" {
		t.Errorf("read-only file rewritten:\n%s", got)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ClaudeMD(path, true, DefaultClaudeMDText); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := CheckClaudeMD(path, true, DefaultClaudeMDText); err != nil {
		t.Errorf("install again, the block as it would write it: %v", err)
	}
}
