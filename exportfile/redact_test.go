package exportfile_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/exportfile"
	"github.com/carryover-dev/carryover/redact"
)

// TestImportMasksAcrossRecords imports a file written by no carryover
// (not redacted) whose private key is cut across three raw transcript
// lines (three tool results), and whose raw line holds a secret only its
// decoded string shows (a user pattern for a line's start, behind "\n"):
// no line of the key and not the secret is stored. Each raw record was
// masked on its own, as the record's text: the middle part of the key,
// with neither its BEGIN nor its END line, stayed, and so did what an
// escape hid.
func TestImportMasksAcrossRecords(t *testing.T) {
	key := []string{"-----BEGIN OPENSSH PRIVATE KEY-----"}
	for k := range 9 {
		var b strings.Builder
		for c := range 64 {
			b.WriteByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[(k*7+c*13+c*c)%64])
		}
		key = append(key, b.String())
	}
	key = append(key, "-----END OPENSSH PRIVATE KEY-----")
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
