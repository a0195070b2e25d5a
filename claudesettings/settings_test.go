package claudesettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

const testExe = "/usr/local/bin/carryover"

// sharedDir is the shared fixtures directory beside the repository.
func sharedDir(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "shared")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared fixtures missing at %s: %v", dir, err)
		}
		t.Skipf("shared fixtures not found at %s", dir)
	}
	return dir
}

// decoded is the hooks of a settings file as Claude Code sees them, read
// with encoding/json (the last of repeated keys wins, as in JSON.parse).
type decodedHook struct {
	Event, Matcher string
	MatcherOK      bool // absent or a string
	Command        string
	Args           []string // nil in shell form
	Timeout        float64
	Async          bool
}

// hook is d as a Hook.
func (d decodedHook) hook() Hook {
	return Hook{Event: d.Event, Matcher: d.Matcher, Command: d.Command, Args: d.Args, Timeout: int(d.Timeout), Async: d.Async}
}

// testKey identifies a Hook in tests: Hook holds a slice, so it is no map key.
func testKey(h Hook) string {
	return fmt.Sprintf("%s\x00%s\x00%q\x00%q\x00%v\x00%d\x00%v", h.Event, normMatcher(h.Matcher), h.Command, h.Args, h.Exec(), h.Timeout, h.Async)
}

func decodeHooks(t testing.TB, data []byte) []decodedHook {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not a valid settings file: %v\n%s", err, data)
	}
	var out []decodedHook
	events, _ := doc["hooks"].(map[string]any)
	for event, groups := range events {
		groups, _ := groups.([]any)
		for _, g := range groups {
			g, _ := g.(map[string]any)
			m, hasM := g["matcher"]
			ms, isString := m.(string)
			hooks, _ := g["hooks"].([]any)
			for _, h := range hooks {
				h, _ := h.(map[string]any)
				cmd, _ := h["command"].(string)
				timeout, _ := h["timeout"].(float64)
				async, _ := h["async"].(bool)
				var args []string
				if a, ok := h["args"].([]any); ok {
					args = []string{}
					for _, e := range a {
						s, _ := e.(string)
						args = append(args, s)
					}
				}
				out = append(out, decodedHook{event, ms, !hasM || isString, cmd, args, timeout, async})
			}
		}
	}
	return out
}

// checkInstalled checks that each of want is in data exactly once, under
// its event and matcher, and that no other carryover entry is.
func checkInstalled(t testing.TB, data []byte, want []Hook) {
	t.Helper()
	count := map[string]int{}
	total := 0
	for _, h := range decodeHooks(t, data) {
		if h.hook().isOurs() {
			total++
			if h.MatcherOK {
				count[testKey(h.hook())]++
			}
		}
	}
	for _, h := range want {
		if n := count[testKey(h)]; n != 1 {
			t.Errorf("%s %q %q %q timeout %d async %v: found %d times, want 1\n%s", h.Event, h.Matcher, h.Command, h.Args, h.Timeout, h.Async, n, data)
		}
	}
	if total != len(want) {
		t.Errorf("%d carryover entries, want %d\n%s", total, len(want), data)
	}
}

func writeFile(t testing.TB, path, content string, perm fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
}

