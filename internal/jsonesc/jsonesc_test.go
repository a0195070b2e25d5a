package jsonesc_test

import (
	"encoding/json"
	"testing"

	"github.com/carryover-dev/carryover/internal/jsonesc"
)

// TestAppendAsEncodingJSON: every escape decodes as encoding/json decodes
// it, surrogate pairs and lone surrogates included.
func TestAppendAsEncodingJSON(t *testing.T) {
	for _, esc := range []string{`\b`, `\f`, `\n`, `\r`, `\t`, `\"`, `\\`, `\/`, `\u00e9`, `\u00E9`, `\u2028`,
		`\ud83d\ude00`, `\ud83d`, `\ud83dx`, `\ude00\ud83d`, `\ud83d\u0041`} {
		var want string
		if err := json.Unmarshal([]byte(`"`+esc+`"`), &want); err != nil {
			t.Fatalf("%s: %v", esc, err)
		}
		var got []byte
		s := []byte(esc)
		for len(s) > 0 {
			if s[0] != '\\' {
				got, s = append(got, s[0]), s[1:]
				continue
			}
			var n int
			got, n = jsonesc.Append(got, s)
			s = s[n:]
		}
		if string(got) != want {
			t.Errorf("%s: %q, want %q", esc, got, want)
		}
	}
}
