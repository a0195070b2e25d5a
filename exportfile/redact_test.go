package exportfile_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/exportfile"
	"github.com/carryover-dev/carryover/redact"
	"github.com/carryover-dev/carryover/sqlite"
	"github.com/carryover-dev/carryover/storetest"
)

// privateKey returns the lines of a made-up private key of the kind: its
// BEGIN line, nine lines of base64 (from the two multipliers) and its END
// line.
func privateKey(kind string, a, b int) []string {
	key := []string{"-----BEGIN " + kind + " PRIVATE KEY-----"}
	for k := range 9 {
		var line strings.Builder
		for c := range 64 {
			line.WriteByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[(k*a+c*b+c*c)%64])
		}
		key = append(key, line.String())
	}
	return append(key, "-----END "+kind+" PRIVATE KEY-----")
}

// TestImportMasksAcrossRecords imports a file written by no carryover
// (not redacted) whose private key is cut across three raw transcript
// lines (three tool results), and whose raw line holds a secret only its
// decoded string shows (a user pattern for a line's start, behind "\n"):
// no line of the key and not the secret is stored. Each raw record was
// masked on its own, as the record's text: the middle part of the key,
// with neither its BEGIN nor its END line, stayed, and so did what an
// escape hid.
func TestImportMasksAcrossRecords(t *testing.T) {
	key := privateKey("OPENSSH", 7, 13)
	parts := []string{strings.Join(key[:4], "\n"), strings.Join(key[4:7], "\n"), strings.Join(key[7:], "\n")}
	const secret = "Zq8xW3rT5yU7import"
	line := func(text string) string {
		b, _ := json.Marshal(map[string]any{"type": "user", "sessionId": demoID, "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": text}}}})
		return string(b)
	}
	const ts = "2026-11-20T10:00:00Z"
	recs := []any{
		map[string]any{"type": "header", "format": exportfile.Format, "version": exportfile.Version, "created": ts, "carryover": "other", "redacted": false},
		map[string]any{"type": "session", "id": demoID, "project": "/home/dev/proj", "title": "deploy", "started": ts, "updated": ts, "turns": 3},
	}
	texts := append(parts, "deploy log\nacme: "+secret)
	for k, p := range texts {
		recs = append(recs, map[string]any{"type": "raw", "session": demoID, "line": k + 1, "offset": 100 * k, "size": 100, "text": line(p)})
	}
	var in strings.Builder
	for _, r := range recs {
		b, _ := json.Marshal(r)
		in.Write(b)
		in.WriteByte('\n')
	}
	ctx := context.Background()
	st := open(t, "import")
	red := redact.New(redact.Options{Extra: []redact.Pattern{{Kind: "acme", Re: regexp.MustCompile(`(?m)^acme: (\S+)`)}}})
	rep, err := exportfile.Read(ctx, strings.NewReader(in.String()), st, exportfile.ReadOptions{Redactor: red})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := st.RawLines(ctx, demoID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != len(texts) || rep.Read.RawLines != len(texts) {
		t.Fatalf("%d raw lines stored, want %d", len(raw), len(texts))
	}
	var stored []string
	for _, l := range raw {
		if !json.Valid(l.Text) {
			t.Errorf("raw line %d is not JSON: %s", l.Line, l.Text)
		}
		stored = append(stored, string(l.Text))
	}
	all := strings.Join(stored, "\n")
	for _, p := range append(key[1:len(key)-1], secret) {
		if strings.Contains(all, p) {
			t.Errorf("%q stored", p)
		}
	}
	if n := strings.Count(all, "[REDACTED:private-key]"); n < len(parts) {
		t.Errorf("%d key parts masked, want %d:\n%s", n, len(parts), all)
	}
}

