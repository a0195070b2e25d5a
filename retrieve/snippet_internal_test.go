package retrieve

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/carryover-dev/carryover"
	"github.com/carryover-dev/carryover/passage"
)

// TestSnippetsShareByRank checks that better hits get longer snippets and
// that all texts together stay within the budget.
func TestSnippetsShareByRank(t *testing.T) {
	var hits []carryover.Hit
	for i := range 4 {
		var b strings.Builder
		fmt.Fprintf(&b, "chunk %d mentions widgetFactory setting\n", i)
		for j := range 60 {
			fmt.Fprintf(&b, "line %d of chunk %d says more about it\n", j, i)
		}
		hits = append(hits, carryover.Hit{Score: float64(10 - i), Chunk: carryover.Chunk{
			ID: int64(i + 1), SessionID: "s1", Turn: i, FirstLine: 10 * i, LastLine: 10*i + 9,
			Text: b.String(), Hash: fmt.Sprint(i),
		}})
	}
	const budget = 2000
	rs := snippets(plainEntries(hits), queryTerms("widgetFactory setting"), budget)
	if len(rs) != len(hits) {
		t.Fatalf("got %d results, want %d", len(rs), len(hits))
	}
	total := 0
	for i, r := range rs {
		total += len(r.Text)
		if i > 0 && len(r.Text) >= len(rs[i-1].Text) {
			t.Errorf("result %d has %d bytes, not fewer than result %d (%d)", i, len(r.Text), i-1, len(rs[i-1].Text))
		}
	}
	if total > budget {
		t.Errorf("results total %d bytes, budget %d", total, budget)
	}
	if len(rs[0].Text) < budget/3 {
		t.Errorf("best hit shows %d bytes, want at least a third of the budget", len(rs[0].Text))
	}
}

func TestInformativeLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"end", false},
		{`"""`, false},
		{"}", false},
		{"… [3948 chars omitted] …", false},
		{"port: 4002,", true},
		{"config/test.exs", true},
		{"Now update the shared component", true},
	} {
		if got := informativeLine(c.line); got != c.want {
			t.Errorf("informativeLine(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}

// TestStepsPart: the last tool calls before the cut, oldest first, one
// line each, relative to the root, repeats and what the summary states
// left out.
func TestStepsPart(t *testing.T) {
	chunks := []carryover.Chunk{ // newest first
		{ID: 2, FirstLine: 20, LastLine: 30, Text: "Assistant: now run it\n$ go test ./...\n→ ok\nEdit /src/app/lib/app.ex:\n+ timeout_ms: 1500"},
		{ID: 1, FirstLine: 10, LastLine: 19, Text: "$ go test ./...\n→ FAIL\nRead /src/app/lib/app.ex\nGrep \"quoted_in_summary\" in lib"},
	}
	c := newComposer(newNovelty(`we searched for quoted_in_summary`, "/src/app"), "/src/app", &restoreMemo{})
	got := strings.Join(c.stepsPart(chunks, 1000), "")
	want := "- L19 Read lib/app.ex\n- L30 $ go test ./...\n- L30 Edit lib/app.ex:\n"
	if got != want {
		t.Errorf("stepsPart =\n%s\nwant\n%s", got, want)
	}
}

// A window inside a tool call's output is led by the call's line, in the
// window's room; one inside a message or at a call is not.
func TestWindowLedByCall(t *testing.T) {
	var out strings.Builder
	for i := range 80 {
		fmt.Fprintf(&out, "  compiling module_%02d ... done\n", i)
	}
	const call = "$ make build-all TARGET=release  # Build everything"
	text := "Assistant: Building the release now.\n" + call + "\n→ ok\n" + out.String() +
		"error: linker cannot find libzstd_static\n" + strings.Repeat("  cleanup step\n", 20) +
		"Assistant: Installing the missing library now.\n"
	for _, size := range []int{200, 400, 800} {
		got := window(text, queryTerms("libzstd_static linker"), size)
		if len(got) > size {
			t.Errorf("size %d: %d bytes", size, len(got))
		}
		if !strings.Contains(got, "error: linker cannot find libzstd_static") {
			t.Errorf("size %d: the matching line is gone:\n%s", size, got)
		}
		if !strings.HasPrefix(got, "$ make build-all") {
			t.Errorf("size %d: not led by the call:\n%s", size, got)
		}
		if size == 800 && !strings.HasPrefix(got, call+"\n") {
			t.Errorf("size %d: the call is cut though it fits:\n%s", size, got)
		}
	}
	// The match in the assistant's message: no call leads.
	if got := window(text, queryTerms("installing missing library"), 200); strings.HasPrefix(got, "$ ") {
		t.Errorf("a message's window led by a call:\n%s", got)
	}
	// A window too small to share stays as it was.
	if got := window(text, queryTerms("libzstd_static"), 100); strings.HasPrefix(got, "$ ") {
		t.Errorf("a 100-byte window led by a call:\n%s", got)
	}
}

// TestWindowAnswerShape: a question that asks for a commit hash or a
// number shows the window that holds one beside its words, not the one
// that only repeats them; a question that asks for neither is unchanged.
func TestWindowAnswerShape(t *testing.T) {
	var b strings.Builder
	b.WriteString("$ git add -A && git commit -m \"$(cat <<'EOF'\nfeat: checkout retry keys (checkout retry fix)\n\n")
	for i := range 30 {
		fmt.Fprintf(&b, "The checkout retry fix keeps request keys, point %d.\n", i)
	}
	b.WriteString("EOF\n)\"\n→ ok\n[main 4f2a9c1] feat: checkout retry keys\n 3 files changed, 40 insertions(+)\n")
	text := b.String()
	const size = 120
	for _, c := range []struct {
		q, want string
		shows   bool
	}{
		{"what is the commit hash of the checkout retry fix?", "4f2a9c1", true},
		{"which commit added the checkout retry keys", "4f2a9c1", true},
		{"tell me about the checkout retry fix", "4f2a9c1", false},
	} {
		w := window(text, answerTerm(c.q, queryTerms(c.q)), size)
		if strings.Contains(w, c.want) != c.shows {
			t.Errorf("%q: window %q, want %q shown: %v", c.q, w, c.want, c.shows)
		}
	}
	log := "Compiling 4 files (.ex)\nRunning ExUnit with seed: 792999, max_cases: 32\n" + strings.Repeat(".", 300) +
		"\nFinished in 0.3 seconds\n59 tests, 0 failures\nAssistant: The renderer tests pass; now the new tests for the renderer."
	q := "how many tests did the renderer have?"
	if w := window(log, answerTerm(q, queryTerms(q)), 60); !strings.Contains(w, "59 tests") {
		t.Errorf("%q: window %q", q, w)
	}
	for q, want := range map[string]answerShape{
		"What is the commit hash of X?": hashShape, "how many retries": numberShape, "which port does it use": numberShape,
		"how do I run it": noShape, "hash the password": noShape, "": noShape,
	} {
		if got := shapeOf(q); got != want {
			t.Errorf("shapeOf(%q) = %d, want %d", q, got, want)
		}
	}
}

// TestWindowBesideCall: the words the call's line shows need not be in
// the output's span again. A spec printed by `show ISSUE-7` names the
// issue in its header, and the question's other words come a window's
// length below: a span from the header took the whole window and cut the
// line that answers after its first words.
func TestWindowBesideCall(t *testing.T) {
	const (
		call   = "$ tracker show ISSUE-7  # Show the next task"
		answer = "  - Pretty-print each row payload with `Jason.encode!(line.debug_payload, pretty: true)`."
	)
	var out strings.Builder
	out.WriteString("→ ok\nISSUE-7 · Render the sidecar\n\nDESCRIPTION\n")
	for i := range 20 {
		fmt.Fprintf(&out, "- background paragraph %02d about the transcript view\n", i)
	}
	out.WriteString("Technical specs:\n" + answer + "\n- Default state: first 10 lines visible.\n")
	text := "Assistant: Next task.\n" + call + "\n" + out.String() + "Assistant: Implementing it now.\n"
	// The window's room past the call reaches just past the answer's
	// last matching word.
	size := len(call) + 1 + strings.Index(out.String(), ", pretty") + 3
	got := window(text, queryTerms("How should each row's debug payload be pretty-printed according to the ISSUE-7 spec?"), size)
	if len(got) > size {
		t.Errorf("%d bytes, size %d", len(got), size)
	}
	if !strings.HasPrefix(got, call+"\n") {
		t.Errorf("not led by the call:\n%s", got)
	}
	if !strings.Contains(got, "pretty: true)") {
		t.Errorf("the answer's line is cut off:\n%s", got)
	}

	terms := queryTerms("debug payload ISSUE-7")
	zero := func(ts []term) (n int) {
		for _, t := range ts {
			if t.weight == 0 {
				n++
			}
		}
		return n
	}
	if b := beside(terms, call); zero(b) == 0 || zero(b) == len(b) || zero(terms) != 0 {
		t.Errorf("beside(%+v) = %+v: want the call's terms and only those weightless, its argument unchanged", terms, b)
	}
}

// FuzzWindow: whatever the text and the query, a window is at most its
// size, valid UTF-8 when the text is, and made of the text's own bytes
// but for the "…" marks at its cut edges.
func FuzzWindow(f *testing.F) {
	f.Add("Assistant: next.\n$ bd show ISSUE-7\n→ ok\nISSUE-7 · header\n- a line about rows\n- payload with X\n", "debug payload ISSUE-7", 60)
	f.Add("$ make\n→ ok\nerror: linker cannot find libzstd_static\n", "libzstd_static linker", 200)
	f.Add("信息：第一批数据已处理，耗时十二毫秒。\n$ run\n→ ok\n结果", "耗时 run", 30)
	f.Fuzz(func(t *testing.T, text, query string, size int) {
		if size < 1 || size > 1<<16 || len(text) > 1<<16 {
			t.Skip()
		}
		got := window(text, queryTerms(query), size)
		if len(got) > size {
			t.Fatalf("window of %d bytes, size %d", len(got), size)
		}
		if utf8.ValidString(text) && !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 from valid text: %q", got)
		}
		for _, part := range strings.Split(strings.ReplaceAll(got, "…", "\x00"), "\x00") {
			for _, line := range strings.Split(part, "\n") {
				if !strings.Contains(text, line) {
					t.Fatalf("line %q is not the text's", line)
				}
			}
		}
	})
}

// FuzzTextHelpers runs the restore's and search's string helpers on any
// input: none may panic, the ones that bound their output keep to it, and
// valid UTF-8 stays valid.
func FuzzTextHelpers(f *testing.F) {
	f.Add("cd /src && go test ./... -run 'TestA|TestB' 2>&1 | tail -5", 40)
	f.Add("bash -c \"make build && make test\"  # Build and test", 12)
	f.Add("[>] a · [ ] b\n[x] c\n[completed] d", 9)
	f.Add("lib/web/{router.ex,pane_live.ex} 信息：第一批 \x00\xff", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1<<12 || len(s) > 1<<14 {
			t.Skip()
		}
		valid := utf8.ValidString(s)
		check := func(name, got string, bound int) {
			t.Helper()
			if bound >= 0 && len(got) > bound {
				t.Fatalf("%s: %d bytes, bound %d: %q", name, len(got), bound, got)
			}
			if valid && !utf8.ValidString(got) {
				t.Fatalf("%s: invalid UTF-8 from valid input: %q", name, got)
			}
		}
		check("clip", clip(s, n), n)
		check("todoLine", todoLine(s, n), n)
		check("oneLine", oneLine(s), -1)
		check("normSpace", normSpace(s), -1)
		check("shortCommand", shortCommand(s), -1)
		check("commandKey", commandKey(s), -1)
		check("maskDigits", maskDigits(s), -1)
		check("unquoted", unquoted(s), -1)
		_ = commandKind(s)
		_ = isCallLine(s)
		p, r := familyOf(s)
		check("familyOf prefix", p, -1)
		check("familyOf rest", r, -1)
		for _, l := range specFileLine(s, n) {
			check("specFileLine", l, -1)
		}
		_ = containsBounded(lowerASCII(s), lowerASCII(oneLine(s)))
		if line, from := callOf(s, min(n, len(s))); from < 0 || from > len(s) || len(line) > callCap+len("…") {
			t.Fatalf("callOf(%d) = %q, %d", n, line, from)
		}
	})
}

// FuzzSnippets renders search and recall results from any texts: a plain
// hit, a hit with the passage of its chunk attached, and a passage of its
// own. None may panic; the results keep to the budget, and to valid
// UTF-8 from valid texts.
func FuzzSnippets(f *testing.F) {
	f.Add("$ go test ./...\n→ FAIL\nTestA failed: want 3", "User: port?\nAssistant: 48213", "line one\nRATE_LIMIT_WINDOW_MS=84213\nline three", "RATE_LIMIT_WINDOW_MS which port", 2000)
	f.Add("", "", "", "", 1)
	f.Add("信息：第一批数据已处理", "(cont.) $ bd show x\n→ ok\n", strings.Repeat("a\n", 300), "commit hash of the first commit", 300)
	f.Fuzz(func(t *testing.T, a, b, long, query string, budget int) {
		if budget < 1 || budget > 1<<14 || len(long) > 1<<16 {
			t.Skip()
		}
		hit := func(id int64, text string) carryover.Hit {
			return carryover.Hit{Score: float64(10 - id), BM25: 5, Chunk: carryover.Chunk{ID: id, SessionID: "s1", Turn: int(id),
				FirstLine: int(id) * 10, LastLine: int(id)*10 + 5, Text: text, Hash: fmt.Sprint(id)}}
		}
		find := func(h carryover.Hit, found bool) *passageFind {
			ps := passage.Cut(h.Chunk.LastLine, long)
			if len(ps) == 0 {
				return nil
			}
			return &passageFind{hit: carryover.PassageHit{SessionID: "s1", Line: h.Chunk.LastLine, BM25: 3}, parts: ps,
				lines: strings.Split(strings.ToValidUTF8(long, "\uFFFD"), "\n"), cov: 0.6, chunk: h.Chunk, found: found}
		}
		es := []searchEntry{{hit: hit(1, a)}, {hit: hit(2, b)}, {hit: hit(3, a+"\n"+b)}}
		if p := find(es[1].hit, true); p != nil {
			es[1].pass, es[1].attached = p, true
		}
		if p := find(es[2].hit, false); p != nil {
			es[2].pass = p
		}
		terms := answerTerm(query, queryTerms(query))
		total := 0
		for _, r := range snippets(es, terms, budget) {
			total += len(r.Text)
			if utf8.ValidString(a) && utf8.ValidString(b) && utf8.ValidString(long) && !utf8.ValidString(r.Text) {
				t.Fatalf("invalid UTF-8 from valid texts: %q", r.Text)
			}
		}
		if total > budget {
			t.Fatalf("results of %d bytes, budget %d", total, budget)
		}
		req := RecallRequest{SessionID: "s2", Prompt: query, Window: 1}
		if blk := recallBlock(es, queryTerms(query), req, budget, RecallMinScore, RecallMinCoverage); len(blk.Text) > budget {
			t.Fatalf("recall block of %d bytes, budget %d", len(blk.Text), budget)
		}
	})
}

// FuzzFailureSignature runs failure recall's matching on any error text,
// command and archived item: none may panic, and a score is a similarity
// between 0 and 1.
func FuzzFailureSignature(f *testing.F) {
	f.Add("Exit code 1\n--- FAIL: TestA (0.01s)\n    a_test.go:12: want 3", "go test ./... -run TestA", "$ go test ./... 2>&1", "fixed by: a.go — in $ go test ./...")
	f.Add("error: 0xdeadbeef at /tmp/x/y:3 2026-01-01T00:00:00Z", "git push", "Bash", "")
	f.Add("信息：错误", "", "$ ", "fixed by:  — in ")
	f.Fuzz(func(t *testing.T, errText, command, detail, fixed string) {
		if len(errText)+len(command)+len(detail)+len(fixed) > 1<<16 {
			t.Skip()
		}
		_ = RecallableFailure("Bash", errText)
		sig := newFailureSig(errText, "Bash", command)
		for _, d := range []string{detail, fixed + detail, "$ " + command} {
			it := carryover.Item{Kind: carryover.KindError, Text: errText + detail, Detail: d}
			if s := sig.score(it); s < 0 || s > 1 {
				t.Fatalf("score %v of %q against %q", s, errText, it.Text)
			}
			_ = sig.sameProgram(it)
			_, _ = itemCall(it)
			_ = fixedBy(carryover.Item{Kind: carryover.KindError, Detail: fixed + d})
		}
		_ = saysFix(errText, []string{command, detail})
		_ = inspects(command)
		_ = shortCommands(command)
		_ = relPaths(errText, detail)
	})
}
