package hook_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/hook"
	"github.com/carryover-dev/carryover/sqlite"
)

// inflate makes the first tool result of the transcript at path a log of
// about n bytes, so that the transcript is large.
func inflate(t *testing.T, path string, n int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	for i := 0; log.Len() < n; i++ {
		fmt.Fprintf(&log, "2026-11-20T09:%02d:%02dZ worker %d processed batch %d in %d ms\n", i/60%60, i%60, i%7, i, i*13%977)
	}
	var out bytes.Buffer
	done := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !done && bytes.Contains(line, []byte(`"type":"tool_result"`)) {
			var v map[string]any
			if err := json.Unmarshal(line, &v); err != nil {
				t.Fatal(err)
			}
			v["message"].(map[string]any)["content"].([]any)[0].(map[string]any)["content"] = log.String()
			if line, err = json.Marshal(v); err != nil {
				t.Fatal(err)
			}
			done = true
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	if !done {
		t.Fatal("no tool result to inflate")
	}
	if err := os.WriteFile(path, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestOneShotPreCompact: what the one-event process does before archiving
// a large transcript (a huge-page heap, SQLite's memory faulted in on
// another core while the store opens) changes nothing that is archived or
// restored.
func TestOneShotPreCompact(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100)) // the one-event process raises it
	ctx := context.Background()
	e := newEnv(t)
	inflate(t, e.transcript, 3<<20/2)
	var texts, restores []string
	for i, oneShot := range []bool{false, true} {
		e.db = filepath.Join(e.dir, fmt.Sprint("store", i), "carryover.db")
		h := e.handler()
		h.OneShot = oneShot
		var out bytes.Buffer
		if res := h.Run(ctx, hook.PreCompact, bytes.NewReader(e.payload("PreCompact", map[string]any{"trigger": "auto"})), &out); res.Outcome != "ok" {
			t.Fatalf("one-shot %v: PreCompact: %+v", oneShot, res)
		}
		out.Reset()
		h = e.handler()
		h.OneShot = oneShot
		if res := h.Run(ctx, hook.SessionStart, bytes.NewReader(e.payload("SessionStart", map[string]any{"source": "compact"})), &out); res.Outcome != "ok" {
			t.Fatalf("one-shot %v: SessionStart: %+v", oneShot, res)
		}
		restores = append(restores, out.String())
		st, err := sqlite.Open(ctx, e.db, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		chunks, err := st.Chunks(ctx, carryover.ChunkFilter{SessionID: demoID, Turn: -1})
		raw, rerr := st.RawLines(ctx, demoID, 0, 0)
		st.Close()
		if err != nil || rerr != nil {
			t.Fatal(err, rerr)
		}
		var b strings.Builder
		for _, c := range chunks {
			b.WriteString(c.Text)
		}
		for _, l := range raw {
			b.Write(l.Text)
		}
		texts = append(texts, b.String())
	}
	if !strings.Contains(texts[0], "processed batch 9999 in") || restores[0] == "" {
		t.Fatalf("the large tool result was not archived, or nothing restored (%d bytes archived)", len(texts[0]))
	}
	if texts[0] != texts[1] {
		t.Errorf("the one-event process archived %d bytes, another %d", len(texts[1]), len(texts[0]))
	}
	if restores[0] != restores[1] {
		t.Errorf("restores differ:\none-event:\n%s\nother:\n%s", restores[1], restores[0])
	}
}
