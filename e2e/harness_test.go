package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover/internal/skipnote"
	"github.com/carryover-dev/carryover/sqlite"
)

// claudeVersion is the Claude Code release these tests pin; keep it in step
// with scripts/install-claude-code.sh.
const claudeVersion = "2.1.197"

// execTimeout bounds one CLI run.
const execTimeout = 120 * time.Second

// carryoverBin is the carryover binary TestMain builds for the whole run.
var carryoverBin string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	_, err := claudePath()
	if err != nil {
		defer skipnote.Print("the end-to-end tests with the real Claude Code CLI (not installed)",
			"run scripts/install-claude-code.sh, then go test ./e2e/")
	}
	// Building is only worth it when the tests will run.
	if err == nil || os.Getenv("CI") == "true" {
		dir, err := os.MkdirTemp("", "carryover-e2e-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		carryoverBin = filepath.Join(dir, "carryover")
		build := exec.Command("go", "build", "-o", carryoverBin, "./cmd/carryover")
		build.Dir = repoRoot()
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: build carryover: %v\n%s", err, out)
			return 1
		}
	}
	return m.Run()
}

// repoRoot is the module root: go test runs in the package directory.
func repoRoot() string {
	abs, err := filepath.Abs("..")
	if err != nil {
		panic(err)
	}
	return abs
}

// claudePath finds the Claude Code CLI: $CARRYOVER_CLAUDE, else the copy
// scripts/install-claude-code.sh puts under .cache/.
func claudePath() (string, error) {
	p := os.Getenv("CARRYOVER_CLAUDE")
	if p == "" {
		p = filepath.Join(repoRoot(), ".cache", "claude-code", "node_modules", ".bin", "claude")
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%s is not an executable file", p)
	}
	return p, nil
}

// requireClaude returns the CLI's path, or skips the test when it is not
// installed (fails under CI=true, where it must be).
func requireClaude(t testing.TB) string {
	t.Helper()
	p, err := claudePath()
	if err != nil {
		msg := fmt.Sprintf("Claude Code CLI not found (%v): run scripts/install-claude-code.sh or set CARRYOVER_CLAUDE", err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// harness is one throwaway Claude Code installation: its own HOME, project
// directory, carryover store and fake API.
type harness struct {
	t      *testing.T
	claude string
	api    *fakeAPI
	dir    string
	home   string
	proj   string
	db     string
	extra  []string // more environment for the CLI
	args   []string // more arguments for every prompt
}

func newHarness(t *testing.T, extraEnv ...string) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{
		t:      t,
		claude: requireClaude(t),
		api:    newFakeAPI(t),
		dir:    dir,
		home:   filepath.Join(dir, "home"),
		proj:   filepath.Join(dir, "proj"),
		db:     filepath.Join(dir, "carryover.db"),
		extra:  extraEnv,
	}
	h.api.setDir(h.proj)
	for _, d := range []string{h.home, h.proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			h.dump()
		}
	})
	return h
}

// env is the environment of every process the tests start: FINDINGS-style
// isolation (throwaway HOME, the fake API, no telemetry or updates), PATH
// kept, and carryover's store inside the test directory.
func (h *harness) env() []string {
	env := []string{
		"HOME=" + h.home,
		"PATH=" + os.Getenv("PATH"),
		"ANTHROPIC_BASE_URL=" + h.api.URL(),
		"ANTHROPIC_API_KEY=dummy",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_ERROR_REPORTING=1",
		"CARRYOVER_DB=" + h.db,
	}
	return append(env, h.extra...)
}

// cliResult is the --output-format json result of one CLI run.
type cliResult struct {
	SessionID string `json:"session_id"`
	IsError   bool   `json:"is_error"`
	Subtype   string `json:"subtype"`
	Result    string `json:"result"`

	Elapsed time.Duration `json:"-"`
}

// run runs the CLI in the project directory with an explicit empty stdin:
// in -p mode it appends whatever stdin holds to the prompt, and /dev/null is
// not reliably empty everywhere.
func (h *harness) run(args ...string) (stdout, stderr []byte, elapsed time.Duration, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), execTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.claude, args...)
	cmd.Dir = h.proj
	cmd.Env = h.env()
	cmd.Stdin = bytes.NewReader(nil)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// Hook processes may outlive the CLI holding its pipes.
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err = cmd.Run()
	return out.Bytes(), errb.Bytes(), time.Since(start), err
}

// prompt runs one print-mode turn (resuming sid when set) and returns the
// CLI's JSON result; the run must succeed.
func (h *harness) prompt(sid, text string) cliResult {
	h.t.Helper()
	res, err := h.tryPrompt(sid, text)
	if err != nil {
		h.t.Fatal(err)
	}
	if res.IsError {
		h.t.Fatalf("claude -p %q: error result %q", text, res.Result)
	}
	return res
}

