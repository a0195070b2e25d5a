package transcript_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/transcript"
)

// sharedDir returns ../shared beside the repo, skipping (or failing under
// CI=true) when it is absent.
func sharedDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("../shared is missing under CI: %v", err)
		}
		t.Skipf("../shared is not beside this repo: %v", err)
	}
	return dir
}

func readAll(t testing.TB, r *transcript.Reader) []transcript.Entry {
	t.Helper()
	var es []transcript.Entry
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			return es
		}
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
}

func TestReaderLineTypes(t *testing.T) {
	path := filepath.Join(sharedDir(t), "docs", "claude-code", "samples", "transcript.tool-compact-turn-resume-compact-turn.jsonl")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := transcript.NewReader(f, 0, 0)
	es := readAll(t, r)
	fi, _ := f.Stat()
	if r.Offset() != fi.Size() || r.Skipped != 0 {
		t.Fatalf("offset %d of %d, %d skipped", r.Offset(), fi.Size(), r.Skipped)
	}
	types := map[string]int{}
	var boundaries, summaries, prompts, toolUses, toolResults int
	for i, e := range es {
		if e.Line != i+1 && e.Line <= es[max(i-1, 0)].Line {
			t.Fatalf("line numbers not increasing at %d", e.Line)
		}
		types[e.Type]++
		if e.IsCompactBoundary() {
			boundaries++
			if e.Compact == nil || e.Compact.Trigger == "" {
				t.Errorf("line %d: boundary without metadata", e.Line)
			}
		}
		if e.CompactSummary {
			summaries++
			if !strings.Contains(e.Text(), "MOCK-SUMMARY") {
				t.Errorf("line %d: summary text %q", e.Line, e.Text())
			}
		}
		if e.IsUserPrompt() {
			prompts++
		}
		for _, b := range e.Blocks {
			switch b.Type {
			case "tool_use":
				toolUses++
				if b.Name == "" || b.ID == "" || len(b.Input) == 0 {
					t.Errorf("line %d: tool_use %+v", e.Line, b)
				}
			case "tool_result":
				toolResults++
				if b.ToolUseID == "" {
					t.Errorf("line %d: tool_result without id", e.Line)
				}
			}
		}
	}
	for _, typ := range []string{"user", "assistant", "system", "attachment", "queue-operation"} {
		if types[typ] == 0 {
			t.Errorf("no %s lines decoded: %v", typ, types)
		}
	}
	if boundaries != 2 || summaries != 2 {
		t.Errorf("%d boundaries, %d summaries; want 2 and 2", boundaries, summaries)
	}
	if prompts == 0 || toolUses == 0 || toolUses != toolResults {
		t.Errorf("%d prompts, %d tool uses, %d results", prompts, toolUses, toolResults)
	}
}

func TestReaderRealSessions(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(sharedDir(t), "data", "transcripts", "*", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no transcripts")
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r := transcript.NewReader(bytes.NewReader(data), 0, 0)
		es := readAll(t, r)
		if r.Skipped != 0 || r.Offset() != int64(len(data)) || r.Line() != bytes.Count(data, []byte("\n")) {
			t.Errorf("%s: skipped %d, offset %d/%d, lines %d", filepath.Base(path), r.Skipped, r.Offset(), len(data), r.Line())
		}
		for _, e := range es {
			if e.Type == "" {
				t.Errorf("%s:%d: no type", filepath.Base(path), e.Line)
			}
			if got := data[e.Offset : e.Offset+int64(e.Size)]; got[len(got)-1] != '\n' {
				t.Errorf("%s:%d: offset/size do not frame the line", filepath.Base(path), e.Line)
			}
		}
	}
}

func TestReaderTornLines(t *testing.T) {
	full := `{"type":"user","uuid":"a","message":{"role":"user","content":"one"}}` + "\n" +
		`{"type":"user","uuid":"b","message":{"role":"user","content":"two"}}` + "\n"
	torn := full + `{"type":"user","uuid":"c","mess`
	r := transcript.NewReader(strings.NewReader(torn), 0, 0)
	if es := readAll(t, r); len(es) != 2 || r.Offset() != int64(len(full)) || r.Line() != 2 {
		t.Fatalf("torn: %d entries, offset %d, line %d", len(es), r.Offset(), r.Line())
	}
	// Complete but without a final newline: consumed.
	last := `{"type":"user","uuid":"c","message":{"role":"user","content":"three"}}`
	r = transcript.NewReader(strings.NewReader(full+last), 0, 0)
	if es := readAll(t, r); len(es) != 3 || r.Offset() != int64(len(full+last)) {
		t.Fatalf("no final newline: %d entries, offset %d", len(es), r.Offset())
	}
	// Resuming at an offset continues the line count.
	r = transcript.NewReader(strings.NewReader(full[len(full)/2+1:]), int64(len(full)/2+1), 1)
	_ = readAll(t, r)
	if r.Line() != 2 {
		t.Fatalf("resume: line %d, want 2", r.Line())
	}
}

