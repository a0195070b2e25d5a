package termsafe_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/carryover-dev/carryover/termsafe"
)

func TestString(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text\nwith\ttabs", "plain text\nwith\ttabs"},
		{"héllo wörld 全量", "héllo wörld 全量"},
		// OSC 52: set the clipboard.
		{"x\x1b]52;c;ZWNobyBwd25lZA==\x07y", `x\e]52;c;ZWNobyBwd25lZA==\x07y`},
		// Title, cursor movement, clear screen.
		{"\x1b]0;pwned\x1b\\", `\e]0;pwned\e\`},
		{"\x1b[2J\x1b[H", `\e[2J\e[H`},
		// C1 CSI, DEL, NUL, carriage return (overwrites a line).
		{"a\u009b31mb\x7fc\x00d\re", `a\u009b31mb\x7fc\x00d\x0de`},
		// Bidirectional override ("Trojan source").
		{"if admin \u202e{ }", `if admin \u{202e}{ }`},
		// Invalid UTF-8.
		{"ok\xffno", `ok\xffno`},
	}
	for _, c := range cases {
		if got := termsafe.String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := termsafe.Line("a\nb\tc"); got != `a\nb\tc` {
		t.Errorf("Line: %q", got)
	}
}

// FuzzString: whatever the input, the output holds no byte a terminal
// acts on (no C0 control but newline and tab, no DEL, no C1 control, no
// bidirectional control), is valid UTF-8, and printable input is kept.
func FuzzString(f *testing.F) {
	f.Add("\x1b]52;c;aGk=\x07")
	f.Add("a\u009bb\u202ec\xff")
	f.Add("plain")
	f.Fuzz(func(t *testing.T, s string) {
		out := termsafe.String(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q: %q", s, out)
		}
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 ||
				r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
				t.Fatalf("String(%q) kept %U", s, r)
			}
		}
		if !strings.ContainsAny(s, "\\") && out == s != safeInput(s) {
			t.Fatalf("String(%q) = %q changed printable text or kept a control", s, out)
		}
		line := termsafe.Line(s)
		if strings.ContainsAny(line, "\n\t") {
			t.Fatalf("Line(%q) kept a newline or tab", s)
		}
	})
}

func safeInput(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 ||
			r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			return false
		}
	}
	return true
}

func TestJSON(t *testing.T) {
	v := map[string]string{"text": "a\x1b]52;c;aGk=\x07 \u009b \u202e \x7f"}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out := termsafe.JSON(data)
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["text"] != v["text"] {
		t.Fatalf("JSON changed the value: %s (%v)", out, err)
	}
	for _, r := range string(out) {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x202e {
			t.Fatalf("JSON kept %U: %s", r, out)
		}
	}
}

// TestJSONLines: lines written in pieces, cut inside a character, come out
// as JSON of the whole, and a last line without its newline with Flush.
func TestJSONLines(t *testing.T) {
	in := "{\"a\":\"x\u009b2J\u202e\"}\n{\"b\":\"ok\"}\n{\"c\":\"\u0085\"}"
	var out bytes.Buffer
	w := termsafe.NewJSONLines(&out)
	for i := 0; i < len(in); i += 3 {
		if _, err := w.Write([]byte(in[i:min(i+3, len(in))])); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := string(termsafe.JSON([]byte(in))); out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	if strings.ContainsAny(out.String(), "\u009b\u202e\u0085") {
		t.Errorf("raw controls left: %q", out.String())
	}
}

// TestRawLine: what show --raw prints on a terminal has no byte a
// terminal acts on, and JSON stays JSON.
func TestRawLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":"ok \u001b[31m"}`, `{"a":"ok \u001b[31m"}`},
		{"{\"a\":\"csi \u009b31m, rlo \u202e\"}", `{"a":"csi \u009b31m, rlo \u202e"}`},
		{"\x1b]52;c;Zm9v\x07 not json", `\e]52;c;Zm9v\x07 not json`},
		{"{\"a\":1}\r\x1b[2K", `{"a":1}\x0d\e[2K`},
	} {
		if got := string(termsafe.RawLine([]byte(tc.in))); got != tc.want {
			t.Errorf("RawLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