func mustLoad(t testing.TB, path string) *File {
	t.Helper()
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// install runs Load, Install and Save, as carryover install does.
func install(t testing.TB, path string, hooks []Hook) (changed bool, backup string) {
	t.Helper()
	f := mustLoad(t, path)
	changed, err := f.Install(hooks)
	if err != nil {
		t.Fatal(err)
	}
	if backup, err = f.Save(); err != nil {
		t.Fatal(err)
	}
	return changed, backup
}

func uninstall(t testing.TB, path string) bool {
	t.Helper()
	f := mustLoad(t, path)
	changed, err := f.Uninstall()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Save(); err != nil {
		t.Fatal(err)
	}
	return changed
}

func TestInstallUninstallRoundTrip(t *testing.T) {
	for _, exec := range []bool{false, true} {
		t.Run(map[bool]string{false: "shell", true: "exec"}[exec], func(t *testing.T) {
			testRoundTrips(t, DefaultHooks(testExe, HookOptions{Exec: exec}))
		})
	}
}

func testRoundTrips(t *testing.T, hooks []Hook) {
	for _, tc := range roundTrips {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, ".claude", "settings.json")
			if tc.content != "" {
				writeFile(t, path, tc.content, 0o644)
			}
			changed, backup := install(t, path, hooks)
			if !changed {
				t.Fatal("first install reported no change")
			}
			installed, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			checkInstalled(t, installed, hooks)
			checkLayout(t, tc.content, installed)
			if tc.content == "" {
				if backup != "" {
					t.Errorf("backup %q of a file that did not exist", backup)
				}
			} else if got, err := os.ReadFile(backup); err != nil || string(got) != tc.content {
				t.Errorf("backup %q = %q, %v; want the original", backup, got, err)
			}

			// A second install changes nothing, on disk or in the diff.
			f := mustLoad(t, path)
			if changed, err := f.Install(hooks); err != nil || changed || f.Diff() != "" {
				t.Errorf("second install: changed=%v err=%v diff:\n%s", changed, err, f.Diff())
			}

			f = mustLoad(t, path)
			if !f.Exists() {
				t.Error("Exists() = false for an installed file")
			}
			if changed, err := f.Uninstall(); err != nil || !changed {
				t.Fatalf("uninstall: changed=%v err=%v", changed, err)
			}
			if got, want := f.Removes(), tc.content == ""; got != want {
				t.Errorf("Removes() = %v, want %v", got, want)
			}
			if _, err := f.Save(); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			switch {
			case tc.content == "" && !errors.Is(err, fs.ErrNotExist):
				t.Errorf("file carryover created still exists after uninstall: %q, %v", got, err)
			case tc.content != "" && (err != nil || string(got) != tc.content):
				t.Errorf("after uninstall:\n%s\nwant the original:\n%s (err %v)", got, tc.content, err)
			}
			if _, err := os.Lstat(stateFile(path)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("state sidecar left after uninstall: %v", err)
			}
			if uninstall(t, path) {
				t.Error("second uninstall changed something")
			}
		})
	}
}

// checkLayout checks that the installed text follows the original's layout:
// its line endings, its indentation unit, minified or not.
func checkLayout(t *testing.T, orig string, installed []byte) {
	t.Helper()
	s := string(installed)
	if strings.Contains(orig, "\r\n") && strings.Count(s, "\n") != strings.Count(s, "\r\n") {
		t.Errorf("CRLF file got bare LF line ends:\n%q", s)
	}
	if !strings.Contains(orig, "\r") && strings.Contains(s, "\r") {
		t.Errorf("LF file got CR:\n%q", s)
	}
	if orig != "" && !strings.Contains(strings.TrimSpace(orig), "\n") && strings.Contains(orig, `":"`) {
		if strings.Contains(strings.TrimSpace(s), "\n") || strings.Contains(s, `": `) {
			t.Errorf("minified file got pretty entries:\n%s", s)
		}
	}
	unit := indentUnit([]byte(orig))
	if orig == "" || !strings.Contains(orig, "\n ") && !strings.Contains(orig, "\n\t") {
		unit = "  "
	}
	for line := range strings.SplitSeq(s, "\n") {
		lead := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		// Skip lines that were there before, edited or not.
		if prefix := line[:min(len(line), len(lead)+8)]; lead == "" || strings.HasPrefix(orig, prefix) || strings.Contains(orig, "\n"+prefix) {
			continue
		}
		if strings.ReplaceAll(lead, unit, "") != "" {
			t.Errorf("inserted line %q is not indented in units of %q", line, unit)
		}
	}
}

