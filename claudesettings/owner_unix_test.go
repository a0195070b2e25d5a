//go:build unix

package claudesettings

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// otherOwner is an owner the test may give a file that is not the one a
// file it creates gets: another user when it runs as root, else another
// of its own groups.
func otherOwner(t *testing.T) (uid, gid int) {
	t.Helper()
	if os.Geteuid() == 0 {
		return 12345, 12345
	}
	groups, _ := os.Getgroups()
	for _, g := range groups {
		if g != os.Getegid() {
			return os.Geteuid(), g
		}
	}
	t.Skip("needs root, or a user in more than one group, to give a file another owner")
	return 0, 0
}

func ownerOf(t *testing.T, path string) (uid, gid int) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid)
}

// TestSaveKeepsOwner: replacing a settings file, the MCP file or CLAUDE.md
// keeps its owner and group. A root 'carryover install' with a user's
// HOME otherwise leaves that user a settings file they cannot edit.
func TestSaveKeepsOwner(t *testing.T) {
	uid, gid := otherOwner(t)
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	md := filepath.Join(dir, "CLAUDE.md")
	writeFile(t, settings, "{\n  \"theme\": \"dark\"\n}\n", 0o640)
	writeFile(t, md, "# notes\n", 0o644)
	for _, p := range []string{settings, md} {
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	f := mustLoad(t, settings)
	f.SetBackup(filepath.Join(t.TempDir(), "backup"))
	if _, err := f.Install(DefaultHooks(testExe, HookOptions{})); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := ClaudeMD(md, true, DefaultClaudeMDText); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{settings, md} {
		if u, g := ownerOf(t, p); u != uid || g != gid {
			t.Errorf("%s: owner %d:%d after the edit, want %d:%d", filepath.Base(p), u, g, uid, gid)
		}
	}
	if fi, _ := os.Stat(settings); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode changed to %v", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	names := []string{}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if slices.ContainsFunc(names, func(n string) bool {
		return filepath.Ext(n) != ".json" && n != "CLAUDE.md" && n != "settings.json.carryover-state"
	}) {
		t.Errorf("files left beside them: %v", names)
	}
}
