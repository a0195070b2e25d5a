package ingest_test

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
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
)

// storedText is everything a store holds of the session, read back: its
// row as the session list shows it, its chunks, items and compactions,
// its raw lines and ingest state (the cursor too), and the bytes of the
// database files (full-text indexes, free pages, the WAL) once closed.
func storedText(t *testing.T, dbPath, id string) string {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	add := func(v any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	sess, err := st.Session(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	add(sess)
	list, err := st.Sessions(ctx, carryover.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	add(list)
	cs, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: id, Turn: -1})
	if err != nil {
		t.Fatal(err)
	}
	add(cs)
	items, err := st.Items(ctx, carryover.ItemFilter{SessionID: id})
	if err != nil {
		t.Fatal(err)
	}
	add(items)
	comps, err := st.Compactions(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	add(comps)
	raw, err := st.RawLines(ctx, id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range raw {
		b.Write(l.Text)
		b.WriteByte('\n')
	}
	state, err := st.IngestState(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "%s %s %s\n", state.Path, state.FileID, state.Cursor)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, data := range storetest.Files(t, dbPath) {
		b.Write(data)
	}
	return b.String()
}

// tailTranscript is a session whose Bash output stops inside a token and
// whose next Bash output goes on with it, as head -c and tail -c print a
// file: the second part has no prefix to recognise it by.
func tailTranscript(token string, cut int) []string {
	var lines []string
	ts := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	add := func(v map[string]any) {
		ts = ts.Add(time.Second)
		v["sessionId"], v["cwd"], v["timestamp"] = sid, "/home/dev/proj", ts.Format(time.RFC3339Nano)
		v["uuid"] = fmt.Sprintf("6f1c2d3e-0000-4000-8000-%012d", len(lines))
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	call := func(id, cmd string) {
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_01" + id, "role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": "toolu_01" + id, "name": "Bash", "input": map[string]any{"command": cmd, "description": "Print the service settings"}}}}})
	}
	result := func(id, out string) {
		add(map[string]any{"type": "user", "toolUseResult": map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false},
			"message": map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_01" + id, "content": out, "is_error": false}}}})
	}
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "show me the service settings"}})
	call("A7x9", "head -c 120 service.conf")
	result("A7x9", "# service settings\nendpoint https://api.example.com\nvalue "+token[:cut])
	add(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_01B", "role": "assistant", "content": []any{
		map[string]any{"type": "text", "text": "The output stops there; printing the rest of the file."}}}})
	call("C3k8", "tail -c +121 service.conf")
	result("C3k8", token[cut:]+"\nregion us-east-1\nretries 3\n")
	add(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_01D", "role": "assistant", "content": []any{
		map[string]any{"type": "text", "text": "Both parts of the file are printed."}}}})
	return lines
}

