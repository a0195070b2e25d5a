package storetest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/storetest"
)

// TestIngestMasksInBothStores archives, into SQLite and into PostgreSQL,
// a session whose directory, git branch and version hold secrets and
// whose Bash outputs cut a token in two, in two runs that part between
// its halves: both stores hold the session's metadata masked alike, and
// neither holds a piece of a secret in any row read back.
func TestIngestMasksInBothStores(t *testing.T) {
	dbURL := storetest.PostgresDatabase(t)
	ctx := context.Background()
	const id = "5d0c1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f"
	gh, aws := "ghp_"+strings.Repeat("Zx9Qw", 7)+"A", "AKIAQ7ZXR2WPM4KT8NVH"
	token := "sk-ant-api03-" + strings.Repeat("Zq8xW3rT5yU7-_pL", 6) + "AA"
	cut := len(token) / 2
	dir := t.TempDir()
	cwd := filepath.Join(dir, "repo", "deploy-"+gh)
	if err := os.MkdirAll(cwd, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "repo", ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	var lines []string
	ts := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	add := func(v map[string]any) {
		ts = ts.Add(time.Second)
		v["sessionId"], v["cwd"], v["gitBranch"], v["version"] = id, cwd, "fix/rotate-"+aws, "2.1.0-"+gh
		v["timestamp"], v["uuid"] = ts.Format(time.RFC3339Nano), fmt.Sprintf("u-%d", len(lines))
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	bash := func(n int, cmd, out string) {
		tu := fmt.Sprintf("toolu_0%d", n)
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("msg_0%d", n), "role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": tu, "name": "Bash", "input": map[string]any{"command": cmd}}}}})
		add(map[string]any{"type": "user", "toolUseResult": map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false},
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": tu, "content": out}}}})
	}
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "show me the service settings"}})
	bash(1, "head -c 120 service.conf", "# service settings\nvalue "+token[:cut])
	bash(2, "tail -c +121 service.conf", token[cut:]+"\nregion us-east-1\n")

	p := newPair(t, dbURL)
	path := filepath.Join(t.TempDir(), id+".jsonl")
	for _, run := range [][]string{lines[:3], lines[3:]} {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(strings.Join(run, "\n") + "\n"); err != nil {
			t.Fatal(err)
		}
		f.Close()
		for _, st := range []carryover.Store{p.lite, p.pg} {
			if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var sessions [2]carryover.Session
	for k, st := range []carryover.Store{p.lite, p.pg} {
		name := []string{"sqlite", "postgres"}[k]
		var all strings.Builder
		read := func(v any, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			b, _ := json.Marshal(v)
			all.Write(b)
		}
		s, err := st.Session(ctx, id)
		read(s, err)
		sessions[k] = s
		read(st.Sessions(ctx, carryover.SessionFilter{}))
		read(st.Chunks(ctx, carryover.ChunkFilter{SessionID: id, Turn: -1}))
		read(st.Items(ctx, carryover.ItemFilter{SessionID: id}))
		raw, err := st.RawLines(ctx, id, 0, 0)
		read(nil, err)
		for _, l := range raw {
			all.Write(l.Text)
		}
		state, err := st.IngestState(ctx, id)
		read(nil, err)
		all.Write(state.Cursor)
		for _, q := range []string{gh, aws, token[cut : cut+16], "Zx9QwZx9Qw"} {
			read(st.Search(ctx, carryover.Query{Text: q, Limit: 5}))
		}
		if len(raw) != len(lines) {
			t.Errorf("%s: %d raw lines, want %d", name, len(raw), len(lines))
		}
		secret := token[len("sk-ant-api03-"):]
		probes := []string{gh[4:12], aws[4:12], aws[12:]}
		for i := 0; i+8 <= len(secret); i++ {
			probes = append(probes, secret[i:i+8])
		}
		for _, probe := range probes {
			if strings.Contains(all.String(), probe) {
				t.Errorf("%s: %q stored", name, probe)
			}
		}
		if !strings.Contains(all.String(), "region us-east-1") {
			t.Errorf("%s: the text around the token lost", name)
		}
	}
	l, pg := sessions[0], sessions[1]
	if l.Cwd != pg.Cwd || l.Branch != pg.Branch || l.Version != pg.Version || l.Project != pg.Project ||
		l.Branch != "fix/rotate-[REDACTED:aws-access-key-id]" || !strings.HasSuffix(l.Cwd, "/deploy-[REDACTED:github-pat]") {
		t.Errorf("sessions differ or not masked:\nsqlite   %+v\npostgres %+v", l, pg)
	}
}
