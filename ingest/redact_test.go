package ingest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/redact"
	"github.com/carryover-dev/carryover/sqlite"
)

// secretTranscript is a session whose prompt, commands, tool results,
// structured results, edits, errors and compaction summary hold secrets.
func secretTranscript(sec map[string]string) []string {
	var lines []string
	ts := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	add := func(v map[string]any) {
		ts = ts.Add(time.Second)
		v["sessionId"] = sid
		v["cwd"] = "/home/dev/proj"
		v["timestamp"] = ts.Format(time.RFC3339Nano)
		v["uuid"] = fmt.Sprintf("u-%d", len(lines))
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	user := func(content any) {
		add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": content}})
	}
	assistant := func(blocks ...any) {
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_%d", len(lines)), "role": "assistant", "content": blocks}})
	}
	result := func(id, text string, isErr bool, structured any) {
		add(map[string]any{"type": "user", "toolUseResult": structured, "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": id, "content": text, "is_error": isErr}}}})
	}
	user("deploy with GITHUB_TOKEN=" + sec["github"] + " and make the release")
	assistant(map[string]any{"type": "tool_use", "id": "tu_1", "name": "Bash", "input": map[string]any{
		"command": "git push https://bot:" + sec["github"] + "@github.com/acme/app.git main"}})
	result("tu_1", "remote: Permission denied", true, "Error: Exit code 1\nremote: Permission denied")
	assistant(map[string]any{"type": "tool_use", "id": "tu_2", "name": "Bash", "input": map[string]any{"command": "env | sort"}})
	env := "AWS_ACCESS_KEY_ID=" + sec["aws"] + "\nDB_PASSWORD=" + sec["password"] + "\nHOME=/home/dev\nSTRIPE_KEY=" + sec["stripe"]
	result("tu_2", env, false, map[string]any{"stdout": env, "stderr": "", "interrupted": false})
	assistant(map[string]any{"type": "tool_use", "id": "tu_3", "name": "Edit", "input": map[string]any{
		"file_path": "/home/dev/proj/config/prod.yaml", "old_string": "password: changeme", "new_string": "password: " + sec["password"]}})
	result("tu_3", "The file /home/dev/proj/config/prod.yaml has been updated.", false,
		map[string]any{"filePath": "/home/dev/proj/config/prod.yaml", "newString": "password: " + sec["password"], "originalFile": "db:\n  password: changeme\n"})
	assistant(map[string]any{"type": "text", "text": "IMPORTANT: the service key is " + sec["custom"] + "; the JWT we got is " + sec["jwt"]})
	add(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "compactMetadata": map[string]any{"trigger": "auto", "preTokens": 150000}})
	user("This session is being continued from a previous conversation that ran out of context. Summary: 1. Primary Request: release with token " + sec["github"] + " and the key\n" + sec["pem"])
	lines[len(lines)-1] = strings.Replace(lines[len(lines)-1], `"type":"user"`, `"type":"user","isCompactSummary":true,"isVisibleInTranscriptOnly":true`, 1)
	return lines
}