// TestInstallLayout pins what inserted entries look like in each layout.
func TestInstallLayout(t *testing.T) {
	hooks := []Hook{{Event: "Stop", Command: "carryover hook stop", Timeout: 15}}
	tests := []struct{ name, in, want string }{
		{"missing", "", "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"carryover hook stop\",\n            \"timeout\": 15\n          }\n        ]\n      }\n    ]\n  }\n}\n"},
		{"minified", `{"a":1}`, `{"a":1,"hooks":{"Stop":[{"hooks":[{"type":"command","command":"carryover hook stop","timeout":15}]}]}}`},
		{"tabs", "{\n\t\"a\": 1\n}", "{\n\t\"a\": 1,\n\t\"hooks\": {\n\t\t\"Stop\": [\n\t\t\t{\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"type\": \"command\",\n\t\t\t\t\t\t\"command\": \"carryover hook stop\",\n\t\t\t\t\t\t\"timeout\": 15\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}\n}"},
		{"inline array", "{\n    \"hooks\": {\"Stop\": [{\"hooks\": []}]}\n}\n", "{\n    \"hooks\": {\"Stop\": [{\"hooks\": []}, {\"hooks\": [{\"type\": \"command\", \"command\": \"carryover hook stop\", \"timeout\": 15}]}]}\n}\n"},
		{"empty hooks in 4-space file", "{\n    \"hooks\": {}\n}\n", "{\n    \"hooks\": {\n        \"Stop\": [\n            {\n                \"hooks\": [\n                    {\n                        \"type\": \"command\",\n                        \"command\": \"carryover hook stop\",\n                        \"timeout\": 15\n                    }\n                ]\n            }\n        ]\n    }\n}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &File{path: "settings.json"}
			f.style = detectStyle(nil, nil)
			if tc.in != "" {
				if err := f.load([]byte(tc.in)); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := f.Install(hooks); err != nil {
				t.Fatal(err)
			}
			if got := string(f.Bytes()); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestReplaceOlderInstall(t *testing.T) {
	// An install by an older carryover at another path: PreCompact with
	// matcher "*", SessionStart(compact) inside another tool's group, and a
	// PostToolUse hook that is no longer wanted.
	old := `{
  "hooks": {
    "PreCompact": [
      {"matcher": "*", "hooks": [{"type": "command", "command": "/home/u/go/bin/carryover hook pre-compact", "timeout": 10}]}
    ],
    "SessionStart": [
      {
        "matcher": "compact",
        "hooks": [
          {"type": "command", "command": "cat NOTES.md"},
          {"type": "command", "command": "'/opt/old tools/carryover' hook session-start"}
        ]
      }
    ],
    "PostToolUse": [
      {"hooks": [{"type": "command", "command": "carryover hook post-tool-use", "timeout": 5}]}
    ]
  }
}
`
	// What uninstalling the old install alone leaves: only the other hook.
	bare := `{
  "hooks": {
    "SessionStart": [
      {
        "matcher": "compact",
        "hooks": [
          {"type": "command", "command": "cat NOTES.md"}
        ]
      }
    ]
  }
}
`
	path := filepath.Join(t.TempDir(), "settings.json")
	writeFile(t, path, old, 0o600)
	hooks := DefaultHooks(testExe, HookOptions{})
	install(t, path, hooks)
	got, _ := os.ReadFile(path)
	checkInstalled(t, got, hooks)
	if !strings.Contains(string(got), `{"type": "command", "command": "cat NOTES.md"},
          {"type": "command", "command": "/usr/local/bin/carryover hook session-start", "timeout": 10}`) {
		t.Errorf("SessionStart(compact) entry not updated in place:\n%s", got)
	}
	uninstall(t, path)
	if got, _ := os.ReadFile(path); string(got) != bare {
		t.Errorf("after uninstall:\n%s\nwant:\n%s", got, bare)
	}
}

func TestInstallOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	all := DefaultHooks(testExe, HookOptions{Startup: true, PostToolUse: true})
	install(t, path, all)
	got, _ := os.ReadFile(path)
	checkInstalled(t, got, all)
	// Installing again without the options removes the optional hooks.
	def := DefaultHooks(testExe, HookOptions{})
	if changed, _ := install(t, path, def); !changed {
		t.Error("dropping optional hooks changed nothing")
	}
	got, _ = os.ReadFile(path)
	checkInstalled(t, got, def)
	if hs := mustLoad(t, path).Ours(); !slices.EqualFunc(hs, def, func(a, b Hook) bool { return testKey(a) == testKey(b) }) {
		t.Errorf("Ours() = %v\nwant %v", hs, def)
	}
}

func TestDefaultHooks(t *testing.T) {
	hooks := DefaultHooks("/opt/my tools/carryover", HookOptions{})
	type em struct{ event, matcher string }
	var got []em
	for _, h := range hooks {
		got = append(got, em{h.Event, h.Matcher})
		if !IsOurs(h.Command) {
			t.Errorf("%s: IsOurs(%q) = false", h.Event, h.Command)
		}
		if h.Timeout < 1 || h.Timeout > 60 {
			t.Errorf("%s: timeout %d", h.Event, h.Timeout)
		}
	}
	want := []em{{"PreCompact", "manual"}, {"PreCompact", "auto"}, {"SessionStart", "compact"}, {"SessionStart", "resume"},
		{"UserPromptSubmit", ""}, {"Stop", ""}, {"SessionEnd", ""}, {"PostCompact", ""},
		{"PostToolUseFailure", "*"}, {"PostToolUse", "Read|Edit|Write|MultiEdit"}}
	if !slices.Equal(got, want) {
		t.Errorf("events = %v\nwant %v", got, want)
	}
	if c := hooks[0].Command; c != "'/opt/my tools/carryover' hook pre-compact" {
		t.Errorf("command = %q", c)
	}
	for _, h := range hooks {
		if h.Event == "SessionEnd" && h.Timeout > 2 {
			t.Errorf("SessionEnd timeout %d: Claude Code cancels SessionEnd hooks after 1.5 s by default", h.Timeout)
		}
	}
	opt := DefaultHooks("/bin/carryover", HookOptions{Startup: true, PostToolUse: true})
	// --post-tool-use: the hook runs for every tool and archives; still one
	// PostToolUse entry, so that a file tool does not start two processes.
	if len(opt) != len(want)+1 || !slices.ContainsFunc(opt, func(h Hook) bool { return h.Event == "SessionStart" && h.Matcher == "startup" }) ||
		!slices.ContainsFunc(opt, func(h Hook) bool {
			return h.Event == "PostToolUse" && h.Matcher == "" && h.Command == "/bin/carryover hook post-tool-use --archive"
		}) || slices.ContainsFunc(opt, func(h Hook) bool { return h.Event == "PostToolUse" && h.Matcher != "" }) {
		t.Errorf("with options: %v", opt)
	}
	for _, h := range hooks {
		if (h.Event == "PostToolUse" || h.Event == "PostToolUseFailure") && h.Timeout > 5 {
			t.Errorf("%s timeout %d: a tool hook delays every tool call it fires for", h.Event, h.Timeout)
		}
	}
}

func TestShellQuoteRoundTrip(t *testing.T) {
	for _, exe := range []string{"/usr/bin/carryover", "/opt/my tools/carryover", "/tmp/it's/carryover", `/a"b/$HOME;x/carryover`, "/ü/carryover"} {
		words := shellWords(shellQuote(exe)+" hook stop", 3)
		if len(words) != 3 || words[0] != exe || words[1] != "hook" || words[2] != "stop" {
			t.Errorf("%q: quoted %q splits into %q", exe, shellQuote(exe), words)
		}
	}
}

func TestIsOurs(t *testing.T) {
	tests := []struct {
		cmd  string
		want bool
	}{
		{"carryover hook stop", true},
		{"/usr/local/bin/carryover hook pre-compact", true},
		{"'/opt/my tools/carryover' hook session-start", true},
		{`"/opt/my tools/carryover" hook session-start`, true},
		{`/opt/my\ tools/carryover hook stop`, true},
		{"  carryover   hook\tstop", true},
		{`C:/bin/carryover.exe hook stop`, true},
		{"carryover ingest --all", false},
		{"carryover", false},
		{"carryover-sync hook stop", false},
		{"/bin/notcarryover hook stop", false},
		{"echo carryover hook stop", false},
		{"python3 ~/.claude/carryover.py hook stop", false},
		{"carryover;hook stop", false},
		{"'carryover hook stop'", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := IsOurs(tc.cmd); got != tc.want {
			t.Errorf("IsOurs(%q) = %v, want %v", tc.cmd, got, tc.want)
		}
	}
}

func TestPath(t *testing.T) {
	tests := []struct{ scope, want string }{
		{"user", filepath.Join("/h", ".claude", "settings.json")},
		{"project", filepath.Join("/p", ".claude", "settings.json")},
		{"local", filepath.Join("/p", ".claude", "settings.local.json")},
	}
	for _, tc := range tests {
		if got, err := Path(tc.scope, "/h", "/p"); err != nil || got != tc.want {
			t.Errorf("Path(%q) = %q, %v; want %q", tc.scope, got, err, tc.want)
		}
	}
	for _, bad := range [][3]string{{"global", "/h", "/p"}, {"user", "", "/p"}, {"local", "/h", ""}} {
		if _, err := Path(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("Path%q: no error", bad)
		}
	}
}

func TestLoadRefuses(t *testing.T) {
	tests := []struct{ name, content, where string }{
		{"syntax", "{\n  \"model\": \"opus\",\n  \"hooks\": {,}\n}\n", "line 3"},
		{"trailing comma", "{\"a\": 1,}", "line 1"},
		{"array", "[]", "want a JSON object"},
		{"empty", "", "line 1"},
		{"hooks not object", `{"hooks": []}`, `"hooks" must be an object`},
		{"event not array", `{"hooks": {"Stop": {}}}`, `"Stop" must be an array`},
		{"repeated hooks", `{"hooks": {}, "hooks": {}}`, "repeated key"},
		{"repeated event", `{"hooks": {"Stop": [], "Stop": []}}`, "repeated key"},
		{"comments", "{\n  // mine\n  \"a\": 1\n}", "line 2"},
		{"bom", "\ufeff{}", "line 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			writeFile(t, path, tc.content, 0o600)
			_, err := Load(path)
			if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), tc.where) {
				t.Errorf("Load = %v; want ErrParse mentioning %q", err, tc.where)
			}
		})
	}
}

func TestSymlinkRefused(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.json")
	writeFile(t, target, `{"a": 1}`, 0o600)
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	if _, err := Load(link); !errors.Is(err, ErrSymlink) {
		t.Errorf("Load(symlink) = %v, want ErrSymlink", err)
	}

	// A file that becomes a symlink between Load and Save is not written.
	path := filepath.Join(dir, "s2.json")
	writeFile(t, path, `{"a": 1}`, 0o600)
	f := mustLoad(t, path)
	if _, err := f.Install(DefaultHooks(testExe, HookOptions{})); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Save(); !errors.Is(err, ErrSymlink) {
		t.Errorf("Save through a symlink = %v, want ErrSymlink", err)
	}
	if got, _ := os.ReadFile(target); string(got) != `{"a": 1}` {
		t.Errorf("symlink target changed: %s", got)
	}
}

func TestSaveRefusesConcurrentChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	writeFile(t, path, `{"a": 1}`, 0o600)
	f := mustLoad(t, path)
	if _, err := f.Install(DefaultHooks(testExe, HookOptions{})); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, `{"a": 2}`, 0o600)
	if _, err := f.Save(); !errors.Is(err, ErrChanged) {
		t.Errorf("Save = %v, want ErrChanged", err)
	}
	if got, _ := os.ReadFile(path); string(got) != `{"a": 2}` {
		t.Errorf("file overwritten: %s", got)
	}
}

