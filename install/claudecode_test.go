package install_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/install"
)

// standIn puts an executable claude into dir that records that it ran and
// prints version, as 'claude --version' does.
func standIn(t *testing.T, dir, version string) (ran string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in claude is a shell script")
	}
	ran = filepath.Join(dir, "claude.ran")
	script := "#!/bin/sh\n: > '" + ran + "'\necho '" + version + " (Claude Code)'\n"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return ran
}

// installedHooks decodes the hooks of a settings file: each carryover
// entry's command and args (nil in shell form).
func installedHooks(t *testing.T, data string) (cmds []string, args [][]string) {
	t.Helper()
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(data), &doc); err != nil {
		t.Fatalf("settings: %v\n%s", err, data)
	}
	for _, groups := range doc.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if strings.Contains(h.Command, "carryover") {
					cmds, args = append(cmds, h.Command), append(args, h.Args)
				}
			}
		}
	}
	return cmds, args
}

// TestHookFormFollowsClaudeCode installs with a stand-in claude of each
// kind on PATH: a release that runs exec form gets it, an older one, none
// or one inside the project gets the shell form; every install round-trips
// the user's settings byte for byte and a second one changes nothing.
func TestHookFormFollowsClaudeCode(t *testing.T) {
	cases := []struct {
		name, version string
		where         string // "path", "project" (a claude on PATH inside the project), "" for none
		scope         string
		exec          bool
		note          string
	}{
		{"new", "2.1.197", "path", "user", true, "exec form"},
		{"first", "2.1.139", "path", "local", true, "exec form"},
		{"old", "2.1.138", "path", "user", false, "predates exec form"},
		{"garbled", "Claude Code", "path", "user", false, "not a version"},
		{"none", "", "", "user", false, "not on PATH"},
		{"in-project", "2.1.197", "project", "user", false, "inside the project"},
		{"project-scope", "2.1.197", "path", "project", false, "teammate"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			pathDirs := []string{filepath.Dir(f.binary)}
			var ran string
			switch c.where {
			case "path":
				dir := filepath.Join(filepath.Dir(f.home), "cc")
				ran = standIn(t, dir, c.version)
				pathDirs = append(pathDirs, dir)
			case "project":
				dir := filepath.Join(f.project, "node_modules", ".bin")
				ran = standIn(t, dir, c.version)
				pathDirs = append(pathDirs, dir)
			}
			env := map[string]string{"HOME": f.home, "PATH": strings.Join(pathDirs, string(os.PathListSeparator))}
			f.in.Getenv = func(k string) string { return env[k] }
			settings := f.settings
			if c.scope != "user" {
				settings, _, _ = f.in.Target(c.scope, f.project)
			}
			before, _ := os.ReadFile(settings)
			opt := install.Options{Scope: c.scope, Project: f.project, Binary: f.binary, NoMCP: true, Force: c.scope == "project"}
			if err := f.in.Install(opt); err != nil {
				t.Fatalf("install: %v\n%s", err, f.errs.String())
			}
			if !strings.Contains(f.out.String(), c.note) {
				t.Errorf("install did not say %q:\n%s", c.note, f.out.String())
			}
			data, _ := os.ReadFile(settings)
			cmds, args := installedHooks(t, string(data))
			if len(cmds) < 10 {
				t.Fatalf("%d carryover hooks installed:\n%s", len(cmds), data)
			}
			for i := range cmds {
				if exec := args[i] != nil; exec != c.exec || exec && (cmds[i] != f.binary || args[i][0] != "hook") {
					t.Errorf("hook %q %q: want exec form %v", cmds[i], args[i], c.exec)
				}
			}
			_, err := os.Stat(filepath.Join(f.project, "node_modules", ".bin", "claude.ran"))
			if c.where == "project" && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the claude inside the project ran (%v)", err)
			}
			if c.where == "path" && c.scope != "project" {
				if _, err := os.Stat(ran); err != nil {
					t.Errorf("the claude on PATH was not asked its version: %v", err)
				}
			}
			f.out.Reset()
			if err := f.in.Install(opt); err != nil || !strings.Contains(f.out.String(), "already installed") {
				t.Errorf("second install: %v\n%s", err, f.out.String())
			}
			if err := f.in.Uninstall(context.Background(), install.UninstallOptions{Scope: c.scope, Project: f.project, NoMCP: true}); err != nil {
				t.Fatal(err)
			}
			after, _ := os.ReadFile(settings)
			if string(after) != string(before) {
				t.Errorf("after uninstall:\n%s\nwant:\n%s", after, before)
			}
		})
	}
}

