package install_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/install"
)

// userSettings is a settings file a user wrote by hand: other hooks, other
// keys, their own formatting.
const userSettings = `{
  "model": "opus",
  "hooks": {
    "PreCompact": [
      {"matcher": "", "hooks": [{"type": "command", "command": "~/bin/notify.sh compact"}]}
    ]
  },
  "permissions": {"allow": ["Bash(go test:*)"]}
}
`

type fixture struct {
	home, project, settings, binary string
	in                              *install.Installer
	out, errs                       bytes.Buffer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{home: filepath.Join(dir, "home"), project: filepath.Join(dir, "project")}
	f.settings = filepath.Join(f.home, ".claude", "settings.json")
	f.binary = filepath.Join(dir, "bin", "carryover")
	for _, d := range []string{filepath.Dir(f.settings), f.project, filepath.Dir(f.binary)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(f.settings, []byte(userSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.binary, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": f.home, "PATH": filepath.Dir(f.binary)}
	f.in = &install.Installer{Getenv: func(k string) string { return env[k] },
		Stdin: strings.NewReader(""), Stdout: &f.out, Stderr: &f.errs}
	return f
}

func (f *fixture) read(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(f.settings)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestInstallUninstallRoundTrip: install adds carryover's hooks beside the
// user's own, keeps its backup outside the project, and uninstall gives
// back the file byte for byte.
func TestInstallUninstallRoundTrip(t *testing.T) {
	f := newFixture(t)
	opt := install.Options{Scope: "user", Project: f.project, Binary: f.binary, NoMCP: true}
	if err := f.in.Install(opt); err != nil {
		t.Fatalf("install: %v\n%s", err, f.errs.String())
	}
	got := f.read(t)
	for _, want := range []string{"~/bin/notify.sh compact", `"model": "opus"`, "Bash(go test:*)",
		f.binary + " hook pre-compact", f.binary + " hook session-start", f.binary + " hook post-tool-use-failure"} {
		if !strings.Contains(got, want) {
			t.Errorf("installed settings lack %q:\n%s", want, got)
		}
	}
	backup := f.in.BackupPath(f.settings)
	if backup == "" || !strings.HasPrefix(backup, f.home+string(filepath.Separator)) || strings.HasPrefix(backup, f.project) {
		t.Errorf("backup path %q: want under the home's state directory", backup)
	}
	if data, err := os.ReadFile(backup); err != nil || string(data) != userSettings {
		t.Errorf("backup holds %q (%v), want the file as it was", data, err)
	}
	// Installing again changes nothing.
	if err := f.in.Install(opt); err != nil {
		t.Fatalf("second install: %v", err)
	}
	if again := f.read(t); again != got {
		t.Errorf("a second install changed the file:\n%s", again)
	}
	if err := f.in.Uninstall(context.Background(), install.UninstallOptions{Scope: "user", Project: f.project, NoMCP: true}); err != nil {
		t.Fatalf("uninstall: %v", err)
	}
	if back := f.read(t); back != userSettings {
		t.Errorf("uninstall left:\n%s\nwant the user's file back:\n%s", back, userSettings)
	}
}

// TestInstallDryRun: a dry run prints the change and writes nothing.
func TestInstallDryRun(t *testing.T) {
	f := newFixture(t)
	if err := f.in.Install(install.Options{Scope: "user", Project: f.project, Binary: f.binary, NoMCP: true, DryRun: true}); err != nil {
		t.Fatalf("install --dry-run: %v", err)
	}
	if got := f.read(t); got != userSettings {
		t.Errorf("a dry run changed the file:\n%s", got)
	}
	if !strings.Contains(f.out.String(), "hook pre-compact") {
		t.Errorf("dry run printed no change:\n%s", f.out.String())
	}
	if _, err := os.Stat(f.in.BackupPath(f.settings)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dry run wrote a backup (%v)", err)
	}
}

// TestInstallRefusals: a read-only settings file, a settings file that is
// a symlink, and a binary that is not executable change nothing.
func TestInstallRefusals(t *testing.T) {
	t.Run("read-only", func(t *testing.T) {
		f := newFixture(t)
		if err := os.Chmod(f.settings, 0o400); err != nil {
			t.Fatal(err)
		}
		err := f.in.Install(install.Options{Scope: "user", Project: f.project, Binary: f.binary, NoMCP: true})
		if err == nil || !strings.Contains(err.Error(), "read-only") {
			t.Errorf("install into a read-only file: %v", err)
		}
		if got := f.read(t); got != userSettings {
			t.Errorf("file changed:\n%s", got)
		}
	})
	t.Run("symlink", func(t *testing.T) {
		f := newFixture(t)
		real := filepath.Join(f.project, "shared-settings.json")
		if err := os.Rename(f.settings, real); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, f.settings); err != nil {
			t.Fatal(err)
		}
		if err := f.in.Install(install.Options{Scope: "user", Project: f.project, Binary: f.binary, NoMCP: true}); err == nil {
			t.Error("install through a symlink succeeded")
		}
		if data, _ := os.ReadFile(real); string(data) != userSettings {
			t.Errorf("the symlink's target changed:\n%s", data)
		}
	})
	t.Run("not executable", func(t *testing.T) {
		f := newFixture(t)
		if err := os.Chmod(f.binary, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := f.in.Install(install.Options{Scope: "user", Project: f.project, Binary: f.binary, NoMCP: true}); err == nil {
			t.Error("install of a non-executable binary succeeded")
		}
		if got := f.read(t); got != userSettings {
			t.Errorf("file changed:\n%s", got)
		}
	})
}

// TestInstallOneScope: the hooks installed in user scope make a project
// install refuse, unless forced.
func TestInstallOneScope(t *testing.T) {
	f := newFixture(t)
	if err := f.in.Install(install.Options{Scope: "user", Project: f.project, Binary: f.binary, NoMCP: true}); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(f.project, ".claude", "settings.local.json")
	err := f.in.Install(install.Options{Scope: "local", Project: f.project, Binary: f.binary, NoMCP: true})
	if err == nil {
		t.Fatal("a second scope's install succeeded")
	}
	if _, statErr := os.Stat(local); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("the refused install wrote %s", local)
	}
	if err := f.in.Install(install.Options{Scope: "local", Project: f.project, Binary: f.binary, NoMCP: true, Force: true}); err != nil {
		t.Fatalf("forced install: %v", err)
	}
	if !strings.Contains(f.errs.String(), "warning") {
		t.Errorf("forced install gave no warning: %q", f.errs.String())
	}
}

func TestSplitCommand(t *testing.T) {
	tests := []struct{ cmd, prog, rest string }{
		{"/usr/bin/carryover hook stop", "/usr/bin/carryover", "hook stop"},
		{`"/Applications/My Tools/carryover" hook stop`, "/Applications/My Tools/carryover", " hook stop"},
		{"'/opt/c o/carryover' mcp", "/opt/c o/carryover", " mcp"},
		{"  carryover  ", "carryover", ""},
		{`"unterminated hook`, `"unterminated`, "hook"},
	}
	for _, tt := range tests {
		if prog, rest := install.SplitCommand(tt.cmd); prog != tt.prog || rest != tt.rest {
			t.Errorf("SplitCommand(%q) = %q, %q; want %q, %q", tt.cmd, prog, rest, tt.prog, tt.rest)
		}
	}
}

func TestResolveCommand(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "carryover")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PATH": "relative/bin" + string(filepath.ListSeparator) + dir}
	getenv := func(k string) string { return env[k] }
	if p, ok := install.ResolveCommand(getenv, "carryover"); !ok || p != exe {
		t.Errorf("bare name: %q %v, want %q", p, ok, exe)
	}
	if _, ok := install.ResolveCommand(getenv, filepath.Join(dir, "missing")); ok {
		t.Error("a missing path resolved")
	}
	env["PATH"] = "relative/bin"
	if _, ok := install.ResolveCommand(getenv, "carryover"); ok {
		t.Error("a relative PATH entry was searched")
	}
}

// TestProjectClaudeDirSymlinkRefused: a repository decides what its
// .claude is; as a symlink it would send a project or local install (and
// its state sidecar) to a directory outside the project, such as the
// user's own ~/.claude, and an uninstall would edit that. Both are refused
// and nothing is written there. A symlinked ~/.claude (dotfiles) is the
// user's own choice and still works.
func TestProjectClaudeDirSymlinkRefused(t *testing.T) {
	f := newFixture(t)
	elsewhere := filepath.Dir(f.settings) // the user's ~/.claude
	if err := os.Symlink(elsewhere, filepath.Join(f.project, ".claude")); err != nil {
		t.Fatal(err)
	}
	before := f.read(t)
	for _, scope := range []string{"project", "local"} {
		err := f.in.Install(install.Options{Scope: scope, Project: f.project, Binary: f.binary, NoMCP: true, Force: true})
		if err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("%s install through a symlinked .claude: err %v, want a refusal naming the symlink", scope, err)
		}
	}
	if err := f.in.Install(install.Options{Scope: "user", Project: f.project, Binary: f.binary, NoMCP: true}); err != nil {
		t.Fatalf("user install: %v", err)
	}
	installed := f.read(t)
	if installed == before {
		t.Fatal("user install changed nothing")
	}
	err := f.in.Uninstall(context.Background(), install.UninstallOptions{Scope: "project", Project: f.project, NoMCP: true})
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("project uninstall through a symlinked .claude: err %v, want a refusal", err)
	}
	if got := f.read(t); got != installed {
		t.Errorf("the user's settings changed through the project's .claude link:\n%s", got)
	}
	entries, _ := os.ReadDir(elsewhere)
	for _, e := range entries {
		if e.Name() != "settings.json" && !strings.HasPrefix(e.Name(), "settings.json.carryover-state") {
			t.Errorf("written through the link: %s", e.Name())
		}
	}
	if _, err := os.Lstat(filepath.Join(elsewhere, "settings.local.json")); err == nil {
		t.Error("a local install created settings.local.json through the link")
	}
}

