package claudesettings

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Documents shaped like the files Claude Code keeps its MCP servers in:
// its state file (as `claude mcp add` and a first start leave it) and a
// project's .mcp.json, in several layouts.
var mcpDocs = map[string]string{
	"claude-json": `{
  "firstStartTime": "2026-11-22T20:36:50.334Z",
  "numStartups": 3,
  "mcpServers": {
    "other": {
      "type": "stdio",
      "command": "/usr/bin/other",
      "args": [
        "serve"
      ],
      "env": {}
    }
  },
  "projects": {
    "/work/proj": {
      "allowedTools": [],
      "mcpServers": {},
      "hasTrustDialogAccepted": false
    },
    "/work/other": {
      "mcpServers": {
        "x": {"command": "x"}
      }
    }
  },
  "userID": "18a0b5405f6cf0e67c21351cb9f08d85923c2dc1c1beb9ab7d190c3bbc4dbb29"
}`,
	"empty-servers": "{\n  \"mcpServers\": {},\n  \"seenNotifications\": {}\n}\n",
	"no-servers":    "{\n    \"theme\": \"dark\",\n    \"escaped\": \"\\u00e9\\/\",\n    \"n\": 1.50\n}\n",
	"minified":      `{"mcpServers":{"a":{"command":"a","args":[]}},"projects":{}}`,
	"crlf-tabs":     "{\r\n\t\"mcpServers\": {\r\n\t\t\"a\": {\"command\": \"a\"}\r\n\t}\r\n}\r\n",
	"empty-doc":     "{ }",
	"empty-doc-nl":  "{}\n",
}

// decodedServers is the "mcpServers" at at, decoded as Claude Code does.
func decodedServers(t *testing.T, data []byte, at []string) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not valid JSON: %v\n%s", err, data)
	}
	for _, k := range at {
		doc, _ = doc[k].(map[string]any)
	}
	servers, _ := doc["mcpServers"].(map[string]any)
	return servers
}

// withoutServer is the document decoded, minus carryover's entry at at and
// the objects it alone was in: what must stay the same.
func withoutServer(t *testing.T, data []byte, at []string) any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	m := doc
	for _, k := range at {
		m, _ = m[k].(map[string]any)
	}
	if s, ok := m["mcpServers"].(map[string]any); ok {
		delete(s, MCPName)
	}
	return doc
}

func TestMCPInstallUninstallRoundTrip(t *testing.T) {
	srv := CarryoverMCP(testExe)
	ats := map[string][]string{
		"top":            nil,
		"known-project":  {"projects", "/work/proj"},
		"new-project":    {"projects", "/work/new"},
		"slashy/project": {"projects", "/a~b/c"},
	}
	for docName, orig := range mcpDocs {
		for atName, at := range ats {
			t.Run(docName+"/"+atName, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), ".claude.json")
				writeFile(t, path, orig, 0o600)
				f := mustLoad(t, path)
				changed, err := f.InstallMCP(at, MCPName, srv)
				if err != nil || !changed {
					t.Fatalf("InstallMCP = %v, %v", changed, err)
				}
				if _, err := f.Save(); err != nil {
					t.Fatal(err)
				}
				installed, _ := os.ReadFile(path)
				got := decodedServers(t, installed, at)[MCPName]
				want := map[string]any{"type": "stdio", "command": testExe, "args": []any{"mcp"}}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("entry = %v, want %v:\n%s", got, want, installed)
				}
				// Objects an install creates or fills are empty without the
				// entry; the byte comparison after uninstall covers them.
				if before, after := prune(withoutServer(t, []byte(orig), at)), prune(withoutServer(t, installed, at)); !reflect.DeepEqual(before, after) {
					t.Errorf("install changed more than carryover's entry:\n%s", installed)
				}
				if !strings.HasSuffix(string(installed), orig[len(strings.TrimRight(orig, "\r\n")):]) {
					t.Errorf("trailing newline changed:\n%q", installed)
				}

				// A second install changes nothing.
				f = mustLoad(t, path)
				if changed, err := f.InstallMCP(at, MCPName, srv); err != nil || changed {
					t.Errorf("second InstallMCP = %v, %v", changed, err)
				}
				if s, ok, err := f.MCP(at, MCPName); err != nil || !ok || !reflect.DeepEqual(s, srv) {
					t.Errorf("MCP = %+v, %v, %v", s, ok, err)
				}

				f = mustLoad(t, path)
				if changed, err := f.UninstallMCP(at, MCPName); err != nil || !changed {
					t.Fatalf("UninstallMCP = %v, %v", changed, err)
				}
				if _, err := f.Save(); err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(path); string(got) != orig {
					t.Errorf("after uninstall:\n%s\nwant:\n%s", got, orig)
				}
				if _, err := os.Stat(stateFile(path)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("state sidecar left after uninstall: %v", err)
				}
				f = mustLoad(t, path)
				if changed, err := f.UninstallMCP(at, MCPName); err != nil || changed {
					t.Errorf("second UninstallMCP = %v, %v", changed, err)
				}
			})
		}
	}
}

