package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

var jsonSeeds = []string{
	``, ` `, `{}`, `[]`, `""`, `"a"`, `0`, `-0`, `01`, `1.`, `1.5e+3`, `1e`, `-`, `true`, `tru`, `nul`, `null `,
	`{"a":1}`, `{"a" : [1, 2, {"b": null}] }`, `{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `{"a"}`, `{"a":}`, `{1:2}`,
	`[1 2]`, `{"a":1 "b":2}`, `"\u00e9\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`,
	`"\x"`, `"\u12"`, `"\u12G4"`, "\"\x01\"", "\"\xff\xfe\"", "\"a\\n\xc3\"", "\"\xed\xa0\x80\\n\"", `"\/\b\f\r\t\\\""`,
	`[[[[[]]]]]`, `{"a":{"b":{"c":[]}}}`, `]`, `}`, `[}`, `{]`, `1 2`, "\t[ 1 ,\n2 ]\r",
}

// TestValidJSONDepth: validJSON refuses what is nested deeper than
// encoding/json allows, as json.Valid does (too large for the fuzz corpus).
func TestValidJSONDepth(t *testing.T) {
	for _, n := range []int{63, 64, 65, maxJSONDepth - 1, maxJSONDepth, maxJSONDepth + 1} {
		for _, doc := range []string{
			strings.Repeat("[", n) + strings.Repeat("]", n),
			strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n),
			strings.Repeat(`[{"a":`, n/2) + "[]" + strings.Repeat("}]", n/2),
			strings.Repeat(`[{"a":`, n/2) + "[]" + strings.Repeat("]}", n/2),
		} {
			if got, want := validJSON([]byte(doc)), json.Valid([]byte(doc)); got != want {
				t.Errorf("depth %d, %.12q...: validJSON %v, json.Valid %v", n, doc, got, want)
			}
		}
	}
}

// FuzzValidJSON: validJSON gives json.Valid's answer on every input.
func FuzzValidJSON(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := validJSON(data), json.Valid(data); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid %v", data, got, want)
		}
	})
}

// FuzzUnquoteJSON: unquoteJSON decodes every valid JSON string as
// json.Unmarshal does, invalid UTF-8 and lone surrogates included.
func FuzzUnquoteJSON(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// The input as a string's inside, and quoted as it is.
		for _, q := range [][]byte{append(append([]byte{'"'}, data...), '"'), data} {
			if len(q) < 2 || q[0] != '"' || jsonStringEnd(q, 0) != len(q) {
				continue
			}
			var want string
			if err := json.Unmarshal(q, &want); err != nil {
				t.Fatalf("json.Unmarshal(%q): %v", q, err)
			}
			if got := unquoteJSON(q[1 : len(q)-1]); got != want {
				t.Fatalf("unquoteJSON(%q) = %q, json.Unmarshal %q", q, got, want)
			}
		}
	})
}

// TestRedactJSONAsEncodingJSON: RedactJSON masks the same strings as
// decoding each with encoding/json, on documents whose strings hold
// escapes, invalid UTF-8 and secrets.
func TestRedactJSONAsEncodingJSON(t *testing.T) {
	r := New(Options{})
	key := "AKIA" + "IOSFODNN7EXAMPLE"
	for _, doc := range []string{
		`{"cmd":"export AWS_ACCESS_KEY_ID=` + key + `\nls","out":"\u00e9"}`,
		`["password=\"hunter2hunter2\"\n", "\ud83d", "ok"]`,
		"{\"a\":\"\xff token: 9f8e7d6c5b4a39281706f5e4d3c2b1a0\\n\"}",
		`{"k\n":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----"}`,
	} {
		got, gotCounts := r.RedactJSON([]byte(doc))
		want, wantCounts := redactJSONReference(r, []byte(doc))
		if string(got) != string(want) || len(gotCounts) != len(wantCounts) {
			t.Errorf("RedactJSON(%q)\n = %q %v\nwant %q %v", doc, got, gotCounts, want, wantCounts)
		}
		if len(gotCounts) == 0 {
			t.Errorf("RedactJSON(%q) masked nothing", doc)
		}
	}
}

// redactJSONReference is RedactJSON as it was with encoding/json.
func redactJSONReference(r *Redactor, raw []byte) ([]byte, map[string]int) {
	if !json.Valid(raw) {
		out, counts := r.Redact(string(raw))
		if counts == nil {
			return raw, nil
		}
		return []byte(out), counts
	}
	s := string(raw)
	var out []byte
	var counts map[string]int
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		j, esc := i+1, false
		for s[j] != '"' {
			if s[j] == '\\' {
				esc = true
				j++
			}
			j++
		}
		text := s[i+1 : j]
		if esc {
			if err := json.Unmarshal(raw[i:j+1], &text); err != nil {
				text = s[i+1 : j]
			}
		}
		masked, cnt := r.Redact(text)
		if cnt != nil {
			AddCounts(&counts, cnt)
			out = append(out, s[last:i]...)
			out = appendJSONString(out, masked)
			last = j + 1
		}
		i = j
	}
	if out == nil {
		return raw, nil
	}
	return append(out, s[last:]...), counts
}
