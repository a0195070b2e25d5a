package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// clonedRepo is a project as a clone brings it: .claude settings with
// hooks that look like carryover's but are not its own binary run plainly,
// and a program named carryover inside the repository. Every foreign
// command touches a marker in marks when it runs.
type clonedRepo struct {
	home, proj, marks, bin string
}

func newClonedRepo(t *testing.T, bin string) clonedRepo {
	t.Helper()
	dir := t.TempDir()
	r := clonedRepo{home: filepath.Join(dir, "home"), proj: filepath.Join(dir, "clone"), marks: filepath.Join(dir, "marks"), bin: bin}
	for _, d := range []string{r.home, filepath.Join(r.proj, ".claude"), filepath.Join(r.proj, "bin"), r.marks, filepath.Join(dir, "elsewhere")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The repository's own "carryover", and one outside it that is not
	// this carryover either.
	for _, p := range []string{filepath.Join(r.proj, "bin", "carryover"), filepath.Join(dir, "elsewhere", "carryover")} {
		script := "#!/bin/sh\n: > '" + filepath.Join(r.marks, strings.ReplaceAll(filepath.Dir(p), string(filepath.Separator), "_")) + "'\n"
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mark := func(name string) string { return filepath.Join(r.marks, name) }
	group := func(hooks ...map[string]any) []any { return []any{map[string]any{"hooks": hooks}} }
	cmd := func(c string) map[string]any { return map[string]any{"type": "command", "command": c, "timeout": 10} }
	execForm := func(c string, args ...string) map[string]any {
		return map[string]any{"type": "command", "command": c, "args": args, "timeout": 10}
	}
	project := map[string]any{"hooks": map[string]any{
		"Stop":             group(cmd("carryover hook stop; touch '" + mark("X") + "'")),
		"SessionStart":     group(cmd("sh -c 'touch " + mark("sh-c") + "; carryover hook session-start'")),
		"PreCompact":       group(cmd("./bin/carryover hook pre-compact")),
		"UserPromptSubmit": group(cmd(filepath.Join(r.proj, "bin", "carryover") + " hook user-prompt-submit")),
		"PostToolUse":      group(cmd("carryover hook post-tool-use $(touch " + mark("subst") + ")")),
		// The one hook doctor runs: carryover from PATH, outside the
		// project, exec form.
		"PostCompact": group(execForm("carryover", "hook", "post-compact")),
	}}
	local := map[string]any{"hooks": map[string]any{
		"SessionEnd":         group(execForm(filepath.Join(dir, "elsewhere", "carryover"), "hook", "session-end")),
		"PostToolUseFailure": group(execForm("carryover", "hook", "post-tool-use-failure", "--db", mark("db"))),
	}}
	for name, v := range map[string]any{"settings.json": project, "settings.local.json": local} {
		data, _ := json.MarshalIndent(v, "", "  ")
		if err := os.WriteFile(filepath.Join(r.proj, ".claude", name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// doctor runs carryover doctor in the clone with PATH as given.
func (r clonedRepo) doctor(t *testing.T, path string) string {
	t.Helper()
	cmd := exec.Command(r.bin, "doctor")
	cmd.Dir = r.proj
	cmd.Env = []string{"HOME=" + r.home, "PATH=" + path, "CARRYOVER_DB=" + filepath.Join(r.home, "store.db"), "CARRYOVER_LOG=" + filepath.Join(r.home, "carryover.log")}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run() // doctor fails: the point is what it ran
	return out.String()
}

// TestDoctorRunsOnlyItsOwn runs doctor in a cloned repository whose hooks
// try every way of getting a command run: shell operators, sh -c, command
// substitution, a relative path, the repository's own carryover (by path
// and first on PATH), another carryover outside it, extra arguments. Doctor
// reports each and runs none; it runs the one hook that is carryover's own
// binary with 'hook post-compact', directly.
func TestDoctorRunsOnlyItsOwn(t *testing.T) {
	bin := carryoverBinary(t)
	sysPath := os.Getenv("PATH")
	for _, tc := range []struct {
		name    string
		pathOf  func(r clonedRepo) string
		runsOwn bool
	}{
		{"carryover on PATH", func(r clonedRepo) string { return filepath.Dir(bin) + string(os.PathListSeparator) + sysPath }, true},
		{"repository first on PATH", func(r clonedRepo) string {
			return filepath.Join(r.proj, "bin") + string(os.PathListSeparator) + filepath.Dir(bin) + string(os.PathListSeparator) + sysPath
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newClonedRepo(t, bin)
			out := r.doctor(t, tc.pathOf(r))
			t.Logf("doctor:\n%s", out)
			marks, _ := os.ReadDir(r.marks)
			for _, m := range marks {
				t.Errorf("doctor ran a foreign command: %s exists", m.Name())
			}
			for _, want := range []string{
				"FAIL  hook Stop[]", "shell operators",
				"WARN  hook SessionStart[]", "carryover through another command",
				"FAIL  hook PreCompact[]", "relative path",
				"FAIL  hook UserPromptSubmit[]", "inside the project",
				"FAIL  hook PostToolUse[]",
				"FAIL  hook SessionEnd[]", "not this carryover",
				"FAIL  hook PostToolUseFailure[]", "does not run 'hook post-tool-use-failure'",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("doctor does not say %q", want)
				}
			}
			if ran := strings.Contains(out, "PASS  run PostCompact"); ran != tc.runsOwn {
				t.Errorf("ran carryover's own PostCompact hook: %v, want %v", ran, tc.runsOwn)
			}
			if !tc.runsOwn && !strings.Contains(out, "WARN  carryover on PATH") {
				t.Error("doctor does not warn that carryover on PATH is the repository's")
			}
			for _, ev := range []string{"Stop", "SessionStart", "PreCompact", "UserPromptSubmit", "PostToolUse", "SessionEnd", "PostToolUseFailure"} {
				if strings.Contains(out, "run "+ev+" ") {
					t.Errorf("doctor ran the %s hook", ev)
				}
			}
		})
	}
}

// TestDoctorWithoutClaudeCode: with no Claude Code and no carryover on
// PATH, doctor says so and does not say all is well; with a stand-in
// claude and carryover on PATH both checks pass.
func TestDoctorWithoutClaudeCode(t *testing.T) {
	bin := carryoverBinary(t)
	home := t.TempDir()
	run := func(path string) string {
		cmd := exec.Command(bin, "doctor")
		cmd.Dir = home
		cmd.Env = []string{"HOME=" + home, "PATH=" + path, "CARRYOVER_DB=" + filepath.Join(home, "store.db"), "CARRYOVER_LOG=" + filepath.Join(home, "carryover.log")}
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	empty := t.TempDir()
	out := run(empty)
	for _, want := range []string{"WARN  claude code", "nothing runs carryover's hooks", "WARN  carryover on PATH", "not on PATH"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor without Claude Code or carryover on PATH does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "all checks passed") {
		t.Errorf("doctor says all is well without Claude Code:\n%s", out)
	}

	cc := t.TempDir()
	if err := os.WriteFile(filepath.Join(cc, "claude"), []byte("#!/bin/sh\necho '2.1.197 (Claude Code)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out = run(cc + string(os.PathListSeparator) + filepath.Dir(bin))
	for _, want := range []string{"PASS  claude code", "2.1.197", "exec-form", "PASS  carryover on PATH"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor with Claude Code and carryover on PATH does not say %q:\n%s", want, out)
		}
	}

	// The plugin enabled and carryover missing from PATH: its hooks cannot run.
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	os.WriteFile(settings, []byte(`{"enabledPlugins": {"carryover@carryover": true}}`), 0o600)
	out = run(cc)
	if !strings.Contains(out, "FAIL  carryover on PATH") || !strings.Contains(out, "plugin is enabled") {
		t.Errorf("doctor with the plugin and no carryover on PATH:\n%s", out)
	}
}

// TestDoctorFromHome: run from the home directory, the carryover installed
// under it (~/go/bin) is the user's, not a repository's: doctor runs its
// hooks.
func TestDoctorFromHome(t *testing.T) {
	bin := carryoverBinary(t)
	home := t.TempDir()
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(home, "go", "bin", "carryover")
	os.MkdirAll(filepath.Dir(own), 0o755)
	if err := os.WriteFile(own, data, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=" + filepath.Dir(own), "CARRYOVER_DB=" + filepath.Join(home, "store.db"), "CARRYOVER_LOG=" + filepath.Join(home, "carryover.log")}
	install := exec.Command(own, "install", "--no-mcp")
	install.Dir, install.Env = home, env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	// Another copy of carryover runs doctor, so that only "not a
	// repository's file" lets it run the hooks under ~.
	doctor := exec.Command(bin, "doctor")
	doctor.Dir, doctor.Env = home, env
	out, _ := doctor.CombinedOutput()
	for _, want := range []string{"PASS  run Stop", "PASS  run PreCompact", "PASS  carryover on PATH"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("doctor from ~ does not say %q:\n%s", want, out)
		}
	}
}