// prune drops the empty objects in v, recursively.
func prune(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, x := range m {
		x = prune(x)
		if o, ok := x.(map[string]any); ok && len(o) == 0 {
			continue
		}
		out[k] = x
	}
	return out
}

func TestMCPInstallLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude.json")
	writeFile(t, path, mcpDocs["claude-json"], 0o600)
	f := mustLoad(t, path)
	if _, err := f.InstallMCP(nil, MCPName, CarryoverMCP(testExe)); err != nil {
		t.Fatal(err)
	}
	// Appended after the other server, laid out as Claude Code does.
	want := `    },
    "carryover": {
      "type": "stdio",
      "command": "/usr/local/bin/carryover",
      "args": [
        "mcp"
      ]
    }
  },
  "projects": {`
	if !strings.Contains(string(f.Bytes()), want) {
		t.Errorf("installed layout:\n%s\nwant it to contain:\n%s", f.Bytes(), want)
	}
	// A minified file stays minified.
	path = filepath.Join(t.TempDir(), ".mcp.json")
	writeFile(t, path, mcpDocs["minified"], 0o600)
	f = mustLoad(t, path)
	if _, err := f.InstallMCP(nil, MCPName, CarryoverMCP(testExe)); err != nil {
		t.Fatal(err)
	}
	if want := `{"mcpServers":{"a":{"command":"a","args":[]},"carryover":{"type":"stdio","command":"/usr/local/bin/carryover","args":["mcp"]}},"projects":{}}`; string(f.Bytes()) != want {
		t.Errorf("minified install:\n%s\nwant\n%s", f.Bytes(), want)
	}
}

