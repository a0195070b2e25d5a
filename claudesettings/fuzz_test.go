package claudesettings

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// fileFrom is a File loaded from data, carrying st as if read from the
// sidecar, so the fuzzer needs no disk.
func fileFrom(data []byte, st state) (*File, error) {
	f := &File{path: "settings.json", mode: 0o600}
	f.style = detectStyle(nil, nil)
	if data != nil {
		if err := f.load(data); err != nil {
			return nil, err
		}
	}
	f.state = state{Created: st.Created, Empty: maps.Clone(st.Empty)}
	return f, nil
}

// FuzzInstallUninstall checks, for any file Load accepts: Install gives
// valid settings with each of carryover's hooks exactly once, a second
// Install changes nothing, and Uninstall gives back the original bytes (or,
// when the file already had carryover entries, what uninstalling those
// alone gives).
func FuzzInstallUninstall(f *testing.F) {
	for _, tc := range roundTrips {
		if tc.content != "" {
			f.Add([]byte(tc.content), false)
		}
	}
	f.Add([]byte(`{"hooks":{"PreCompact":[{"matcher":"*","hooks":[{"type":"command","command":"/old/carryover hook pre-compact"}]}]}}`), true)
	f.Add([]byte(`{"hooks":{"Stop":[{"matcher":7,"hooks":[{"command":"carryover hook stop","timeout":"x"},{"command":"carryover hook stop"}]}]}}`), false)
	f.Add([]byte(`{"ho\u006fks": {"Pre\u0043ompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "x"}, {"command": "carryover hook pre-compact", "timeout": 30.0}]}], "Stop": [{"matcher": "*", "hooks": [{"command": "carryover hook stop"}]}]}}`), false)
	f.Add([]byte("{\"hooks\":{\"Stop\":[{\"hooks\":[{\"command\":\"a\"}],\"hooks\":[{\"command\":\"carryover hook stop\"}]}],\"SessionEnd\":[ ]},\"x\":[]}"), true)
	if dir := sharedSamples(); dir != "" {
		for _, name := range []string{"user-settings.example.json", "project-settings.example.json"} {
			if data, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
				f.Add(data, true)
			}
		}
	}
	f.Fuzz(checkRoundTrip)
}

// checkRoundTrip is the property FuzzInstallUninstall checks.
func checkRoundTrip(t *testing.T, data []byte, options bool) {
	orig, err := fileFrom(data, state{})
	if err != nil {
		return // Load refuses it: nothing to check
	}
	hooks := DefaultHooks("/opt/my tools/carryover", HookOptions{Startup: options, PostToolUse: options})

	// What uninstall alone makes of the input.
	alone, _ := fileFrom(data, state{})
	if _, err := alone.Uninstall(); err != nil {
		t.Fatalf("uninstall of the input: %v", err)
	}
	if len(orig.ours()) == 0 && !bytes.Equal(alone.src, data) {
		t.Fatalf("uninstall changed a file without carryover entries:\n%q\n%q", data, alone.src)
	}

	if _, err := orig.Install(hooks); err != nil {
		t.Fatalf("install: %v\ninput: %q", err, data)
	}
	installed := orig.src
	checkInstalled(t, installed, hooks)

	again, err := fileFrom(installed, orig.state)
	if err != nil {
		t.Fatalf("installed file does not load: %v\n%q", err, installed)
	}
	if changed, err := again.Install(hooks); err != nil || changed {
		t.Fatalf("second install: changed=%v err=%v\n%q\n%q", changed, err, installed, again.src)
	}

	un, _ := fileFrom(installed, orig.state)
	if _, err := un.Uninstall(); err != nil {
		t.Fatalf("uninstall: %v", err)
	}
	if !bytes.Equal(un.src, alone.src) {
		t.Fatalf("install+uninstall:\n%q\nwant:\n%q\ninstalled:\n%q", un.src, alone.src, installed)
	}

	// Without the sidecar, uninstall still leaves valid settings with
	// none of carryover's entries.
	lost, _ := fileFrom(installed, state{})
	if _, err := lost.Uninstall(); err != nil {
		t.Fatalf("uninstall without state: %v", err)
	}
	if _, err := parseSettings(lost.src); err != nil || len(lost.ours()) != 0 {
		t.Fatalf("uninstall without state: %v, %d entries left\n%q", err, len(lost.ours()), lost.src)
	}
}

// sharedSamples is the directory of sample settings files, or "" without
// the shared fixtures (seeds only; the table tests report their absence).
func sharedSamples() string {
	dir := filepath.Join("..", "..", "shared", "docs", "claude-code", "samples")
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}