// tryPrompt runs one print-mode turn and returns its JSON result, which
// the CLI also prints when the turn fails (exit status 1). acceptEdits lets
// the fake's Bash commands write into the project: in the default mode the
// CLI blocks output redirection even inside the working directory.
func (h *harness) tryPrompt(sid, text string) (cliResult, error) {
	h.t.Helper()
	args := []string{"-p", text, "--output-format", "json", "--permission-mode", "acceptEdits"}
	if sid != "" {
		args = append(args, "--resume", sid)
	}
	args = append(args, h.args...)
	out, errOut, elapsed, runErr := h.run(args...)
	var res cliResult
	if err := json.Unmarshal(out, &res); err != nil || res.SessionID == "" {
		return res, fmt.Errorf("claude -p %q: no JSON result (%v, %v)\nstdout: %s\nstderr: %s", text, runErr, err, out, errOut)
	}
	var exit *exec.ExitError
	if runErr != nil && !(errors.As(runErr, &exit) && res.IsError) {
		return res, fmt.Errorf("claude -p %q: %v\nstdout: %s\nstderr: %s", text, runErr, out, errOut)
	}
	res.Elapsed = elapsed
	h.t.Logf("claude -p %q: %s in %v", text, clip(res.Result, 120), elapsed.Round(time.Millisecond))
	return res, nil
}

// carryover runs the carryover binary with the test's environment.
func (h *harness) carryover(args ...string) (string, error) {
	h.t.Helper()
	if carryoverBin == "" {
		h.t.Fatal("carryover was not built")
	}
	ctx, cancel := context.WithTimeout(context.Background(), execTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, carryoverBin, args...)
	cmd.Dir = h.proj
	cmd.Env = h.env()
	cmd.Stdin = bytes.NewReader(nil)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// userSettings is the path of the throwaway user settings file.
func (h *harness) userSettings() string {
	return filepath.Join(h.home, ".claude", "settings.json")
}

// writeFile writes a file, creating its directory.
func (h *harness) writeFile(path string, data []byte, perm os.FileMode) {
	h.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(path, data, perm); err != nil {
		h.t.Fatal(err)
	}
}

// readFile returns a file's content, or nil when it does not exist.
func (h *harness) readFile(path string) []byte {
	h.t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return b
}

// installCarryover installs carryover's hooks into the throwaway user
// settings with the real installer.
func (h *harness) installCarryover() {
	h.t.Helper()
	out, err := h.carryover("install", "--scope", "user")
	if err != nil {
		h.t.Fatalf("carryover install --scope user: %v\n%s", err, out)
	}
	h.t.Logf("carryover install --scope user:\n%s", out)
}

// uninstallCarryover removes them with the real uninstaller.
func (h *harness) uninstallCarryover() {
	h.t.Helper()
	out, err := h.carryover("uninstall", "--scope", "user")
	if err != nil {
		h.t.Fatalf("carryover uninstall --scope user: %v\n%s", err, out)
	}
	h.t.Logf("carryover uninstall --scope user:\n%s", out)
}

// hookScript writes an executable shell script into the test directory and
// returns its path, for hand-written hook settings.
func (h *harness) hookScript(name, body string) string {
	h.t.Helper()
	p := filepath.Join(h.dir, "hooks", name)
	h.writeFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755)
	return p
}

// hookEntry is one matcher group of a settings.json hooks list.
type hookEntry struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []hookCommand `json:"hooks"`
}

type hookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

// command is a hook group running one command.
func command(matcher, cmd string) hookEntry {
	return hookEntry{Matcher: matcher, Hooks: []hookCommand{{Type: "command", Command: cmd}}}
}

// writeHooks writes user settings holding only the given hooks.
func (h *harness) writeHooks(hooks map[string][]hookEntry) {
	h.t.Helper()
	b, err := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	if err != nil {
		h.t.Fatal(err)
	}
	h.writeFile(h.userSettings(), b, 0o644)
}

// transcript returns the session's transcript lines, decoded.
func (h *harness) transcript(sid string) []map[string]any {
	h.t.Helper()
	paths, err := filepath.Glob(filepath.Join(h.home, ".claude", "projects", "*", sid+".jsonl"))
	if err != nil || len(paths) != 1 {
		h.t.Fatalf("transcript of session %s: found %v (%v)", sid, paths, err)
	}
	var lines []map[string]any
	for l := range bytes.Lines(h.readFile(paths[0])) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			h.t.Fatalf("transcript %s: %v", paths[0], err)
		}
		lines = append(lines, m)
	}
	return lines
}

// openStore opens carryover's store read-only.
func (h *harness) openStore() *sqlite.Store {
	h.t.Helper()
	st, err := sqlite.Open(context.Background(), h.db, sqlite.Options{ReadOnly: true})
	if err != nil {
		h.t.Fatalf("open store: %v", err)
	}
	h.t.Cleanup(func() { st.Close() })
	return st
}

// dump logs what the fake API saw and carryover's log, after a failure.
func (h *harness) dump() {
	for _, r := range h.api.Messages() {
		last, _ := r.LastUser()
		h.t.Logf("request #%d compaction=%v\n  last user: %s\n  system: %s\n  reply: %s",
			r.N, r.IsCompaction(), clip(last.Text(), 400), clip(r.SystemText(), 600), clip(r.Reply, 200))
	}
	for _, r := range h.api.Others() {
		h.t.Logf("other request #%d: %s %s", r.N, r.Method, r.Path)
	}
	if log := h.readFile(filepath.Join(h.home, ".local", "state", "carryover", "carryover.log")); log != nil {
		h.t.Logf("carryover log:\n%s", log)
	}
}

// clip shortens s for messages.
func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	if len(s) <= n {
		return s
	}
	return s[:n/2] + " … " + s[len(s)-n/2:]
}
