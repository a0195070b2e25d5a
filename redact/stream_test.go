package redact_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/carryover-dev/carryover/redact"
)

// part is one text of a stream: masked as text, or as a JSON document (a
// tool call's input, a structured tool result).
type part struct {
	text string
	json bool
}

// splitCase is a private key cut across the texts of a transcript; parts
// must be gone from every text, keep must stay.
type splitCase struct {
	name  string
	texts []part
	parts []string
	keep  []string
}

// bashResult is a structured Bash result, as toolUseResult holds it.
func bashResult(stdout string) part {
	b, _ := json.Marshal(map[string]any{"stdout": stdout, "stderr": "", "interrupted": false, "isImage": false})
	return part{text: string(b), json: true}
}

// readResult is a structured Read result.
func readResult(content string, start, n int) part {
	b, _ := json.Marshal(map[string]any{"type": "text", "file": map[string]any{"filePath": "/home/dev/.ssh/deploy_key",
		"content": content, "numLines": n, "startLine": start, "totalLines": 15}})
	return part{text: string(b), json: true}
}

func readCall(offset, limit int) part {
	return part{text: fmt.Sprintf(`{"file_path":"/home/dev/.ssh/deploy_key","offset":%d,"limit":%d}`, offset, limit), json: true}
}

const between = "The output stops in the middle of the key; reading the rest of the file."

// splitCases are keys cut in two or three: a cat output cut short, Read
// calls with offset and limit (their text with line numbers, their
// structured result without), Bash results as JSON.
func splitCases(r *rand.Rand) []splitCase {
	var cs []splitCase
	body := func(ls []string) []string { return ls[1 : len(ls)-1] }

	ls := pemLines(r, "RSA PRIVATE KEY")
	cut := 30
	first := "$ cat deploy_key\n" + strings.Join(ls[:6], "\n") + "\n" + ls[6][:cut]
	second := ls[6][cut:] + "\n" + strings.Join(ls[7:], "\n") + "\n"
	cs = append(cs, splitCase{name: "cat cut in two", parts: append(body(ls), ls[6][:cut], ls[6][cut:]),
		texts: []part{{text: first}, bashResult(first), {text: between}, {text: second}, bashResult(second)},
		keep:  []string{between, "$ cat deploy_key"}})

	for _, sep := range []string{"→", "\t"} {
		ls = pemLines(r, "OPENSSH PRIVATE KEY")
		cs = append(cs, splitCase{name: "two Reads " + sep, parts: body(ls), keep: []string{between, "<system-reminder>"},
			texts: []part{
				readCall(1, 7), {text: numbered(ls[:7], 1, sep) + readReminder}, readResult(strings.Join(ls[:7], "\n"), 1, 7),
				{text: between}, readCall(8, 20),
				{text: numbered(ls[7:], 8, sep) + readReminder}, readResult(strings.Join(ls[7:], "\n"), 8, 8),
			}})
		// Three parts: the middle one has neither BEGIN nor END, only the
		// stream knows it is a key.
		ls = pemLines(r, "PRIVATE KEY")
		cs = append(cs, splitCase{name: "three Reads " + sep, parts: body(ls), keep: []string{between},
			texts: []part{
				readCall(1, 5), {text: numbered(ls[:5], 1, sep) + readReminder}, readResult(strings.Join(ls[:5], "\n"), 1, 5),
				{text: between}, readCall(6, 5),
				{text: numbered(ls[5:10], 6, sep) + readReminder}, readResult(strings.Join(ls[5:10], "\n"), 6, 5),
				readCall(11, 5),
				{text: numbered(ls[10:], 11, sep) + readReminder}, readResult(strings.Join(ls[10:], "\n"), 11, 5),
			}})
	}

	ls = pemLines(r, "EC PRIVATE KEY")
	var texts []part
	for k := 0; k < len(ls); k += 4 {
		texts = append(texts, bashResult(strings.Join(ls[k:min(len(ls), k+4)], "\n")+"\n"))
	}
	cs = append(cs, splitCase{name: "four JSON results", parts: body(ls), texts: texts})
	return cs
}