func TestMCPNewFile(t *testing.T) {
	dir := t.TempDir()
	target, err := MCPLocation("project", "", "", dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := LoadMCP(target)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.InstallMCP(target.At, MCPName, CarryoverMCP(testExe)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Save(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(target.Path)
	want := "{\n  \"mcpServers\": {\n    \"carryover\": {\n      \"type\": \"stdio\",\n      \"command\": \"/usr/local/bin/carryover\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n"
	if string(got) != want {
		t.Errorf(".mcp.json:\n%s\nwant:\n%s", got, want)
	}
	if fi, err := os.Stat(target.Path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf(".mcp.json mode %v, %v; want 0644 like claude mcp add", fi.Mode(), err)
	}
	f, _ = LoadMCP(target)
	if _, err := f.UninstallMCP(target.At, MCPName); err != nil {
		t.Fatal(err)
	}
	if !f.Removes() {
		t.Error("uninstall does not remove the file install created")
	}
	if _, err := f.Save(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{target.Path, stateFile(target.Path)} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after uninstall: %v, want it gone", p, err)
		}
	}
}

func TestMCPUpdateOlderEntry(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude.json")
	orig := "{\n  \"mcpServers\": {\n    \"carryover\": {\"command\": \"/old/carryover\", \"args\": [\"mcp\", \"--old\"], \"env\": {}}\n  }\n}\n"
	writeFile(t, path, orig, 0o600)
	f := mustLoad(t, path)
	if changed, err := f.InstallMCP(nil, MCPName, CarryoverMCP(testExe)); err != nil || !changed {
		t.Fatalf("InstallMCP = %v, %v", changed, err)
	}
	if s, _, _ := f.MCP(nil, MCPName); !reflect.DeepEqual(s, CarryoverMCP(testExe)) {
		t.Errorf("updated entry = %+v\n%s", s, f.Bytes())
	}
	if _, err := f.UninstallMCP(nil, MCPName); err != nil {
		t.Fatal(err)
	}
	if want := "{}\n"; string(f.Bytes()) != want {
		t.Errorf("after uninstall %q, want %q", f.Bytes(), want)
	}
}

func TestMCPForeignServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude.json")
	orig := `{"mcpServers": {"carryover": {"command": "npx", "args": ["some-other-carryover"]}}}`
	writeFile(t, path, orig, 0o600)
	f := mustLoad(t, path)
	if _, err := f.InstallMCP(nil, MCPName, CarryoverMCP(testExe)); err == nil || !strings.Contains(err.Error(), "not carryover") {
		t.Errorf("InstallMCP over a foreign server: %v, want an error", err)
	}
	if changed, err := f.UninstallMCP(nil, MCPName); err != nil || changed {
		t.Errorf("UninstallMCP of a foreign server = %v, %v; want it left alone", changed, err)
	}
	if _, err := f.InstallMCP(nil, MCPName, MCPServer{Command: "/bin/other", Args: []string{"mcp"}}); err == nil {
		t.Error("InstallMCP accepted a server that is not carryover's")
	}
	if string(f.Bytes()) != orig {
		t.Errorf("file changed:\n%s", f.Bytes())
	}
}

func TestMCPShapeErrors(t *testing.T) {
	for name, doc := range map[string]string{
		"servers-array":    `{"mcpServers": []}`,
		"repeated-servers": `{"mcpServers": {}, "mcpServers": {}}`,
		"repeated-entry":   `{"mcpServers": {"carryover": {}, "carryover": {}}}`,
		"projects-string":  `{"projects": "x"}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".claude.json")
			writeFile(t, path, doc, 0o600)
			f := mustLoad(t, path)
			at := []string(nil)
			if strings.HasPrefix(name, "projects") {
				at = []string{"projects", "/p"}
			}
			if _, err := f.InstallMCP(at, MCPName, CarryoverMCP(testExe)); !errors.Is(err, ErrParse) {
				t.Errorf("InstallMCP = %v, want ErrParse", err)
			}
			if _, _, err := f.MCP(at, MCPName); !errors.Is(err, ErrParse) {
				t.Errorf("MCP = %v, want ErrParse", err)
			}
			if string(f.Bytes()) != doc {
				t.Errorf("file changed:\n%s", f.Bytes())
			}
		})
	}
}

func TestIsOurMCP(t *testing.T) {
	for s, want := range map[*MCPServer]bool{
		{Command: "/usr/local/bin/carryover", Args: []string{"mcp"}}:         true,
		{Command: "carryover", Args: []string{"mcp", "--db", "x"}}:           true,
		{Command: `C:\bin\carryover.exe`, Args: []string{"mcp"}}:             runtimeIsWindows(),
		{Command: "/usr/local/bin/carryover", Args: []string{"hook"}}:        false,
		{Command: "/usr/local/bin/carryover"}:                                false,
		{Command: "/usr/local/bin/carryover-wrapper", Args: []string{"mcp"}}: false,
		{Command: "npx", Args: []string{"carryover", "mcp"}}:                 false,
	} {
		if got := IsOurMCP(*s); got != want {
			t.Errorf("IsOurMCP(%+v) = %v, want %v", *s, got, want)
		}
	}
}

func runtimeIsWindows() bool { return filepath.Separator == '\\' }

func TestMCPLocation(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	repo := filepath.Join(dir, "repo")
	sub := filepath.Join(repo, "sub")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	cfg := filepath.Join(dir, "cfg")
	cases := []struct {
		scope, configDir, project string
		path                      string
		at                        []string
	}{
		{"user", "", sub, filepath.Join(home, ".claude.json"), nil},
		{"user", cfg, sub, filepath.Join(cfg, ".claude.json"), nil},
		{"local", "", sub, filepath.Join(home, ".claude.json"), []string{"projects", repo}},
		{"local", "", plain, filepath.Join(home, ".claude.json"), []string{"projects", plain}},
		{"project", "", sub, filepath.Join(sub, ".mcp.json"), nil},
	}
	for _, c := range cases {
		got, err := MCPLocation(c.scope, home, c.configDir, c.project)
		if err != nil || got.Path != c.path || !reflect.DeepEqual(got.At, c.at) || got.Scope != c.scope {
			t.Errorf("MCPLocation(%s, %q, %s) = %+v, %v; want %s %q", c.scope, c.configDir, c.project, got, err, c.path, c.at)
		}
	}
	// A legacy .config.json wins, as in Claude Code.
	writeFile(t, filepath.Join(home, ".claude", ".config.json"), "{}", 0o600)
	if got, _ := MCPLocation("user", home, "", sub); got.Path != filepath.Join(home, ".claude", ".config.json") {
		t.Errorf("with a legacy .config.json: %s", got.Path)
	}
	if _, err := MCPLocation("global", home, "", sub); err == nil {
		t.Error("unknown scope accepted")
	}
	if _, err := MCPLocation("project", home, "", ""); err == nil {
		t.Error("project scope without a project accepted")
	}
}

func TestMCPSaveRefusesConcurrentChange(t *testing.T) {
	// Claude Code rewrites its state file whenever it likes: a file that
	// changed after Load is never overwritten.
	target, err := MCPLocation("user", t.TempDir(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, target.Path, mcpDocs["claude-json"], 0o600)
	f, err := LoadMCP(target)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.InstallMCP(nil, MCPName, CarryoverMCP(testExe)); err != nil {
		t.Fatal(err)
	}
	rewritten := strings.Replace(mcpDocs["claude-json"], `"numStartups": 3`, `"numStartups": 4`, 1)
	writeFile(t, target.Path, rewritten, 0o600)
	if _, err := f.Save(); !errors.Is(err, ErrChanged) {
		t.Errorf("Save = %v, want ErrChanged", err)
	}
	if got, _ := os.ReadFile(target.Path); string(got) != rewritten {
		t.Errorf("file overwritten:\n%s", got)
	}
	if _, err := os.Stat(target.Path + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock left behind: %v", err)
	}
}

func TestMCPSaveTakesClaudeLock(t *testing.T) {
	target, err := MCPLocation("user", t.TempDir(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, target.Path, "{}\n", 0o600)
	lock := target.Path + ".lock"

	// Held by a live Claude Code: Save waits for it.
	if err := os.Mkdir(lock, 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := LoadMCP(target)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.InstallMCP(nil, MCPName, CarryoverMCP(testExe)); err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond)
		os.Remove(lock)
		close(released)
	}()
	start := time.Now()
	if _, err := f.Save(); err != nil {
		t.Fatal(err)
	}
	<-released
	if waited := time.Since(start); waited < 250*time.Millisecond {
		t.Errorf("Save did not wait for the lock (%v)", waited)
	}
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock left behind: %v", err)
	}

	// Abandoned (its holder stopped refreshing it): Save takes it over.
	if err := os.Mkdir(lock, 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	f, _ = LoadMCP(target)
	if _, err := f.UninstallMCP(nil, MCPName); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Save(); err != nil {
		t.Fatalf("Save with an abandoned lock: %v", err)
	}
	if got, _ := os.ReadFile(target.Path); string(got) != "{}\n" {
		t.Errorf("after uninstall %q", got)
	}
}

func TestMCPSymlinkRefused(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	writeFile(t, real, "{}\n", 0o600)
	target, _ := MCPLocation("user", dir, "", "")
	if err := os.Symlink(real, target.Path); err != nil {
		t.Skip(err)
	}
	if _, err := LoadMCP(target); !errors.Is(err, ErrSymlink) {
		t.Errorf("LoadMCP through a symlink = %v, want ErrSymlink", err)
	}
}

func TestMCPAndHooksShareSidecar(t *testing.T) {
	// A file holding carryover's hooks and its server keeps one sidecar;
	// removing either leaves what the other needs.
	path := filepath.Join(t.TempDir(), "x.json")
	orig := "{\n  \"hooks\": {},\n  \"mcpServers\": {}\n}\n"
	writeFile(t, path, orig, 0o600)
	f := mustLoad(t, path)
	if _, err := f.Install(DefaultHooks(testExe, HookOptions{})); err != nil {
		t.Fatal(err)
	}
	if _, err := f.InstallMCP(nil, MCPName, CarryoverMCP(testExe)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Save(); err != nil {
		t.Fatal(err)
	}
	f = mustLoad(t, path)
	if _, err := f.Uninstall(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Save(); err != nil {
		t.Fatal(err)
	}
	f = mustLoad(t, path)
	if _, err := f.UninstallMCP(nil, MCPName); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Save(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != orig {
		t.Errorf("after both uninstalls:\n%s\nwant:\n%s", got, orig)
	}
}
