package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/sqlite"
)

// ghToken is a synthetic GitHub token, built at run time.
var ghToken = "ghp_" + strings.Repeat("Qz7Xw", 7) + "K"

// runCLI runs carryover in-process with env and returns stdout and stderr.
func runCLI(t *testing.T, env map[string]string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := newApp(strings.NewReader(stdin), &out, &errOut, func(k string) string { return env[k] })
	code := a.run(context.Background(), args)
	return out.String(), errOut.String(), code
}

// TestInjectMasks: a secret that reached the store unmasked (an archive
// written before masking) is still masked in the restore Claude sees.
func TestInjectMasks(t *testing.T) {
	h := newHookEnv(t)
	lines := splitLines(demoSession)
	cut, summaryEnd, _ := compactionPoint(lines)
	os.WriteFile(h.transcript, bytes.Join(lines[:cut], nil), 0o600)
	h.run(t, "pre-compact", h.payloadAt(hook.PreCompact, h.transcript))
	st, err := sqlite.Open(context.Background(), h.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddNote(context.Background(), carryover.Note{SessionID: demoID, Project: h.dir, Kind: "state",
		Text: "Next: push the release with GH_TOKEN=" + ghToken}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	os.WriteFile(h.transcript, bytes.Join(lines[:summaryEnd], nil), 0o600)
	out := h.run(t, "session-start", h.payloadAt(hook.SessionStart, h.transcript))
	checkOutput(t, hook.SessionStart, out)
	if strings.Contains(out, ghToken) || !strings.Contains(out, "GH_TOKEN=[REDACTED:github-pat]") {
		t.Errorf("restore not masked:\n%s", out)
	}
}

// TestNoteMasks: carryover note stores the text with its secrets masked.
func TestNoteMasks(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	env := map[string]string{"HOME": dir, "CARRYOVER_DB": db, "CLAUDE_CODE_SESSION_ID": demoID, "CLAUDE_PROJECT_DIR": dir,
		"CARRYOVER_LOG": filepath.Join(dir, "log")}
	out, errOut, code := runCLI(t, env, "", "note", "deploy", "with", "token", ghToken, "--kind", "decision")
	if code != 0 || !strings.Contains(out, "masked 1 secret") {
		t.Fatalf("note: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	st, err := sqlite.Open(context.Background(), db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	notes, err := st.Notes(context.Background(), "", demoID)
	if err != nil || len(notes) != 1 {
		t.Fatalf("notes %v, %v", notes, err)
	}
	if want := "deploy with token [REDACTED:github-pat]"; notes[0].Text != want {
		t.Errorf("note %q, want %q", notes[0].Text, want)
	}
	logData, _ := os.ReadFile(env["CARRYOVER_LOG"])
	if strings.Contains(string(logData), ghToken) {
		t.Errorf("the log holds the secret")
	}
}

// TestRedactPatternsConfig: the user's patterns mask at ingest; an invalid
// line is reported by the CLI (without its text) and ignored by hooks.
func TestRedactPatternsConfig(t *testing.T) {
	h := newHookEnv(t)
	patterns := filepath.Join(h.dir, "patterns.txt")
	os.WriteFile(patterns, []byte("# ours\nacme: ACME-[0-9]{6}\n(unclosed ACME-SECRET\n"), 0o600)
	os.MkdirAll(filepath.Join(h.dir, ".config", "carryover"), 0o700)
	os.WriteFile(filepath.Join(h.dir, ".config", "carryover", "config.toml"), []byte("redact_patterns = \""+patterns+"\"\n"), 0o600)
	// The demo session with a custom secret in a prompt.
	lines := splitLines(demoSession)
	var v map[string]any
	idx := -1
	for i, l := range lines {
		if json.Unmarshal(l, &v) == nil && v["type"] == "user" {
			if m, ok := v["message"].(map[string]any); ok {
				if _, ok := m["content"].(string); ok {
					m["content"] = m["content"].(string) + " (licence ACME-123456)"
					idx = i
					break
				}
			}
		}
	}
	if idx < 0 {
		t.Fatal("no text prompt in the demo session")
	}
	b, _ := json.Marshal(v)
	lines[idx] = append(b, '\n')
	os.WriteFile(h.transcript, bytes.Join(lines, nil), 0o600)

	out, errOut, code := runCLI(t, h.env, "", "ingest", h.transcript)
	if code != 0 {
		t.Fatalf("ingest: exit %d: %s %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "line 3: invalid regexp") || strings.Contains(errOut, "ACME-SECRET") {
		t.Errorf("ingest stderr %q: want the invalid line reported without its text", errOut)
	}
	// A hook ignores the bad line quietly (run fails on any stderr).
	h.run(t, "stop", h.payloadAt(hook.Stop, h.transcript))

	st, err := sqlite.Open(context.Background(), h.db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sess, err := st.Session(context.Background(), demoID)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := st.Chunks(context.Background(), carryover.ChunkFilter{SessionID: demoID, Turn: -1})
	if err != nil {
		t.Fatal(err)
	}
	all := sess.Title
	for _, c := range cs {
		all += c.Text + c.Prompt + c.Summary
	}
	if strings.Contains(all, "ACME-123456") || !strings.Contains(all, "[REDACTED:acme]") {
		t.Errorf("custom secret not masked")
	}
	counts, err := st.Redactions(context.Background(), "")
	if err != nil || counts["acme"] == 0 {
		t.Errorf("redactions %v, %v: want acme counted", counts, err)
	}
}

// TestExportImportMaskProbeShapes: an archive written before masking (or
// by an older carryover) leaves no secret of the probe's shapes in an
// export, and an export holding such secrets is masked on import.
func TestExportImportMaskProbeShapes(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	ctx := context.Background()
	st, err := sqlite.Open(ctx, db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := "$ curl -u deploy:hunter2 https://ci.example.com\n$ PGPASSWORD=pgpw77 psql\n> Cookie: session=abc123sess\n" +
		"machine git.example.com login bob password netrc5\nDB_PASSWORD=Xk9mP2qLvR7t&3Zqw"
	sess := carryover.Session{ID: demoID, Project: dir, Title: "deploy with mysql -u root -pmyPw42"}
	if err := st.Apply(ctx, carryover.Batch{Session: sess, Chunks: []carryover.Chunk{{SessionID: demoID, Project: dir,
		Text: text, Summary: text, Commands: []string{"curl -u deploy:hunter2 https://ci.example.com"}, Hash: "h1"}}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	values := []string{"hunter2", "pgpw77", "abc123sess", "netrc5", "Xk9mP2qLvR7t", "3Zqw", "myPw42"}
	env := map[string]string{"HOME": dir, "CARRYOVER_DB": db, "CARRYOVER_LOG": filepath.Join(dir, "log")}
	export := filepath.Join(dir, "all.jsonl")
	if out, errOut, code := runCLI(t, env, "", "export", "-o", export); code != 0 {
		t.Fatalf("export exited %d: %s%s", code, out, errOut)
	}
	data, err := os.ReadFile(export)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		if strings.Contains(string(data), v) {
			t.Errorf("export holds %q", v)
		}
	}
	// An export from elsewhere that holds the secrets.
	leaky := strings.Replace(string(data), "deploy:[REDACTED:password]", "deploy:hunter2", -1)
	leaky = strings.Replace(leaky, "PGPASSWORD=[REDACTED:password]", "PGPASSWORD=pgpw77", -1)
	if !strings.Contains(leaky, "hunter2") || !strings.Contains(leaky, "pgpw77") {
		t.Fatalf("export not as expected:\n%s", data)
	}
	if err := os.WriteFile(export, []byte(leaky), 0o600); err != nil {
		t.Fatal(err)
	}
	env["CARRYOVER_DB"] = filepath.Join(dir, "other.db")
	if out, errOut, code := runCLI(t, env, "", "import", export); code != 0 {
		t.Fatalf("import exited %d: %s%s", code, out, errOut)
	}
	st, err = sqlite.Open(ctx, env["CARRYOVER_DB"], sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cs, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: demoID, Turn: -1})
	if err != nil || len(cs) != 1 {
		t.Fatalf("imported chunks %d, %v", len(cs), err)
	}
	all := cs[0].Text + cs[0].Summary + strings.Join(cs[0].Commands, "\n")
	for _, v := range values {
		if strings.Contains(all, v) {
			t.Errorf("import stored %q", v)
		}
	}
}