func TestSaveModesAndBackup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	writeFile(t, path, "{}\n", 0o640)
	if err := os.Chmod(path, 0o640); err != nil { // past the umask
		t.Fatal(err)
	}
	f := mustLoad(t, path)
	f.now = func() time.Time { return time.Date(2026, 11, 22, 20, 15, 0, 0, time.FixedZone("x", 3600)) }
	if _, err := f.Install(DefaultHooks(testExe, HookOptions{})); err != nil {
		t.Fatal(err)
	}
	backup, err := f.Save()
	if err != nil {
		t.Fatal(err)
	}
	if want := path + ".carryover-backup-20261122T191500Z"; backup != want {
		t.Errorf("backup = %s, want %s", backup, want)
	}
	for _, p := range []string{path, backup} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("%s: mode %v, %v; want 0640", p, fi.Mode(), err)
		}
	}
	// A second save in the same second gets its own backup.
	if _, err := f.Uninstall(); err != nil {
		t.Fatal(err)
	}
	if b2, err := f.Save(); err != nil || b2 != backup+"-2" {
		t.Errorf("second backup = %q, %v", b2, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}

	// A new file is private, in private new directories.
	newPath := filepath.Join(dir, "home", ".claude", "settings.json")
	if _, backup := install(t, newPath, DefaultHooks(testExe, HookOptions{})); backup != "" {
		t.Errorf("backup %q for a new file", backup)
	}
	if fi, err := os.Stat(newPath); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("new file mode %v, %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(filepath.Dir(newPath)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("new dir mode %v, %v", fi.Mode(), err)
	}
}

