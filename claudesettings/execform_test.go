package claudesettings

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// foreignHooks is a settings file with other tools' hooks in both forms,
// one of them a program named carryover that is not carryover's hook.
const foreignHooks = `{
  "model": "opus",
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {"type": "command", "command": "/usr/bin/notify-send", "args": ["done", "hook stop"], "async": true},
          {"type": "command", "command": "/opt/carryover/carryover", "args": ["mcp"]},
          {"type": "command", "command": "/opt/carryover/carryover", "args": "hook stop"}
        ]
      }
    ],
    "PreCompact": [
      {"matcher": "manual", "hooks": [{"type": "command", "command": "echo hi", "timeout": 3}]}
    ]
  }
}
`

// TestExecFormForms switches an install between the two forms in place,
// checks each is idempotent and leaves other tools' hooks (exec form too)
// byte for byte, and that uninstall gives back the original file.
func TestExecFormForms(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	writeFile(t, path, foreignHooks, 0o644)
	shell := DefaultHooks(testExe, HookOptions{PostToolUse: true})
	exec := DefaultHooks(testExe, HookOptions{PostToolUse: true, Exec: true})
	if others := mustLoad(t, path).Others(); len(others) != 4 {
		t.Fatalf("Others() = %+v, want the 4 foreign hooks", others)
	}
	for i, hooks := range [][]Hook{exec, shell, exec, exec, shell} {
		changed, _ := install(t, path, hooks)
		if want := i != 3; changed != want {
			t.Errorf("install %d (exec %v): changed = %v, want %v", i, hooks[0].Exec(), changed, want)
		}
		got, _ := os.ReadFile(path)
		checkInstalled(t, got, hooks)
		// The foreign entries are still there, unchanged.
		for _, l := range strings.Split(foreignHooks, "\n") {
			if strings.Contains(l, `"command"`) && !strings.Contains(string(got), l) {
				t.Errorf("install %d changed a foreign hook line %q:\n%s", i, l, got)
			}
		}
		f := mustLoad(t, path)
		key := func(a, b Hook) int { return strings.Compare(testKey(a), testKey(b)) }
		if ours := slices.SortedFunc(slices.Values(f.Ours()), key); !slices.EqualFunc(ours, slices.SortedFunc(slices.Values(hooks), key), func(a, b Hook) bool { return key(a, b) == 0 }) {
			t.Errorf("install %d: Ours() = %+v\nwant %+v", i, ours, hooks)
		}
		if others := f.Others(); len(others) != 4 {
			t.Errorf("install %d: %d other hooks, want 4", i, len(others))
		}
		if f2 := mustLoad(t, path); func() bool { c, err := f2.Install(hooks); return c || err != nil }() {
			t.Errorf("install %d again changed something:\n%s", i, f2.Diff())
		}
	}
	if !uninstall(t, path) {
		t.Fatal("uninstall changed nothing")
	}
	if got, _ := os.ReadFile(path); string(got) != foreignHooks {
		t.Errorf("after uninstall:\n%s\nwant the original:\n%s", got, foreignHooks)
	}
}

// TestExecFormLayout: exec form's arguments stay on one line and the
// entry reads as Claude Code's documentation writes it.
func TestExecFormLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	install(t, path, DefaultHooks("/opt/my tools/carryover", HookOptions{Exec: true}))
	got, _ := os.ReadFile(path)
	want := `{"type": "command", "command": "/opt/my tools/carryover", "args": ["hook", "stop"], "timeout": 15}`
	flat := strings.Join(strings.Fields(string(got)), " ")
	flat = strings.NewReplacer("{ ", "{", " }", "}").Replace(flat)
	if !strings.Contains(flat, want) {
		t.Errorf("no %s in:\n%s", want, got)
	}
	if !strings.Contains(string(got), `"args": ["hook", "post-tool-use"]`) {
		t.Errorf("args not on one line:\n%s", got)
	}
}