// TestClaudeMDRefusalChangesNothing: a CLAUDE.md that install --claude-md
// must refuse (a symlink, a begin marker without its end) is found before
// the settings are saved, so a refused install or uninstall leaves the
// settings as they were instead of half done.
func TestClaudeMDRefusalChangesNothing(t *testing.T) {
	for name, setup := range map[string]func(t *testing.T, md string){
		"symlink": func(t *testing.T, md string) {
			target := filepath.Join(filepath.Dir(md), "shared.md")
			if err := os.WriteFile(target, []byte("# shared\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, md); err != nil {
				t.Fatal(err)
			}
		},
		"unparsable": func(t *testing.T, md string) {
			if err := os.WriteFile(md, []byte("# x\n<!-- carryover:begin -->\nno end\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			md := filepath.Join(f.project, "CLAUDE.md")
			setup(t, md)
			err := f.in.Install(install.Options{Scope: "user", Project: f.project, Binary: f.binary, NoMCP: true, ClaudeMD: true})
			if err == nil || !strings.Contains(err.Error(), "nothing changed") {
				t.Errorf("install --claude-md: err %v, want a refusal before any change", err)
			}
			if got := f.read(t); got != userSettings {
				t.Errorf("a refused install changed the settings:\n%s", got)
			}
			if err := f.in.Install(install.Options{Scope: "user", Project: f.project, Binary: f.binary, NoMCP: true}); err != nil {
				t.Fatal(err)
			}
			installed := f.read(t)
			err = f.in.Uninstall(context.Background(), install.UninstallOptions{Scope: "user", Project: f.project, NoMCP: true, ClaudeMD: true})
			if err == nil || !strings.Contains(err.Error(), "nothing changed") {
				t.Errorf("uninstall --claude-md: err %v, want a refusal before any change", err)
			}
			if got := f.read(t); got != installed {
				t.Errorf("a refused uninstall changed the settings:\n%s", got)
			}
		})
	}
}

// TestReadOnlyUnchangedSettingsLeftAlone: install run again over settings
// that already hold the hooks, made read-only since, changes nothing and
// succeeds: only a file that must change is refused.
func TestReadOnlyUnchangedSettingsLeftAlone(t *testing.T) {
	f := newFixture(t)
	opt := install.Options{Scope: "user", Project: f.project, Binary: f.binary, NoMCP: true}
	if err := f.in.Install(opt); err != nil {
		t.Fatal(err)
	}
	installed := f.read(t)
	if err := os.Chmod(f.settings, 0o400); err != nil {
		t.Fatal(err)
	}
	if err := f.in.Install(opt); err != nil {
		t.Errorf("install over settings already installed, read-only: %v", err)
	}
	if got := f.read(t); got != installed {
		t.Errorf("the read-only file changed:\n%s", got)
	}
	if err := f.in.Uninstall(context.Background(), install.UninstallOptions{Scope: "user", Project: f.project, NoMCP: true}); err == nil {
		t.Error("uninstall from a read-only file succeeded")
	}
}
