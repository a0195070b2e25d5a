package transcript

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkFast compares decodeFast with decodeStd, the encoding/json decoder,
// on one line: when decodeFast takes a line it must decode it exactly as
// decodeStd does, and it must leave every line decodeStd rejects.
func checkFast(t *testing.T, line []byte) (taken bool) {
	t.Helper()
	if !utf8.Valid(line) {
		line = []byte(strings.ToValidUTF8(string(line), "\uFFFD"))
	}
	fast, ok := decodeFast(line)
	std, err := decodeStd(line)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("decodeFast took a line encoding/json rejects (%v): %.300q", err, line)
	}
	if !reflect.DeepEqual(fast, std) {
		t.Fatalf("decodeFast differs from encoding/json on %.300q:\nfast %+v\n std %+v", line, fast, std)
	}
	return true
}

// fastCases are lines that probe the corners of encoding/json's decoding.
var fastCases = []string{
	`{"type":"user","message":{"role":"user","content":"hi"}}`,
	`{"type":"assistant","uuid":"a","parentUuid":null,"message":{"id":"m","content":[{"type":"text","text":"x"},{"type":"thinking","thinking":"t","text":"ignored"},{"type":"tool_use","id":"tu","name":"Bash","input":{"command":"ls"}}]}}`,
	`{"type":"user","toolUseResult":{"stdout":"ok"},"message":{"content":[{"tool_use_id":"tu","type":"tool_result","content":[{"type":"text","text":"a"},"b",{"type":"image"},{"type":"text","text":null},{"type":"text","text":5},{"TYPE":"text","Text":"c"},{"type":"text","type":"text","text":"d","text":"e"},null,7,[1],{"type":null,"text":"f"}],"is_error":true}]}}`,
	`{"type":"user","message":{"content":[{"content":"late type","type":"tool_result"},{"type":"tool_result","content":{"text":"object"}},{"type":"tool_result"}]}}`,
	`{"type":"user","message":{"content":[]}}`,
	`{"type":"user","message":{"content":null}}`,
	`{"type":"user","message":null}`,
	`{"type":"user","message":"text"}`,
	`{"type":"user","message":{"content":[null]}}`,
	`{"type":"user","message":{"content":[{"type":"text","text":"a","is_error":"no"}]}}`,
	`{"type":"assistant","message":{"id":5}}`,
	`{"type":"progress","data":{"type":"hook_progress","nested":{"a":[1,2,{"b":null}]}},"subtype":"x"}`,
	`{"type":"progress","data":null,"subtype":"kept"}`,
	`{"type":"progress","data":{}}`,
	`{"type":"progress","data":{"type":"a","TYPE":"b"}}`,
	`{"type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":5}}`,
	`{"type":"system","subtype":"compact_boundary","content":["not","a","string"]}`,
	`{"type":"system","subtype":"informational","content":"a\nb"}`,
	`{"type":"attachment","attachment":{"type":"hook_additional_context","content":["one",{"type":"text","text":"two"}]}}`,
	`{"type":"attachment","attachment":null}`,
	`{"type":"attachment","attachment":{"content":"x","type":"t"}}`,
	`{"type":"summary","summary":"Title","leafUuid":"l"}`,
	`{"type":"queue-operation","content":"queued"}`,
	`{"type":"queue-operation","content":[{"type":"text","text":"q"}]}`,
	`{"type":"user","isMeta":true,"isSidechain":null,"isCompactSummary":false,"isVisibleInTranscriptOnly":true,"agentId":"ag","cwd":"/p","version":"2.1","gitBranch":"main","sessionId":"s","timestamp":"2026-01-02T03:04:05.678Z"}`,
	`{"type":"user","timestamp":"not a time"}`,
	`{"Type":"user"}`,
	`{"type":"user","type":"assistant"}`,
	`{"tyPe":"user","uuid":"u"}`,
	`{"typ\u0065":"user","uuid":"\u0041\ud83d\ude00\ud800\u0042\udc00\ud800\\u0041\/\"\\\b\f\n\r\t"}`,
	`{"\u212aey":"kelvin","type":"user"}`,
	`{"ſummary":"long s","type":"summary"}`,
	`{"type":"user","isMeta":1}`,
	`{"type":"user","uuid":7}`,
	`{"type":"user","parentUuid":7}`,
	`{"type":"user","extra":[1,-2.5e+3,0.0,-0,1E5,true,false,null,"s",{}]}`,
	` {"type":"user"} `,
	`{"type":"user"} x`,
	`{"type":"user",}`,
	`{"type":"user" "uuid":"x"}`,
	`{"type":"user","extra":01}`,
	`{"type":"user","extra":1.}`,
	`{"type":"user","extra":.5}`,
	`{"type":"user","extra":-}`,
	`{"type":"user","extra":"tab	inside"}`,
	`{"type":"user","extra":"bad \x escape"}`,
	`{"type":"user","extra":"\u12"}`,
	`{"type":"user","extra":nul}`,
	`{"type":"user","extra":[1,]}`,
	`{"type":"user"`,
	`["not","an","object"]`,
	`null`,
	`"string"`,
	`{}`,
	``,
	`{"type":"user","message":{"content":[{"type":"tool_use","input":null,"id":"i"}]}}`,
	`{"type":"user","toolUseResult":null}`,
	`{"type":"user","toolUseResult":"Error: failed"}`,
	`{"type":"assistant","message":{"id":"m","id":"n"}}`,
	`{"type":"assistant","message":{"ID":"m"}}`,
	`{"type":"user","message":{"content":[{"type":"tool_result","content":"x","CONTENT":"y"}]}}`,
	strings.Repeat(`{"a":`, 1200) + `1` + strings.Repeat(`}`, 1200),
	`{"type":"user","extra":` + strings.Repeat(`[`, 20) + strings.Repeat(`]`, 20) + `}`,
}