// mask runs a stream over texts; carry, when true, saves the Carry as
// JSON after each text and resumes from it in a new Stream, as ingest does
// between runs.
func mask(t *testing.T, r *redact.Redactor, texts []part, carry bool) []string {
	t.Helper()
	st := r.Stream(redact.Carry{})
	var outs []string
	for _, p := range texts {
		if p.json {
			out, _ := st.RedactJSON([]byte(p.text))
			if !json.Valid(out) {
				t.Fatalf("not JSON any more: %s", out)
			}
			outs = append(outs, string(out))
		} else {
			out, _ := st.Redact(p.text)
			outs = append(outs, out)
		}
		if carry {
			b, err := json.Marshal(st.Carry())
			if err != nil {
				t.Fatal(err)
			}
			var c redact.Carry
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatal(err)
			}
			st = r.Stream(c)
		}
	}
	return outs
}

// TestStreamSplitKey: a key cut across texts is gone from all of them,
// whether the stream runs at once or is resumed from its Carry after every
// text; the texts around it stay.
func TestStreamSplitKey(t *testing.T) {
	r := redact.New(redact.Options{})
	n := 0
	for seed := range uint64(10) {
		for _, c := range splitCases(rand.New(rand.NewPCG(seed, 21))) {
			for _, carry := range []bool{false, true} {
				n++
				all := strings.Join(mask(t, r, c.texts, carry), "\n")
				// JSON escapes the line breaks, not the base64 lines.
				for _, p := range c.parts {
					if strings.Contains(all, p) {
						t.Fatalf("%s (carry %v): %q left in\n%s", c.name, carry, p, all)
					}
				}
				for _, k := range c.keep {
					if !strings.Contains(all, k) {
						t.Errorf("%s: %q lost:\n%s", c.name, k, all)
					}
				}
			}
		}
	}
	t.Logf("split keys: %d streams, none left", n)
}

// TestStreamNeedsCarry: the middle of a key read in three parts is masked
// by a stream only, not by texts masked one by one, so the test above
// tests the carry.
func TestStreamNeedsCarry(t *testing.T) {
	r := redact.New(redact.Options{})
	ls := pemLines(rand.New(rand.NewPCG(1, 1)), "PRIVATE KEY")
	middle := numbered(ls[5:10], 6, "→") + readReminder
	if out, _ := r.Redact(middle); !strings.Contains(out, ls[6]) {
		t.Fatalf("the middle part alone was masked: %s", out)
	}
}

// TestStreamLookalikes: after a key left open, texts that are not its
// continuation stay as they are, and the carry ends after enough of them
// or at the key's END line.
func TestStreamLookalikes(t *testing.T) {
	r := redact.New(redact.Options{})
	rng := rand.New(rand.NewPCG(2, 2))
	ls := pemLines(rng, "RSA PRIVATE KEY")
	open := strings.Join(ls[:6], "\n") + "\n"
	sha := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	others := []string{
		sha + "\n",
		sha + "  build/app.tgz\n",
		"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b\n",
		"README.md\ngo.mod\nmain.go\n",
		"3f2c1a7 fix: handle the empty token list\n8d0e4b2 feat: add the password reset flow\n",
		"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg" + rs(rng, b64Chars, 400) + "\n",
		"550e8400-e29b-41d4-a716-446655440000\n6ba7b810-9dad-11d1-80b4-00c04fd430c8\n",
	}
	st := r.Stream(redact.Carry{})
	if out, _ := st.Redact(open); strings.Contains(out, ls[3]) || st.Carry().IsZero() {
		t.Fatalf("key not masked or not left open: %q, carry %+v", out, st.Carry())
	}
	for _, o := range others {
		if out, c := st.Redact(o); out != o || c != nil {
			t.Errorf("look-alike changed after an open key (%v):\n%s->\n%s", c, o, out)
		}
	}
	// The carry runs out: a base64 line much later is not a key's.
	for range 64 {
		st.Redact(between)
	}
	wide := rs(rng, b64Chars, 64) + "\n"
	if out, _ := st.Redact(wide); out != wide {
		t.Errorf("carry did not run out: %q", out)
	}
	// An END line closes the block.
	st = r.Stream(redact.Carry{})
	st.Redact(open)
	st.Redact(strings.Join(ls[6:], "\n"))
	if !st.Carry().IsZero() {
		t.Errorf("carry still open after the END line: %+v", st.Carry())
	}
	if out, _ := st.Redact(wide); out != wide {
		t.Errorf("a base64 line after a closed key changed: %q", out)
	}
}

