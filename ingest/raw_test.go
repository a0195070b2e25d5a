package ingest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/ingest"
	"github.com/carryover-dev/carryover/redact"
)

// fileLines splits a transcript into its lines as the raw archive numbers
// them: each with its offset and size; a last piece without a newline is
// left out.
func fileLines(data []byte) []carryover.RawLine {
	var out []carryover.RawLine
	off := 0
	for n := 1; ; n++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return out
		}
		out = append(out, carryover.RawLine{Line: n, Offset: int64(off), Size: i + 1, Text: data[off : off+i]})
		off += i + 1
	}
}

func rawLines(t *testing.T, st carryover.Store) []carryover.RawLine {
	t.Helper()
	ls, err := st.RawLines(context.Background(), sid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

func sameRaw(t *testing.T, what string, got, want []carryover.RawLine) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d raw lines, want %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Line != w.Line || g.Offset != w.Offset || g.Size != w.Size || !bytes.Equal(g.Text, w.Text) {
			t.Fatalf("%s: line %d is {%d %d %d %.60q}, want {%d %d %d %.60q}", what, i+1, g.Line, g.Offset, g.Size, g.Text, w.Line, w.Offset, w.Size, w.Text)
		}
	}
}

// TestRawLinesExact ingests a transcript with blank, damaged and torn lines
// in small batches, as hooks do while it grows: the raw archive holds every
// complete line byte for byte, with its place in the file.
func TestRawLinesExact(t *testing.T) {
	ctx := context.Background()
	lines := synth(40)
	lines = append(lines[:20], append([]string{"", "not json at all", "\x00\x01\x02\xff\xfe", "  {\"type\":\"user\"}  "}, lines[20:]...)...)
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	st := openStore(t)
	arch := &ingest.Archiver{Store: st, BatchBytes: 2 << 10}
	torn := `{"type":"assistant","message":{"content":[{"type":"text","text":"half`
	writeLines(t, path, lines[:50], 0)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(torn)
	f.Close()
	if _, err := arch.File(ctx, path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	sameRaw(t, "with a torn last line", rawLines(t, st), fileLines(data))

	// The line is finished and more follow.
	f, _ = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(` done"}]}}` + "\n" + strings.Join(lines[50:], "\n") + "\n")
	f.Close()
	for range 2 { // the second finds nothing new
		if _, err := arch.File(ctx, path, ingest.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	data, _ = os.ReadFile(path)
	want := fileLines(data)
	if len(want) != len(lines)+1 {
		t.Fatalf("fixture: %d lines", len(want))
	}
	sameRaw(t, "after the transcript grew", rawLines(t, st), want)
}

// TestRawRestart rewrites a transcript: read again from the start, its
// lines replace the archived ones, none left over from the old file.
func TestRawRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	st := openStore(t)
	writeLines(t, path, synth(20), 0)
	if _, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	rewritten := synth(6)
	for i := range rewritten {
		rewritten[i] = strings.ReplaceAll(rewritten[i], "please make", "kindly make")
	}
	writeLines(t, path, rewritten, 0)
	rep, err := (&ingest.Archiver{Store: st, BatchBytes: 1 << 10}).File(ctx, path, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Restarted {
		t.Fatal("the rewrite was not detected")
	}
	data, _ := os.ReadFile(path)
	sameRaw(t, "after the rewrite", rawLines(t, st), fileLines(data))
}

// TestRawSecrets: the raw lines are masked like the chunks, also where
// only the decoded text shows a secret (a key at the start of a line of a
// tool's output, after "\n" in the JSON) and in fields the chunks do not
// read; what only the raw lines held is counted too.
func TestRawSecrets(t *testing.T) {
	ctx := context.Background()
	awsKey := "AKIA" + strings.Repeat("Q7ZX", 4)
	token := "ghp_" + strings.Repeat("Zx9Qw", 7) + "A"
	lines := synth(2)
	line := func(v map[string]any) string {
		v["sessionId"], v["cwd"], v["timestamp"] = sid, "/home/dev/proj", "2026-11-20T10:01:00Z"
		b, _ := json.Marshal(v)
		return string(b)
	}
	lines = append(lines,
		line(map[string]any{"type": "user", "uuid": "k", "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "tu_0", "content": "keys:\n" + awsKey + "\nend"}}}}),
		line(map[string]any{"type": "progress", "uuid": "p", "data": map[string]any{"type": "hook_progress", "output": "pushed with " + token}}),
	)
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	writeLines(t, path, lines, 0)
	st := openStore(t)
	rep, err := (&ingest.Archiver{Store: st}).File(ctx, path, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	raw := rawLines(t, st)
	if len(raw) != len(lines) {
		t.Fatalf("%d raw lines, want %d", len(raw), len(lines))
	}
	for _, l := range raw[len(raw)-2:] {
		if bytes.Contains(l.Text, []byte(awsKey)) || bytes.Contains(l.Text, []byte(token)) {
			t.Errorf("raw line %d holds a secret: %s", l.Line, l.Text)
		}
		if !json.Valid(l.Text) || !bytes.Contains(l.Text, []byte("[REDACTED:")) {
			t.Errorf("raw line %d is not masked JSON: %s", l.Line, l.Text)
		}
	}
	if rep.Redactions["aws-access-key-id"] != 1 || rep.Redactions["github-pat"] != 1 {
		t.Errorf("redactions %v: want the key (of the chunks) and the token (of the raw line alone) once each", rep.Redactions)
	}
	for _, l := range raw[:len(raw)-2] {
		if !bytes.Equal(l.Text, []byte(lines[l.Line-1])) {
			t.Errorf("line %d without a secret changed: %s", l.Line, l.Text)
		}
	}
}

// TestRawKeyAcrossLines: a private key a tool result leaves open and a
// later one continues is masked in the raw lines too, the first time and
// when a second run starts between the parts; also when a line the
// entries skip holds so many texts that the raw lines' own stream gives
// the key up before the entries' does.
func TestRawKeyAcrossLines(t *testing.T) {
	key := keyLines("OPENSSH PRIVATE KEY", 3)
	line := func(uuid string, v map[string]any) string {
		v["sessionId"], v["cwd"], v["timestamp"], v["uuid"] = sid, "/home/dev/proj", "2026-11-20T10:01:00Z", uuid
		b, _ := json.Marshal(v)
		return string(b)
	}
	result := func(uuid, text string) string {
		return line(uuid, map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "tu_" + uuid, "content": text}}}})
	}
	noise := map[string]any{"type": "progress"}
	for k := range 80 {
		noise[fmt.Sprintf("field%02d", k)] = fmt.Sprintf("some progress text number %02d", k)
	}
	third := len(key) / 3
	for _, between := range []bool{false, true} {
		lines := append(synth(2),
			result("a", strings.Join(key[:third], "\n")),
			line("n", noise),
			result("b", strings.Join(key[third:2*third], "\n")),
			result("c", strings.Join(key[2*third:], "\n")))
		if !between {
			lines = slices.Delete(lines, len(lines)-3, len(lines)-2) // the noise line
		}
		path := filepath.Join(t.TempDir(), sid+".jsonl")
		st := openStore(t)
		// Two runs, the second starting between the key's parts.
		writeLines(t, path, lines[:len(lines)-2], 0)
		if _, err := (&ingest.Archiver{Store: st}).File(context.Background(), path, ingest.Options{}); err != nil {
			t.Fatal(err)
		}
		writeLines(t, path, lines[len(lines)-2:], os.O_APPEND)
		if _, err := (&ingest.Archiver{Store: st}).File(context.Background(), path, ingest.Options{}); err != nil {
			t.Fatal(err)
		}
		raw := rawLines(t, st)
		if len(raw) != len(lines) {
			t.Fatalf("%d raw lines, want %d", len(raw), len(lines))
		}
		for _, l := range raw {
			for _, k := range key[1 : len(key)-2] {
				if bytes.Contains(l.Text, []byte(k)) {
					t.Errorf("noise line between: %v: raw line %d holds a line of the key: %s", between, l.Line, k)
				}
			}
			if !json.Valid(l.Text) {
				t.Errorf("raw line %d is not JSON: %s", l.Line, l.Text)
			}
		}
	}
}

// hugeLine is a transcript line of 7.3 MB: a tool result of base64 data,
// as a pasted image or a dump gives.
func hugeLine() []byte {
	rnd := rand.New(rand.NewPCG(7, 7))
	blob := make([]byte, 5600<<10)
	for i := range blob {
		blob[i] = byte(rnd.Uint32())
	}
	huge, _ := json.Marshal(map[string]any{"type": "user", "sessionId": sid, "uuid": "huge", "cwd": "/home/dev/proj",
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "tu_1",
			"content": "BEGIN-HUGE " + base64.StdEncoding.EncodeToString(blob) + " END-HUGE"}}}})
	return huge
}

// TestRawHugeLine archives a transcript of one 7.3 MB line: the raw
// archive keeps it whole, masked as a hook masks it. How long that takes
// against the hooks' deadline is BenchmarkFileHugeLine's.
func TestRawHugeLine(t *testing.T) {
	huge := hugeLine()
	if len(huge) < 7<<20 {
		t.Fatalf("fixture: %d bytes", len(huge))
	}
	path := filepath.Join(t.TempDir(), sid+".jsonl")
	writeLines(t, path, []string{string(huge)}, 0)
	st := openStore(t)
	red := redact.New(redact.Options{})
	if _, err := (&ingest.Archiver{Store: st, Redactor: red}).File(context.Background(), path, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	raw := rawLines(t, st)
	want, _ := red.RedactJSON(huge)
	if len(raw) != 1 || raw[0].Size != len(huge)+1 || !bytes.Equal(raw[0].Text, want) {
		t.Fatalf("raw archive of the huge line: %d lines", len(raw))
	}
}
