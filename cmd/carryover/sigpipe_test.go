//go:build unix

package main

import (
	"os"
	"testing"

	"github.com/carryover-dev/carryover/hook"
)

// TestHookSIGPIPE: a hook whose reader has gone (carryover hook x | head
// -c0) exits 0 instead of dying of SIGPIPE (141).
func TestHookSIGPIPE(t *testing.T) {
	bin := carryoverBinary(t)
	h := newHookEnv(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	cmd := binCmd(bin, h.dir, h.db, h.payloadAt(hook.PreCompact, h.transcript), "hook", "pre-compact")
	cmd.Stdout = w
	if err := cmd.Run(); err != nil {
		t.Fatalf("pre-compact into a closed pipe: %v (%v)", err, cmd.ProcessState)
	}
}