// TestNoSecretStored ingests a transcript full of secrets into a real
// SQLite store: nothing read back, found by search or present anywhere in
// the database files holds one, and the masks are counted by kind.
func TestNoSecretStored(t *testing.T) {
	sec := map[string]string{
		"github":   "ghp_" + strings.Repeat("Zx9Qw", 7) + "A",
		"aws":      "AKIA" + strings.Repeat("Q7ZX", 4),
		"password": "Xk9mP2qLvR7t!w",
		"stripe":   "sk_live_" + strings.Repeat("4eC39HqLyjWDarjtT1zdp7dc", 2),
		"custom":   "ACME-0123456789abcdef",
		"jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwiaWF0IjoxNTE2MjM5MDIyfQ." +
			"SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
		"pem": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n" +
			"QyNTUxOQAAACDx2f3kR9s7vLq0pXw8y1mZ4uN6tE5bH3gJ2cK7aQ9sdwAAAJgx9f1kMfX9\n-----END OPENSSH PRIVATE KEY-----",
	}
	pemBody := "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"
	dir := t.TempDir()
	path := filepath.Join(dir, sid+".jsonl")
	writeLines(t, path, secretTranscript(sec), 0)
	dbPath := filepath.Join(dir, "c.db")
	ctx := context.Background()
	st, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	red := redact.New(redact.Options{Extra: []redact.Pattern{{Kind: "acme-key", Re: regexp.MustCompile(`ACME-[0-9a-f]{16}`)}}})
	rep, err := (&ingest.Archiver{Store: st, Redactor: red}).File(ctx, path, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}

	var stored []string
	sess, err := st.Session(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	stored = append(stored, sess.Title)
	cs := chunks(t, st)
	if len(cs) == 0 {
		t.Fatal("no chunks stored")
	}
	for _, c := range cs {
		stored = append(stored, c.Text, c.Summary, c.Prompt, c.Hash)
		stored = append(stored, c.Commands...)
		stored = append(stored, c.Errors...)
		stored = append(stored, c.Files...)
	}
	items, err := st.Items(ctx, carryover.ItemFilter{SessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		stored = append(stored, it.Text, it.Detail, it.Key)
	}
	comps, err := st.Compactions(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(comps) == 0 || !strings.Contains(comps[0].Summary, "[REDACTED:private-key]") {
		t.Errorf("compaction summary not stored masked: %+v", comps)
	}
	for _, c := range comps {
		stored = append(stored, c.Summary)
	}
	// The raw archive is compressed: its lines are checked as read back,
	// not in the file's bytes.
	raw, err := st.RawLines(ctx, sid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(secretTranscript(sec)); len(raw) != n {
		t.Errorf("%d raw lines stored, want %d", len(raw), n)
	}
	for _, l := range raw {
		stored = append(stored, string(l.Text))
	}
	all := strings.Join(stored, "\n")
	for name, s := range sec {
		probe := s
		if name == "pem" {
			probe = pemBody
		}
		if strings.Contains(all, probe) || strings.Contains(strings.ToLower(all), strings.ToLower(probe)) {
			t.Errorf("%s secret stored", name)
		}
		hits, err := st.Search(ctx, carryover.Query{Text: probe, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if strings.Contains(h.Chunk.Text, probe) {
				t.Errorf("search finds the %s secret", name)
			}
		}
	}
	for _, want := range []string{"DB_PASSWORD=[REDACTED:password]", "https://bot:[REDACTED:github-pat]@github.com/acme/app.git"} {
		if !strings.Contains(all, want) {
			t.Errorf("stored text lacks %q", want)
		}
	}

	counts, err := st.Redactions(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"github-pat", "aws-access-key-id", "password", "stripe-secret-key", "acme-key", "jwt", "private-key"} {
		if counts[k] == 0 || rep.Redactions[k] != counts[k] {
			t.Errorf("redactions %s: store %d, report %d; want > 0 and equal (store %v)", k, counts[k], rep.Redactions[k], counts)
		}
	}

	// Nothing in the database files either (free pages, WAL, indexes).
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(dbPath + "*")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for name, s := range sec {
			probe := s
			if name == "pem" {
				probe = pemBody
			}
			if strings.Contains(string(data), probe) {
				t.Errorf("%s: the %s secret is in the file", filepath.Base(f), name)
			}
		}
	}
}

// TestHashOnMaskedContent: chunk hashes are computed from the masked text,
// so they reveal nothing about a secret and the same transcript with
// another secret value dedups to the same chunks.
func TestHashOnMaskedContent(t *testing.T) {
	ctx := context.Background()
	hashesWith := func(password string) map[string]bool {
		sec := map[string]string{"github": "ghp_" + strings.Repeat("Zx9Qw", 7) + "A", "aws": "AKIA" + strings.Repeat("Q7ZX", 4),
			"password": password, "stripe": "sk_live_" + strings.Repeat("4eC39HqLyjWDarjtT1zdp7dc", 2), "custom": "-", "jwt": "-", "pem": "-"}
		path := filepath.Join(t.TempDir(), sid+".jsonl")
		writeLines(t, path, secretTranscript(sec), 0)
		st := openStore(t)
		if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
			t.Fatal(err)
		}
		return hashes(chunks(t, st))
	}
	a, b := hashesWith("Xk9mP2qLvR7t!w"), hashesWith("Pq3zL8wN1cV6$m")
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d and %d chunks", len(a), len(b))
	}
	for h := range a {
		if !b[h] {
			t.Errorf("chunk hash %s depends on the secret's value", h)
		}
	}
}
