package claudesettings

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// statusLineOf is the statusLine as Claude Code reads it.
func statusLineOf(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not a valid settings file: %v\n%s", err, data)
	}
	sl, _ := doc["statusLine"].(map[string]any)
	return sl
}

func installStatusLine(t *testing.T, path, exe string) bool {
	t.Helper()
	f := mustLoad(t, path)
	changed, err := f.InstallStatusLine(exe)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Save(); err != nil {
		t.Fatal(err)
	}
	return changed
}

func uninstallStatusLine(t *testing.T, path string) bool {
	t.Helper()
	f := mustLoad(t, path)
	changed, err := f.UninstallStatusLine()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Save(); err != nil {
		t.Fatal(err)
	}
	return changed
}

func TestStatusLineRoundTrip(t *testing.T) {
	cases := map[string]struct {
		orig string
		wrap string // the command carryover's must wrap
	}{
		"no file":        {"", ""},
		"empty object":   {"{ }", ""},
		"other settings": {"{\n  \"model\": \"opus\",\n  \"hooks\": {}\n}\n", ""},
		"compact":        {`{"model":"opus"}`, ""},
		"CRLF and tabs":  {"{\r\n\t\"model\": \"opus\"\r\n}\r\n", ""},
		"existing command": {"{\n  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"~/.claude/statusline.sh\",\n    \"padding\": 0\n  },\n  \"model\": \"opus\"\n}\n",
			"~/.claude/statusline.sh"},
		// Escapes Go would write differently must come back as they were.
		"escaped command": {`{"statusLine":{"command":"jq -r '.model.display_name' \u0026\u0026 echo \"$X\" | tr a\/b c","type":"command"}}`,
			`jq -r '.model.display_name' && echo "$X" | tr a/b c`},
		"quotes everywhere": {`{"statusLine":{"type":"command","command":"printf '%s\\n' \"it's\" 'a;b'"}}`,
			`printf '%s\n' "it's" 'a;b'`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".claude", "settings.json")
			if c.orig != "" {
				writeFile(t, path, c.orig, 0o644)
			}
			if !installStatusLine(t, path, testExe) {
				t.Fatal("install changed nothing")
			}
			data, _ := os.ReadFile(path)
			sl := statusLineOf(t, data)
			cmd, _ := sl["command"].(string)
			if sl["type"] != "command" || !IsOurStatusLine(cmd) || WrappedStatusLine(cmd) != c.wrap {
				t.Fatalf("installed statusLine %v: want carryover's wrapping %q\n%s", sl, c.wrap, data)
			}
			if want := StatusLineCommand(testExe, c.wrap); cmd != want {
				t.Errorf("command %q, want %q", cmd, want)
			}
			if strings.Contains(c.orig, "padding") && sl["padding"] != 0.0 {
				t.Errorf("padding lost: %v", sl)
			}
			if installStatusLine(t, path, testExe) {
				t.Error("a second install changed the file")
			}
			// A new binary path: updated in place, still wrapping the same.
			installStatusLine(t, path, "/opt/carryover/bin/carryover")
			data, _ = os.ReadFile(path)
			cmd, _ = statusLineOf(t, data)["command"].(string)
			if cmd != StatusLineCommand("/opt/carryover/bin/carryover", c.wrap) {
				t.Errorf("after a reinstall from another path: %q", cmd)
			}

			if !uninstallStatusLine(t, path) {
				t.Fatal("uninstall changed nothing")
			}
			got, err := os.ReadFile(path)
			if c.orig == "" {
				if err == nil {
					t.Errorf("the file carryover created is still there: %q", got)
				}
			} else if string(got) != c.orig {
				t.Errorf("uninstall did not restore the original:\n got %q\nwant %q", got, c.orig)
			}
			if _, err := os.Stat(stateFile(path)); err == nil {
				t.Error("the state sidecar outlived the uninstall")
			}
		})
	}
}

func TestStatusLineWithHooks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	orig := "{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"echo old\"}\n}\n"
	writeFile(t, path, orig, 0o600)
	install(t, path, DefaultHooks(testExe, HookOptions{}))
	installStatusLine(t, path, testExe)
	data, _ := os.ReadFile(path)
	checkInstalled(t, data, DefaultHooks(testExe, HookOptions{}))
	// Removing the hooks keeps the status line, and the other way round.
	uninstall(t, path)
	data, _ = os.ReadFile(path)
	if cmd, _ := statusLineOf(t, data)["command"].(string); WrappedStatusLine(cmd) != "echo old" {
		t.Fatalf("hooks uninstall touched the status line: %s", data)
	}
	uninstallStatusLine(t, path)
	if got, _ := os.ReadFile(path); string(got) != orig {
		t.Errorf("got %q, want %q", got, orig)
	}
}

func TestStatusLineWithoutSidecar(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	orig := `{"statusLine":{"type":"command","command":"a \u0026\u0026 b"}}`
	writeFile(t, path, orig, 0o600)
	installStatusLine(t, path, testExe)
	if err := os.Remove(stateFile(path)); err != nil {
		t.Fatalf("no sidecar kept the wrapped command's text: %v", err)
	}
	uninstallStatusLine(t, path)
	// Without the sidecar the command comes back the same, spelled plainly.
	if got, _ := os.ReadFile(path); string(got) != `{"statusLine":{"type":"command","command":"a && b"}}` {
		t.Errorf("got %s", got)
	}
}

func TestStatusLineRefused(t *testing.T) {
	for name, orig := range map[string]string{
		"not an object":   `{"statusLine": "echo hi"}`,
		"not a command":   `{"statusLine": {"type": "static", "text": "hi"}}`,
		"no command":      `{"statusLine": {"type": "command"}}`,
		"repeated key":    `{"statusLine": {"type": "command", "command": "a"}, "statusLine": {"type": "command", "command": "b"}}`,
		"command numeric": `{"statusLine": {"type": "command", "command": 3}}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			writeFile(t, path, orig, 0o600)
			f := mustLoad(t, path)
			if _, err := f.InstallStatusLine(testExe); err == nil {
				t.Errorf("installed over %s: %s", orig, f.Bytes())
			}
			if _, err := f.UninstallStatusLine(); err == nil && string(f.Bytes()) != orig {
				t.Errorf("uninstall changed %s", orig)
			}
		})
	}
}

func TestStatusLineCommandRoundTrip(t *testing.T) {
	for _, wrap := range []string{"", "echo hi", "it's", `a'b"c\d`, "x | y && z; w", "$(date) `id`", "  spaced  ", "tab\there"} {
		cmd := StatusLineCommand("/path with space/carryover", wrap)
		if !IsOurStatusLine(cmd) || WrappedStatusLine(cmd) != wrap {
			t.Errorf("%q: ours %v, wraps %q", cmd, IsOurStatusLine(cmd), WrappedStatusLine(cmd))
		}
	}
	for _, cmd := range []string{"carryover hook stop", "/bin/statusline", "other statusline", "carryoverx statusline"} {
		if IsOurStatusLine(cmd) {
			t.Errorf("%q counted as carryover's status line", cmd)
		}
	}
}