func TestWithoutStateSidecar(t *testing.T) {
	// If the sidecar is lost, uninstall still removes exactly carryover's
	// entries and drops the containers they leave empty.
	path := filepath.Join(t.TempDir(), "settings.json")
	orig := "{\n  \"hooks\": {},\n  \"model\": \"opus\"\n}\n"
	writeFile(t, path, orig, 0o600)
	install(t, path, DefaultHooks(testExe, HookOptions{}))
	if _, err := os.Stat(stateFile(path)); err != nil {
		t.Fatalf("no state sidecar after filling an empty hooks object: %v", err)
	}
	if err := os.Remove(stateFile(path)); err != nil {
		t.Fatal(err)
	}
	uninstall(t, path)
	if got, _ := os.ReadFile(path); string(got) != "{\n  \"model\": \"opus\"\n}\n" {
		t.Errorf("got %q", got)
	}
}

func TestDiff(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	writeFile(t, path, "{\n  \"model\": \"opus\"\n}\n", 0o600)
	f := mustLoad(t, path)
	if d := f.Diff(); d != "" {
		t.Errorf("diff before any edit: %s", d)
	}
	if _, err := f.Install(DefaultHooks(testExe, HookOptions{})); err != nil {
		t.Fatal(err)
	}
	d := f.Diff()
	for _, want := range []string{"--- " + path, "+++ " + path, "-  \"model\": \"opus\"\n", "+  \"model\": \"opus\",\n", `+            "command": "/usr/local/bin/carryover hook pre-compact",`} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	if got, _ := os.ReadFile(path); string(got) != "{\n  \"model\": \"opus\"\n}\n" {
		t.Error("Diff wrote the file")
	}

	missing := mustLoad(t, filepath.Join(t.TempDir(), "settings.json"))
	if _, err := missing.Install(DefaultHooks(testExe, HookOptions{})); err != nil {
		t.Fatal(err)
	}
	if d := missing.Diff(); !strings.Contains(d, "--- /dev/null") || !strings.Contains(d, "+{\n") {
		t.Errorf("diff of a new file:\n%s", d)
	}
}