// TestAsyncKept: Async is written, read back, and an install without it
// takes it off carryover's entry again.
func TestAsyncKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	hooks := DefaultHooks(testExe, HookOptions{Exec: true})
	async := slices.Clone(hooks)
	for i := range async {
		async[i].Async = async[i].Event == "Stop"
	}
	install(t, path, async)
	got, _ := os.ReadFile(path)
	checkInstalled(t, got, async)
	if !strings.Contains(string(got), `"async": true`) {
		t.Fatalf("no async:\n%s", got)
	}
	install(t, path, hooks)
	got, _ = os.ReadFile(path)
	checkInstalled(t, got, hooks)
	if strings.Contains(string(got), "async") {
		t.Errorf("async left on carryover's entry:\n%s", got)
	}
}

func TestIsOursExecForm(t *testing.T) {
	cases := []struct {
		h    Hook
		want bool
	}{
		{Hook{Command: "/usr/bin/carryover", Args: []string{"hook", "stop"}}, true},
		{Hook{Command: "carryover", Args: []string{"hook", "stop"}}, true},
		{Hook{Command: `C:\Users\me\go\bin\carryover.exe`, Args: []string{"hook", "stop"}}, true},
		{Hook{Command: "/usr/bin/carryover", Args: []string{"mcp"}}, false},
		{Hook{Command: "/usr/bin/carryover", Args: []string{}}, false},
		{Hook{Command: "/usr/bin/carryover hook stop", Args: []string{}}, false},
		{Hook{Command: "/usr/bin/carryover-wrapper", Args: []string{"hook", "stop"}}, false},
		{Hook{Command: "/usr/bin/carryover hook stop"}, true},
	}
	for _, c := range cases {
		if got := c.h.isOurs(); got != c.want {
			t.Errorf("%q %q: isOurs = %v, want %v", c.h.Command, c.h.Args, got, c.want)
		}
	}
}

func TestPlainWords(t *testing.T) {
	cases := []struct {
		cmd  string
		want []string // nil: not plain
	}{
		{"carryover hook stop", []string{"carryover", "hook", "stop"}},
		{"'/opt/my tools/carryover' hook stop", []string{"/opt/my tools/carryover", "hook", "stop"}},
		{`"/opt/my tools/carryover" hook stop`, []string{"/opt/my tools/carryover", "hook", "stop"}},
		{`'/tmp/it'\''s/carryover' hook stop`, []string{"/tmp/it's/carryover", "hook", "stop"}},
		{`/opt/my\ tools/carryover hook stop`, []string{"/opt/my tools/carryover", "hook", "stop"}},
		{shellQuote(`/a"b/$HOME;x/carryover`) + " hook stop", []string{`/a"b/$HOME;x/carryover`, "hook", "stop"}},
		{"/a=b/carryover hook stop", []string{"/a=b/carryover", "hook", "stop"}},
		{"carryover hook stop; touch X", nil},
		{"carryover hook stop && true", nil},
		{"carryover hook stop | tee x", nil},
		{"carryover hook stop > x", nil},
		{"carryover hook $(id)", nil},
		{"carryover hook `id`", nil},
		{`"$HOME/carryover" hook stop`, nil},
		{"$HOME/carryover hook stop", nil},
		{"~/bin/carryover hook stop", nil},
		{"carryover hook stop #x", nil},
		{"carryover hook s*", nil},
		{"carryover hook stop\ntouch X", nil},
		{"'carryover hook stop", nil},
		{"sh -c 'carryover hook stop'", []string{"sh", "-c", "carryover hook stop"}},
		{"", nil},
	}
	for _, c := range cases {
		got, ok := PlainWords(c.cmd)
		if ok != (c.want != nil) || !slices.Equal(got, c.want) {
			t.Errorf("PlainWords(%q) = %q, %v; want %q", c.cmd, got, ok, c.want)
		}
	}
}
