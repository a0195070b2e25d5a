package hook_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/carryover-dev/carryover/hook"
)

// FuzzDecode feeds Decode arbitrary stdin. Seeds are the real payloads in
// testdata/fuzz/FuzzDecode (copied from Claude Code's samples). For any
// input it must return without panicking, refuse anything over MaxInput,
// and, when it accepts a payload, give an Input that survives a round trip
// through JSON and whose prompt WriteContext turns into valid output.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"Stop"}`))
	f.Add([]byte(`{"session_id":"s","prompt":"\u0000\ud800 \"quoted\" </script>","tool_input":{"a":[1,2,{}]},"tool_response":"x"}`))
	f.Add([]byte(`{"custom_instructions":null,"tool_input":null}`))
	f.Add([]byte("  {}\n\n"))
	f.Add([]byte(`[]`))
	f.Add([]byte{0xff, 0xfe, '{', '}'})
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := hook.Decode(bytes.NewReader(data))
		if len(data) > hook.MaxInput {
			if !errors.Is(err, hook.ErrTooLarge) {
				t.Fatalf("%d bytes accepted (err %v)", len(data), err)
			}
			return
		}
		if err != nil {
			return
		}
		enc, err := json.Marshal(in)
		if err != nil {
			t.Fatalf("decoded input does not encode: %v", err)
		}
		again, err := hook.Decode(bytes.NewReader(enc))
		if err != nil {
			t.Fatalf("re-encoded input does not decode: %v\n%s", err, enc)
		}
		in.ToolInput, in.ToolResponse = compact(t, in.ToolInput), compact(t, in.ToolResponse)
		again.ToolInput, again.ToolResponse = compact(t, again.ToolInput), compact(t, again.ToolResponse)
		if !reflect.DeepEqual(in, again) {
			t.Fatalf("round trip changed the input:\n%+v\n%+v", in, again)
		}
		for _, s := range []string{in.SessionID, in.Prompt, in.TranscriptPath, in.Cwd} {
			if !utf8.ValidString(s) {
				t.Fatalf("decoded field is not valid UTF-8: %q", s)
			}
		}
		var out bytes.Buffer
		if err := hook.WriteContext(&out, hook.UserPromptSubmit, in.Prompt); err != nil {
			t.Fatal(err)
		}
		if in.Prompt == "" {
			if out.Len() != 0 {
				t.Fatalf("output for an empty text: %q", out.String())
			}
			return
		}
		if !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
			t.Fatalf("output lacks its final newline: %q", out.String())
		}
		var v struct {
			HookSpecificOutput struct {
				HookEventName     string `json:"hookEventName"`
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		dec := json.NewDecoder(&out)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil || dec.More() {
			t.Fatalf("WriteContext wrote invalid output (%v): %q", err, out.String())
		}
		if v.HookSpecificOutput.AdditionalContext != in.Prompt || v.HookSpecificOutput.HookEventName != "UserPromptSubmit" {
			t.Fatalf("WriteContext changed the text: %q", v.HookSpecificOutput.AdditionalContext)
		}
	})
}

// compact normalises raw JSON (nil and "null" alike) for comparison.
func compact(t *testing.T, raw json.RawMessage) json.RawMessage {
	t.Helper()
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("raw field is not JSON: %v: %q", err, raw)
	}
	return b.Bytes()
}