// TestOmitted: a text whose scan would cost more than its budget is
// replaced whole, never kept as it is, and counted.
func TestOmitted(t *testing.T) {
	r := redact.New(redact.Options{})
	in := strings.Repeat("DB_PASSWORD=Xk9mP2qLvR7t curl -u bob:hunter2 ", 50)
	out, counts := r.RedactBudget(in, 1000)
	if out != redact.Omitted(len(in)) || counts[redact.OmittedKind] != 1 || len(counts) != 1 {
		t.Fatalf("over budget: %q %v", out, counts)
	}
	if out, counts := r.Redact(in); strings.Contains(out, "hunter2") || counts["password"] != 100 {
		t.Fatalf("within budget: %q %v", out, counts)
	}
}

// TestRedactJSONOrder: the strings of a document are masked in order
// (a key cut across two strings of one result is masked in both), and the
// rest of the document stays byte for byte.
func TestRedactJSONOrder(t *testing.T) {
	r := redact.New(redact.Options{})
	ls := pemLines(rand.New(rand.NewPCG(3, 3)), "PRIVATE KEY")
	doc := fmt.Sprintf(`{"a": "%s", "n": 1.50e3, "b": [ "%s" ],  "c": "<&>"}`,
		strings.Join(ls[:6], `\n`), strings.Join(ls[6:10], `\n`))
	out, counts := r.Stream(redact.Carry{}).RedactJSON([]byte(doc))
	for _, l := range ls[1 : len(ls)-1] {
		if strings.Contains(string(out), l) {
			t.Fatalf("%s left in %s", l, out)
		}
	}
	if counts["private-key"] != 2 || !strings.Contains(string(out), `"n": 1.50e3, "b": [ "`) || !strings.Contains(string(out), `"c": "<&>"`) {
		t.Errorf("got %s %v", out, counts)
	}
}

// TestCountsHoldNoValue: the counts by kind name detector kinds only,
// never a part of the text.
func TestCountsHoldNoValue(t *testing.T) {
	r := redact.New(redact.Options{})
	kinds := map[string]bool{redact.OmittedKind: true}
	for _, k := range redact.Kinds() {
		kinds[k] = true
	}
	texts, _ := plantAll(rand.New(rand.NewPCG(4, 4)))
	for _, c := range splitCases(rand.New(rand.NewPCG(4, 4))) {
		for _, p := range c.texts {
			texts = append(texts, p.text)
		}
	}
	for _, in := range texts {
		_, counts := r.Redact(in)
		for k := range counts {
			if !kinds[k] {
				t.Fatalf("count kind %q is not a detector kind (text %q)", k, in)
			}
		}
	}
}

// TestRedactJSONEscapes: a string re-encoded after masking decodes to the
// masked text, control characters, quotes and non-ASCII included.
func TestRedactJSONEscapes(t *testing.T) {
	r := redact.New(redact.Options{})
	text := "a\x01b\"c\\d\te\nf é→ <&> DB_PASSWORD=Xk9mP2qLvR7t \x7f"
	raw, _ := json.Marshal(map[string]string{"stdout": text})
	out, counts := r.RedactJSON(raw)
	var got map[string]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want, _ := r.Redact(text)
	if got["stdout"] != want || counts["password"] != 1 {
		t.Errorf("got %q %v, want %q", got["stdout"], counts, want)
	}
}

// TestLargeTextRescan: in a text larger than the reach of every rule,
// the passes after the first rescan only around the labels; the result is
// the same as masking each part alone, and stable.
func TestLargeTextRescan(t *testing.T) {
	r := redact.New(redact.Options{})
	rng := rand.New(rand.NewPCG(5, 5))
	var parts []string
	for k := range 6 {
		var b strings.Builder
		for b.Len() < 200_000 {
			fmt.Fprintf(&b, "line %d of the build log: compiled %s in %dms\n", k, rs(rng, lowerChars, 8), rng.IntN(900))
		}
		parts = append(parts, b.String()+fmt.Sprintf("DB_PASSWORD=%s TOKEN=ghp_%s\n", rs(rng, alnum, 16), rs(rng, alnum, 36)))
	}
	in := strings.Join(parts, "")
	out, counts := r.Redact(in)
	var want strings.Builder
	for _, p := range parts {
		o, _ := r.Redact(p)
		want.WriteString(o)
	}
	if out != want.String() || counts["password"] != 6 || counts["github-pat"] != 6 {
		t.Fatalf("masked whole differs from masked in parts (%v)", counts)
	}
	if again, c := r.Redact(out); again != out || c != nil {
		t.Fatalf("not stable: %v", c)
	}
}