func TestReaderBadLines(t *testing.T) {
	huge := `{"type":"user","uuid":"h","message":{"role":"user","content":"` + strings.Repeat("z", 3<<20) + `"}}`
	input := strings.Join([]string{
		"",
		"garbage",
		"\xff\xfe\x00",
		`{"type":"assistant","uuid":"x","message":{"id":"m","content":[{"type":"text","text":"bad ` + "\xff" + ` utf8"}]}}`,
		huge,
		`["not", "an", "object"]`,
		`{"type":"future-type","uuid":"f","whatever":{"x":1}}`,
		`{"type":"user","uuid":"ok","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"res"},{"type":"image","source":{}}]}]}}`,
	}, "\n") + "\n"
	r := transcript.NewReader(strings.NewReader(input), 0, 0)
	r.SetMaxLine(1 << 20)
	es := readAll(t, r)
	if r.Skipped != 4 { // garbage, binary, oversized, array
		t.Errorf("skipped %d, want 4", r.Skipped)
	}
	if len(es) != 3 {
		t.Fatalf("%d entries, want 3: %+v", len(es), es)
	}
	if got := es[0].Text(); got != "bad \uFFFD utf8" {
		t.Errorf("invalid UTF-8 not replaced: %q", got)
	}
	if es[1].Type != "future-type" {
		t.Errorf("unknown type not kept: %+v", es[1])
	}
	if b := es[2].Blocks[0]; b.Type != "tool_result" || b.Text != "res" {
		t.Errorf("tool_result content: %+v", b)
	}
	if r.Offset() != int64(len(input)) {
		t.Errorf("offset %d, want %d", r.Offset(), len(input))
	}
}

func TestFingerprint(t *testing.T) {
	a := []byte(strings.Repeat("line one of the transcript\n", 200))
	b := append(append([]byte{}, a...), []byte("appended\n")...)
	fa, err := transcript.Fingerprint(bytes.NewReader(a), int64(len(a)))
	if err != nil {
		t.Fatal(err)
	}
	fb, _ := transcript.Fingerprint(bytes.NewReader(b), int64(len(a)))
	if fa != fb {
		t.Fatal("appending changed the fingerprint at the old offset")
	}
	c := append([]byte{}, a...)
	c[len(c)-5] = 'X'
	if fc, _ := transcript.Fingerprint(bytes.NewReader(c), int64(len(a))); fc == fa {
		t.Fatal("a rewrite before the offset kept the fingerprint")
	}
	if f0, err := transcript.Fingerprint(bytes.NewReader(nil), 0); err != nil || f0 == "" {
		t.Fatalf("empty: %q, %v", f0, err)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"type":"user","message":{"role":"user","content":"hi"}}`))
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls"}}]}}`))
	f.Add([]byte(`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":5}}`))
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"x"}]}]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := transcript.Decode(line)
		if err != nil {
			return
		}
		_ = e.Text()
		_ = e.IsUserPrompt()
	})
}

func TestSplitLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a\n", []string{"a\n"}},
		{"a\nb", []string{"a\n", "b\n"}},
		{"a\n\nb\n", []string{"a\n", "\n", "b\n"}},
	} {
		data := []byte(tc.in)
		got := transcript.SplitLines(data)
		if len(got) != len(tc.want) {
			t.Fatalf("%q: %q, want %q", tc.in, got, tc.want)
		}
		for i := range got {
			if string(got[i]) != tc.want[i] {
				t.Errorf("%q: line %d %q, want %q", tc.in, i, got[i], tc.want[i])
			}
		}
		// A line grown by its user does not write over the next one.
		if len(got) > 1 {
			_ = append(got[0], 'X')
			if string(got[1]) != tc.want[1] {
				t.Errorf("%q: appending to line 0 changed line 1 to %q", tc.in, got[1])
			}
		}
	}
}