func TestSamples(t *testing.T) {
	dir := filepath.Join(sharedDir(t), "docs", "claude-code", "samples")
	for _, name := range []string{"user-settings.example.json", "project-settings.example.json"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "settings.json")
			writeFile(t, path, string(data), 0o600)
			hooks := DefaultHooks(testExe, HookOptions{Startup: true})
			install(t, path, hooks)
			got, _ := os.ReadFile(path)
			checkInstalled(t, got, hooks)
			if !bytes.Contains(got, []byte("python3 HOOK_LOGGER PreCompact")) {
				t.Error("other hooks lost")
			}
			uninstall(t, path)
			if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
				t.Errorf("not restored:\n%s", got)
			}
		})
	}
}

func TestInstallRejectsForeignHook(t *testing.T) {
	f := mustLoad(t, filepath.Join(t.TempDir(), "settings.json"))
	for _, hooks := range [][]Hook{
		{{Event: "Stop", Command: "echo hi"}},
		{{Event: "Stop", Command: "carryover hook stop"}, {Event: "Stop", Matcher: "*", Command: "carryover hook stop"}},
	} {
		if _, err := f.Install(hooks); err == nil {
			t.Errorf("Install(%v) accepted", hooks)
		}
	}
}

func TestMigrateLegacy(t *testing.T) {
	for _, wrapped := range []bool{true, false} {
		t.Run(fmt.Sprint("wrapped=", wrapped), func(t *testing.T) {
			dir := t.TempDir()
			events := `{
    "PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "backup.sh", "timeout": 9}, {"type": "command", "command": "carryover hook pre-compact"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    "Notification": [{"matcher": "*", "hooks": [{"type": "command", "command": "say \u0021"}]}]
  }`
			legacy := events
			if wrapped {
				legacy = `{"hooks": ` + events + "}"
			}
			hooksPath := filepath.Join(dir, "hooks.json")
			writeFile(t, hooksPath, legacy, 0o600)
			path := filepath.Join(dir, "settings.json")
			// notify-send is already in settings: it must not be added twice.
			writeFile(t, path, "{\n  \"hooks\": {\n    \"Stop\": [\n      {\"matcher\": \"*\", \"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}\n    ]\n  }\n}\n", 0o600)
			f := mustLoad(t, path)
			changed, err := MigrateLegacy(hooksPath, f)
			if err != nil || !changed {
				t.Fatalf("MigrateLegacy = %v, %v", changed, err)
			}
			hooks := DefaultHooks(testExe, HookOptions{})
			if _, err := f.Install(hooks); err != nil {
				t.Fatal(err)
			}
			checkInstalled(t, f.Bytes(), hooks)
			hs := decodeHooks(t, f.Bytes())
			count := func(event, cmd string) (n int) {
				for _, h := range hs {
					if h.Event == event && h.Command == cmd {
						n++
					}
				}
				return n
			}
			if count("PreCompact", "backup.sh") != 1 || count("Stop", "notify-send done") != 1 || count("Notification", "say !") != 1 {
				t.Errorf("migrated hooks wrong:\n%s", f.Bytes())
			}
			if !bytes.Contains(f.Bytes(), []byte(`"timeout": 9`)) || !bytes.Contains(f.Bytes(), []byte(`"say \u0021"`)) {
				t.Errorf("migrated values not kept verbatim:\n%s", f.Bytes())
			}
			if changed, err := MigrateLegacy(hooksPath, f); err != nil || changed {
				t.Errorf("second migration = %v, %v", changed, err)
			}
			if _, err := f.Save(); err != nil {
				t.Fatal(err)
			}
			if err := RenameMigrated(hooksPath); err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(hooksPath + ".migrated"); err != nil || string(got) != legacy {
				t.Errorf("hooks.json.migrated = %q, %v", got, err)
			}
			if _, err := os.Stat(hooksPath); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("hooks.json still there: %v", err)
			}
			// A later hooks.json does not overwrite the first .migrated.
			writeFile(t, hooksPath, "{}", 0o600)
			if err := RenameMigrated(hooksPath); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(hooksPath + ".migrated.2"); string(got) != "{}" {
				t.Errorf(".migrated.2 = %q", got)
			}
			// Uninstall keeps the migrated hooks: they are the user's.
			uninstall(t, path)
			if got, _ := os.ReadFile(path); !bytes.Contains(got, []byte("backup.sh")) || bytes.Contains(got, []byte("carryover")) {
				t.Errorf("after uninstall:\n%s", got)
			}
		})
	}

	// Into a settings file that does not exist yet: the migrated hooks keep
	// it alive after an uninstall.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "hooks.json"), `{"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}`, 0o600)
	path := filepath.Join(dir, "settings.json")
	f := mustLoad(t, path)
	if changed, err := MigrateLegacy(filepath.Join(dir, "hooks.json"), f); err != nil || !changed {
		t.Fatalf("migrate into a new file: %v, %v", changed, err)
	}
	if _, err := f.Install(DefaultHooks(testExe, HookOptions{})); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Save(); err != nil {
		t.Fatal(err)
	}
	uninstall(t, path)
	if got, err := os.ReadFile(path); err != nil || !bytes.Contains(got, []byte("say done")) {
		t.Errorf("after uninstall: %q, %v", got, err)
	}

	f = mustLoad(t, filepath.Join(t.TempDir(), "settings.json"))
	if changed, err := MigrateLegacy(filepath.Join(t.TempDir(), "none.json"), f); err != nil || changed {
		t.Errorf("missing hooks.json: %v, %v", changed, err)
	}
	bad := filepath.Join(t.TempDir(), "hooks.json")
	writeFile(t, bad, `{"Stop": {}}`, 0o600)
	if _, err := MigrateLegacy(bad, f); !errors.Is(err, ErrParse) {
		t.Errorf("bad hooks.json: %v", err)
	}
}