// TestFormSwitch: installing again after Claude Code was upgraded (or
// downgraded) moves carryover's hooks to the other form in place, and
// uninstall removes either form.
func TestFormSwitch(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(filepath.Dir(f.home), "cc")
	env := map[string]string{"HOME": f.home, "PATH": filepath.Dir(f.binary) + string(os.PathListSeparator) + dir}
	f.in.Getenv = func(k string) string { return env[k] }
	opt := install.Options{Scope: "user", Project: f.project, Binary: f.binary, NoMCP: true}
	for i, v := range []string{"2.1.100", "2.1.197", "2.1.100", "2.1.197"} {
		standIn(t, dir, v)
		if err := f.in.Install(opt); err != nil {
			t.Fatal(err)
		}
		cmds, args := installedHooks(t, f.read(t))
		if exec := args[0] != nil; exec != (v == "2.1.197") || len(cmds) != 10 {
			t.Fatalf("install %d with Claude Code %s: %d hooks, exec form %v:\n%s", i, v, len(cmds), exec, f.read(t))
		}
		if !strings.Contains(f.read(t), "~/bin/notify.sh compact") {
			t.Fatalf("the user's own hook is gone:\n%s", f.read(t))
		}
	}
	if err := f.in.Uninstall(context.Background(), install.UninstallOptions{Scope: "user", Project: f.project, NoMCP: true}); err != nil {
		t.Fatal(err)
	}
	if got := f.read(t); got != userSettings {
		t.Errorf("after uninstall:\n%s\nwant:\n%s", got, userSettings)
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]string{"2.1.197 (Claude Code)": "2.1.197", "2.1.139\n": "2.1.139", "10.0.1": "10.0.1"} {
		v, ok := install.ParseVersion(in)
		if !ok || v.String() != want {
			t.Errorf("ParseVersion(%q) = %v, %v", in, v, ok)
		}
	}
	for _, in := range []string{"", "Claude Code", "2.1", "2.1.x", "-1.2.3"} {
		if v, ok := install.ParseVersion(in); ok {
			t.Errorf("ParseVersion(%q) = %v, want failure", in, v)
		}
	}
	if !(install.Version{2, 1, 138}).Less(install.ExecFormSince) || (install.Version{2, 2, 0}).Less(install.ExecFormSince) {
		t.Error("Less")
	}
}

func TestInside(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	os.MkdirAll(filepath.Join(proj, "bin"), 0o755)
	os.WriteFile(filepath.Join(proj, "bin", "x"), nil, 0o755)
	os.WriteFile(filepath.Join(dir, "projx"), nil, 0o755)
	os.Symlink(filepath.Join(proj, "bin", "x"), filepath.Join(dir, "link"))
	for path, want := range map[string]bool{
		filepath.Join(proj, "bin", "x"): true,
		filepath.Join(dir, "link"):      true, // points into the project
		filepath.Join(dir, "projx"):     false,
		filepath.Join(dir, "missing"):   true, // cannot be shown to be outside
	} {
		if got := install.Inside(proj, path); got != want {
			t.Errorf("Inside(%s) = %v, want %v", path, got, want)
		}
	}
}

// TestRepoDir: run from the home directory or above it, no directory is a
// repository's; from a project, the project is.
func TestRepoDir(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	proj := filepath.Join(home, "src", "proj")
	os.MkdirAll(proj, 0o755)
	in := &install.Installer{Getenv: func(k string) string { return map[string]string{"HOME": home}[k] }}
	for project, want := range map[string]string{home: "", dir: "", proj: proj, "": ""} {
		if got := in.RepoDir(project); got != want {
			t.Errorf("RepoDir(%q) = %q, want %q", project, got, want)
		}
	}
}
