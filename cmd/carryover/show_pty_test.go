//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShowPager: on a terminal, output taller than it goes through
// $PAGER; --no-pager, a short output or a pipe print it directly.
func TestShowPager(t *testing.T) {
	h := newHookEnv(t)
	const sid = "5a7e0000-0000-4000-8000-0000000000aa"
	path := filepath.Join(h.dir, sid+".jsonl")
	genTranscript(t, path, sid, 20)
	if _, errOut, code := h.runCLI(t, "ingest", path); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	pager := filepath.Join(h.dir, "pager.sh")
	if err := os.WriteFile(pager, []byte("#!/bin/sh\necho PAGED\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.env["PAGER"] = pager
	h.env["LINES"] = "10"
	out, code := runOnPTY(t, h.env, "show", sid[:8])
	if code != 0 || !strings.HasPrefix(out, "PAGED\n") || !strings.Contains(out, "turn 19: fix") {
		t.Errorf("20 turns on a 10-line terminal (exit %d):\n%.300s", code, out)
	}
	if out, _ := runOnPTY(t, h.env, "show", sid[:8], "--no-pager"); strings.Contains(out, "PAGED") || !strings.Contains(out, "turn 19: fix") {
		t.Errorf("--no-pager paged:\n%.300s", out)
	}
	if out, _, _ := h.runCLI(t, "show", sid[:8]); strings.Contains(out, "PAGED") {
		t.Errorf("a pipe was paged:\n%.300s", out)
	}
	h.env["LINES"] = "500"
	if out, _ := runOnPTY(t, h.env, "show", sid[:8]); strings.Contains(out, "PAGED") {
		t.Errorf("output shorter than the terminal was paged:\n%.300s", out)
	}
	// A pager that does not exist: the text is printed all the same.
	h.env["LINES"], h.env["PAGER"] = "10", filepath.Join(h.dir, "no-such-pager")
	if out, code := runOnPTY(t, h.env, "show", sid[:8]); code != 0 || !strings.Contains(out, "turn 19: fix") {
		t.Errorf("missing pager (exit %d):\n%.300s", code, out)
	}
}
