package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreservedText: the messages a compaction kept verbatim are read from
// the transcript's end, text and tool inputs; the others are not; a
// boundary without preservedMessages (older builds) gives nothing.
func TestPreservedText(t *testing.T) {
	lines := []string{
		`{"type":"user","uuid":"u1","message":{"role":"user","content":"the old prompt: codename QZXV-PELICAN"}}`,
		`{"type":"user","uuid":"u2","message":{"role":"user","content":"We decided the staging deploy port is 48213"}}`,
		`{"type":"assistant","uuid":"u3","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"curl localhost:48213/health"}}]}}`,
		`{"type":"system","subtype":"compact_boundary","uuid":"b1","content":"Conversation compacted","compactMetadata":{"trigger":"manual","preTokens":10,` +
			`"preservedSegment":{"headUuid":"u2","anchorUuid":"s1","tailUuid":"u3"},"preservedMessages":{"anchorUuid":"s1","uuids":["u2"],"allUuids":["u2","u3"]}}}`,
		`{"type":"user","uuid":"s1","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued. Summary."}}`,
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := preservedText(path)
	for _, want := range []string{"We decided the staging deploy port is 48213", "curl localhost:48213/health"} {
		if !strings.Contains(got, want) {
			t.Errorf("preserved text lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "QZXV-PELICAN") || strings.Contains(got, "Summary.") {
		t.Errorf("preserved text holds a message the compaction did not keep:\n%s", got)
	}

	old := strings.Replace(strings.Join(lines, "\n"), `,"preservedSegment"`, `,"x"`, 1)
	old = strings.Replace(old, `"preservedMessages"`, `"y"`, 1)
	if err := os.WriteFile(path, []byte(old+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := preservedText(path); got != "" {
		t.Errorf("a boundary without preservedMessages gave %q", got)
	}
	if got := preservedText(filepath.Join(dir, "missing.jsonl")); got != "" {
		t.Errorf("a missing transcript gave %q", got)
	}
}

// FuzzPreservedText reads the kept messages from a transcript whose tail
// is the fuzzer's: after kept and other messages and a boundary that names
// uuids, or as raw bytes. It must not panic, and gives nothing when the
// file holds no boundary.
func FuzzPreservedText(f *testing.F) {
	f.Add("We decided the port is 48213", "curl localhost:48213", "u2", []byte(nil))
	f.Add("", "", "", []byte(`{"type":"system","subtype":"compact_boundary","compactMetadata":{"preservedMessages":{"uuids":["x"]}}}`+"\n"+`{"uuid":"x"`))
	f.Add("信息", "\x00", `"`, []byte("\n\n\xff{}"))
	f.Fuzz(func(t *testing.T, kept, other, uuid string, raw []byte) {
		if len(raw) > 1<<16 || len(kept)+len(other)+len(uuid) > 1<<16 {
			t.Skip()
		}
		q := func(s string) string {
			b, _ := json.Marshal(s)
			return string(b)
		}
		var data []byte
		if raw != nil {
			data = raw
		} else {
			lines := []string{
				`{"type":"user","uuid":` + q(uuid) + `,"message":{"role":"user","content":` + q(kept) + `}}`,
				`{"type":"assistant","uuid":"o1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":` + q(other) + `}}]}}`,
				`{"type":"system","subtype":"compact_boundary","uuid":"b1","compactMetadata":{"trigger":"auto","preservedMessages":{"uuids":[` + q(uuid) + `],"allUuids":[` + q(uuid) + `]}}}`,
				`{"type":"user","uuid":"s1","isCompactSummary":true,"message":{"role":"user","content":"Summary."}}`,
			}
			data = []byte(strings.Join(lines, "\n") + "\n")
		}
		path := filepath.Join(t.TempDir(), "s.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		got := preservedText(path)
		if !bytes.Contains(data, []byte(`"compact_boundary"`)) && got != "" {
			t.Fatalf("text from a file without a boundary: %q", got)
		}
	})
}