func TestDecodeFastCases(t *testing.T) {
	taken := 0
	for _, c := range fastCases {
		if checkFast(t, []byte(c)) {
			taken++
		}
	}
	if taken < len(fastCases)/3 {
		t.Errorf("decodeFast took only %d of %d cases", taken, len(fastCases))
	}
}

// TestDecodeFastRealSessions decodes every line of the shared transcripts
// both ways, and checks that decodeFast takes almost all of them (else it
// would not be the fast path).
func TestDecodeFastRealSessions(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "data", "transcripts")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the shared data folder is missing under CI: %v", err)
		}
		t.Skipf("no shared transcripts beside the repository: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.jsonl"))
	sub, _ := filepath.Glob(filepath.Join(dir, "*", "*", "subagents", "*.jsonl"))
	files = append(files, sub...)
	if len(files) == 0 {
		t.Fatal("no transcripts")
	}
	lines, taken := 0, 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for line := range bytes.Lines(data) {
			line = bytes.TrimSpace(line)
			if i++; len(line) == 0 || raceBuild && i%10 != 0 {
				continue // under -race, a tenth of the lines
			}
			lines++
			if checkFast(t, line) {
				taken++
			}
		}
	}
	t.Logf("decodeFast took %d of %d lines", taken, lines)
	if taken < lines*99/100 {
		t.Errorf("decodeFast took only %d of %d lines", taken, lines)
	}
}

func FuzzDecodeFast(f *testing.F) {
	for _, c := range fastCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkFast(t, line)
	})
}

// TestSpecials checks the eight-byte test against a byte by byte one, for
// every byte value at every position among plain and special bytes: the
// lowest flagged byte must be the first special one.
func TestSpecials(t *testing.T) {
	special := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 }
	for _, fill := range []byte{'a', 0x7f, 0x80, 0xa0, 0xff, ' ', '!', '#', '[', ']', '"', 0x1f} {
		for pos := range 8 {
			for c := range 256 {
				var b [8]byte
				for i := range b {
					b[i] = fill
				}
				b[pos] = byte(c)
				want := 8
				for i := range b {
					if special(b[i]) {
						want = i
						break
					}
				}
				got := bits.TrailingZeros64(specials(binary.LittleEndian.Uint64(b[:]))) / 8
				if got != want {
					t.Fatalf("first special of %q at %d, want %d", b, got, want)
				}
			}
		}
	}
}

// BenchmarkReadSession reads the largest real session with a Reader, as a
// cold ingest does.
func BenchmarkReadSession(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "shared", "data", "transcripts", "spotter", "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"))
	if err != nil {
		b.Skipf("no shared transcripts beside the repository: %v", err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r := NewReader(bytes.NewReader(data), 0, 0)
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
}
