package hook_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/hook"
)

func TestParseEvent(t *testing.T) {
	for _, e := range hook.Events {
		for _, s := range []string{string(e), e.Arg(), strings.ToUpper(e.Arg()), strings.ReplaceAll(e.Arg(), "-", "_")} {
			got, ok := hook.ParseEvent(s)
			if !ok || got != e {
				t.Errorf("ParseEvent(%q) = %q, %v; want %q", s, got, ok, e)
			}
		}
	}
	if got, want := hook.PreCompact.Arg(), "pre-compact"; got != want {
		t.Errorf("Arg = %q, want %q", got, want)
	}
	for _, s := range []string{"", "compact", "PreToolUse", "session start"} {
		if _, ok := hook.ParseEvent(s); ok {
			t.Errorf("ParseEvent(%q) accepted", s)
		}
	}
}

func TestDecodeSamples(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "docs", "claude-code", "samples", "hooks")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no hook samples under %s (CI needs ../shared)", dir)
		}
		t.Skipf("no hook samples under %s: ../shared is not beside this repo", dir)
	}
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "StatusLine") {
			continue // not a hook event: no hook_event_name
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var sample struct {
			Stdin json.RawMessage `json:"stdin"`
		}
		if err := json.Unmarshal(data, &sample); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		in, err := hook.Decode(bytes.NewReader(sample.Stdin))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if in.SessionID == "" || in.HookEventName == "" {
			t.Errorf("%s: missing common fields: %+v", f, in)
		}
		base := filepath.Base(f)
		switch {
		case strings.HasPrefix(base, "SessionStart.compact"):
			if in.Source != "compact" {
				t.Errorf("%s: source %q", f, in.Source)
			}
		case strings.HasPrefix(base, "PreCompact.manual"):
			if in.Trigger != "manual" || in.CustomInstructions == nil {
				t.Errorf("%s: trigger %q instructions %v", f, in.Trigger, in.CustomInstructions)
			}
		case strings.HasPrefix(base, "PreCompact.auto"):
			if in.Trigger != "auto" || in.CustomInstructions != nil {
				t.Errorf("%s: trigger %q instructions %v", f, in.Trigger, in.CustomInstructions)
			}
		case strings.HasPrefix(base, "PostCompact"):
			if in.CompactSummary == "" {
				t.Errorf("%s: no compact_summary", f)
			}
		case strings.HasPrefix(base, "UserPromptSubmit"):
			if in.Prompt == "" {
				t.Errorf("%s: no prompt", f)
			}
		}
	}
}

func TestDecodeBad(t *testing.T) {
	cases := map[string]string{
		"empty":     "",
		"space":     "  \n",
		"not json":  "hello",
		"truncated": `{"session_id":"abc`,
		"array":     `[1,2]`,
		"binary":    "\x00\x01\xff\xfe",
	}
	for name, in := range cases {
		if _, err := hook.Decode(strings.NewReader(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	big := `{"session_id":"` + strings.Repeat("a", hook.MaxInput) + `"}`
	if _, err := hook.Decode(strings.NewReader(big)); !errors.Is(err, hook.ErrTooLarge) {
		t.Errorf("oversized: err = %v, want ErrTooLarge", err)
	}
	// Unknown fields are fine.
	in, err := hook.Decode(strings.NewReader(`{"session_id":"s","future_field":{"x":1},"hook_event_name":"Stop"}`))
	if err != nil || in.SessionID != "s" {
		t.Errorf("unknown field: %+v, %v", in, err)
	}
}

func TestWriteContext(t *testing.T) {
	var buf bytes.Buffer
	text := "line \"one\"\n<two> & ünïcode"
	if err := hook.WriteContext(&buf, hook.SessionStart, text); err != nil {
		t.Fatal(err)
	}
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		t.Fatalf("output is not JSON: %v: %s", err, buf.String())
	}
	if out.HookSpecificOutput.HookEventName != "SessionStart" || out.HookSpecificOutput.AdditionalContext != text {
		t.Errorf("got %+v", out)
	}
	buf.Reset()
	if err := hook.WriteContext(&buf, hook.UserPromptSubmit, ""); err != nil || buf.Len() != 0 {
		t.Errorf("empty text wrote %q, %v", buf.String(), err)
	}
}
