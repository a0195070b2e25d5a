package e2e

// Exec-form and async hooks with the real CLI: what Claude Code does with
// them (small scripts as hooks), and carryover installed in exec form.
// docs/hook-forms.md cites these tests.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/claudesettings"
)

// execHook is a command hook in either form: exec form when Args is set.
type execHook struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
	Timeout int      `json:"timeout,omitempty"`
	Async   bool     `json:"async,omitempty"`
}

type execGroup struct {
	Matcher string     `json:"matcher,omitempty"`
	Hooks   []execHook `json:"hooks"`
}

// writeExecHooks writes user settings holding only the given hooks.
func (h *harness) writeExecHooks(hooks map[string][]execGroup) {
	h.t.Helper()
	b, err := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	if err != nil {
		h.t.Fatal(err)
	}
	h.writeFile(h.userSettings(), b, 0o644)
}

// claudeOnPath is the environment that puts the CLI under test on PATH, so
// that carryover install finds it and asks its version.
func claudeOnPath(t *testing.T) string {
	t.Helper()
	return "PATH=" + filepath.Dir(requireClaude(t)) + string(os.PathListSeparator) + os.Getenv("PATH")
}

// TestExecFormNoShell shows that a hook with "args" gets exactly those
// arguments, spaces, quotes, $ and ; included, with no shell in between.
func TestExecFormNoShell(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	got := filepath.Join(h.dir, "argv")
	script := h.hookScript("argv.sh", `for a in "$@"; do printf '%s\n' "$a"; done > '`+got+`'`)
	args := []string{"a b", "$HOME", "x;touch " + filepath.Join(h.dir, "injected"), `"q'`, "`id`"}
	h.writeExecHooks(map[string][]execGroup{
		"UserPromptSubmit": {{Hooks: []execHook{{Type: "command", Command: script, Args: args, Timeout: 5}}}},
	})
	h.prompt("", "hello")
	want := strings.Join(args, "\n") + "\n"
	if b := string(h.readFile(got)); b != want {
		t.Errorf("the hook got arguments\n%q\nwant\n%q", b, want)
	}
	if h.readFile(filepath.Join(h.dir, "injected")) != nil {
		t.Error("an argument went through a shell")
	}
}

// TestAsyncHooksEndWithPrintMode shows what "async": true does to the
// archive-only events in claude -p: an async Stop hook is killed when the
// CLI exits (it starts, but a 2 s job never finishes, not even seconds
// later), and an async SessionEnd hook does not start at all, while the
// same hooks without async complete. This is why carryover's Stop and
// SessionEnd hooks are not async.
func TestAsyncHooksEndWithPrintMode(t *testing.T) {
	t.Parallel()
	for _, async := range []bool{false, true} {
		t.Run(map[bool]string{false: "sync", true: "async"}[async], func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			script := h.hookScript("slow.sh", `: > "$1.start"; sleep 2; : > "$1.done"`)
			stop, end := filepath.Join(h.dir, "stop"), filepath.Join(h.dir, "end")
			h.writeExecHooks(map[string][]execGroup{
				"Stop":       {{Hooks: []execHook{{Type: "command", Command: script, Args: []string{stop}, Timeout: 15, Async: async}}}},
				"SessionEnd": {{Hooks: []execHook{{Type: "command", Command: script, Args: []string{end}, Timeout: 5, Async: async}}}},
			})
			h.prompt("", "hello")
			time.Sleep(3 * time.Second) // a hook left running would finish by now
			exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
			t.Logf("stop started %v done %v, session end started %v done %v",
				exists(stop+".start"), exists(stop+".done"), exists(end+".start"), exists(end+".done"))
			if !exists(stop + ".start") {
				t.Error("the Stop hook did not start")
			}
			if got := exists(stop+".done") && exists(end+".done"); got == async {
				t.Errorf("async %v: both hooks completed: %v", async, got)
			}
		})
	}
}