func TestClaudeMD(t *testing.T) {
	tests := []struct {
		name    string
		content *string
	}{
		{"missing", nil},
		{"empty", new("")},
		{"text with newline", new("# Project\n\nUse make.\n")},
		{"text without newline", new("# Project\n\nUse make.")},
		{"crlf", new("# Project\r\n\r\nUse make.\r\n")},
		{"blank line at end", new("# P\n\n")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "CLAUDE.md")
			if tc.content != nil {
				writeFile(t, path, *tc.content, 0o644)
			}
			changed, err := ClaudeMD(path, true, DefaultClaudeMDText)
			if err != nil || !changed {
				t.Fatalf("install: %v, %v", changed, err)
			}
			got, _ := os.ReadFile(path)
			if !bytes.Contains(got, []byte("## Compact Instructions")) || !bytes.Contains(got, []byte("carryover search")) ||
				!regexp.MustCompile(`(?s)<!-- carryover:begin[^>]*-->.*<!-- carryover:end -->`).Match(got) {
				t.Errorf("no marked section:\n%s", got)
			}
			if tc.content != nil && !bytes.HasPrefix(got, []byte(*tc.content)) {
				t.Errorf("existing text changed:\n%s", got)
			}
			if tc.name == "crlf" && bytes.Count(got, []byte("\n")) != bytes.Count(got, []byte("\r\n")) {
				t.Errorf("mixed line endings: %q", got)
			}
			if changed, err := ClaudeMD(path, true, DefaultClaudeMDText); err != nil || changed {
				t.Errorf("second install: %v, %v", changed, err)
			}
			// An update replaces the block's text in place.
			if changed, err := ClaudeMD(path, true, "Keep the test command."); err != nil || !changed {
				t.Errorf("update: %v, %v", changed, err)
			}
			got, _ = os.ReadFile(path)
			if bytes.Contains(got, []byte("carryover search")) || !bytes.Contains(got, []byte("Keep the test command.")) || bytes.Count(got, []byte("carryover:begin")) != 1 {
				t.Errorf("after update:\n%s", got)
			}
			if changed, err := ClaudeMD(path, false, ""); err != nil || !changed {
				t.Fatalf("uninstall: %v, %v", changed, err)
			}
			got, err = os.ReadFile(path)
			switch {
			case tc.content == nil && !errors.Is(err, fs.ErrNotExist):
				t.Errorf("created CLAUDE.md left behind: %q, %v", got, err)
			case tc.content != nil && string(got) != *tc.content:
				t.Errorf("after uninstall %q, want %q", got, *tc.content)
			}
			if changed, err := ClaudeMD(path, false, ""); err != nil || changed {
				t.Errorf("second uninstall: %v, %v", changed, err)
			}
		})
	}

	t.Run("text added after the block stays", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "CLAUDE.md")
		if _, err := ClaudeMD(path, true, DefaultClaudeMDText); err != nil {
			t.Fatal(err)
		}
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("\n# Mine\n")
		f.Close()
		if _, err := ClaudeMD(path, false, ""); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != "\n# Mine\n" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("unterminated", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "CLAUDE.md")
		writeFile(t, path, "x\n<!-- carryover:begin -->\n## Compact Instructions\n", 0o644)
		if _, err := ClaudeMD(path, false, ""); !errors.Is(err, ErrParse) {
			t.Errorf("err = %v, want ErrParse", err)
		}
	})
	t.Run("symlink", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "AGENTS.md"), "# A\n", 0o644)
		if err := os.Symlink("AGENTS.md", filepath.Join(dir, "CLAUDE.md")); err != nil {
			t.Skip(err)
		}
		if _, err := ClaudeMD(filepath.Join(dir, "CLAUDE.md"), true, DefaultClaudeMDText); !errors.Is(err, ErrSymlink) {
			t.Errorf("err = %v, want ErrSymlink", err)
		}
	})
}

func TestStaleStateIgnored(t *testing.T) {
	// A sidecar left behind after carryover's entries were removed by hand
	// must not make a later uninstall delete the file.
	path := filepath.Join(t.TempDir(), "settings.json")
	writeFile(t, path, "{}\n", 0o600)
	writeFile(t, stateFile(path), `{"created": true, "empty": {"/hooks": "[]"}}`, 0o600)
	install(t, path, DefaultHooks(testExe, HookOptions{}))
	uninstall(t, path)
	if got, err := os.ReadFile(path); err != nil || string(got) != "{}\n" {
		t.Errorf("after uninstall: %q, %v", got, err)
	}
	if _, err := os.Lstat(stateFile(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stale sidecar kept: %v", err)
	}
}