// TestTokenTailNotStored archives sessions whose Bash outputs cut a
// token in two into real SQLite stores, at once and in two runs that
// part between its halves (the carry resumed from the saved cursor): no
// 8-character piece of the token's secret is stored anywhere, and the
// texts around it are.
func TestTokenTailNotStored(t *testing.T) {
	ctx := context.Background()
	tokens := []struct{ prefix, token string }{
		{"sk-ant-api03-", "sk-ant-api03-" + strings.Repeat("Zq8xW3rT5yU7-_pL", 6) + "AA"},
		{"ghp_", "ghp_" + strings.Repeat("Zx9Qw", 7) + "A"},
		{"AKIA", "AKIA" + "Q7ZXR2WPM4KT8NVH"},
		{"eyJ", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwiaWF0IjoxNTE2MjM5MDIyfQ." +
			"SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"},
	}
	n := 0
	for _, tk := range tokens {
		secret := tk.token[len(tk.prefix):]
		for _, cut := range []int{len(tk.prefix) + 8, len(tk.prefix) + len(secret)/2, len(tk.token) - 8} {
			lines := tailTranscript(tk.token, cut)
			for _, split := range []int{0, 3, 4, 5} { // 0: one run; else the first run's lines
				n++
				dir := t.TempDir()
				path, dbPath := filepath.Join(dir, sid+".jsonl"), filepath.Join(dir, "c.db")
				st, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
				if err != nil {
					t.Fatal(err)
				}
				runs := [][]string{lines}
				if split > 0 {
					runs = [][]string{lines[:split], lines[split:]}
				}
				for k, run := range runs {
					writeLines(t, path, run, map[bool]int{true: 0, false: os.O_APPEND}[k == 0])
					if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
						t.Fatal(err)
					}
				}
				if raw, err := st.RawLines(ctx, sid, 0, 0); err != nil || len(raw) != len(lines) {
					t.Fatalf("%d raw lines (%v), want %d", len(raw), err, len(lines))
				}
				if err := st.Close(); err != nil {
					t.Fatal(err)
				}
				all := storedText(t, dbPath, sid)
				for k := 0; k+8 <= len(secret); k++ {
					if f := secret[k : k+8]; strings.Contains(all, f) {
						t.Fatalf("%s cut at %d, first run %d lines: %q stored", tk.prefix, cut, split, f)
					}
				}
				for _, keep := range []string{"tail -c +121 service.conf", "region us-east-1", "printing the rest of the file",
					"Both parts of the file are printed."} {
					if !strings.Contains(all, keep) {
						t.Errorf("%s cut at %d: %q lost", tk.prefix, cut, keep)
					}
				}
			}
		}
	}
	t.Logf("%d archives of cut tokens, no piece stored", n)
}

// TestSessionMetaMasked: a secret in the directory a session runs in, in
// its git branch or in the version its transcript names is stored masked
// in the session (and nowhere else), with the label it gets in any text;
// the project, which hooks look sessions up by, is the repository's.
func TestSessionMetaMasked(t *testing.T) {
	ctx := context.Background()
	gh, aws := "ghp_"+strings.Repeat("Zx9Qw", 7)+"A", "AKIAQ7ZXR2WPM4KT8NVH"
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	cwd := filepath.Join(repo, "deploy-"+gh, "svc")
	if err := os.MkdirAll(cwd, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, fromHook := range []bool{false, true} {
		lines := synth(2)
		for k, l := range lines {
			var v map[string]any
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				t.Fatal(err)
			}
			v["gitBranch"], v["version"] = "fix/rotate-"+aws, "2.1.0-"+gh
			if fromHook {
				delete(v, "cwd")
			} else {
				v["cwd"] = cwd
			}
			b, _ := json.Marshal(v)
			lines[k] = string(b)
		}
		sub := t.TempDir()
		path, dbPath := filepath.Join(sub, sid+".jsonl"), filepath.Join(sub, "c.db")
		writeLines(t, path, lines, 0)
		st, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		opt := ingest.Options{}
		if fromHook {
			opt.Cwd = cwd // the hook's payload names it, the transcript not
		}
		if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, opt); err != nil {
			t.Fatal(err)
		}
		s, err := st.Session(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		want := carryover.Session{Cwd: filepath.Join(repo, "deploy-[REDACTED:github-pat]", "svc"),
			Branch: "fix/rotate-[REDACTED:aws-access-key-id]", Version: "2.1.0-[REDACTED:github-pat]", Project: repo}
		if s.Cwd != want.Cwd || s.Branch != want.Branch || s.Version != want.Version || s.Project != want.Project {
			t.Errorf("from hook %v: session cwd %q, branch %q, version %q, project %q; want %q, %q, %q, %q", fromHook,
				s.Cwd, s.Branch, s.Version, s.Project, want.Cwd, want.Branch, want.Version, want.Project)
		}
		all := storedText(t, dbPath, sid)
		for _, sec := range []string{gh, aws, gh[4:12], aws[4:12]} {
			if strings.Contains(all, sec) {
				t.Errorf("from hook %v: %q stored", fromHook, sec)
			}
		}
	}
}