// installExec installs carryover with the CLI on PATH and checks that every
// hook went in in exec form.
func (h *harness) installExec(extra ...string) []claudesettings.Hook {
	h.t.Helper()
	out, err := h.carryover(append([]string{"install", "--scope", "user"}, extra...)...)
	if err != nil {
		h.t.Fatalf("carryover install: %v\n%s", err, out)
	}
	if !strings.Contains(out, "exec form") {
		h.t.Errorf("install does not say it wrote exec form:\n%s", out)
	}
	f, err := claudesettings.Load(h.userSettings())
	if err != nil {
		h.t.Fatal(err)
	}
	hooks := f.Ours()
	if len(hooks) < 10 {
		h.t.Fatalf("%d carryover hooks installed", len(hooks))
	}
	for _, hk := range hooks {
		if !hk.Exec() || hk.Args[0] != "hook" {
			h.t.Errorf("%s[%s]: %q %q is not exec form", hk.Event, hk.Matcher, hk.Command, hk.Args)
		}
	}
	return hooks
}

// TestExecFormInstall installs carryover with the real CLI on PATH, from a
// directory whose name a shell would split and expand: install writes exec
// form, the hooks archive and restore around a compaction as in shell
// form, and uninstall gives the user's settings back byte for byte.
func TestExecFormInstall(t *testing.T) {
	t.Parallel()
	h := newHarness(t, claudeOnPath(t))
	odd := filepath.Join(h.dir, "my $HOME; bin", "carryover")
	bin, err := os.ReadFile(carryoverBin)
	if err != nil {
		t.Fatal(err)
	}
	h.writeFile(odd, bin, 0o755)
	h.writeFile(h.userSettings(), []byte(preexisting), 0o644)
	for _, hk := range h.installExec("--binary", odd) {
		if hk.Command != odd {
			t.Errorf("%s runs %q, want %q", hk.Event, hk.Command, odd)
		}
	}

	sid := h.prompt("", factPrompt).SessionID
	h.checkFactRan()
	h.prompt(sid, "/compact keep X")
	h.prompt(sid, "what was the fact?")
	h.checkCompaction(sid, "manual")

	h.uninstallCarryover()
	if got := string(h.readFile(h.userSettings())); got != preexisting {
		t.Errorf("settings after uninstall:\n%s\nwant:\n%s", got, preexisting)
	}
}

// TestAsyncArchive runs carryover's own Stop and SessionEnd hooks async and
// not, and looks at the archive right after claude -p exits and again
// later: whether the turn's last reply reached the store.
func TestAsyncArchive(t *testing.T) {
	t.Parallel()
	for _, async := range []bool{false, true} {
		t.Run(map[bool]string{false: "sync", true: "async"}[async], func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, claudeOnPath(t))
			hooks := h.installExec()
			if async {
				for i := range hooks {
					hooks[i].Async = hooks[i].Event == "Stop" || hooks[i].Event == "SessionEnd"
				}
				f, err := claudesettings.Load(h.userSettings())
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.Install(hooks); err != nil {
					t.Fatal(err)
				}
				if _, err := f.Save(); err != nil {
					t.Fatal(err)
				}
			}
			res := h.prompt("", factPrompt)
			atExit := h.archived(res.SessionID, res.Result)
			time.Sleep(3 * time.Second)
			later := h.archived(res.SessionID, res.Result)
			t.Logf("async %v: last reply archived at exit %v, 3 s later %v", async, atExit, later)
			if !async && !atExit {
				t.Error("the synchronous hooks had not archived the turn when claude -p exited")
			}
			if async && later {
				t.Log("the async hooks archived the turn: Stop and SessionEnd could be async")
			}
		})
	}
}

// archived reports whether the store holds session sid with a chunk
// holding text.
func (h *harness) archived(sid, text string) bool {
	h.t.Helper()
	if _, err := os.Stat(h.db); errors.Is(err, os.ErrNotExist) {
		return false
	}
	st := h.openStore()
	chunks, err := st.Chunks(context.Background(), carryover.ChunkFilter{SessionID: sid, Turn: -1})
	if err != nil {
		return false
	}
	return slices.ContainsFunc(chunks, func(c carryover.Chunk) bool { return strings.Contains(c.Text, text) })
}
