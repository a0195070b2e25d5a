package projectdir_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/carryover-dev/carryover/internal/projectdir"
)

// git runs the real git in dir; the test is skipped where there is none.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed")
		}
		t.Skip("git is not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	d := filepath.Join(parts...)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// tempDir is a temporary directory with symbolic links resolved, as a
// shell's cwd shows it.
func tempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", filepath.Join(d, "nohome"))
	return d
}

func TestRootWorktrees(t *testing.T) {
	tmp := tempDir(t)
	repo := mkdir(t, tmp, "src", "app")
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "first")
	// A worktree beside the repository and one inside it, as Claude Code
	// makes them (.claude/worktrees/NAME).
	git(t, repo, "worktree", "add", "-q", "-b", "feature", filepath.Join(tmp, "src", "app-feature"))
	git(t, repo, "worktree", "add", "-q", "-b", "agent", filepath.Join(repo, ".claude", "worktrees", "agent-1"))
	sub := mkdir(t, repo, "internal", "pkg")
	wtSub := mkdir(t, tmp, "src", "app-feature", "cmd")
	other := mkdir(t, tmp, "scratch", "notes")

	feature, agent := filepath.Join(tmp, "src", "app-feature"), filepath.Join(repo, ".claude", "worktrees", "agent-1")
	for _, tc := range []struct{ dir, want, work string }{
		{repo, repo, repo},
		{repo + "/", repo, repo},
		{sub, repo, repo},
		{feature, repo, feature},
		{wtSub, repo, feature},
		{agent, repo, agent},
		{other, other, other},
		{filepath.Join(tmp, "gone", "project"), filepath.Join(tmp, "gone", "project"), filepath.Join(tmp, "gone", "project")}, // no longer exists
		{"relative/dir", "relative/dir", "relative/dir"},
		{"", "", ""},
	} {
		if got := projectdir.Root(tc.dir); got != tc.want {
			t.Errorf("Root(%q) = %q, want %q", tc.dir, got, tc.want)
		}
		// The worktree's own root: where its files are.
		if project, work := projectdir.Roots(tc.dir); project != tc.want || work != tc.work {
			t.Errorf("Roots(%q) = %q, %q, want %q, %q", tc.dir, project, work, tc.want, tc.work)
		}
	}
}

func TestRootBareAndSubmodule(t *testing.T) {
	tmp := tempDir(t)
	seed := mkdir(t, tmp, "seed")
	git(t, seed, "init", "-q", "-b", "main")
	git(t, seed, "commit", "-q", "--allow-empty", "-m", "first")
	bare := filepath.Join(tmp, "repo.git")
	git(t, tmp, "clone", "-q", "--bare", seed, bare)
	git(t, bare, "worktree", "add", "-q", filepath.Join(tmp, "wt-main"), "main")
	git(t, bare, "worktree", "add", "-q", "-b", "two", filepath.Join(tmp, "wt-two"))
	for _, wt := range []string{"wt-main", "wt-two"} {
		if got := projectdir.Root(filepath.Join(tmp, wt)); got != bare {
			t.Errorf("Root(%s) = %q, want the bare repository %q", wt, got, bare)
		}
	}

	// A submodule's .git file points into the superproject's .git/modules:
	// it is a repository of its own.
	super := mkdir(t, tmp, "super")
	mkdir(t, super, ".git", "modules", "lib")
	lib := mkdir(t, super, "lib")
	if err := os.WriteFile(filepath.Join(lib, ".git"), []byte("gitdir: ../.git/modules/lib\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := projectdir.Root(mkdir(t, lib, "src")); got != lib {
		t.Errorf("Root(submodule/src) = %q, want %q", got, lib)
	}
	if got := projectdir.Root(mkdir(t, super, "docs")); got != super {
		t.Errorf("Root(super/docs) = %q, want %q", got, super)
	}
}

func TestRootHomeRepository(t *testing.T) {
	tmp := tempDir(t)
	home := mkdir(t, tmp, "home", "dev")
	t.Setenv("HOME", home)
	mkdir(t, home, ".git")
	proj := mkdir(t, home, "projects", "loose")
	if got := projectdir.Root(proj); got != proj {
		t.Errorf("Root(%q) under a home kept in git = %q, want the directory itself", proj, got)
	}
	if got := projectdir.Root(home); got != home {
		t.Errorf("Root(home) = %q, want %q", got, home)
	}
}