// TestImportMasksAcrossChunks imports a crafted file (not redacted) whose
// chunk records cut a private key in three (the middle record with
// neither its BEGIN nor its END line), whose items and compaction do the
// same, and whose chunks cut a token in two: nothing of either is stored,
// in chunks, items, compactions, the session row or the full-text index.
// Each record was masked on its own: the middle lines stayed.
func TestImportMasksAcrossChunks(t *testing.T) {
	key := privateKey("RSA", 11, 7)
	parts := []string{"$ cat deploy_key\n" + strings.Join(key[:4], "\n"), strings.Join(key[4:7], "\n"), strings.Join(key[7:], "\n") + "\n$ echo done"}
	token := "sk-ant-api03-" + strings.Repeat("Zq8xW3rT5yU7-_pL", 6) + "AA"
	cut := len(token) / 2
	texts := append(parts, "deploy with value "+token[:cut], token[cut:]+"\nregion us-east-1")
	const ts = "2026-11-20T10:00:00Z"
	recs := []any{
		map[string]any{"type": "header", "format": exportfile.Format, "version": exportfile.Version, "created": ts, "carryover": "other", "redacted": false},
		map[string]any{"type": "session", "id": demoID, "project": "/home/dev/proj", "title": "deploy", "started": ts, "updated": ts, "turns": 5},
	}
	for k, text := range texts {
		recs = append(recs, map[string]any{"type": "chunk", "id": k + 1, "session": demoID, "seq": k, "turn": k, "window": 0,
			"first_line": 2*k + 1, "last_line": 2*k + 2, "start": ts, "end": ts, "prompt": "deploy the service",
			"summary": "step " + string(rune('a'+k)), "text": text, "hash": strings.Repeat(string(rune('a'+k)), 64)})
	}
	for k, text := range parts {
		recs = append(recs, map[string]any{"type": "item", "id": k + 1, "session": demoID, "chunk_seq": k, "kind": "command",
			"text": text, "key": "key-part-" + string(rune('a'+k)), "turn": k, "window": 0, "line": 2*k + 2, "time": ts, "weight": 1, "count": 1})
	}
	for k, text := range parts {
		recs = append(recs, map[string]any{"type": "compaction", "session": demoID, "window": k + 1, "trigger": "auto",
			"pre_tokens": 1000, "post_tokens": 100, "line": 20 + k, "time": ts, "summary": text})
	}
	var in strings.Builder
	for _, r := range recs {
		b, _ := json.Marshal(r)
		in.Write(b)
		in.WriteByte('\n')
	}
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "import.db")
	st, err := sqlite.Open(ctx, dbPath, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rep, err := exportfile.Read(ctx, strings.NewReader(in.String()), st, exportfile.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Read.Chunks != len(texts) || rep.Read.Items != len(parts) || rep.Read.Compactions != len(parts) {
		t.Fatalf("read %+v", rep.Read)
	}
	var stored strings.Builder
	add := func(v any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		stored.Write(b)
	}
	add(st.Session(ctx, demoID))
	add(st.Chunks(ctx, carryover.ChunkFilter{SessionID: demoID, Turn: -1}))
	add(st.Items(ctx, carryover.ItemFilter{SessionID: demoID}))
	add(st.Compactions(ctx, demoID))
	probes := append(key[1:len(key)-1], token[13:cut], token[cut:cut+24])
	for _, p := range probes {
		add(st.Search(ctx, carryover.Query{Text: p, Limit: 5}))
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, data := range storetest.Files(t, dbPath) {
		stored.Write(data)
	}
	all := stored.String()
	for _, p := range probes {
		if strings.Contains(all, p) {
			t.Errorf("%q stored", p)
		}
	}
	for _, keep := range []string{"$ cat deploy_key", "$ echo done", "region us-east-1"} {
		if !strings.Contains(all, keep) {
			t.Errorf("%q lost", keep)
		}
	}
}

// TestExportMasksSessionMeta: a session archived before its directory and
// branch were masked on the way in is exported with them masked, as its
// texts are.
func TestExportMasksSessionMeta(t *testing.T) {
	ctx := context.Background()
	gh := "ghp_" + strings.Repeat("Zx9Qw", 7) + "A"
	st := open(t, "old")
	s := carryover.Session{ID: demoID, Project: "/home/dev/proj", Cwd: "/home/dev/proj/" + gh, Branch: "fix/" + gh, Version: "2.1.0-" + gh, Title: "deploy"}
	if err := st.Apply(ctx, carryover.Batch{Session: s, State: carryover.IngestState{SessionID: demoID}}); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	n, err := exportfile.Write(ctx, &out, st, exportfile.WriteOptions{Sessions: []carryover.Session{s}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), gh[4:12]) || n.Masked["github-pat"] != 3 {
		t.Errorf("masked %v:\n%s", n.Masked, out.String())
	}
}
