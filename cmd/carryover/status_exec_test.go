package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestStatusExecForm: an exec-form hook's program is the whole command,
// spaces and all; status must not split it like a shell line and call
// the binary missing.
func TestStatusExecForm(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script is no executable on Windows")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "my tools", "carryover")
	if err := os.MkdirAll(filepath.Dir(bin), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": ` + strconv.Quote(bin) + `, "args": ["hook", "stop"]}]}]}}`
	if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": dir, "CARRYOVER_DB": filepath.Join(dir, "c.db"), "CARRYOVER_LOG": filepath.Join(dir, "log"),
		"PATH": os.Getenv("PATH")}
	out, errOut, code := runCLI(t, env, "", "status", "--wide")
	if code != 0 {
		t.Fatalf("status exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "1: Stop") || !strings.Contains(out, bin) || strings.Contains(out, "MISSING") {
		t.Errorf("status of an exec-form hook at %q:\n%s", bin, out)
	}
}
