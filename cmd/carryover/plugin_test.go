package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/claudesettings"
)

// TestPluginHooks keeps the plugin's hooks/hooks.json in step with what
// "carryover install" writes.
func TestPluginHooks(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var plugin struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &plugin); err != nil {
		t.Fatalf("hooks/hooks.json: %v", err)
	}
	for _, f := range []string{"plugin.json", "marketplace.json"} {
		var v map[string]any
		data, err := os.ReadFile(filepath.Join("..", "..", ".claude-plugin", f))
		if err != nil || json.Unmarshal(data, &v) != nil || v["name"] != "carryover" {
			t.Errorf(".claude-plugin/%s: %v, %v", f, err, v["name"])
		}
	}
	// The plugin ships no binary: its hooks run carryover from PATH.
	const exe = "carryover"
	want := claudesettings.DefaultHooks("/x/carryover", claudesettings.HookOptions{})
	seen := 0
	for _, h := range want {
		found := false
		for _, g := range plugin.Hooks[h.Event] {
			m := g.Matcher
			if m == "*" {
				m = ""
			}
			wm := h.Matcher
			if wm == "*" {
				wm = ""
			}
			if m != wm && !(h.Event == "PreCompact" && m == "") {
				continue
			}
			for _, ph := range g.Hooks {
				arg := strings.TrimPrefix(h.Command, "/x/carryover ")
				if ph.Type == "command" && ph.Command == exe+" "+arg && ph.Timeout == h.Timeout {
					found = true
				}
			}
		}
		if found {
			seen++
		} else {
			t.Errorf("plugin lacks %s[%s] %q (timeout %d)", h.Event, h.Matcher, h.Command, h.Timeout)
		}
	}
	if seen == 0 {
		t.Fatal("no hook matched")
	}
}
