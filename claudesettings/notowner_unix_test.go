//go:build unix

package claudesettings

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// notOwnerDir names, in the test binary run as another user, the folder
// holding the files the parent made.
const notOwnerDir = "CARRYOVER_TEST_NOT_OWNER_DIR"

// TestNotOwnerRefused: a user who is not root cannot give a replacement
// of another user's file its owner, so the pre-checks refuse such a
// settings file or CLAUDE.md before anything is saved (ErrNotOwner), and
// Save and ClaudeMD leave it as it was. Root makes the files, then runs
// this test again as nobody, in a folder nobody may write in (the owner is
// then the only reason to refuse).
func TestNotOwnerRefused(t *testing.T) {
	if dir := os.Getenv(notOwnerDir); dir != "" {
		notOwnerChild(t, dir)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make files another user owns and run as that user")
	}
	dir := t.TempDir()
	for d := filepath.Dir(dir); d != filepath.Dir(d) && d != filepath.Clean(os.TempDir()); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil { // the test's own folders, so nobody can reach dir
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, "settings.json"), "{\n  \"theme\": \"dark\"\n}\n", 0o644)
	writeFile(t, filepath.Join(dir, "CLAUDE.md"), "# Project\n", 0o644)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	// The test binary may sit in a folder only root can read.
	exe := filepath.Join(dir, "claudesettings.test")
	copyFile(t, os.Args[0], exe)
	cmd := exec.Command(exe, "-test.run=^TestNotOwnerRefused$", "-test.v")
	cmd.Env = append(os.Environ(), notOwnerDir+"="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	t.Logf("as nobody:\n%s", out)
	for name, want := range map[string]string{"settings.json": "{\n  \"theme\": \"dark\"\n}\n", "CLAUDE.md": "# Project\n"} {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
			t.Errorf("%s changed:\n%s", name, got)
		}
	}
}

// notOwnerChild is the test, run as a user who owns neither file.
func notOwnerChild(t *testing.T, dir string) {
	settings := filepath.Join(dir, "settings.json")
	f := mustLoad(t, settings)
	if _, err := f.Install(DefaultHooks(testExe, HookOptions{})); err != nil {
		t.Fatal(err)
	}
	if err := f.CheckWritable(); !errors.Is(err, ErrNotOwner) {
		t.Errorf("CheckWritable = %v, want ErrNotOwner", err)
	}
	if _, err := f.Save(); err == nil {
		t.Error("Save replaced another user's settings")
	}
	md := filepath.Join(dir, "CLAUDE.md")
	if err := CheckClaudeMD(md, true, DefaultClaudeMDText); !errors.Is(err, ErrNotOwner) {
		t.Errorf("CheckClaudeMD = %v, want ErrNotOwner", err)
	}
	if _, err := ClaudeMD(md, true, DefaultClaudeMDText); !errors.Is(err, ErrNotOwner) {
		t.Errorf("ClaudeMD = %v, want ErrNotOwner", err)
	}
	// A file that needs no change is not refused.
	if err := CheckClaudeMD(md, false, ""); err != nil {
		t.Errorf("CheckClaudeMD with nothing to remove = %v", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
