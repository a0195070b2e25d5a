package e2e

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// searchTool is carryover's search tool as Claude Code names it.
const searchTool = mcpToolPrefix + "search"

// mcpWrapper writes an executable named carryover that runs the test's
// carryover binary and, when it is started as the MCP server, first saves
// its environment to a file in envDir. Installed with --binary, it is what
// the hooks and the MCP server run.
func (h *harness) mcpWrapper() (path, envDir string) {
	h.t.Helper()
	if carryoverBin == "" {
		h.t.Fatal("carryover was not built")
	}
	envDir = filepath.Join(h.dir, "mcp-env")
	if err := os.MkdirAll(envDir, 0o755); err != nil {
		h.t.Fatal(err)
	}
	path = filepath.Join(h.dir, "wrap", "carryover")
	h.writeFile(path, []byte("#!/bin/sh\n"+
		`if [ "$1" = mcp ]; then env > '`+envDir+`'/"$$.env"; fi`+"\n"+
		`exec '`+carryoverBin+`' "$@"`+"\n"), 0o755)
	return path, envDir
}

// mcpEnvs returns the environments the wrapper saved, one per start of
// the MCP server.
func (h *harness) mcpEnvs(dir string) []map[string]string {
	h.t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.env"))
	if err != nil {
		h.t.Fatal(err)
	}
	var envs []map[string]string
	for _, p := range paths {
		env := map[string]string{}
		sc := bufio.NewScanner(bytes.NewReader(h.readFile(p)))
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), "="); ok {
				env[k] = v
			}
		}
		envs = append(envs, env)
	}
	return envs
}

// TestMCPSearchAfterCompaction installs carryover with its MCP server,
// runs a tool call, compacts, and has the model call carryover's search
// tool: Claude Code starts `carryover mcp`, offers the tool, and sends the
// pre-compaction fact back as the tool's result. In print mode the call
// needs a permission (--allowedTools) even with --permission-mode
// acceptEdits.
func TestMCPSearchAfterCompaction(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	wrapper, envDir := h.mcpWrapper()
	out, err := h.carryover("install", "--scope", "user", "--binary", wrapper)
	if err != nil || !strings.Contains(out, "registered carryover's MCP server") {
		t.Fatalf("carryover install: %v\n%s", err, out)
	}

	sid := h.prompt("", factPrompt).SessionID
	h.checkFactRan()
	h.prompt(sid, "/compact keep X")

	// The words are about the fact without being it: only the archive can
	// answer with it.
	const ask = "what did we write to the file? [[MCP search fact.txt echo]]"
	denied := h.mcpTurn(sid, ask)
	if text, isErr, ok := denied.result.ToolResult(denied.call.ToolID); !ok || !isErr || !strings.Contains(text, "haven't granted") {
		t.Errorf("without a permission: tool_result %q (is_error %v, found %v), want Claude Code's refusal", text, isErr, ok)
	}

	h.args = []string{"--allowedTools", searchTool}
	got := h.mcpTurn(sid, ask)
	text, isErr, ok := got.result.ToolResult(got.call.ToolID)
	switch {
	case !ok:
		t.Fatalf("request #%d has no tool_result for %s", got.result.N, got.call.ToolID)
	case isErr || !strings.Contains(text, fact):
		t.Errorf("tool_result of %s (is_error %v) lacks %s:\n%s", searchTool, isErr, fact, clip(text, 2000))
	}
	t.Logf("search result: %s", clip(text, 600))

	// Every process started the server in the session's project, with the
	// session's id in its environment.
	envs := h.mcpEnvs(envDir)
	if len(envs) < 4 {
		t.Errorf("carryover mcp started %d times, want once per CLI run (4)", len(envs))
	}
	for _, env := range envs {
		if env["CLAUDE_CODE_SESSION_ID"] != sid || env["CLAUDE_PROJECT_DIR"] != h.proj {
			t.Errorf("carryover mcp environment: CLAUDE_CODE_SESSION_ID=%q CLAUDE_PROJECT_DIR=%q, want %s and %s",
				env["CLAUDE_CODE_SESSION_ID"], env["CLAUDE_PROJECT_DIR"], sid, h.proj)
		}
	}
}

// mcpCall is one turn in which the fake called an MCP tool.
type mcpCall struct {
	call   apiRequest // the request answered with the tool_use
	result apiRequest // the request after it, with the tool_result
}

// mcpTurn runs a turn whose prompt makes the fake call an MCP tool, checks
// the tool was offered, and returns the two requests.
func (h *harness) mcpTurn(sid, prompt string) mcpCall {
	h.t.Helper()
	sent := len(h.api.Messages())
	h.prompt(sid, prompt)
	reqs := h.api.Messages()[sent:]
	for i, r := range reqs {
		if r.ToolID == "" || !strings.HasPrefix(r.Reply, "tool_use "+mcpToolPrefix) {
			continue
		}
		name := strings.Fields(r.Reply)[1]
		if !slices.Contains(r.Tools, name) {
			h.t.Errorf("request #%d does not offer %s; its tools: %v", r.N, name, r.Tools)
		}
		if i+1 >= len(reqs) {
			h.t.Fatalf("no request after the tool call of request #%d", r.N)
		}
		return mcpCall{call: r, result: reqs[i+1]}
	}
	h.t.Fatalf("no MCP tool call in the turn %q", prompt)
	return mcpCall{}
}

// TestMCPRegistration checks with Claude Code's own `claude mcp get` that
// the installer registers the server where the CLI reads it, for each
// scope, and that uninstall removes it. The project's .mcp.json is
// committed, so it runs carryover from PATH: that scope's test puts the
// binary there; the others run its absolute path.
func TestMCPRegistration(t *testing.T) {
	t.Parallel()
	scopes := map[string]string{
		"user":    "Scope: User config",
		"project": "Scope: Project config",
		"local":   "Scope: Local config",
	}
	for scope, want := range scopes {
		t.Run(scope, func(t *testing.T) {
			t.Parallel()
			var env []string
			command := carryoverBin
			if scope == "project" {
				env = append(env, "PATH="+filepath.Dir(carryoverBin)+string(filepath.ListSeparator)+os.Getenv("PATH"))
				command = "carryover"
			}
			h := newHarness(t, env...)
			out, err := h.carryover("install", "--scope", scope)
			if err != nil {
				t.Fatalf("carryover install --scope %s: %v\n%s", scope, err, out)
			}
			stdout, stderr, _, err := h.run("mcp", "get", "carryover")
			got := string(stdout)
			if err != nil || !strings.Contains(got, want) || !strings.Contains(got, "Command: "+command+"\n") || !strings.Contains(got, "Args: mcp") {
				t.Errorf("claude mcp get carryover after install --scope %s: %v\n%s%s\nwant %q, the command and its args", scope, err, got, stderr, want)
			}
			if scope != "project" && !strings.Contains(got, "Connected") {
				// .mcp.json servers wait for the user's approval here.
				t.Errorf("claude mcp get: carryover mcp did not connect:\n%s", got)
			}
			out, err = h.carryover("uninstall", "--scope", scope)
			if err != nil {
				t.Fatalf("carryover uninstall --scope %s: %v\n%s", scope, err, out)
			}
			stdout, _, _, err = h.run("mcp", "get", "carryover")
			if err == nil || strings.Contains(string(stdout), "Command:") {
				t.Errorf("claude mcp get carryover after uninstall: %v\n%s", err, stdout)
			}
		})
	}
}
